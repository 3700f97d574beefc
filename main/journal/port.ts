// What the engine (and the approval gate) need from a journal, behind one port with two adapters: the
// SQLite journal of a single desk (store/sqlite/journal.ts, answers synchronously) and the team journal on
// PostgreSQL (store/postgres/journal.ts, answers with promises). The engine awaits every call, so it runs unchanged on both;
// what a single desk does is not changed by the port (issue "Team desk").
import type { PayoutFields } from '../domain/payout';
import type { NewAuditEntry } from '../audit/chain';
import type { NewSchedule, ScheduledKind, ScheduleQuery, ScheduleRecord } from '../schedules/schedule';
import type {
  AuditEntry, BalanceSnapshot, BatchCounts, BatchInput, BatchRecord, StoredBatchState, CurrencyTotal, PayoutActivityRow, HistoryFilter, HistoryPage, HistoryQuery, NewPayment, PaymentKind,
  StatementPaymentRow,
  IssuedStatementRecord,
  ExportedMovement,
  PaymentRecord, PaymentRunRef, PaymentRunRefKind, PaymentState, StatusEvent, StatusObservation,
} from './types';

/** A status read that fell due: which payment, and when (the poller reads the payment itself when it starts the read). */
export interface DuePoll {
  kind: PaymentKind;
  id: string;
  nextPollAt: number;
}

/** A value now (SQLite) or later (PostgreSQL). */
export type Awaitable<T> = T | Promise<T>;

/**
 * The right to send one payment, taken before the request waits for its rate slot. Exactly one desk holds
 * it: a team desk records it in the database (with its desk's lease), a single desk holds it alone.
 */
export interface SendClaim {
  /**
   * Asked synchronously once the rate slot is ours, right before the request leaves. True: what must be
   * durable before a send is durable (SQLite: SENDING committed now; team: the claim, taken before the
   * slot, and the desk's lease still has margin), and the request may leave. False: nothing leaves.
   */
  confirm(): boolean;
  /**
   * The attempt is over (answered, failed, or never sent); what the journal says about the payment has
   * been written. Team desks give the claim back; a single desk has nothing to give back.
   */
  release(): Awaitable<void>;
  /** The payment as the claim itself found it, when the claim read it (the team journal's one-statement claim): saves a read. */
  readonly payment?: PaymentRecord;
  /**
   * The payment as the journal holds it at this moment, where it can be read synchronously (SQLite): checked once
   * more right before the request leaves, so a row rewritten while the send waited for its rate slot is not sent
   * as it was read before.
   */
  current?(): PaymentRecord | undefined;
}

/** A row as approvers sign it: the payout's id and its payee and money (no callback URL). */
export type ManifestRow = { id: string; callbackUrl: string | null } & Omit<PayoutFields, 'callbackUrl'>;

export interface JournalPort {
  // ---- payments: writes ----
  insertPayment(kind: PaymentKind, p: NewPayment, actor?: string): Awaitable<PaymentRecord>;
  createBatch(input: BatchInput): Awaitable<BatchRecord>;
  /**
   * Claims a payment for one attempt of sending. Null when it is not unsent any more, or (team) another
   * desk whose lease is alive holds it. Claims a payment of unknown outcome too: the holder asks the
   * gateway first, as before.
   */
  claimSend(kind: PaymentKind, id: string): Awaitable<SendClaim | null>;
  markRetrying(kind: PaymentKind, id: string, message: string): Awaitable<void>;
  markUnknown(kind: PaymentKind, id: string, message: string, nextPollAt: number, refuseResend?: boolean): Awaitable<void>;
  resendAllowed(kind: PaymentKind, id: string): Awaitable<boolean>;
  /**
   * Sends that were in flight at a desk that stopped (this one before a restart, or, in a team, any desk
   * whose lease ran out) become of unknown outcome: read with GET or re-sent with the same id, never new.
   */
  markInterruptedSendsUnknown(kind: PaymentKind, message: string): Awaitable<number>;
  markHeld(kind: PaymentKind, id: string, reason: string, actor?: string): Awaitable<boolean>;
  // ---- the calendar (main/schedules/schedule.ts): a subject created with NewPayment.schedule / BatchInput.schedule ----
  schedule(kind: ScheduledKind, id: string): Awaitable<ScheduleRecord | undefined>;
  /** Schedules by release time (then kind, id). */
  listSchedules(query?: ScheduleQuery): Awaitable<ScheduleRecord[]>;
  /**
   * Releases a schedule at or after its time, with its subject in the same transaction (a batch SCHEDULED →
   * RUNNING, a payout HELD → QUEUED): the released record for exactly one caller, null for any other (already
   * released, moved, cancelled, not due yet, or another desk was first). `from`: LATE is a person's confirmation.
   */
  releaseSchedule(kind: ScheduledKind, id: string, options: { actor: string; from: 'SCHEDULED' | 'LATE' }): Awaitable<ScheduleRecord | null>;
  /** A schedule found past its late window: it waits for a person (false: not SCHEDULED and due). */
  markScheduleLate(kind: ScheduledKind, id: string, actor: string): Awaitable<boolean>;
  /** A new release time before release (false: released or cancelled already). */
  moveSchedule(kind: ScheduledKind, id: string, to: NewSchedule, actor: string): Awaitable<boolean>;
  /** Cancelled before release: a batch CANCELLED with its rows, a payout DISCARDED (false: released or cancelled already). */
  cancelSchedule(kind: ScheduledKind, id: string, actor: string, reason: string): Awaitable<boolean>;
  releaseHeld(kind: PaymentKind, id: string, actor: string): Awaitable<boolean>;
  discardHeld(kind: PaymentKind, id: string, actor: string, reason: string): Awaitable<boolean>;
  recordNotFound(kind: PaymentKind, id: string, nextPollAt: number, rule: { reads: number; spanMs: number }): Awaitable<boolean>;
  markLocalFinal(kind: PaymentKind, id: string, state: 'REJECTED' | 'MISMATCH', message: string, raw?: unknown, actor?: string): Awaitable<boolean>;
  cancelUnsent(kind: PaymentKind, ids: string[], actor?: string): Awaitable<number>;
  /** Stores a status read; may wait to share a commit with others (the SQLite journal groups them). */
  recordObservationSoon(kind: PaymentKind, id: string, obs: StatusObservation): Promise<{ changed: boolean }>;
  setNextPoll(kind: PaymentKind, id: string, at: number | null): Awaitable<void>;

  // ---- payments: reads ----
  getPayment(kind: PaymentKind, id: string): Awaitable<PaymentRecord | undefined>;
  paymentState(kind: PaymentKind, id: string): Awaitable<{ state: PaymentState; isFinal: boolean } | undefined>;
  unsentPayments(kind: PaymentKind, batchId?: string): Awaitable<PaymentRecord[]>;
  sendableCount(batchId: string): Awaitable<number>;
  /**
   * When the next status read falls due, leaving out `skip` (`kind:id` of reads this desk has in flight: their
   * read sets their next time when it ends, so they must not keep an idle poller looking every tick).
   */
  nextPollTime(skip?: ReadonlySet<string>): Awaitable<number | null>;
  /**
   * Up to `limit` payments whose next read is due, but none of `skip` (`kind:id` of reads this desk has in
   * flight). A team desk takes what it returns for a while, so two desks do not read one payment at once:
   * ask only for what will be read now.
   */
  duePolls(now: number, limit: number, skip?: ReadonlySet<string>): Awaitable<DuePoll[]>;
  knownCurrencies(): Awaitable<string[]>;

  // ---- batches ----
  getBatch(id: string): Awaitable<BatchRecord | undefined>;
  batchesIn(states: StoredBatchState[]): Awaitable<BatchRecord[]>;
  setBatchState(id: string, state: StoredBatchState, reason?: string | null, actor?: string): Awaitable<BatchRecord>;
  batchCounts(id: string): Awaitable<BatchCounts>;
  preparation(kind: 'payout' | 'batch', id: string): Awaitable<{ preparedBy: string | null; preparedAt: number } | undefined>;
  /** Ids of the subject's rows stored as confirmed possible duplicates (details.possibleDuplicate), in row order: the manifest signs them. */
  possibleDuplicateIds(kind: 'payout' | 'batch', id: string): Awaitable<string[]>;
  manifestRows(kind: 'payout' | 'batch', id: string): Awaitable<ManifestRow[]>;
  retryableAttempts(batchId: string, notPaid: readonly string[]): Awaitable<PaymentRecord[]>;
  retryBatch(input: { batchId: string; reviewedIds: readonly string[]; notPaid: readonly string[]; fileName: string; id?: string; newId: () => string; actor: string; preparedBy?: string }): Awaitable<BatchRecord>;

  // ---- balances and audit ----
  insertBalanceSnapshots(snapshots: Omit<BalanceSnapshot, 'observedAt'>[], observedAt?: number): Awaitable<void>;
  audit(entry: NewAuditEntry): Awaitable<AuditEntry>;
}

/**
 * What the desk's screens and CLI need of a profile's journal on top of the engine's port: history pages and
 * exports, batch lists and results, timelines, balances, the CSV checks against what was paid before, payin
 * observations and the audit list. The SQLite journal answers now, the team journal later; the desk services
 * (main/desk) await every call, so each screen and command works on either (issue "Team desk").
 */
/** What makes two payouts look like the same payment: account, amount and currency. */
export interface LikePayoutKey {
  accountNumber: string;
  amountMinor: number;
  currencyCode: string;
}

export interface LikePayout extends LikePayoutKey {
  id: string;
  createdAt: number;
  batchId: string | null;
  /** The file of its batch, and that file's SHA-256, if it came in one. */
  fileName: string | null;
  fileSha256: string | null;
}

/** Payouts that are not "like" ones for this lookup: the rows themselves, their own batch, an earlier submission of their file. */
export interface LikePayoutSkip {
  ids?: readonly string[];
  batchId?: string | null;
  fileSha256?: string | null;
}

export interface DeskJournal extends JournalPort {
  // ---- history ----
  history(query?: HistoryQuery): Awaitable<HistoryPage>;
  /** Every payment matching the filter, in creation order (exports); read in chunks by the team journal. */
  iterateHistory(filter?: HistoryFilter): Iterable<PaymentRecord> | AsyncIterable<PaymentRecord>;
  timeline(kind: PaymentKind, id: string): Awaitable<StatusEvent[]>;
  /** Every attempt of an intent, oldest first. */
  intentAttempts(intentId: string): Awaitable<PaymentRecord[]>;
  /** The attempt that retried this payout, if any. */
  retriedAs(id: string): Awaitable<string | null>;
  /** retriedAs of every payout of a batch that was retried, in one read (a batch's results). */
  batchRetries(batchId: string): Awaitable<Map<string, string>>;

  // ---- batches ----
  /** The newest batches first. */
  listBatches(limit?: number): Awaitable<BatchRecord[]>;
  /** A batch's payments in row order. */
  batchPayments(id: string): Awaitable<PaymentRecord[]>;

  // ---- CSV checks against what was paid before (main/csv/journal-checks.ts) ----
  existingPayoutIds(ids: string[]): Awaitable<Set<string>>;
  batchFileSubmitted(sha256: string): Awaitable<boolean>;
  knownBeneficiaryAccounts(keys: { accountName: string; emailAddress: string }[]): Awaitable<{ accountName: string; emailAddress: string; accountNumber: string }[]>;
  /**
   * For each key, the earliest payout created since `since` (ms) to that account with the same amount and currency
   * that paid or may still pay (not final, or final SUCCESS) and that `skip` does not rule out: a new row like it may
   * pay the same invoice twice. At most one per distinct key (ties on the time: the smaller id); none for a key with
   * no such payout. One answer per key, not every like payout: a month of payroll to a few accounts is hundreds of
   * like payouts per row.
   */
  earliestLikePayouts(keys: LikePayoutKey[], since: number, skip?: LikePayoutSkip): Awaitable<LikePayout[]>;
  /**
   * For each of these pain.001 references of one kind (a run's MsgId, a transaction's EndToEndId), the first batch
   * that carried it; none for a reference never seen. Kept by createBatch in its own transaction (a retry's attempts
   * add none), which refuses a batch repeating one (JournalError DUPLICATE_PAYMENT_RUN_REF).
   */
  paymentRunRefs(kind: PaymentRunRefKind, refs: readonly string[]): Awaitable<PaymentRunRef[]>;

  // ---- payins (sent by the desk service, not the engine) ----
  /** Stores one status read at once. */
  recordObservation(kind: PaymentKind, id: string, obs: StatusObservation): Awaitable<{ changed: boolean }>;
  /** A payin's create ended without a definitive answer: it stays SENDING with why, so the next step is a GET. */
  markUncertain(kind: PaymentKind, id: string, message: string): Awaitable<void>;

  // ---- balances ----
  balanceSeries(currencyCode: string, from?: number, to?: number): Awaitable<BalanceSnapshot[]>;
  /** The newest snapshot of each currency. */
  latestBalances(): Awaitable<BalanceSnapshot[]>;
  /** The snapshot of `currencyCode` observed last at or before `at` (ms), or null. */
  balanceAt(currencyCode: string, at: number): Awaitable<BalanceSnapshot | null>;
  /** Amounts of payouts not final yet, per currency (what the balance still has to cover). */
  pendingPayoutTotals(): Awaitable<CurrencyTotal[]>;
  /**
   * Payouts the gateway accepted since `dayStarts[0]` (ms), grouped by currency, day (the last start at or before
   * their acceptance), outcome and fee currency. `dayStarts` ascending.
   */
  payoutActivity(dayStarts: number[]): Awaitable<PayoutActivityRow[]>;
  /**
   * For a statement: payments final and stored or changed at or after `since` (ms), and payouts accepted at or before
   * `acceptedBy` that are not final yet. Which of them moved money in a period is the statement's to decide, from
   * the gateway's processedAt (main/desk/statement.ts).
   */
  statementPayments(since: number, acceptedBy: number): Awaitable<StatementPaymentRow[]>;

  // ---- closing a period (main/desk/statements.ts, main/desk/accounting.ts) ----
  /** Stores a statement as issued; a statement is issued again as a new row, never changed. */
  recordIssuedStatement(record: Omit<IssuedStatementRecord, 'seq'>): Awaitable<IssuedStatementRecord>;
  /** The newest issue of exactly this period and currency scope ('' = every currency), or null. */
  issuedStatement(periodFrom: number, periodTo: number, currencyScope: string): Awaitable<IssuedStatementRecord | null>;
  /**
   * Marks movements as exported by `exportId`, atomically: returns the ids marked now. An id exported before (by any
   * desk of a team) is not marked again and not returned, so two exports never carry the same movement.
   */
  claimExportedMovements(exportId: string, movementIds: readonly string[], at: number): Awaitable<string[]>;
  /** Which of these movements were exported, by which export and when. */
  exportedMovements(movementIds: readonly string[]): Awaitable<ExportedMovement[]>;
  /** The accounting accounts (JSON, main/accounting/accounts.ts), or null while none were set. */
  accountingAccounts(): Awaitable<string | null>;
  setAccountingAccounts(accountsJson: string, at: number): Awaitable<void>;

  // ---- remittance advice by e-mail (main/remittance/outbox.ts; issue 28) ----
  /** The mail records of these payouts (none for a payout whose advice was never e-mailed). */
  remittanceMails(payoutIds: readonly string[]): Awaitable<RemittanceMailRecord[]>;
  /**
   * Takes the right to mail one payout's advice, before any SMTP server is spoken to. `over` null: only when the payout
   * has no record (INSERT … ON CONFLICT DO NOTHING); else only while its record still carries that claim (a repeat after
   * a refusal, or a forced resend). True: this claim holds the record; in a team exactly one desk's claim does.
   */
  claimRemittanceMail(claim: RemittanceMailClaim, over: string | null): Awaitable<boolean>;
  /** An attempt's outcome; written only while `claim` still holds the record (false: it does not). */
  recordRemittanceMail(payoutId: string, claim: string, update: RemittanceMailUpdate): Awaitable<boolean>;

  // ---- audit ----
  /** The newest entries first; before `beforeSeq` when given. */
  listAudit(limit?: number, beforeSeq?: number): Awaitable<AuditEntry[]>;
}

/**
 * Where the e-mail of a payout's remittance advice stands. queued: claimed, being sent; retrying: the server or the
 * connection failed for now and it is tried again; sent: the server took it; refused: the server said no for good
 * (5xx); failed: it could not be sent (attempts used up, or an error no retry fixes).
 */
export type RemittanceMailState = 'queued' | 'retrying' | 'sent' | 'refused' | 'failed';

export interface RemittanceMailRecord {
  payoutId: string;
  /** The batch whose advice it went with, when mailed for a batch. */
  batchId: string | null;
  recipient: string;
  state: RemittanceMailState;
  /** Attempts of the current send (a repeat starts again from 0). */
  attempts: number;
  /** The server's last answer (or the connection's error), as received. */
  lastReply: string | null;
  messageId: string | null;
  /** How many times a server took this advice (more than one after a forced resend). */
  sends: number;
  /** When a server last took it (ms). */
  sentAt: number | null;
  /** Who asked for the send (the audit log's actor). */
  requestedBy: string;
  /** The random token of the send that holds the record. */
  claim: string;
  createdAt: number;
  updatedAt: number;
}

export interface RemittanceMailClaim {
  payoutId: string;
  batchId: string | null;
  recipient: string;
  messageId: string;
  requestedBy: string;
  claim: string;
  at: number;
}

export interface RemittanceMailUpdate {
  state: RemittanceMailState;
  attempts: number;
  lastReply: string | null;
  at: number;
}
