// The journal: one SQLite file per profile, the single source of truth for every payment, batch,
// status observation, balance snapshot and audit entry. Every state change is committed before the
// engine acts on it (DESIGN.md §4). No token, key or secret is ever written here.
import { planRetryBatch } from '../retry-plan';
import { payeeKey } from '../../domain/payee-key';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { deskActor } from '../../audit/actor';
import {
  AuditKeyError, canonicalJson, GENESIS_HASH, type AuditKey, type AuditMark, type AuditTrust, type AuditVerifyResult, type NewAuditEntry,
} from '../../audit/chain';
import { appendAudit, auditHead, auditKeyIds, firstSealedSeq, listAudit, startSealing, verifyAuditFrom } from './audit-log';
import {
  balanceSeries, latestBalances, paymentTimeline, payoutActivity, pendingPayoutTotals,
} from '../history';
import { iterateHistoryPlanned, queryHistoryPlanned } from './history-plan';
import { balanceAt, statementPayments } from '../statements';
import * as closing from '../closing';
import * as remittanceMails from '../remittance-mails';
import { migrate } from './migrations';
import { toBatch, toPayment, type BatchRow, type PaymentRow } from '../rows';
import type { DeskJournal, DuePoll, LikePayout, LikePayoutKey, LikePayoutSkip, ManifestRow, RemittanceMailClaim, RemittanceMailRecord, RemittanceMailUpdate, SendClaim } from '../../journal/port';
import type {
  AuditEntry, BalanceSnapshot, BatchCounts, BatchInput, BatchRecord, StoredBatchState, CurrencyTotal, PayoutActivityRow, StatementPaymentRow, IssuedStatementRecord, ExportedMovement, HistoryFilter, HistoryPage, HistoryQuery,
  NewPayment, PaymentKind, PaymentRecord, PaymentState, StatusEvent, StatusObservation,
} from '../../journal/types';
import { PAYMENT_STATES } from '../../journal/types';
import { checkedBatch, JournalError } from '../../journal/shared';
import type { PaymentRunRef, PaymentRunRefKind } from '../../journal/types';
import { paymentRunRefsOf } from '../../iso20022/run-refs';
import { paymentRunRefs, recordPaymentRunRefs } from './payment-run-refs';
import { releasedText, SCHEDULE_COLUMNS, toSchedule, waitingText, type ScheduleRow } from '../schedules';
import type { NewSchedule, ScheduledKind, ScheduleQuery, ScheduleRecord } from '../../schedules/schedule';



export interface JournalOptions {
  now?: () => number;
  /**
   * Durability. WAL commits survive a crash of the app in any mode. Against an OS crash or power cut:
   * 'NORMAL' (default) fsyncs every commit that fixes new payment ids (a new payout, a new batch), so
   * an id that may be sent is never forgotten; later changes (SENDING, ACCEPTED, statuses) are synced
   * with the next such commit or checkpoint, and losing one is repaired by the send protocol (resend
   * with the same id → 409 → GET) and the poller. 'FULL' fsyncs every commit (about 5 ms each here).
   */
  synchronous?: 'FULL' | 'NORMAL';
}

interface PendingObservation {
  kind: PaymentKind;
  id: string;
  obs: StatusObservation;
  resolve: (outcome: { changed: boolean }) => void;
  reject: (error: unknown) => void;
}

/** Ids looked up per statement in existingIds (a JSON array: no limit on parameters to keep under). */
const ID_LOOKUP_CHUNK = 10_000;

export class Journal implements DeskJournal {
  readonly db: Database.Database;
  private readonly now: () => number;
  private readonly baseSync: 'FULL' | 'NORMAL';

  constructor(file: string, options: JournalOptions = {}) {
    if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
    this.db = new Database(file);
    this.now = options.now ?? Date.now;
    this.db.pragma('journal_mode = WAL');
    this.baseSync = options.synchronous ?? 'NORMAL';
    this.db.pragma(`synchronous = ${this.baseSync}`);
    this.db.pragma('foreign_keys = ON');
    this.db.pragma('busy_timeout = 5000');
    migrate(this.db);
  }

  private readonly statements = new Map<string, Database.Statement>();
  /** Observations waiting for their turn's commit (recordObservationSoon). */
  private pendingObservations: PendingObservation[] = [];

  /** Prepared once per SQL text: preparing costs more than running these small statements. */
  private stmt(sql: string): Database.Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  close(): void {
    if (!this.db.open) return;
    // Observations still waiting for their turn's commit are stored, not dropped, on the way out.
    if (this.pendingObservations.length > 0) this.commitPendingObservations();
    this.db.close();
  }

  // ---- payments: writes ----

  /** Runs a transaction whose commit is fsynced whatever the base setting (new ids are fixed here). */
  private durably<T>(fn: () => T): T {
    if (this.baseSync === 'FULL') return this.db.transaction(fn)();
    this.db.pragma('synchronous = FULL');
    try {
      return this.db.transaction(fn)();
    } finally {
      this.db.pragma(`synchronous = ${this.baseSync}`);
    }
  }

  private insertRow(kind: PaymentKind, p: NewPayment, at: number, intentId: string | null): void {
    this.stmt(
        `INSERT INTO payments (kind, id, intent_id, retry_of, batch_id, row_number, amount_minor, currency_code, account_name, account_number,
          payment_operator_code, payment_method_code, email_address, callback_url, reference, state, status,
          created_at, updated_at, payee_name_key, payee_email_key, details_json, prepared_by)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'QUEUED', 'QUEUED', ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        kind, p.id, intentId, p.retryOf ?? null, p.batchId ?? null, p.rowNumber ?? null, p.amountMinor, p.currencyCode, p.accountName, p.accountNumber,
        p.paymentOperatorCode, p.paymentMethodCode, p.emailAddress, p.callbackUrl ?? null, p.reference ?? null,
        at, at, payeeKey(p.accountName), payeeKey(p.emailAddress), p.details === undefined ? null : canonicalJson(p.details), p.preparedBy ?? null,
      );
  }

  /** The intent a new payout is an attempt of: the one given (a retry), else a new one. Payins have none. */
  private intentFor(kind: PaymentKind, p: NewPayment, source: 'single' | 'batch' | 'retry', at: number, actor: string): string | null {
    if (kind !== 'payout') return null;
    if (p.intentId) return p.intentId;
    const id = globalThis.crypto.randomUUID();
    this.stmt('INSERT INTO intents (id, source, created_at, actor) VALUES (?, ?, ?, ?)').run(id, source, at, actor);
    return id;
  }

  private refuseExisting(kind: PaymentKind, ids: string[]): void {
    const existing = [...this.existingIds(kind, ids)];
    if (existing.length > 0) {
      throw new JournalError('DUPLICATE_ID', `${kind} id already in the journal: ${existing.slice(0, 5).join(', ')}${existing.length > 5 ? ' …' : ''}`, existing);
    }
  }

  /** Stores a new payment as QUEUED: its id is fixed from here on. */
  insertPayment(kind: PaymentKind, p: NewPayment, actor = deskActor()): PaymentRecord {
    const at = this.now();
    this.durably(() => {
      this.refuseExisting(kind, [p.id]);
      this.insertRow(kind, p, at, this.intentFor(kind, p, 'single', at, actor));
      this.appendStatusEvent(kind, p.id, 'QUEUED', 'local', at, null);
      this.appendAudit(at, { actor, action: `${kind}.queued`, subject: p.id, details: { amountMinor: p.amountMinor, currencyCode: p.currencyCode, batchId: p.batchId ?? null } });
      if (p.schedule) {
        // Held by its schedule in the same transaction: no moment where it is QUEUED without its time.
        const waiting = waitingText(p.schedule);
        this.stmt(`UPDATE payments SET state = 'HELD', status = 'HELD', last_error = ? WHERE kind = ? AND id = ?`).run(waiting, kind, p.id);
        this.insertSchedule('payout', p.id, p.schedule, at, actor);
        this.appendStatusEvent(kind, p.id, 'HELD', 'local', at, { message: waiting });
      }
    });
    return this.mustGet(kind, p.id);
  }

  /** Stores a batch and all its rows as QUEUED in one transaction: all or nothing. */
  createBatch(input: BatchInput): BatchRecord {
    // A pain.001 run's MsgId and EndToEndIds, kept with the batch: a run or transaction seen before is refused here too.
    const refs = paymentRunRefsOf(input.rows);
    let id = '';
    this.durably(() => {
      id = this.insertBatch(input);
      recordPaymentRunRefs((sql) => this.stmt(sql), id, refs, this.now());
    });
    return this.mustGetBatch(id);
  }

  /** The body of createBatch, for use inside a transaction that is already open. */
  private insertBatch(input: BatchInput): string {
    const { ids, totals } = checkedBatch(input);
    const id = input.id ?? globalThis.crypto.randomUUID();
    const at = this.now();
    this.refuseExisting('payout', ids);
    this.stmt(`INSERT INTO batches (id, file_name, sha256, row_count, totals_json, state, pause_reason, created_at, updated_at, prepared_by) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
      .run(id, input.fileName, input.sha256, input.rows.length, JSON.stringify(totals), input.schedule ? 'SCHEDULED' : 'RUNNING', input.schedule ? waitingText(input.schedule) : null, at, at, input.preparedBy ?? null);
    if (input.schedule) this.insertSchedule('batch', id, input.schedule, at, input.actor ?? deskActor());
    input.rows.forEach((row, i) => {
      this.insertRow('payout', { ...row, batchId: id, rowNumber: row.rowNumber ?? i + 1, preparedBy: input.preparedBy ?? row.preparedBy }, at, this.intentFor('payout', row, row.retryOf ? 'retry' : 'batch', at, input.actor ?? deskActor()));
      this.appendStatusEvent('payout', row.id, 'QUEUED', 'local', at, null);
    });
    this.appendAudit(at, { actor: input.actor ?? deskActor(), action: 'batch.submitted', subject: id, details: { fileName: input.fileName, sha256: input.sha256, rows: input.rows.length, totals } });
    return id;
  }

  /**
   * A single desk is the only sender of its journal: the claim holds nothing until the rate slot is ours,
   * then commits SENDING (markSending) right before the request leaves.
   */
  claimSend(kind: PaymentKind, id: string): SendClaim {
    return { confirm: () => this.markSending(kind, id), release: () => undefined, current: () => this.getPayment(kind, id) };
  }

  /** Commits SENDING right before the HTTP call. False when the payment is no longer unsent. */
  markSending(kind: PaymentKind, id: string): boolean {
    const at = this.now();
    const result = this.stmt(`UPDATE payments SET state = 'SENDING', status = 'SENDING', attempts = attempts + 1, next_poll_at = NULL, updated_at = ? WHERE kind = ? AND id = ? AND state IN ('QUEUED', 'SENDING', 'UNKNOWN')`)
      .run(at, kind, id);
    return result.changes === 1;
  }

  /**
   * The gateway certainly did not store this try (429, refused, never connected): back to QUEUED with
   * the reason, unless an earlier try of the id is of unknown outcome; then it stays UNKNOWN and is read
   * with GET (even while its batch is paused).
   */
  markRetrying(kind: PaymentKind, id: string, message: string): void {
    this.stmt(
      `UPDATE payments SET state = CASE WHEN unknown_since IS NULL THEN 'QUEUED' ELSE 'UNKNOWN' END, status = CASE WHEN unknown_since IS NULL THEN 'QUEUED' ELSE 'UNKNOWN' END,
         next_poll_at = CASE WHEN unknown_since IS NULL THEN NULL ELSE COALESCE(next_poll_at, ?) END,
         last_error = ?, updated_at = ? WHERE kind = ? AND id = ? AND state IN ('QUEUED', 'SENDING', 'UNKNOWN')`,
    ).run(this.now(), message, this.now(), kind, id);
  }

  /** Payins: the outcome of the last send is unknown; stays SENDING so the next step is a GET. */
  markUncertain(kind: PaymentKind, id: string, message: string): void {
    this.stmt(`UPDATE payments SET last_error = ?, updated_at = ? WHERE kind = ? AND id = ? AND state = 'SENDING'`)
      .run(message, this.now(), kind, id);
  }

  /**
   * A send of this id ended with no definitive answer (time-out, reset, 5xx, a crash, or an answer to a
   * later try of an id whose earlier try is unknown): UNKNOWN until a GET finds it or a re-send of the
   * same id is taken. `refuseResend`: the gateway refused a re-send, so only GETs settle it from now on.
   * It is read with GET from `nextPollAt` on.
   */
  markUnknown(kind: PaymentKind, id: string, message: string, nextPollAt: number, refuseResend = false): void {
    const at = this.now();
    this.db.transaction(() => {
      const before = this.stmt('SELECT state FROM payments WHERE kind = ? AND id = ?').get(kind, id) as { state: PaymentState } | undefined;
      if (!before || !['QUEUED', 'SENDING', 'UNKNOWN'].includes(before.state)) return;
      this.stmt(
        `UPDATE payments SET state = 'UNKNOWN', status = 'UNKNOWN', unknown_since = COALESCE(unknown_since, ?), last_error = ?, next_poll_at = ?,
           resend_refused = MAX(resend_refused, ?), updated_at = ? WHERE kind = ? AND id = ?`,
      ).run(at, message, nextPollAt, refuseResend ? 1 : 0, at, kind, id);
      if (before.state !== 'UNKNOWN') this.appendStatusEvent(kind, id, 'UNKNOWN', 'local', at, { message });
    })();
  }

  /** Whether a re-send of an unknown payout is still allowed (false once the gateway refused one). */
  resendAllowed(kind: PaymentKind, id: string): boolean {
    const row = this.stmt('SELECT resend_refused FROM payments WHERE kind = ? AND id = ?').get(kind, id) as { resend_refused: number } | undefined;
    return row?.resend_refused === 0;
  }

  /** SENDING rows left by a process that stopped mid-send: their outcome is unknown. */
  markInterruptedSendsUnknown(kind: PaymentKind, message: string): number {
    let count = 0;
    for (const row of this.stmt(`SELECT id FROM payments WHERE kind = ? AND state = 'SENDING'`).all(kind) as { id: string }[]) {
      this.markUnknown(kind, row.id, message, this.now());
      count++;
    }
    return count;
  }

  /**
   * Holds a payout that could not be sent for a reason a person must fix. Only one the gateway certainly
   * does not have (never of unknown outcome): it leaves only when a person releases it.
   */
  markHeld(kind: PaymentKind, id: string, reason: string, actor = 'engine'): boolean {
    const at = this.now();
    return this.db.transaction((): boolean => {
      const changed = this.stmt(`UPDATE payments SET state = 'HELD', status = 'HELD', last_error = ?, next_poll_at = NULL, updated_at = ? WHERE kind = ? AND id = ? AND state IN ('QUEUED', 'SENDING') AND unknown_since IS NULL`)
        .run(reason, at, kind, id).changes === 1;
      if (changed) {
        this.appendStatusEvent(kind, id, 'HELD', 'local', at, { message: reason });
        this.appendAudit(at, { actor, action: `${kind}.held`, subject: id, details: { reason } });
      }
      return changed;
    })();
  }

  /** A person releases a held payout after the fix: QUEUED again, to be sent. False if it is not held. */
  releaseHeld(kind: PaymentKind, id: string, actor: string): boolean {
    const at = this.now();
    return this.db.transaction((): boolean => {
      const changed = this.stmt(`UPDATE payments SET state = 'QUEUED', status = 'QUEUED', updated_at = ? WHERE kind = ? AND id = ? AND state = 'HELD'`).run(at, kind, id).changes === 1;
      if (changed) {
        this.appendStatusEvent(kind, id, 'QUEUED', 'local', at, { message: 'released by a person' });
        this.appendAudit(at, { actor, action: `${kind}.released`, subject: id, details: {} });
      }
      return changed;
    })();
  }

  /** A person decides a held payout is not sent at all: DISCARDED, final; nothing was sent. */
  discardHeld(kind: PaymentKind, id: string, actor: string, reason: string): boolean {
    const at = this.now();
    return this.db.transaction((): boolean => {
      const changed = this.stmt(`UPDATE payments SET state = 'DISCARDED', status = 'DISCARDED', is_final = 1, final_at = ?, last_error = ?, updated_at = ? WHERE kind = ? AND id = ? AND state = 'HELD'`)
        .run(at, reason, at, kind, id).changes === 1;
      if (changed) {
        this.appendStatusEvent(kind, id, 'DISCARDED', 'local', at, { message: reason });
        this.appendAudit(at, { actor, action: `${kind}.discarded`, subject: id, details: { reason } });
      }
      return changed;
    })();
  }

  /**
   * A status read of an accepted payout answered 404. After `reads` such answers spanning at least
   * `spanMs`, the payout is MISSING (true is returned once, when it becomes so); until then it keeps its
   * state and is read again at `nextPollAt`.
   */
  recordNotFound(kind: PaymentKind, id: string, nextPollAt: number, rule: { reads: number; spanMs: number }): boolean {
    const at = this.now();
    return this.db.transaction((): boolean => {
      this.stmt(`UPDATE payments SET not_found_since = COALESCE(not_found_since, ?), not_found_reads = not_found_reads + 1, next_poll_at = ?, updated_at = ? WHERE kind = ? AND id = ? AND state IN ('ACCEPTED', 'MISSING')`)
        .run(at, nextPollAt, at, kind, id);
      const row = this.stmt('SELECT state, not_found_since, not_found_reads FROM payments WHERE kind = ? AND id = ?').get(kind, id) as
        | { state: PaymentState; not_found_since: number | null; not_found_reads: number }
        | undefined;
      if (!row || row.state !== 'ACCEPTED' || row.not_found_since === null) return false;
      if (row.not_found_reads < rule.reads || at - row.not_found_since < rule.spanMs) return false;
      this.stmt(`UPDATE payments SET state = 'MISSING', status = 'MISSING', is_final = 0, updated_at = ? WHERE kind = ? AND id = ?`).run(at, kind, id);
      const message = `the gateway has answered "not found" ${row.not_found_reads} times since ${new Date(row.not_found_since).toISOString()}`;
      this.appendStatusEvent(kind, id, 'MISSING', 'local', at, { message });
      this.appendAudit(at, { actor: 'engine', action: `${kind}.missing`, subject: id, details: { message } });
      return true;
    })();
  }

  /**
   * A final local outcome (REJECTED by validation, MISMATCH with what the gateway holds). A payout with a
   * send of unknown outcome is never REJECTED: the earlier send may still land, so it stays UNKNOWN (see
   * markUnknown) and false is returned.
   */
  markLocalFinal(kind: PaymentKind, id: string, state: 'REJECTED' | 'MISMATCH', message: string, raw?: unknown, actor = 'engine'): boolean {
    const at = this.now();
    return this.db.transaction((): boolean => {
      const changed = this.stmt(`UPDATE payments SET state = ?, status = ?, is_final = ?, last_error = ?, final_at = ?, next_poll_at = NULL, updated_at = ? WHERE kind = ? AND id = ? AND (? = 'MISMATCH' OR unknown_since IS NULL)`)
        .run(state, state, state === 'REJECTED' ? 1 : 0, message, at, at, kind, id, state).changes === 1;
      if (!changed) return false;
      this.appendStatusEvent(kind, id, state, 'local', at, { message, response: raw ?? null });
      this.appendAudit(at, { actor, action: `${kind}.${state.toLowerCase()}`, subject: id, details: { message } });
      return true;
    })();
  }

  /** Cancels unsent payments (QUEUED only: a SENDING one may already be at the gateway). */
  cancelUnsent(kind: PaymentKind, ids: string[], actor = deskActor()): number {
    const at = this.now();
    let cancelled = 0;
    this.db.transaction(() => {
      const update = this.stmt(`UPDATE payments SET state = 'CANCELLED', status = 'CANCELLED', is_final = 1, final_at = ?, updated_at = ? WHERE kind = ? AND id = ? AND state = 'QUEUED'`);
      for (const id of ids) {
        if (update.run(at, at, kind, id).changes === 1) {
          cancelled++;
          this.appendStatusEvent(kind, id, 'CANCELLED', 'local', at, null);
        }
      }
      if (cancelled > 0) this.appendAudit(at, { actor, action: `${kind}.cancelled`, subject: ids.length === 1 ? ids[0] : null, details: { count: cancelled } });
    })();
    return cancelled;
  }

  /**
   * Records what the gateway said about a payment and moves it to ACCEPTED (the gateway has it).
   * Status events: every change is stored; an observation repeating the last stored status from
   * the same source adds nothing to the timeline and is skipped (the payment's updatedAt still moves).
   * Returns whether the shown status changed. Runs for every create answer, poll and callback, so it
   * reads only the previous status, not the whole row.
   */
  recordObservation(kind: PaymentKind, id: string, obs: StatusObservation): { changed: boolean } {
    const at = this.now();
    const status = obs.status.toUpperCase();
    const changed = this.db.transaction((): boolean => {
      const before = this.stmt('SELECT status FROM payments WHERE kind = ? AND id = ?').get(kind, id) as { status: string } | undefined;
      if (!before) throw new JournalError('NOT_FOUND', `no ${kind} with id ${id} in the journal`, [id]);
      this.stmt(
          `UPDATE payments SET state = 'ACCEPTED', gateway_status = ?, status = ?, is_final = ?,
             fee_minor = COALESCE(?, fee_minor), fee_currency_code = COALESCE(?, fee_currency_code),
             failure_reason = COALESCE(?, failure_reason), processed_at = COALESCE(?, processed_at),
             is_test = COALESCE(?, is_test), last_error = NULL, unknown_since = NULL, resend_refused = 0, not_found_since = NULL, not_found_reads = 0,
             accepted_at = COALESCE(accepted_at, ?), final_at = CASE WHEN ? = 1 THEN COALESCE(final_at, ?) ELSE NULL END,
             next_poll_at = ?, updated_at = ?
           WHERE kind = ? AND id = ?`,
        )
        .run(
          status, status, obs.isFinal ? 1 : 0, obs.feeMinor ?? null, obs.feeCurrencyCode ?? null, obs.failureReason ?? null,
          obs.processedAt ?? null, obs.isTest === undefined ? null : obs.isTest ? 1 : 0,
          at, obs.isFinal ? 1 : 0, at, obs.nextPollAt ?? null, at, kind, id,
        );
      const last = this.stmt('SELECT status, source FROM status_events WHERE kind = ? AND id = ? ORDER BY seq DESC LIMIT 1')
        .get(kind, id) as { status: string; source: string } | undefined;
      if (!last || last.status !== status || last.source !== obs.source) {
        this.appendStatusEvent(kind, id, status, obs.source, at, obs.raw ?? null);
      }
      return before.status !== status;
    })();
    return { changed };
  }

  /**
   * recordObservation, committed together with the other observations made in the same turn of the
   * event loop. A busy batch gets hundreds of answers a second; one commit for the answers that
   * arrived together costs far less than one each. Resolves once the observation is committed. Until
   * then the payment keeps its earlier state (SENDING after a create), which after a crash is
   * resolved with GET like any send of unknown outcome. One failing observation fails only itself.
   */
  recordObservationSoon(kind: PaymentKind, id: string, obs: StatusObservation): Promise<{ changed: boolean }> {
    return new Promise((resolve, reject) => {
      this.pendingObservations.push({ kind, id, obs, resolve, reject });
      if (this.pendingObservations.length === 1) setImmediate(() => this.commitPendingObservations());
    });
  }


  private commitPendingObservations(): void {
    const pending = this.pendingObservations;
    if (pending.length === 0) return; // close() already committed them
    this.pendingObservations = [];
    const outcomes: ({ changed: boolean } | { error: unknown })[] = [];
    try {
      this.db.transaction(() => {
        for (const p of pending) {
          // Each one runs in its own savepoint (a nested transaction): a failure undoes only itself.
          try {
            outcomes.push(this.recordObservation(p.kind, p.id, p.obs));
          } catch (error) {
            outcomes.push({ error });
          }
        }
      })();
    } catch (error) {
      for (const p of pending) p.reject(error);
      return;
    }
    pending.forEach((p, i) => {
      const outcome = outcomes[i]!;
      if ('error' in outcome) p.reject(outcome.error);
      else p.resolve(outcome);
    });
  }

  setNextPoll(kind: PaymentKind, id: string, at: number | null): void {
    this.stmt('UPDATE payments SET next_poll_at = ? WHERE kind = ? AND id = ?').run(at, kind, id);
  }

  private appendStatusEvent(kind: PaymentKind, id: string, status: string, source: StatusObservation['source'], at: number, raw: unknown): void {
    this.stmt('INSERT INTO status_events (kind, id, status, source, observed_at, raw_json) VALUES (?, ?, ?, ?, ?, ?)')
      .run(kind, id, status, source, at, raw === null || raw === undefined ? null : canonicalJson(raw));
  }

  // ---- the calendar (main/schedules/schedule.ts) ----

  private insertSchedule(kind: ScheduledKind, id: string, e: NewSchedule, at: number, actor: string): void {
    this.stmt(`INSERT INTO schedules (subject_kind, subject_id, execute_at, zone, local_time, state, created_at, updated_at) VALUES (?, ?, ?, ?, ?, 'SCHEDULED', ?, ?)`)
      .run(kind, id, e.at, e.zone, e.local, at, at);
    this.appendAudit(at, { actor, action: `${kind}.scheduled`, subject: id, details: { executeAt: new Date(e.at).toISOString(), zone: e.zone, local: e.local } });
  }

  schedule(kind: ScheduledKind, id: string): ScheduleRecord | undefined {
    const row = this.stmt(`SELECT ${SCHEDULE_COLUMNS} FROM schedules WHERE subject_kind = ? AND subject_id = ?`).get(kind, id) as ScheduleRow | undefined;
    return row ? toSchedule(row) : undefined;
  }

  listSchedules(query: ScheduleQuery = {}): ScheduleRecord[] {
    const states = query.states ?? null;
    const rows = this.stmt(
      `SELECT ${SCHEDULE_COLUMNS} FROM schedules WHERE (@states IS NULL OR state IN (SELECT value FROM json_each(@states)))
         AND execute_at >= @from AND execute_at <= @to ORDER BY execute_at, subject_kind, subject_id LIMIT @limit`,
    ).all({ states: states ? JSON.stringify(states) : null, from: query.from ?? Number.MIN_SAFE_INTEGER, to: query.to ?? Number.MAX_SAFE_INTEGER, limit: query.limit ?? -1 }) as ScheduleRow[];
    return rows.map(toSchedule);
  }

  releaseSchedule(kind: ScheduledKind, id: string, options: { actor: string; from: 'SCHEDULED' | 'LATE' }): ScheduleRecord | null {
    const at = this.now();
    return this.durably((): ScheduleRecord | null => {
      const changed = this.stmt(
        `UPDATE schedules SET state = 'RELEASED', released_at = ?, released_by = ?, late_by_ms = MAX(0, ? - execute_at), updated_at = ?
          WHERE subject_kind = ? AND subject_id = ? AND state = ? AND execute_at <= ?`,
      ).run(at, options.actor, at, at, kind, id, options.from, at).changes === 1;
      if (!changed) return null;
      const released = this.schedule(kind, id)!;
      if (kind === 'batch') {
        this.stmt(`UPDATE batches SET state = 'RUNNING', pause_reason = NULL, updated_at = ? WHERE id = ? AND state = 'SCHEDULED'`).run(at, id);
      } else if (this.stmt(`UPDATE payments SET state = 'QUEUED', status = 'QUEUED', last_error = NULL, updated_at = ? WHERE kind = 'payout' AND id = ? AND state = 'HELD'`).run(at, id).changes === 1) {
        this.appendStatusEvent('payout', id, 'QUEUED', 'local', at, { message: releasedText(released.lateByMs ?? 0, options.actor) });
      }
      this.appendAudit(at, { actor: options.actor, action: `${kind}.released-at-time`, subject: id, details: { executeAt: new Date(released.at).toISOString(), lateByMs: released.lateByMs, confirmedLate: options.from === 'LATE' } });
      return released;
    });
  }

  markScheduleLate(kind: ScheduledKind, id: string, actor: string): boolean {
    const at = this.now();
    return this.db.transaction((): boolean => {
      const changed = this.stmt(`UPDATE schedules SET state = 'LATE', late_by_ms = ? - execute_at, updated_at = ? WHERE subject_kind = ? AND subject_id = ? AND state = 'SCHEDULED' AND execute_at <= ?`)
        .run(at, at, kind, id, at).changes === 1;
      if (changed) this.appendAudit(at, { actor, action: `${kind}.release-late`, subject: id, details: { lateByMs: this.schedule(kind, id)!.lateByMs } });
      return changed;
    })();
  }

  moveSchedule(kind: ScheduledKind, id: string, to: NewSchedule, actor: string): boolean {
    const at = this.now();
    return this.db.transaction((): boolean => {
      const before = this.schedule(kind, id);
      if (!before || (before.state !== 'SCHEDULED' && before.state !== 'LATE')) return false;
      this.stmt(`UPDATE schedules SET execute_at = ?, zone = ?, local_time = ?, state = 'SCHEDULED', late_by_ms = NULL, updated_at = ? WHERE subject_kind = ? AND subject_id = ?`)
        .run(to.at, to.zone, to.local, at, kind, id);
      const waiting = waitingText(to);
      if (kind === 'batch') this.stmt(`UPDATE batches SET pause_reason = ?, updated_at = ? WHERE id = ? AND state = 'SCHEDULED'`).run(waiting, at, id);
      else this.stmt(`UPDATE payments SET last_error = ?, updated_at = ? WHERE kind = 'payout' AND id = ? AND state = 'HELD'`).run(waiting, at, id);
      this.appendAudit(at, { actor, action: `${kind}.schedule-moved`, subject: id, details: { from: { local: before.local, zone: before.zone }, to: { local: to.local, zone: to.zone } } });
      return true;
    })();
  }

  cancelSchedule(kind: ScheduledKind, id: string, actor: string, reason: string): boolean {
    const at = this.now();
    return this.db.transaction((): boolean => {
      const changed = this.stmt(`UPDATE schedules SET state = 'CANCELLED', updated_at = ? WHERE subject_kind = ? AND subject_id = ? AND state IN ('SCHEDULED', 'LATE')`).run(at, kind, id).changes === 1;
      if (!changed) return false;
      if (kind === 'batch') {
        this.stmt(`UPDATE batches SET state = 'CANCELLED', pause_reason = ?, updated_at = ? WHERE id = ? AND state = 'SCHEDULED'`).run(reason, at, id);
        for (const row of this.stmt(`SELECT id FROM payments WHERE kind = 'payout' AND batch_id = ? AND state = 'QUEUED'`).all(id) as { id: string }[]) {
          this.stmt(`UPDATE payments SET state = 'CANCELLED', status = 'CANCELLED', is_final = 1, final_at = ?, updated_at = ? WHERE kind = 'payout' AND id = ? AND state = 'QUEUED'`).run(at, at, row.id);
          this.appendStatusEvent('payout', row.id, 'CANCELLED', 'local', at, { message: reason });
        }
      } else if (this.stmt(`UPDATE payments SET state = 'DISCARDED', status = 'DISCARDED', is_final = 1, final_at = ?, last_error = ?, updated_at = ? WHERE kind = 'payout' AND id = ? AND state = 'HELD'`).run(at, reason, at, id).changes === 1) {
        this.appendStatusEvent('payout', id, 'DISCARDED', 'local', at, { message: reason });
      }
      this.appendAudit(at, { actor, action: `${kind}.schedule-cancelled`, subject: id, details: { reason } });
      return true;
    })();
  }

  // ---- payments: reads ----

  getPayment(kind: PaymentKind, id: string): PaymentRecord | undefined {
    const row = this.stmt('SELECT * FROM payments WHERE kind = ? AND id = ?').get(kind, id) as PaymentRow | undefined;
    return row ? toPayment(row) : undefined;
  }

  /** Just the state of a payment, for the hot paths (callbacks) that need no more than that. */
  paymentState(kind: PaymentKind, id: string): { state: PaymentState; isFinal: boolean } | undefined {
    const row = this.stmt('SELECT state, is_final FROM payments WHERE kind = ? AND id = ?').get(kind, id) as { state: PaymentState; is_final: number } | undefined;
    return row ? { state: row.state, isFinal: row.is_final === 1 } : undefined;
  }

  private mustGet(kind: PaymentKind, id: string): PaymentRecord {
    const p = this.getPayment(kind, id);
    if (!p) throw new JournalError('NOT_FOUND', `no ${kind} with id ${id} in the journal`, [id]);
    return p;
  }

  /**
   * Payments the gateway may not have yet (QUEUED, SENDING, UNKNOWN; not HELD), oldest first; optionally
   * of one batch.
   */
  unsentPayments(kind: PaymentKind, batchId?: string): PaymentRecord[] {
    const rows = (batchId === undefined
      ? this.stmt(`SELECT * FROM payments WHERE kind = ? AND state IN ('QUEUED', 'SENDING', 'UNKNOWN') ORDER BY created_at, pk`).all(kind)
      : this.stmt(`SELECT * FROM payments WHERE kind = ? AND batch_id = ? AND state IN ('QUEUED', 'SENDING', 'UNKNOWN') ORDER BY row_number, pk`).all(kind, batchId)) as PaymentRow[];
    return rows.map(toPayment);
  }

  /** Payments of a batch that sending can still move: unsent, or unknown with a re-send still allowed. */
  sendableCount(batchId: string): number {
    const row = this.stmt(`SELECT COUNT(*) AS n FROM payments WHERE batch_id = ? AND (state IN ('QUEUED', 'SENDING') OR (state = 'UNKNOWN' AND resend_refused = 0))`).get(batchId) as { n: number };
    return row.n;
  }

  /** When the next status read falls due (null: none is planned). */
  nextPollTime(skip: ReadonlySet<string> = new Set()): number | null {
    if (skip.size === 0) return (this.stmt('SELECT MIN(next_poll_at) AS t FROM payments WHERE next_poll_at IS NOT NULL').get() as { t: number | null }).t;
    // Soonest first along the poll index: only the reads in flight are stepped over.
    const row = this.stmt(`SELECT next_poll_at AS t FROM payments WHERE next_poll_at IS NOT NULL AND (kind || ':' || id) NOT IN (SELECT value FROM json_each(?)) ORDER BY next_poll_at LIMIT 1`)
      .get(JSON.stringify([...skip])) as { t: number } | undefined;
    return row?.t ?? null;
  }

  /** Payments whose next status read is due (accepted and moving, unknown, missing, or paid and re-read), soonest first. */
  duePolls(now: number, limit: number, skip: ReadonlySet<string> = new Set()): DuePoll[] {
    // Three columns, not whole records: the poller asks several times a second while reads are due, and a
    // whole row (its observation JSON and all) per due payment was the simulation's costliest statement.
    const rows = this.stmt(`SELECT kind, id, next_poll_at AS nextPollAt FROM payments WHERE next_poll_at <= ? ORDER BY next_poll_at LIMIT ?`).all(now, limit + skip.size) as DuePoll[];
    return rows.filter((p) => !skip.has(`${p.kind}:${p.id}`)).slice(0, limit);
  }

  /** Every currency this journal has seen, for balance refreshes. */
  knownCurrencies(): string[] {
    return (this.stmt('SELECT DISTINCT currency_code AS c FROM payments ORDER BY c').all() as { c: string }[]).map((r) => r.c);
  }

  existingIds(kind: PaymentKind, ids: string[]): Set<string> {
    // The ids as one JSON array, through one statement prepared once: a statement with 500 placeholders
    // prepared for every 500 ids cost 80 ms of each 100,000-row file check.
    const statement = this.stmt('SELECT k.value AS id FROM json_each(?) AS k CROSS JOIN payments AS p ON p.kind = ? AND p.id = k.value');
    const found = new Set<string>();
    for (let i = 0; i < ids.length; i += ID_LOOKUP_CHUNK) {
      for (const r of statement.all(JSON.stringify(ids.slice(i, i + ID_LOOKUP_CHUNK)), kind) as { id: string }[]) found.add(r.id);
    }
    return found;
  }

  // ---- CsvJournalLookup (main/csv) ----

  existingPayoutIds(ids: string[]): Set<string> {
    return this.existingIds('payout', ids);
  }

  paymentRunRefs(kind: PaymentRunRefKind, refs: readonly string[]): PaymentRunRef[] {
    return paymentRunRefs((sql) => this.stmt(sql), kind, refs);
  }

  batchFileSubmitted(sha256: string): boolean {
    return this.stmt('SELECT 1 FROM batches WHERE sha256 = ? LIMIT 1').get(sha256) !== undefined;
  }

  earliestLikePayouts(keys: LikePayoutKey[], since: number, skip: LikePayoutSkip = {}): LikePayout[] {
    if (keys.length === 0) return [];
    // One statement for all keys (a JSON array of [account, amount, currency]). For each, the subquery walks
    // payments_like from `since` and stops at the first payout that counts: a key paid hundreds of times costs one
    // step, not hundreds of rows (a 10,000-row subject to 4 accounts read 770,000 rows into JS before, for 2 s).
    const sql = `SELECT p.id, p.account_number, p.amount_minor, p.currency_code, p.created_at, p.batch_id, b.file_name, b.sha256
      FROM json_each(@keys) AS k CROSS JOIN payments AS p ON p.pk = (
        SELECT q.pk FROM payments AS q
         WHERE q.kind = 'payout' AND q.account_number = k.value ->> 0 AND q.amount_minor = k.value ->> 1 AND q.currency_code = k.value ->> 2
           AND q.created_at >= @since AND (q.is_final = 0 OR q.status = 'SUCCESS')
           AND (@batch IS NULL OR q.batch_id IS NOT @batch)
           AND q.id NOT IN (SELECT value FROM json_each(@ids))
           AND (@sha IS NULL OR NOT EXISTS (SELECT 1 FROM batches AS f WHERE f.id = q.batch_id AND f.sha256 = @sha))
         ORDER BY q.created_at, q.id LIMIT 1)
      LEFT JOIN batches AS b ON b.id = p.batch_id
      ORDER BY p.created_at, p.id`;
    const json = JSON.stringify(keys.map((r) => [r.accountNumber, r.amountMinor, r.currencyCode]));
    const rows = this.stmt(sql).all({ keys: json, since, batch: skip.batchId ?? null, ids: JSON.stringify(skip.ids ?? []), sha: skip.fileSha256 ?? null }) as { id: string; account_number: string; amount_minor: number; currency_code: string; created_at: number; batch_id: string | null; file_name: string | null; sha256: string | null }[];
    return rows.map((r) => ({
      id: r.id, accountNumber: r.account_number, amountMinor: r.amount_minor, currencyCode: r.currency_code, createdAt: r.created_at, batchId: r.batch_id, fileName: r.file_name, fileSha256: r.sha256,
    }));
  }

  /**
   * The most recent account number paid to each beneficiary name, and to each e-mail, on their own (case
   * and outer spaces ignored): a known name with a new e-mail and a new account is exactly the fraud case.
   * A name match comes back with an empty e-mail, an e-mail match with an empty name.
   */
  /**
   * Every account each payee (by name, and by e-mail, each on its own) was paid to, compared by payeeKey
   * (Unicode-aware). One row per payee key and account; the caller compares with all of them.
   */
  knownBeneficiaryAccounts(keys: { accountName: string; emailAddress: string }[]): { accountName: string; emailAddress: string; accountNumber: string }[] {
    // Each name and e-mail once, under the spelling it first came with.
    const names = new Map<string, string>();
    const emails = new Map<string, string>();
    for (const k of keys) {
      const name = payeeKey(k.accountName);
      if (name && !names.has(name)) names.set(name, k.accountName);
      const email = payeeKey(k.emailAddress);
      if (email && !emails.has(email)) emails.set(email, k.emailAddress);
    }
    // One statement for all the keys of a kind (a JSON array), not one per key: 100,000 rows took 1.3 s in
    // 200,000 statements. CROSS JOIN keeps the keys outside, so each walks the index of its column.
    const accounts = (column: 'payee_name_key' | 'payee_email_key', keyed: Map<string, string>): Map<string, string[]> => {
      const found = new Map<string, string[]>();
      if (keyed.size === 0) return found;
      const sql = `SELECT DISTINCT k.value AS key, p.account_number FROM json_each(?) AS k CROSS JOIN payments AS p ON p.${column} = k.value AND p.kind = 'payout' ORDER BY k.value, p.account_number`;
      for (const row of this.stmt(sql).all(JSON.stringify([...keyed.keys()])) as { key: string; account_number: string }[]) {
        found.set(row.key, [...(found.get(row.key) ?? []), row.account_number]);
      }
      return found;
    };
    const byName = accounts('payee_name_key', names);
    const byEmail = accounts('payee_email_key', emails);
    // In the order of the keys: a name's accounts, then its e-mail's; a name or e-mail seen before not again.
    const out: { accountName: string; emailAddress: string; accountNumber: string }[] = [];
    const said = new Set<string>();
    for (const k of keys) {
      const name = payeeKey(k.accountName);
      if (name && !said.has(`n:${name}`)) {
        said.add(`n:${name}`);
        for (const accountNumber of byName.get(name) ?? []) out.push({ accountName: names.get(name)!, emailAddress: '', accountNumber });
      }
      const email = payeeKey(k.emailAddress);
      if (email && !said.has(`e:${email}`)) {
        said.add(`e:${email}`);
        for (const accountNumber of byEmail.get(email) ?? []) out.push({ accountName: '', emailAddress: emails.get(email)!, accountNumber });
      }
    }
    return out;
  }

  // ---- batches ----

  getBatch(id: string): BatchRecord | undefined {
    const row = this.stmt('SELECT * FROM batches WHERE id = ?').get(id) as BatchRow | undefined;
    return row ? toBatch(row) : undefined;
  }

  private mustGetBatch(id: string): BatchRecord {
    const b = this.getBatch(id);
    if (!b) throw new JournalError('NOT_FOUND', `no batch with id ${id} in the journal`, [id]);
    return b;
  }

  batchesIn(states: StoredBatchState[]): BatchRecord[] {
    if (states.length === 0) return [];
    return (this.db.prepare(`SELECT * FROM batches WHERE state IN (${states.map(() => '?').join(', ')}) ORDER BY created_at`).all(...states) as BatchRow[]).map(toBatch);
  }

  listBatches(limit = 100): BatchRecord[] {
    return (this.stmt('SELECT * FROM batches ORDER BY created_at DESC LIMIT ?').all(limit) as BatchRow[]).map(toBatch);
  }

  setBatchState(id: string, state: StoredBatchState, reason: string | null = null, actor = 'engine'): BatchRecord {
    const at = this.now();
    this.db.transaction(() => {
      const before = this.mustGetBatch(id);
      if (before.state === state && before.pauseReason === reason) return;
      this.stmt('UPDATE batches SET state = ?, pause_reason = ?, updated_at = ? WHERE id = ?').run(state, reason, at, id);
      this.appendAudit(at, { actor, action: `batch.${state.toLowerCase()}`, subject: id, details: reason ? { reason } : {} });
    })();
    return this.mustGetBatch(id);
  }

  batchCounts(id: string): BatchCounts {
    const rows = this.stmt('SELECT state, status, is_final, COUNT(*) AS n FROM payments WHERE batch_id = ? GROUP BY state, status, is_final')
      .all(id) as { state: PaymentState; status: string; is_final: number; n: number }[];
    const byState = Object.fromEntries(PAYMENT_STATES.map((state) => [state, 0])) as Record<PaymentState, number>;
    const byStatus: Record<string, number> = {};
    const c = { total: 0, sent: 0, final: 0, failed: 0, pending: 0 };
    for (const r of rows) {
      c.total += r.n;
      byState[r.state] += r.n;
      byStatus[r.status] = (byStatus[r.status] ?? 0) + r.n;
      const accepted = r.state === 'ACCEPTED';
      if (accepted) c.sent += r.n;
      if (accepted && r.is_final === 1) c.final += r.n;
      if ((accepted && r.is_final === 1 && r.status !== 'SUCCESS') || ['REJECTED', 'MISMATCH', 'MISSING', 'DISCARDED'].includes(r.state)) c.failed += r.n;
      if (['QUEUED', 'SENDING', 'UNKNOWN', 'HELD'].includes(r.state) || (accepted && r.is_final === 0)) c.pending += r.n;
    }
    return { ...c, byState, byStatus };
  }

  batchPayments(id: string): PaymentRecord[] {
    return (this.stmt('SELECT * FROM payments WHERE batch_id = ? ORDER BY row_number, pk').all(id) as PaymentRow[]).map(toPayment);
  }

  /**
   * Who prepared a batch or a payout and when it was journalled (the manifest's preparedBy and
   * preparedAt); undefined when there is no such subject.
   */
  preparation(kind: 'payout' | 'batch', id: string): { preparedBy: string | null; preparedAt: number } | undefined {
    const row = (kind === 'batch'
      ? this.stmt('SELECT prepared_by, created_at FROM batches WHERE id = ?').get(id)
      : this.stmt(`SELECT prepared_by, created_at FROM payments WHERE kind = 'payout' AND id = ?`).get(id)) as { prepared_by: string | null; created_at: number } | undefined;
    return row ? { preparedBy: row.prepared_by, preparedAt: row.created_at } : undefined;
  }

  possibleDuplicateIds(kind: 'payout' | 'batch', id: string): string[] {
    // The LIKE skips the JSON parse for the rows without the flag (almost all); json_extract decides.
    const flagged = `details_json LIKE '%"possibleDuplicate":true%' AND json_extract(details_json, '$.possibleDuplicate') = 1`;
    const rows = (kind === 'batch'
      ? this.stmt(`SELECT id FROM payments WHERE batch_id = ? AND ${flagged} ORDER BY row_number, pk`).all(id)
      : this.stmt(`SELECT id FROM payments WHERE kind = 'payout' AND id = ? AND ${flagged}`).all(id)) as { id: string }[];
    return rows.map((r) => r.id);
  }

  /**
   * Just what a manifest signs of each payout of a batch (or of one payout), in row order: a lean read,
   * because the approval gate reads a whole batch before its first create.
   */
  manifestRows(kind: 'payout' | 'batch', id: string): ManifestRow[] {
    const columns = `id, amount_minor AS amountMinor, currency_code AS currencyCode, account_name AS accountName, account_number AS accountNumber,
      payment_operator_code AS paymentOperatorCode, payment_method_code AS paymentMethodCode, email_address AS emailAddress, callback_url AS callbackUrl`;
    return (kind === 'batch'
      ? this.stmt(`SELECT ${columns} FROM payments WHERE batch_id = ? ORDER BY row_number, pk`).all(id)
      : this.stmt(`SELECT ${columns} FROM payments WHERE kind = 'payout' AND id = ?`).all(id)) as ReturnType<Journal['manifestRows']>;
  }

  // ---- intents and retries ----

  /** Every attempt of an intent, oldest first. */
  intentAttempts(intentId: string): PaymentRecord[] {
    return (this.stmt('SELECT * FROM payments WHERE intent_id = ? ORDER BY pk').all(intentId) as PaymentRow[]).map(toPayment);
  }

  /** The attempt that retried this one, if any. */
  retriedAs(id: string): string | null {
    const row = this.stmt(`SELECT id FROM payments WHERE kind = 'payout' AND retry_of = ? ORDER BY pk LIMIT 1`).get(id) as { id: string } | undefined;
    return row?.id ?? null;
  }

  batchRetries(batchId: string): Map<string, string> {
    // The first stored retry of each, as retriedAs answers.
    const rows = this.stmt(
      `SELECT p.id AS of, (SELECT r.id FROM payments r WHERE r.kind = 'payout' AND r.retry_of = p.id ORDER BY r.pk LIMIT 1) AS retry
         FROM payments p WHERE p.batch_id = ? AND EXISTS (SELECT 1 FROM payments r WHERE r.kind = 'payout' AND r.retry_of = p.id)`,
    ).all(batchId) as { of: string; retry: string }[];
    return new Map(rows.map((r) => [r.of, r.retry]));
  }

  /**
   * The attempts of a batch that may be retried now (DESIGN.md §4, per intent): the latest attempt of its
   * intent, and every attempt of that intent final in a state that moved no money, by the gateway's word
   * (a final gateway status in `notPaid`, or refused, cancelled before sending, discarded while held).
   * Retrying makes a newer attempt, so the same failure is never retried twice.
   */
  retryableAttempts(batchId: string, notPaid: readonly string[]): PaymentRecord[] {
    const settledUnpaid = (alias: string) =>
      `((${alias}.state = 'ACCEPTED' AND ${alias}.is_final = 1 AND ${alias}.gateway_status IN (${notPaid.map(() => '?').join(', ')})) OR ${alias}.state IN ('REJECTED', 'CANCELLED', 'DISCARDED'))`;
    const rows = this.db.prepare(
      `SELECT p.* FROM payments p
        WHERE p.kind = 'payout' AND p.batch_id = ? AND p.intent_id IS NOT NULL AND ${settledUnpaid('p')}
          AND NOT EXISTS (SELECT 1 FROM payments q WHERE q.intent_id = p.intent_id AND q.pk <> p.pk AND (q.pk > p.pk OR NOT ${settledUnpaid('q')}))
        ORDER BY p.row_number, p.pk`,
    ).all(batchId, ...notPaid, ...notPaid) as PaymentRow[];
    return rows.map(toPayment);
  }

  /**
   * Retries exactly the attempts a person reviewed, as one new batch of new attempts of the same intents
   * (new ids, linked both ways), in one transaction with the check that they are still the retryable
   * ones. Throws RETRY_ROWS_CHANGED when the reviewed ids are not exactly those.
   */
  retryBatch(input: { batchId: string; reviewedIds: readonly string[]; notPaid: readonly string[]; fileName: string; id?: string; newId: () => string; actor: string; preparedBy?: string }): BatchRecord {
    const source = this.mustGetBatch(input.batchId);
    let created = '';
    this.durably(() => {
      const retryable = this.retryableAttempts(input.batchId, input.notPaid);
      const { rows, sha256 } = planRetryBatch(source.id, retryable, input.reviewedIds, input.newId);
      created = this.insertBatch({ ...(input.id ? { id: input.id } : {}), fileName: input.fileName, sha256, rows, actor: input.actor, preparedBy: input.preparedBy });
    });
    return this.mustGetBatch(created);
  }

  // ---- balances ----

  insertBalanceSnapshots(snapshots: Omit<BalanceSnapshot, 'observedAt'>[], observedAt = this.now()): void {
    const insert = this.stmt('INSERT INTO balance_snapshots (currency_code, available_minor, reserved_minor, observed_at) VALUES (?, ?, ?, ?)');
    this.db.transaction(() => {
      for (const s of snapshots) insert.run(s.currencyCode, s.availableMinor, s.reservedMinor, observedAt);
    })();
  }

  balanceSeries(currencyCode: string, from?: number, to?: number): BalanceSnapshot[] {
    return balanceSeries(this.db, currencyCode, from, to);
  }

  latestBalances(): BalanceSnapshot[] {
    return latestBalances(this.db);
  }

  // ---- history ----

  history(query: HistoryQuery = {}): HistoryPage {
    return queryHistoryPlanned(this.db, query);
  }

  iterateHistory(filter: HistoryFilter = {}): Generator<PaymentRecord> {
    return iterateHistoryPlanned(this.db, filter);
  }

  timeline(kind: PaymentKind, id: string): StatusEvent[] {
    return paymentTimeline(this.db, kind, id);
  }

  pendingPayoutTotals(): CurrencyTotal[] {
    return pendingPayoutTotals(this.db);
  }

  payoutActivity(dayStarts: number[]): PayoutActivityRow[] {
    return payoutActivity(this.db, dayStarts);
  }

  statementPayments(since: number, acceptedBy: number): StatementPaymentRow[] {
    return statementPayments(this.db, since, acceptedBy);
  }

  balanceAt(currencyCode: string, at: number): BalanceSnapshot | null {
    return balanceAt(this.db, currencyCode, at);
  }

  // ---- closing a period ----
  recordIssuedStatement(record: Omit<IssuedStatementRecord, 'seq'>): IssuedStatementRecord {
    return closing.recordIssuedStatement(this.db, record);
  }

  issuedStatement(periodFrom: number, periodTo: number, currencyScope: string): IssuedStatementRecord | null {
    return closing.issuedStatement(this.db, periodFrom, periodTo, currencyScope);
  }

  claimExportedMovements(exportId: string, movementIds: readonly string[], at: number): string[] {
    return closing.claimExportedMovements(this.db, exportId, movementIds, at);
  }

  exportedMovements(movementIds: readonly string[]): ExportedMovement[] {
    return closing.exportedMovements(this.db, movementIds);
  }

  accountingAccounts(): string | null {
    return closing.accountingAccounts(this.db);
  }

  setAccountingAccounts(accountsJson: string, at: number): void {
    closing.setAccountingAccounts(this.db, accountsJson, at);
  }

  // ---- remittance advice by e-mail ----
  remittanceMails(payoutIds: readonly string[]): RemittanceMailRecord[] {
    return remittanceMails.remittanceMails(this.db, payoutIds);
  }

  claimRemittanceMail(claim: RemittanceMailClaim, over: string | null): boolean {
    return remittanceMails.claimRemittanceMail(this.db, claim, over);
  }

  recordRemittanceMail(payoutId: string, claim: string, update: RemittanceMailUpdate): boolean {
    return remittanceMails.recordRemittanceMail(this.db, payoutId, claim, update);
  }

  // ---- audit ----

  private auditSeal: AuditKey | null = null;
  private auditKeys = new Map<string, Buffer>();
  /** Why entries are refused while there is no key (null: unsealed entries are allowed). */
  private auditSealRequired: string | null = null;
  private readonly auditListeners = new Set<() => void>();

  /**
   * From now on every entry is sealed with `seal` (see audit-log.ts); `keys` are the other keys the
   * keychain holds for checking older entries. Writes `audit.rekeyed` first when the log so far was
   * unsealed or sealed with another key.
   */
  useAuditKey(seal: AuditKey, keys: ReadonlyMap<string, Buffer> = new Map()): void {
    this.auditKeys = new Map([...keys, [seal.id, seal.key]]);
    this.auditSeal = seal;
    const rekeyed = startSealing(this.db, this.now(), seal, { keys: this.auditKeys });
    if (rekeyed) this.auditAppended();
  }

  /** Refuse audit entries until useAuditKey (a desk journal: its key is being read from the keychain). */
  requireAuditKey(reason = 'the audit key of this journal is still being read from the keychain'): void {
    this.auditSealRequired = reason;
  }

  /** Called after each audit entry is written (possibly before its transaction commits). */
  onAuditAppended(listener: () => void): () => void {
    this.auditListeners.add(listener);
    return () => this.auditListeners.delete(listener);
  }

  /** The id the keychain files this journal's audit key and anchor under. */
  journalId(): string {
    const row = this.stmt("SELECT value FROM meta WHERE key = 'journal_id'").get() as { value: string } | undefined;
    if (!row) throw new Error('journal has no journal_id (migration 4 missing)');
    return row.value;
  }

  /** The newest audit entry, the first sealed one, and every key id that sealed entries. */
  auditState(): { head: { seq: number; hash: string; keyId: string | null }; firstSealed: number | null; keyIds: string[] } {
    return { head: auditHead(this.db), firstSealed: firstSealedSeq(this.db), keyIds: auditKeyIds(this.db) };
  }

  private appendAudit(at: number, entry: NewAuditEntry): AuditEntry {
    if (!this.auditSeal && this.auditSealRequired !== null) {
      throw new AuditKeyError(`Nothing was written: ${this.auditSealRequired}`);
    }
    const written = appendAudit(this.db, at, entry, this.auditSeal);
    this.auditAppended();
    return written;
  }

  private auditAppended(): void {
    for (const listener of this.auditListeners) listener();
  }

  /** Appends an audit entry; the actor defaults to the person at this desk (deskActor()). */
  audit(entry: NewAuditEntry): AuditEntry {
    return this.appendAudit(this.now(), entry);
  }

  /** verifyAudit for the entries after `from` only; the mark returned is where the next check starts. */
  verifyAuditSince(from: AuditMark, trust?: AuditTrust): { result: AuditVerifyResult; mark: AuditMark } {
    return verifyAuditFrom(this.db, from, trust ?? { keys: this.auditKeys });
  }

  /** Walks the whole log with the keys given to useAuditKey, or `trust` (which can also name the keychain's anchor). */
  verifyAudit(trust?: AuditTrust): AuditVerifyResult {
    return this.verifyAuditSince({ seq: 0, hash: GENESIS_HASH }, trust).result;
  }

  listAudit(limit?: number, beforeSeq?: number): AuditEntry[] {
    return listAudit(this.db, limit, beforeSeq);
  }
}

/** Amounts per currency of a batch's rows (its totals_json). */

export function openJournal(file: string, options?: JournalOptions): Journal {
  return new Journal(file, options);
}
