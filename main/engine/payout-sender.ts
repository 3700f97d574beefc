// Sends one journaled payout until the gateway has it (DESIGN.md §4): the id never changes, SENDING is
// committed before the HTTP call, a 409 is read back with GET, retryable failures are retried with
// the same id and capped backoff (never marked failed), and a SENDING row of unknown outcome is
// resolved with GET before anything is sent again.
import { isFinalStatus } from '../domain/status';
import { GatewayError, isGatewayError, SendCancelledError } from '../gateway/errors';
import type { Journal, PaymentKind, PaymentRecord } from '../journal';
import type { StatusSource } from '../domain/status';
import type { StatusChangedEvent } from './events';
import type { GatewayStatusRead, PayoutGatewayPort, PayoutRequest } from './ports';
import { backoffDelay, sleep, type BackoffOptions } from './timing';

export type SendOutcome = 'accepted' | 'rejected' | 'mismatch' | 'aborted' | 'not-unsent';

/** The gateway refuses every request (credentials, permissions, API version): sending must stop. */
export class EngineHaltError extends Error {
  constructor(readonly gatewayError: GatewayError) {
    super(`sending stopped: ${gatewayError.message}`);
    this.name = 'EngineHaltError';
  }
}

const HALTING = new Set(['unauthorized', 'forbidden', 'unsupported-version']);
/** Connection failures that happen before a request can reach the gateway. */
const NEVER_CONNECTED = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL']);

/**
 * True when the gateway cannot have stored the payout: it refused the request (429, 401, 403, version)
 * or the request never left this machine. A 5xx, a time-out, a reset or a garbled answer may all come
 * after the payout was stored, so they are not.
 */
function certainlyNotStored(e: GatewayError): boolean {
  return HALTING.has(e.kind) || e.kind === 'rate-limited' || (e.kind === 'network' && NEVER_CONNECTED.has(e.code));
}

export interface SenderDeps {
  journal: Journal;
  gateway: PayoutGatewayPort;
  finalStatuses: readonly string[];
  pollIntervalMs: number;
  backoff: BackoffOptions;
  now: () => number;
  onStatus: (e: StatusChangedEvent) => void;
  onConnection: (state: 'online' | 'offline', message: string | null) => void;
  random?: () => number;
}

export function payoutRequestOf(p: PaymentRecord): PayoutRequest {
  return {
    amountMinor: p.amountMinor,
    currencyCode: p.currencyCode,
    accountName: p.accountName,
    accountNumber: p.accountNumber,
    paymentOperatorCode: p.paymentOperatorCode,
    paymentMethodCode: p.paymentMethodCode,
    emailAddress: p.emailAddress,
    ...(p.callbackUrl ? { callbackUrl: p.callbackUrl } : {}),
  };
}

export class PayoutSender {
  constructor(private readonly deps: SenderDeps) {}

  /** Sends until accepted, rejected or aborted. Throws EngineHaltError when the gateway refuses us. */
  async send(id: string, signal?: AbortSignal): Promise<SendOutcome> {
    const { journal } = this.deps;
    for (let attempt = 1; ; attempt++) {
      if (signal?.aborted) return 'aborted';
      const row = journal.getPayment('payout', id);
      if (!row) throw new Error(`payout ${id} is not in the journal`);
      if (row.state !== 'QUEUED' && row.state !== 'SENDING') return 'not-unsent';
      try {
        return await this.attempt(row, signal);
      } catch (e) {
        if (!isGatewayError(e)) throw e;
        if (e.kind === 'validation') {
          journal.markLocalFinal('payout', id, 'REJECTED', e.message, { status: e.status, code: e.code });
          // Final, as the journal records it (a MISMATCH below is not: it waits for a person).
          this.emit(row, 'REJECTED', 'local', true);
          return 'rejected';
        }
        // Back to QUEUED only when nothing can have been stored (never claimed for sending this time, e.g.
        // the token request failed, or refused); otherwise the row stays SENDING, so the next step is a
        // GET and a cancel can never cancel a payout the gateway already holds.
        const claimed = journal.getPayment('payout', id)?.state === 'SENDING';
        if (!claimed || (row.state === 'QUEUED' && certainlyNotStored(e))) journal.markRetrying('payout', id, e.message);
        else journal.markUncertain('payout', id, e.message);
        if (HALTING.has(e.kind)) throw new EngineHaltError(e);
        if (e.kind === 'network' || e.kind === 'timeout') this.deps.onConnection('offline', e.message);
        const delay = backoffDelay(attempt, this.deps.backoff, e.details.retryAfterMs ?? 0, this.deps.random);
        if (!(await sleep(delay, signal))) return 'aborted';
      }
    }
  }

  /**
   * Resolves a SENDING row without sending: found at the gateway → ACCEPTED; not found → back to
   * QUEUED (nothing was stored). Returns null when the gateway could not be asked.
   */
  async resolveUncertain(id: string): Promise<'accepted' | 'mismatch' | 'queued' | null> {
    const row = this.deps.journal.getPayment('payout', id);
    if (!row || row.state !== 'SENDING') return null;
    try {
      const read = await this.deps.gateway.getPayout(id);
      return await this.accept(row, read, 'poll');
    } catch (e) {
      if (isGatewayError(e, 'not-found')) {
        this.deps.journal.markRetrying('payout', id, 'not found at the gateway after an interrupted send; will be sent again');
        return 'queued';
      }
      if (isGatewayError(e)) return null;
      throw e;
    }
  }

  private async attempt(row: PaymentRecord, signal?: AbortSignal): Promise<SendOutcome> {
    const { journal, gateway } = this.deps;
    if (row.state === 'SENDING') {
      // An earlier send ended without a clear answer (crash, cut connection): ask before sending.
      try {
        return await this.accept(row, await gateway.getPayout(row.id), 'poll');
      } catch (e) {
        if (!isGatewayError(e, 'not-found')) throw e;
      }
    }
    // SENDING is committed when the rate slot is ours, right before the request leaves: a pause or
    // cancel while it waits for the slot sends nothing and leaves the row QUEUED. One already on the
    // wire is seen through.
    if (signal?.aborted) return 'aborted';
    let given: 'aborted' | 'not-unsent' = 'aborted';
    const beforeSend = (): boolean => {
      if (signal?.aborted) given = 'aborted';
      else if (!journal.markSending('payout', row.id)) given = 'not-unsent';
      else return true;
      return false;
    };
    try {
      const created = await gateway.createPayout(row.id, payoutRequestOf(row), { beforeSend });
      this.deps.onConnection('online', null);
      return await this.accept(row, { raw: created.raw }, 'create');
    } catch (e) {
      if (e instanceof SendCancelledError) return given;
      if (!isGatewayError(e, 'conflict')) throw e;
      // 409: the gateway already has this id (an earlier attempt got through). Read it and carry on.
      this.deps.onConnection('online', null);
      return await this.accept(row, await gateway.getPayout(row.id), 'poll');
    }
  }

  /** Records what the gateway holds; a different amount or currency under our id is a MISMATCH. */
  async accept(row: PaymentRecord, read: GatewayStatusRead, source: StatusSource): Promise<'accepted' | 'mismatch'> {
    const { journal } = this.deps;
    if (
      (read.amountMinor !== undefined && read.amountMinor !== row.amountMinor) ||
      (read.currencyCode !== undefined && read.currencyCode.toUpperCase() !== row.currencyCode)
    ) {
      const message = `the gateway holds ${row.id} with ${read.amountMinor ?? '?'} ${read.currencyCode ?? '?'} (minor units), not ${row.amountMinor} ${row.currencyCode}`;
      journal.markLocalFinal('payout', row.id, 'MISMATCH', message, read.raw);
      this.emit(row, 'MISMATCH', 'local', false);
      return 'mismatch';
    }
    const status = (read.status ?? 'ACCEPTED').toUpperCase();
    const final = isFinalStatus(status, this.deps.finalStatuses);
    await journal.recordObservationSoon('payout', row.id, {
      status,
      source,
      isFinal: final,
      feeMinor: read.feeMinor,
      feeCurrencyCode: read.feeCurrencyCode,
      failureReason: read.failureReason,
      processedAt: read.processedAt,
      isTest: read.isTest,
      raw: read.raw,
      nextPollAt: final ? null : this.deps.now() + this.deps.pollIntervalMs,
    });
    this.emit(row, status, source, final);
    return 'accepted';
  }

  private emit(row: PaymentRecord, status: string, source: StatusSource, final: boolean): void {
    if (row.status === status) return;
    this.deps.onStatus({ kind: row.kind as PaymentKind, id: row.id, status, previousStatus: row.status, final, source, observedAt: this.deps.now(), batchId: row.batchId });
  }
}
