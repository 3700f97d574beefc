// What the engine needs from the gateway, and nothing more. The real GatewayClient (main/gateway)
// satisfies this structurally; unit tests use a fake. Calls throw GatewayError (main/gateway/errors).
import type { PayoutRequest } from '../gateway/responses';
import type { PaymentRecord } from '../journal/types';

export type { PayoutRequest };

/** A status read from the gateway (payout or payin), amounts already in minor units. */
export interface GatewayStatusRead {
  status?: string | undefined;
  amountMinor?: number | undefined;
  currencyCode?: string | undefined;
  feeMinor?: number | undefined;
  feeCurrencyCode?: string | undefined;
  processedAt?: string | undefined;
  isTest?: boolean | undefined;
  failureReason?: string | undefined;
  raw: unknown;
}

export interface GatewayBalanceRead {
  currencyCode: string;
  availableMinor: number;
  reservedMinor?: number | undefined;
}

export interface LimiterUsagePort {
  inWindow: number;
  limit: number;
  queued: Readonly<Record<string, number>>;
  /** Milliseconds since a request of each lane was last released (null: never). */
  msSinceRelease?: Readonly<Record<string, number | null>>;
}

export interface PayoutGatewayPort {
  /**
   * POST /payouts/{id}: resolves on any 2xx; 409 throws kind 'conflict'. `beforeSend` runs once the
   * rate slot is ours, right before the request leaves; false → SendCancelledError, nothing sent.
   */
  createPayout(idPayout: string, request: PayoutRequest, options?: { beforeSend?: () => boolean }): Promise<{ raw: unknown }>;
  /** GET /payouts/{id} on the limiter's 'status' lane; unknown id throws kind 'not-found'. */
  getPayout(idPayout: string): Promise<GatewayStatusRead>;
  getPayin(idPayin: string): Promise<GatewayStatusRead>;
  balances(currencyCodes: string[]): Promise<GatewayBalanceRead[]>;
  /** The merchant's shared rate budget, read so the poller leaves room for creates. */
  readonly limiter: { usage(): LimiterUsagePort };
}

/**
 * Dual control (main/approvals/gate.ts satisfies this structurally): asked before any create of a payout or of
 * a batch's rows, a first send ('first') or only re-sends of unknown outcomes ('resend'). A refusal sends
 * nothing; its message says why.
 */
export interface ApprovalGatePort {
  check(subject: { kind: 'payout' | 'batch'; id: string }, need?: 'first' | 'resend'): Promise<{
    ok: boolean;
    enforced: boolean;
    code: string | null;
    message: string;
    verdict: { requirement: { required: number }; approvedBy: string[] } | null;
    /** With a yes: what the yes holds for, asked again right before each create leaves. */
    clearance?: ApprovalClearance;
  }>;
  /**
   * Dual control: why the subject as the journal holds it now is not what its preparer signed (a row, a callback
   * address, the preparer or the time changed since), or null. Asked before its preparer signs it again (a move of
   * its release time), so a re-signature never covers a row someone else rewrote.
   */
  preparationProblem?(subject: { kind: 'payout' | 'batch'; id: string }): Promise<string | null>;
}

/**
 * A yes of the gate is a verdict of one moment; a create may wait for its rate slot long after it. The
 * sender takes the body to send from it, and asks it again (synchronously, once the slot is ours): only
 * if it still holds and gives the same body does the create leave; otherwise nothing leaves and the gate is
 * asked again.
 */
export interface ApprovalClearance {
  /** False once anything the verdict rested on changed: the control chain, approvals, preparations, the payee book. */
  stillValid(): boolean;
  /**
   * The body to send for this row as it is about to be sent, built from the approved manifest row; null when
   * the row is not, field for field, a row the approvals cover (or is a first send of a re-send-only yes).
   */
  bodyFor(row: PaymentRecord): PayoutRequest | null;
}
