// Shapes the journal stores and returns. Amounts are integer minor units; times are epoch milliseconds.
// Nothing here may ever hold a token, key or secret.
import type { NewSchedule } from '../schedules/schedule';
import type { PayoutFields } from '../domain/payout';
import type { StatusSource } from '../domain/status';

export type { AuditEntry } from '../audit/chain';

export const PAYMENT_KINDS = ['payout', 'payin'] as const;
export type PaymentKind = (typeof PAYMENT_KINDS)[number];

/**
 * Client-side life of a payment (DESIGN.md §4). QUEUED: stored, never sent, or certainly not stored by
 * the gateway. SENDING: committed right before the HTTP call. UNKNOWN: a send ended with no definitive
 * answer (time-out, reset, 5xx, a crash): only a GET that finds it, or a re-send of the same id that
 * the gateway takes, settles it; never cancelled, rejected or retried under a new id.
 * ACCEPTED: the gateway has it; from here `gatewayStatus` tells the rest.
 * HELD: it could not be sent for a reason a person must fix (credentials refused, no key…); it leaves
 * only when a person releases it. DISCARDED: a held payout a person chose not to send: final.
 * MISSING: the gateway accepted it and now answers 404 for it: a person must look.
 * REJECTED: the gateway refused the request itself (validation), nothing was created: final.
 * CANCELLED: the user cancelled it before it was sent: final.
 * MISMATCH: the gateway holds a payment under this id with a different amount or currency: needs a person.
 */
export const PAYMENT_STATES = ['QUEUED', 'SENDING', 'UNKNOWN', 'ACCEPTED', 'HELD', 'DISCARDED', 'MISSING', 'REJECTED', 'CANCELLED', 'MISMATCH'] as const;
export type PaymentState = (typeof PAYMENT_STATES)[number];

/** The payout fields (payins use the same ones), with a stored callbackUrl that may be null. */
export interface PaymentRecord extends Omit<PayoutFields, 'callbackUrl'> {
  kind: PaymentKind;
  id: string;
  /** The intent this payout is an attempt of (null for payins). */
  intentId: string | null;
  /** The earlier attempt of the same intent this one retries. */
  retryOf: string | null;
  batchId: string | null;
  rowNumber: number | null;
  callbackUrl: string | null;
  reference: string | null;
  state: PaymentState;
  /** Last status the gateway reported (any value, unknown ones included). */
  gatewayStatus: string | null;
  /** What a person sees: the gateway status once there is one, else the local state. */
  status: string;
  isFinal: boolean;
  feeMinor: number | null;
  feeCurrencyCode: string | null;
  failureReason: string | null;
  /** Gateway's process.processedAt, as sent (ISO text). */
  processedAt: string | null;
  isTest: boolean | null;
  lastError: string | null;
  /** When a send of this id first ended with no definitive answer (null: never). */
  unknownSince: number | null;
  /** Since when status reads answer 404 (an accepted payout the gateway may have lost). */
  notFoundSince: number | null;
  attempts: number;
  createdAt: number;
  updatedAt: number;
  acceptedAt: number | null;
  finalAt: number | null;
  nextPollAt: number | null;
  /** Kind-specific extra data (payins: returnUrl, expireAt, reference, bank account to pay into). */
  details: Record<string, unknown> | null;
}

/** What is needed to put a new payment into the journal: the payout fields plus where it belongs. */
export interface NewPayment extends PayoutFields {
  id: string;
  reference?: string | undefined;
  batchId?: string | undefined;
  rowNumber?: number | undefined;
  details?: Record<string, unknown> | undefined;
  /** An existing intent (a retry); default: a new intent of its own. */
  intentId?: string | undefined;
  retryOf?: string | undefined;
  /** Person id of whoever prepared it (dual control); absent before people exist on the desk. */
  preparedBy?: string | undefined;
  /** A single payout released at its time (main/schedules/): stored HELD with its schedule, in one transaction. */
  schedule?: NewSchedule | undefined;
}

/** One observation of a gateway status, as the engine hands it to the journal. */
export interface StatusObservation {
  status: string;
  source: StatusSource;
  isFinal: boolean;
  feeMinor?: number | undefined;
  feeCurrencyCode?: string | undefined;
  failureReason?: string | undefined;
  processedAt?: string | undefined;
  isTest?: boolean | undefined;
  raw?: unknown;
  /** Next poll time for a non-final payment. */
  nextPollAt?: number | null;
}

export interface StatusEvent {
  seq: number;
  kind: PaymentKind;
  id: string;
  status: string;
  source: StatusSource;
  observedAt: number;
  raw: unknown;
}

/**
 * What the journal stores for a batch; the screens add QUEUED, CANCELLING and FAILED (contract/api.ts BatchState).
 * SCHEDULED: waits for its release time (main/schedules/). RUNNING: rows are being sent (or will be on resume after a
 * crash). COMPLETED: nothing left to send. */
export const BATCH_STATES = ['SCHEDULED', 'RUNNING', 'PAUSED', 'CANCELLED', 'COMPLETED'] as const;
export type StoredBatchState = (typeof BATCH_STATES)[number];

export interface CurrencyTotal {
  currencyCode: string;
  amountMinor: number;
  count: number;
}

/** Where a payout the gateway accepted stands now, as the Overview counts it. */
export type PayoutOutcome = 'succeeded' | 'failed' | 'returned' | 'inFlight';

/** Payouts accepted on one day, in one currency, with one outcome and one fee currency (the Overview's figures). */
export interface PayoutActivityRow {
  currencyCode: string;
  /** Index of the day in the day starts asked for (0: the first). */
  day: number;
  outcome: PayoutOutcome;
  count: number;
  amountMinor: number;
  /** Null when no fee was charged (yet). */
  feeCurrencyCode: string | null;
  feeMinor: number;
}

/**
 * A payment that moved money, or may have, since a statement's window began (statementPayments): final ones
 * stored or changed since then, and payouts the gateway accepted that are not final yet.
 */
export interface StatementPaymentRow {
  kind: PaymentKind;
  id: string;
  currencyCode: string;
  amountMinor: number;
  feeCurrencyCode: string | null;
  feeMinor: number | null;
  /** As a person reads it: the gateway's status once there is one. */
  status: string;
  isFinal: boolean;
  /** The gateway's processedAt of the latest final status, as sent (ISO text). */
  processedAt: string | null;
  acceptedAt: number | null;
  /** A RETURNED payout: the raw bodies of the SUCCESS observations before the return (oldest first), for when it was paid. */
  successRaw: string[];
}

export interface BatchRecord {
  id: string;
  fileName: string;
  sha256: string;
  rowCount: number;
  totals: CurrencyTotal[];
  state: StoredBatchState;
  pauseReason: string | null;
  createdAt: number;
  updatedAt: number;
}

export interface BalanceSnapshot {
  currencyCode: string;
  availableMinor: number;
  reservedMinor: number;
  observedAt: number;
}


export const HISTORY_SORT_KEYS = ['createdAt', 'updatedAt', 'amountMinor', 'status', 'currencyCode', 'id'] as const;
export type HistorySortKey = (typeof HISTORY_SORT_KEYS)[number];

export interface HistoryFilter {
  kind?: PaymentKind | undefined;
  kinds?: PaymentKind[] | undefined;
  statuses?: string[] | undefined;
  currencyCode?: string | undefined;
  currencyCodes?: string[] | undefined;
  batchId?: string | undefined;
  /** Inclusive lower bound on createdAt (epoch ms). */
  from?: number | undefined;
  /** Exclusive upper bound on createdAt (epoch ms). */
  to?: number | undefined;
  /** Substring of id, account name, account number, e-mail or reference (case-insensitive). */
  text?: string | undefined;
}

export interface HistoryQuery extends HistoryFilter {
  sortBy?: HistorySortKey | undefined;
  sortDir?: 'asc' | 'desc' | undefined;
  /** 0-based page. */
  page?: number | undefined;
  pageSize?: number | undefined;
  /**
   * Count at most this many matching rows (absent: an exact count). An exact total over a broad filter reads
   * every match (a second for a common text over 1,000,000 payouts); counting stops at the limit instead,
   * and the page says `totalCapped`.
   */
  countLimit?: number | undefined;
}

export interface HistoryPage {
  rows: PaymentRecord[];
  /** Rows the filter matches; with `totalCapped`, the count limit (more match). */
  total: number;
  page: number;
  pageSize: number;
  /** More rows match than `total`, which is then the query's countLimit. */
  totalCapped?: true;
}

export type BatchStateCounts = Record<string, number>;

export interface BatchInput {
  id?: string;
  fileName: string;
  sha256: string;
  rows: NewPayment[];
  actor?: string;
  /** Person id of whoever prepared the batch (dual control). */
  preparedBy?: string | undefined;
  /** Released at its time (main/schedules/): the batch is stored SCHEDULED with its schedule, in one transaction. */
  schedule?: NewSchedule | undefined;
}

/**
 * What an ERP's payment run names itself and its transactions by: the pain.001 message's MsgId and each
 * transaction's EndToEndId. The journal keeps the first batch that carried each (main/iso20022/run-refs.ts), so the
 * same run or transaction imported again is refused, whatever payout id it got.
 */
export type PaymentRunRefKind = 'MsgId' | 'EndToEndId';

export interface PaymentRunRef {
  kind: PaymentRunRefKind;
  ref: string;
  batchId: string;
  /** The file of that batch. */
  fileName: string | null;
  /** The payout that carried an EndToEndId; null for a MsgId. */
  payoutId: string | null;
  /** The payment group (PmtInfId) the EndToEndId was in; null for a MsgId. */
  pmtInfId: string | null;
  /** When the batch was stored (ms). */
  recordedAt: number;
}

export interface BatchCounts {
  total: number;
  byState: Record<PaymentState, number>;
  byStatus: Record<string, number>;
  /** Accepted by the gateway (any gateway status). */
  sent: number;
  /** Accepted payments the gateway has reported final. */
  final: number;
  /** Final but not SUCCESS, refused by validation, or in MISMATCH: each needs a look. */
  failed: number;
  /** Not yet final: queued, being sent, or accepted and still moving. */
  pending: number;
}

/** A statement of a closed period as it was issued: its figures (canonical JSON) and their SHA-256. Never changed. */
export interface IssuedStatementRecord {
  seq: number;
  periodFrom: number;
  periodTo: number;
  /** The one currency it covers, or '' for every currency. */
  currencyScope: string;
  figuresJson: string;
  digest: string;
  issuedAt: number;
  issuedBy: string | null;
}

/** A movement (main/accounting/journal-lines.ts movementId) already in an accounting export, and which one. */
export interface ExportedMovement {
  movementId: string;
  exportId: string;
  exportedAt: number;
}
