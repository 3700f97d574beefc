// The team journal on PostgreSQL: the adapter of DeskJournal (main/journal/port.ts) that lets the desks of a
// finance team share one database: the engine's JournalPort here, the screens' reads in history.ts and
// desk-reads.ts beside it. Each method behaves as the SQLite journal's (store/sqlite/journal.ts): the same
// state transitions, guards, status events and audit entries, written in one transaction where SQLite
// writes one. Tables: migrations.ts (3: payments, batches, status events; 4: the write side).
//
// Exactly one desk sends a given payment. Each PgJournal is one desk process with a unique deskId; it keeps
// a lease in desk_leases on the database's clock (heartbeat every leaseMs/3) and claims a payment before
// sending it (payments.claimed_by). A claim counts while its desk's lease is alive; once the lease has run
// out, any desk may take the payment over, and then treats it as of unknown outcome first (UNKNOWN, read
// with GET before any re-send with the same id), never as new work.
//
// Why a desk whose lease ran out cannot still be sending, and the lease's timings: desk-lease.ts.
//
// What is durable before a request leaves is the claim (committed before the rate slot), not SENDING:
// confirm() answers synchronously and only starts the SENDING write. So a stopped desk's claimed payments
// are taken over as UNKNOWN in any unsent state (QUEUED included), as are SENDING ones nobody claims.
// This desk's own writes to one payment are chained in the order they were started (serial()), and its
// reads of a payment wait for that chain, so the engine reads back what it wrote.
//
// What the engine must do on this adapter: abort every gateway request by maxRequestMs after confirm()
// (pass the transport's time-out here), release() every claim it took (a second claimSend of a payment
// this desk holds is null until then), read the payment back after claimSend (a taken-over payment comes
// back UNKNOWN and must be read with GET first), and take a null claim as "not now" (another desk may be
// sending it, or this desk's lease is not alive), not as "nothing left to send".
import { planRetryBatch } from '../retry-plan';
import { randomUUID } from 'node:crypto';
import type { Pool, PoolClient } from 'pg';
import { deskActor } from '../../audit/actor';
import { AuditKeyError, auditSigningText, canonicalJson, entryHash, GENESIS_HASH, signedEntryHash, type AuditSigner, type NewAuditEntry } from '../../audit/chain';
import { checkedBatch, JournalError } from '../../journal/shared';
import type { DeskJournal, DuePoll, LikePayout, LikePayoutKey, LikePayoutSkip, ManifestRow, RemittanceMailClaim, RemittanceMailRecord, RemittanceMailUpdate, SendClaim } from '../../journal/port';
import { Grouped } from './grouped';
import { paymentRowsJson, STORE_PAYMENTS_SQL } from './payment-rows';
import { toBatch } from '../rows';
import type {
  AuditEntry, BalanceSnapshot, BatchCounts, BatchInput, BatchRecord, StoredBatchState, CurrencyTotal, PayoutActivityRow, StatementPaymentRow, IssuedStatementRecord, ExportedMovement, HistoryFilter, HistoryPage, HistoryQuery, NewPayment, PaymentKind, PaymentRecord,
  PaymentState, StatusEvent, StatusObservation,
} from '../../journal/types';
import { PAYMENT_STATES } from '../../journal/types';
import {
  balanceSeriesPg, batchFileSubmittedPg, batchPaymentsPg, existingPayoutIdsPg, intentAttemptsPg, knownBeneficiaryAccountsPg, latestBalancesPg, earliestLikePayoutsPg,
  listAuditPg, listBatchesPg, payoutActivityPg, statementPaymentsPg, balanceAtPg, pendingPayoutTotalsPg, pgBatchRow, retriedAsPg, batchRetriesPg,
} from './desk-reads';
import * as closing from './closing';
import { claimRemittanceMailPg, recordRemittanceMailPg, remittanceMailsPg } from './remittance-mails';
import type { PaymentRunRef, PaymentRunRefKind } from '../../journal/types';
import { paymentRunRefsOf } from '../../iso20022/run-refs';
import { paymentRunRefsPg, recordPaymentRunRefsPg } from './payment-run-refs';
import { migratePg } from './migrations';
import { releasedText, SCHEDULE_COLUMNS, toSchedule, waitingText, type ScheduleRow } from '../schedules';
import type { NewSchedule, ScheduledKind, ScheduleQuery, ScheduleRecord } from '../../schedules/schedule';
import { isConnectionError } from './connection-error';
import { inTransaction } from './transaction';
import { DeskLease } from './desk-lease';
import { iterateHistoryPg, paymentTimelinePg, pgInteger, queryHistoryPg, toPgPayment, type PgQueryable } from './history';

/** Key of the advisory lock that keeps the audit chain linear across desks (held to the end of a transaction). */
const AUDIT_LOCK = 0x70_61_75_64_69_74; // "paudit"
/**
 * Key of the advisory lock held (to the end of the transaction) by a write that fixes new payment ids, so
 * that its check for ids already there sees every earlier such write committed: two desks storing the same
 * ids at once get DUPLICATE_ID, not a deadlock between their inserts. Taken before any row lock but the
 * retried batch's (retryBatch), and before the audit lock.
 */
const NEW_IDS_LOCK = 0x70_6e_65_77_69_64; // "pnewid"
/** PostgreSQL's unique_violation. */
const UNIQUE_VIOLATION = '23505';
/** PostgreSQL's deadlock_detected. */
const DEADLOCK = '40P01';

/** Runs one statement again (up to three tries) when PostgreSQL broke a deadlock by cancelling it. */
async function retriedOnDeadlock<T>(statement: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await statement();
    } catch (error) {
      if ((error as { code?: string }).code !== DEADLOCK || attempt >= 3) throw error;
    }
  }
}

export interface PgJournalOptions {
  /** Unique per desk process, e.g. `${deskName}:${randomUUID()}`; a claim names it. */
  deskId: string;
  /** Epoch ms of the times written to the journal (createdAt, updatedAt…), as the SQLite journal's `now`. */
  now?: () => number;
  /** How long a heartbeat keeps this desk's lease alive on the database's clock (default 60 000). */
  leaseMs?: number;
  /** Taken off the local lease for the database's clock running at another rate than this one (default 2 000). */
  marginMs?: number;
  /** How long a gateway request may live after confirm() before the engine aborts it (default 30 000). */
  maxRequestMs?: number;
  /** How long duePolls keeps the payments it returned from other desks (default 30 000). */
  pollTakeMs?: number;
  /** A write started by confirm() failed (the claim still fences the payment); default: console.error. */
  onBackgroundError?: (error: unknown) => void;
  /**
   * This desk's key for the team's audit log (main/store/postgres/audit-seal.ts): every entry is signed with it. Without
   * one (tools, tests) entries are written unsigned while the log has no signed entry, and refused after.
   */
  auditSigner?: AuditSigner;
}

/** The newest audit entry this desk wrote, once its transaction committed. */
export interface AuditWritten {
  seq: number;
  hash: string;
}

/** The message of a payment taken over from a desk whose lease ran out. */
const TAKEN_OVER = 'the desk that was sending it stopped (its lease ran out)';

const UNSENT = `('QUEUED', 'SENDING', 'UNKNOWN')`;

/** The SQL of "the desk named by p.claimed_by holds no live lease". */
const CLAIM_DEAD = `NOT EXISTS (SELECT 1 FROM desk_leases l WHERE l.desk_id = p.claimed_by AND l.lease_until > clock_timestamp())`;

export class PgJournal implements DeskJournal {
  private readonly now: () => number;
  private readonly leaseMs: number;
  private readonly marginMs: number;
  private readonly maxRequestMs: number;
  private readonly pollTakeMs: number;
  private readonly onBackgroundError: (error: unknown) => void;
  private readonly lease: DeskLease;
  private closed = false;
  /** Payments this desk holds a claim on and has not given back: a second claim of one is refused. */
  private readonly held = new Set<string>();
  /** Claims of this desk whose payment was cancelled meanwhile: their confirm() is false. */
  private readonly voided = new Set<string>();
  /** Claims this desk held that its own status observation already gave back (the payment left the unsent states). */
  private readonly givenBack = new Set<string>();
  /** Per payment (`kind:id`), the tail of this desk's writes to it, in the order they were started. */
  private readonly chains = new Map<string, Promise<unknown>>();
  private auditSigner: AuditSigner | null;
  /** Why audit entries are refused while there is no signer (null: unsigned entries are allowed). */
  private auditSignerRequired: string | null = null;
  /** Audit entries appended on each open transaction's client, told to the listeners once it commits. */
  private readonly auditPending = new Map<PoolClient, AuditWritten[]>();
  private readonly auditListeners = new Set<(entry: AuditWritten) => void>();

  private constructor(
    private readonly pool: Pool,
    readonly deskId: string,
    options: PgJournalOptions,
  ) {
    this.now = options.now ?? Date.now;
    this.leaseMs = options.leaseMs ?? 60_000;
    this.marginMs = options.marginMs ?? 2_000;
    this.maxRequestMs = options.maxRequestMs ?? 30_000;
    this.pollTakeMs = options.pollTakeMs ?? 30_000;
    this.onBackgroundError = options.onBackgroundError ?? ((error) => console.error('team journal: a write after confirm() failed', error));
    this.auditSigner = options.auditSigner ?? null;
    this.lease = new DeskLease(pool, deskId, { leaseMs: this.leaseMs, marginMs: this.marginMs, maxRequestMs: this.maxRequestMs }, () => this.takeOverExpiredClaims());
  }

  /** Migrates the team database, takes this desk's lease and keeps it alive until close(). */
  static async open(pool: Pool, options: PgJournalOptions): Promise<PgJournal> {
    if (!options.deskId) throw new Error('a team desk needs a deskId');
    await migratePg(pool);
    const journal = new PgJournal(pool, options.deskId, options);
    await journal.lease.start();
    return journal;
  }

  /**
   * Stops the heartbeat. A clean close (default) waits for this desk's pending writes, gives back its
   * claims, then deletes its lease. `{ releaseClaims: false }` leaves claims and lease to run out, as a
   * desk that crashed does (tests).
   */
  async close(options: { releaseClaims?: boolean } = {}): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.lease.end();
    if (options.releaseClaims === false) return;
    await this.allSettled();
    await this.pool.query('UPDATE payments SET claimed_by = NULL WHERE claimed_by = $1', [this.deskId]);
    await this.pool.query('DELETE FROM desk_leases WHERE desk_id = $1', [this.deskId]);
  }

  // ---- lease ----

  /** Renews the lease now (the heartbeat does so every leaseMs/3). */
  renewLease(): Promise<void> {
    return this.lease.renew();
  }

  /** Stops renewing the lease while the desk keeps running: a desk that hangs or lost its network (tests). */
  stopHeartbeat(): void {
    this.lease.stopRenewing();
  }

  // ---- plumbing ----

  /**
   * One transaction on one client of the pool: committed when fn resolves, rolled back when it throws.
   * Run again (a few times) when PostgreSQL chose it as a deadlock's victim: two desks inserting the same
   * new ids in different orders meet so, and the second run then finds the other's rows (DUPLICATE_ID).
   */
  private transaction<T>(fn: (client: PoolClient) => Promise<T>): Promise<T> {
    return retriedOnDeadlock(async () => {
      const written: AuditWritten[] = [];
      const result = await inTransaction(this.pool, async (client) => {
        this.auditPending.set(client, written);
        try {
          return await fn(client);
        } finally {
          this.auditPending.delete(client);
        }
      });
      // Committed: the keychain's anchor may name it now (never an entry rolled back).
      const newest = written.at(-1);
      if (newest) for (const listener of this.auditListeners) listener(newest);
      return result;
    });
  }

  /**
   * Runs fn after every earlier write of this desk to the payment (in the order they were started), so a
   * write started without being awaited (confirm()'s SENDING) is never overtaken by a later one.
   */
  private serial<T>(kind: PaymentKind, id: string, fn: () => Promise<T>): Promise<T> {
    const key = `${kind}:${id}`;
    const before = this.chains.get(key) ?? Promise.resolve();
    const run = before.then(fn, fn);
    const tail = run.then(() => undefined, () => undefined);
    this.chains.set(key, tail);
    void tail.then(() => {
      if (this.chains.get(key) === tail) this.chains.delete(key);
    });
    return run;
  }

  /** Waits for this desk's pending writes to one payment (reads see this desk's own writes). */
  private async settled(kind: PaymentKind, id: string): Promise<void> {
    await this.chains.get(`${kind}:${id}`);
  }

  /** Waits for all of this desk's pending payment writes (reads over many payments). */
  private async allSettled(): Promise<void> {
    while (this.chains.size > 0) await Promise.all([...this.chains.values()]);
  }

  /**
   * Waits for the payment writes this desk had started when called, so a read sees them as the SQLite
   * journal's would. Not allSettled: a screen reads while a batch is being sent, and under a steady stream
   * of answers the chains are never all empty; writes started after the read need not hold it back.
   */
  private writesStarted(): Promise<void> {
    return Promise.all([...this.chains.values()]).then(() => undefined);
  }

  private async appendStatusEvent(db: PgQueryable, kind: PaymentKind, id: string, status: string, source: StatusObservation['source'], at: number, raw: unknown): Promise<void> {
    await db.query('INSERT INTO status_events (kind, id, status, source, observed_at, raw_json) VALUES ($1, $2, $3, $4, $5, $6)', [
      kind, id, status, source, at, raw === null || raw === undefined ? null : canonicalJson(raw),
    ]);
  }

  /**
   * Appends an audit entry inside the caller's transaction, under an advisory lock held to its end so the
   * chain stays linear across desks. Signed by this desk (main/store/postgres/audit-seal.ts): hash = sha256(prev_hash +
   * canonical JSON with the signer's key id), signature = Ed25519 of it by that key. Without a signer the
   * unkeyed chain of the SQLite journal (audit-log.ts) is written, but only while no entry is signed: after
   * one, an unsigned entry would read as forged, so it is refused, as it is while this desk's key is being
   * read from its keychain (requireAuditSigner).
   */
  private async appendAudit(client: PoolClient, at: number, entry: NewAuditEntry, signer = this.auditSigner): Promise<AuditEntry> {
    if (!signer && this.auditSignerRequired !== null) throw new AuditKeyError(`Nothing was written: ${this.auditSignerRequired}`);
    await client.query('SELECT pg_advisory_xact_lock($1)', [AUDIT_LOCK]);
    const head = (await client.query('SELECT seq, hash, key_id FROM audit_log ORDER BY seq DESC LIMIT 1')).rows[0];
    if (!signer && head && head.key_id !== null) {
      throw new AuditKeyError("Nothing was written: the team's audit log is signed by its desks' keys; open the team database through the desk (which loads this desk's key from its keychain) to write to it");
    }
    const seq = head ? pgInteger(head.seq, 'seq') + 1 : 1;
    const prevHash = head ? (head.hash as string) : GENESIS_HASH;
    const detailsJson = canonicalJson(entry.details ?? {});
    const subject = entry.subject ?? null;
    const actor = entry.actor ?? deskActor();
    const fields = { seq, at, actor, action: entry.action, subject, detailsJson };
    const hash = signer ? signedEntryHash(prevHash, fields, signer.keyId) : entryHash(prevHash, fields, null);
    await client.query(
      'INSERT INTO audit_log (seq, at, actor, action, subject, details_json, prev_hash, hash, key_id, signature) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)',
      [seq, at, actor, entry.action, subject, detailsJson, prevHash, hash, signer?.keyId ?? null, signer ? signer.sign(auditSigningText(hash)) : null],
    );
    this.auditPending.get(client)?.push({ seq, hash });
    return { seq, at, actor, action: entry.action, subject, details: JSON.parse(detailsJson) as unknown, prevHash, hash };
  }

  /** From now on every audit entry is signed with `signer` (registered first: registerAuditSigner). */
  useAuditSigner(signer: AuditSigner): void {
    this.auditSigner = signer;
  }

  /** Refuses audit entries until useAuditSigner (a desk's journal: its key is being read from the keychain). */
  requireAuditSigner(reason = "this desk's key for the team's audit log is still being read from the keychain"): void {
    this.auditSignerRequired = reason;
  }

  /** Called with the newest audit entry of each of this desk's transactions, once it committed. */
  onAuditAppended(listener: (entry: AuditWritten) => void): () => void {
    this.auditListeners.add(listener);
    return () => this.auditListeners.delete(listener);
  }

  /**
   * Registers this desk's signing key in audit_signers, in one transaction with an `audit.signer-added` entry
   * signed by it, which names the head it follows (so entries written before cannot be changed without
   * breaking it). Null when the key was registered already; throws when its id is registered with another
   * public key (the row was replaced: nothing is signed under it).
   */
  async registerAuditSigner(signer: AuditSigner, registration: { publicKey: string; deskName: string }): Promise<AuditEntry | null> {
    return this.transaction(async (client) => {
      // The audit lock first: the registration and its entry take their place in the chain together.
      await client.query('SELECT pg_advisory_xact_lock($1)', [AUDIT_LOCK]);
      const known = (await client.query('SELECT public_key FROM audit_signers WHERE key_id = $1', [signer.keyId])).rows[0] as { public_key: string } | undefined;
      if (known) {
        if (known.public_key === registration.publicKey) return null;
        throw new Error(`The team database registers audit key ${signer.keyId} with another public key than this desk's: its row in audit_signers was replaced`);
      }
      const at = this.now();
      const head = (await client.query('SELECT seq, hash, key_id FROM audit_log ORDER BY seq DESC LIMIT 1')).rows[0];
      await client.query('INSERT INTO audit_signers (key_id, public_key, desk_name, registered_at) VALUES ($1, $2, $3, $4)', [
        signer.keyId, registration.publicKey, registration.deskName, at,
      ]);
      return this.appendAudit(client, at, {
        action: 'audit.signer-added',
        subject: signer.keyId,
        details: {
          keyId: signer.keyId,
          deskName: registration.deskName,
          previousHead: head ? { seq: pgInteger(head.seq, 'seq'), hash: head.hash as string, signed: head.key_id !== null } : null,
        },
      }, signer);
    });
  }

  // ---- payments: writes ----

  /**
   * Takes the new-ids lock and refuses ids already stored. `meanwhile` runs while the server looks them up
   * (a batch builds its rows' json there: half a second of 100,000 rows that need not wait on the lookup).
   */
  private async refuseExisting<T>(db: PgQueryable, kind: PaymentKind, ids: readonly string[], meanwhile: () => T): Promise<T> {
    await db.query('SELECT pg_advisory_xact_lock($1)', [NEW_IDS_LOCK]);
    const lookup = db.query<{ id: string }>('SELECT id FROM payments WHERE kind = $1 AND id = ANY($2::text[]) ORDER BY id', [kind, ids]);
    let result: T;
    try {
      result = meanwhile();
    } catch (error) {
      await lookup.catch(() => undefined);
      throw error;
    }
    const existing = (await lookup).rows.map((r) => r.id);
    if (existing.length > 0) throw duplicate(kind, existing);
    return result;
  }

  /**
   * Inserts payments (QUEUED, with a QUEUED status event each, and a new intent for each payout that has
   * none) in one statement whatever their number: `rowsJson` from paymentRowsJson, `ids` theirs.
   */
  private async insertRows(client: PoolClient, kind: PaymentKind, ids: readonly string[], rowsJson: string, at: number, actor: string): Promise<void> {
    try {
      await client.query(STORE_PAYMENTS_SQL, [kind, at, rowsJson, actor]);
    } catch (error) {
      // Another desk inserted one of these ids between our check and our insert.
      // PostgreSQL reports the conflict once the other transaction committed, so the pool sees its rows.
      if ((error as { code?: string; constraint?: string }).code === UNIQUE_VIOLATION && (error as { constraint?: string }).constraint === 'payments_kind_id_key') {
        const existing = (await this.pool.query<{ id: string }>('SELECT id FROM payments WHERE kind = $1 AND id = ANY($2::text[]) ORDER BY id', [kind, ids])).rows.map((r) => r.id);
        throw duplicate(kind, existing.length > 0 ? existing : [...ids]);
      }
      throw error;
    }
  }

  async insertPayment(kind: PaymentKind, p: NewPayment, actor = deskActor()): Promise<PaymentRecord> {
    const at = this.now();
    await this.transaction(async (client) => {
      const rowsJson = await this.refuseExisting(client, kind, [p.id], () => paymentRowsJson(kind, [p], () => 'single'));
      await this.insertRows(client, kind, [p.id], rowsJson, at, actor);
      await this.appendAudit(client, at, { actor, action: `${kind}.queued`, subject: p.id, details: { amountMinor: p.amountMinor, currencyCode: p.currencyCode, batchId: p.batchId ?? null } });
      if (p.schedule) {
        // Held by its schedule in the same transaction: no moment where it is QUEUED without its time.
        const waiting = waitingText(p.schedule);
        await client.query(`UPDATE payments SET state = 'HELD', status = 'HELD', last_error = $1 WHERE kind = $2 AND id = $3`, [waiting, kind, p.id]);
        await this.insertSchedule(client, 'payout', p.id, p.schedule, at, actor);
        await this.appendStatusEvent(client, kind, p.id, 'HELD', 'local', at, { message: waiting });
      }
    });
    return this.mustGet(kind, p.id);
  }

  async createBatch(input: BatchInput): Promise<BatchRecord> {
    // A pain.001 run's MsgId and EndToEndIds, kept with the batch: a run or transaction seen before is refused here too.
    const refs = paymentRunRefsOf(input.rows);
    const id = await this.transaction(async (client) => {
      const stored = await this.insertBatch(client, input);
      await recordPaymentRunRefsPg(client, stored, refs, this.now());
      return stored;
    });
    return this.mustGetBatch(id);
  }

  private async insertBatch(client: PoolClient, input: BatchInput): Promise<string> {
    const { ids, totals } = checkedBatch(input);
    const id = input.id ?? randomUUID();
    const at = this.now();
    const rowsJson = await this.refuseExisting(client, 'payout', ids, () =>
      paymentRowsJson('payout', input.rows, (row) => (row.retryOf ? 'retry' : 'batch'), { batchId: id, preparedBy: input.preparedBy }));
    await client.query(
      `INSERT INTO batches (id, file_name, sha256, row_count, totals_json, state, pause_reason, created_at, updated_at, prepared_by) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8, $9)`,
      [id, input.fileName, input.sha256, input.rows.length, JSON.stringify(totals), input.schedule ? 'SCHEDULED' : 'RUNNING', input.schedule ? waitingText(input.schedule) : null, at, input.preparedBy ?? null],
    );
    const actor = input.actor ?? deskActor();
    if (input.schedule) await this.insertSchedule(client, 'batch', id, input.schedule, at, actor);
    await this.insertRows(client, 'payout', ids, rowsJson, at, actor);
    await this.appendAudit(client, at, { actor, action: 'batch.submitted', subject: id, details: { fileName: input.fileName, sha256: input.sha256, rows: input.rows.length, totals } });
    return id;
  }

  /**
   * Claims a payment for one attempt of sending (see the top of this file). A payment claimed by another
   * desk whose lease ran out (or left SENDING with no claim) is of unknown outcome first: it becomes UNKNOWN
   * with its status event in the same transaction, then is claimed; the engine reads it back and asks the
   * gateway before any re-send. Null when it is not unsent, another live desk holds it, or this desk's own
   * lease is not surely alive.
   */
  async claimSend(kind: PaymentKind, id: string): Promise<SendClaim | null> {
    const key = `${kind}:${id}`;
    if (!this.lease.held() || this.held.has(key)) return null;
    const epoch = this.lease.epoch;
    this.held.add(key);
    this.voided.delete(key);
    this.givenBack.delete(key);
    const claimed = await this.serial(kind, id, async (): Promise<PaymentRecord | boolean> => (await this.quickClaims.add({ kind, id })) ?? this.claimSlowly(kind, id)).catch((error: unknown) => {
        this.held.delete(key);
        // The desk's words for it: without the database nothing is claimed, so nothing is sent.
        if (isConnectionError(error)) {
          throw new JournalError('DATABASE_UNREACHABLE', `the team database cannot be reached (${(error as Error).message}): nothing is sent until it is back`, [id]);
        }
        throw error;
      });
    if (!claimed) {
      this.held.delete(key);
      return null;
    }
    return {
      confirm: () => this.confirmSend(kind, id, epoch),
      release: () => this.releaseClaim(kind, id),
      ...(claimed === true ? {} : { payment: claimed }),
    };
  }

  /**
   * claimSend's common case, for every send waiting for a claim in one statement: unsent, nobody's claim,
   * not left SENDING, this desk's lease alive. The claimed rows come back (the sender need not read them
   * again). Rows another transaction holds are skipped, not waited for (no lock-order deadlock between
   * desks claiming many at once); claimSlowly waits for those.
   */
  private readonly quickClaims = new Grouped<{ kind: PaymentKind; id: string }, PaymentRecord | null>(async (wanted) => {
    const rows = (await this.pool.query(
      `WITH c AS (
         SELECT p.pk FROM payments p JOIN unnest($1::text[], $2::text[]) AS w (kind, id) ON p.kind = w.kind AND p.id = w.id
          WHERE p.state IN ('QUEUED', 'UNKNOWN') AND p.claimed_by IS NULL
            AND EXISTS (SELECT 1 FROM desk_leases l WHERE l.desk_id = $3 AND l.lease_until > clock_timestamp())
          ORDER BY p.pk FOR UPDATE OF p SKIP LOCKED
       )
       UPDATE payments SET claimed_by = $3 FROM c WHERE payments.pk = c.pk RETURNING payments.*`,
      [wanted.map((w) => w.kind), wanted.map((w) => w.id), this.deskId],
    )).rows;
    const claimed = new Map(rows.map((r) => [`${String(r.kind)}:${String(r.id)}`, toPgPayment(r)]));
    return wanted.map((w) => claimed.get(`${w.kind}:${w.id}`) ?? null);
  });

  /** claimSend's every other case, in a transaction: another desk's claim (alive or dead), a row left SENDING. */
  private claimSlowly(kind: PaymentKind, id: string): Promise<boolean> {
    return this.transaction(async (client) => {
      const row = (await client.query(
        `SELECT p.state, p.claimed_by, (p.claimed_by IS NOT NULL AND p.claimed_by <> $3 AND ${CLAIM_DEAD}) AS dead,
                EXISTS (SELECT 1 FROM desk_leases l WHERE l.desk_id = $3 AND l.lease_until > clock_timestamp()) AS mine_alive
           FROM payments p WHERE p.kind = $1 AND p.id = $2 FOR UPDATE`,
        [kind, id, this.deskId],
      )).rows[0] as { state: PaymentState; claimed_by: string | null; dead: boolean; mine_alive: boolean } | undefined;
      if (!row || !row.mine_alive || !['QUEUED', 'SENDING', 'UNKNOWN'].includes(row.state)) return false;
      if (row.claimed_by !== null && row.claimed_by !== this.deskId && !row.dead) return false;
      if (row.dead || (row.claimed_by === null && row.state === 'SENDING')) {
        await this.markUnknownIn(client, kind, id, TAKEN_OVER, this.now());
      }
      await client.query('UPDATE payments SET claimed_by = $3 WHERE kind = $1 AND id = $2', [kind, id, this.deskId]);
      return true;
    });
  }

  /**
   * Synchronous, right before the request leaves: true while this desk's lease surely outlives the request
   * (maxRequestMs); then starts, without waiting, the SENDING write (ordered before any later write of this
   * desk to the payment, and a no-op if the claim was taken over meanwhile).
   */
  private confirmSend(kind: PaymentKind, id: string, epoch: number): boolean {
    if (epoch !== this.lease.epoch || this.voided.has(`${kind}:${id}`) || !this.lease.held(this.maxRequestMs)) return false;
    const at = this.now();
    this.serial(kind, id, () => this.sendingWrites.add({ kind, id, at })).catch((error: unknown) => this.onBackgroundError(error));
    return true;
  }

  /**
   * confirmSend's SENDING writes, those waiting grouped in one statement; rows locked in key order so two
   * desks' statements cannot deadlock each other (and one that does with some other statement is tried again).
   */
  private readonly sendingWrites = new Grouped<{ kind: PaymentKind; id: string; at: number }, void>(async (rows) => {
    await retriedOnDeadlock(() => this.pool.query(
      `WITH s AS (
         SELECT p.pk, w.at FROM payments p JOIN unnest($1::text[], $2::text[], $3::bigint[]) AS w (kind, id, at) ON p.kind = w.kind AND p.id = w.id
          WHERE p.state IN ${UNSENT} AND p.claimed_by = $4
          ORDER BY p.pk FOR UPDATE OF p
       )
       UPDATE payments SET state = 'SENDING', status = 'SENDING', attempts = attempts + 1, next_poll_at = NULL, updated_at = s.at
         FROM s WHERE payments.pk = s.pk`,
      [rows.map((r) => r.kind), rows.map((r) => r.id), rows.map((r) => r.at), this.deskId],
    ));
    return rows.map(() => undefined);
  });

  private releaseClaim(kind: PaymentKind, id: string): Promise<void> {
    return this.serial(kind, id, async () => {
      if (this.givenBack.delete(`${kind}:${id}`)) return;
      await this.pool.query('UPDATE payments SET claimed_by = NULL WHERE kind = $1 AND id = $2 AND claimed_by = $3', [kind, id, this.deskId]);
    }).finally(() => {
      this.held.delete(`${kind}:${id}`);
      this.voided.delete(`${kind}:${id}`);
      this.givenBack.delete(`${kind}:${id}`);
    });
  }

  markRetrying(kind: PaymentKind, id: string, message: string): Promise<void> {
    return this.serial(kind, id, async () => {
      const at = this.now();
      await this.pool.query(
        `UPDATE payments SET state = CASE WHEN unknown_since IS NULL THEN 'QUEUED' ELSE 'UNKNOWN' END, status = CASE WHEN unknown_since IS NULL THEN 'QUEUED' ELSE 'UNKNOWN' END,
           next_poll_at = CASE WHEN unknown_since IS NULL THEN NULL ELSE COALESCE(next_poll_at, $1) END,
           last_error = $2, updated_at = $1 WHERE kind = $3 AND id = $4 AND state IN ${UNSENT}`,
        [at, message, kind, id],
      );
    });
  }

  /** Payins: the outcome of the last send is unknown; stays SENDING with why, so the next step is a GET. */
  markUncertain(kind: PaymentKind, id: string, message: string): Promise<void> {
    const at = this.now();
    return this.serial(kind, id, async () => {
      await this.pool.query(`UPDATE payments SET last_error = $1, updated_at = $2 WHERE kind = $3 AND id = $4 AND state = 'SENDING'`, [message, at, kind, id]);
    });
  }

  /** markUnknown's body, inside an open transaction. True when the payment changed. */
  private async markUnknownIn(client: PoolClient, kind: PaymentKind, id: string, message: string, nextPollAt: number, refuseResend = false): Promise<boolean> {
    const at = this.now();
    const before = (await client.query(`SELECT state FROM payments WHERE kind = $1 AND id = $2 FOR UPDATE`, [kind, id])).rows[0] as { state: PaymentState } | undefined;
    if (!before || !['QUEUED', 'SENDING', 'UNKNOWN'].includes(before.state)) return false;
    await client.query(
      `UPDATE payments SET state = 'UNKNOWN', status = 'UNKNOWN', unknown_since = COALESCE(unknown_since, $1), last_error = $2, next_poll_at = $3,
         resend_refused = resend_refused OR $4, updated_at = $1 WHERE kind = $5 AND id = $6`,
      [at, message, nextPollAt, refuseResend, kind, id],
    );
    if (before.state !== 'UNKNOWN') await this.appendStatusEvent(client, kind, id, 'UNKNOWN', 'local', at, { message });
    return true;
  }

  markUnknown(kind: PaymentKind, id: string, message: string, nextPollAt: number, refuseResend = false): Promise<void> {
    return this.serial(kind, id, async () => {
      await this.transaction((client) => this.markUnknownIn(client, kind, id, message, nextPollAt, refuseResend));
    });
  }

  async resendAllowed(kind: PaymentKind, id: string): Promise<boolean> {
    await this.settled(kind, id);
    const row = (await this.pool.query('SELECT resend_refused FROM payments WHERE kind = $1 AND id = $2', [kind, id])).rows[0] as { resend_refused: boolean } | undefined;
    return row?.resend_refused === false;
  }

  /**
   * Every unsent payment whose send may have been in flight at a desk that stopped: claimed by a desk whose
   * lease ran out (or that has no lease row), or by this desk's own id; and SENDING with no claim (conservative:
   * a desk writes its outcome before giving a claim back). Each becomes UNKNOWN as markUnknown makes it, read
   * from now on, and its claim is cleared. Returns how many changed.
   */
  async markInterruptedSendsUnknown(kind: PaymentKind, message: string): Promise<number> {
    return this.takeOver([kind], message, true);
  }

  /** The heartbeat's share of markInterruptedSendsUnknown: claims of desks whose lease ran out, any kind. */
  async takeOverExpiredClaims(): Promise<number> {
    return this.takeOver(['payout', 'payin'], TAKEN_OVER, false);
  }

  private async takeOver(kinds: PaymentKind[], message: string, ownToo: boolean): Promise<number> {
    const candidates = (await this.pool.query(
      `SELECT p.kind, p.id FROM payments p
        WHERE p.kind = ANY($1::text[]) AND p.state IN ${UNSENT}
          AND ((p.claimed_by IS NOT NULL AND (${CLAIM_DEAD} OR ($3 AND p.claimed_by = $2)))
            OR (p.claimed_by IS NULL AND p.state = 'SENDING'))
        ORDER BY p.pk`,
      [kinds, this.deskId, ownToo],
    )).rows as { kind: PaymentKind; id: string }[];
    let count = 0;
    for (const c of candidates) {
      const changed = await this.serial(c.kind, c.id, () => this.transaction(async (client) => {
        // Checked again under the row lock: the claimant may have renewed, or another desk taken it over.
        const still = (await client.query(
          `SELECT 1 FROM payments p WHERE p.kind = $1 AND p.id = $2 AND p.state IN ${UNSENT}
             AND ((p.claimed_by IS NOT NULL AND (${CLAIM_DEAD} OR ($4 AND p.claimed_by = $3))) OR (p.claimed_by IS NULL AND p.state = 'SENDING'))
           FOR UPDATE`,
          [c.kind, c.id, this.deskId, ownToo],
        )).rowCount;
        if (!still) return false;
        await this.markUnknownIn(client, c.kind, c.id, message, this.now());
        await client.query('UPDATE payments SET claimed_by = NULL WHERE kind = $1 AND id = $2', [c.kind, c.id]);
        return true;
      }));
      if (changed) {
        count++;
        // One of this desk's own claims (a restart): it is given back, so the payment can be claimed again.
        this.held.delete(`${c.kind}:${c.id}`);
      }
    }
    return count;
  }

  // ---- the calendar (main/schedules/schedule.ts); a release is a conditional update: of two desks, exactly one ----

  private async insertSchedule(client: PoolClient, kind: ScheduledKind, id: string, e: NewSchedule, at: number, actor: string): Promise<void> {
    await client.query(
      `INSERT INTO schedules (subject_kind, subject_id, execute_at, zone, local_time, state, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, 'SCHEDULED', $6, $6)`,
      [kind, id, e.at, e.zone, e.local, at],
    );
    await this.appendAudit(client, at, { actor, action: `${kind}.scheduled`, subject: id, details: { executeAt: new Date(e.at).toISOString(), zone: e.zone, local: e.local } });
  }

  async schedule(kind: ScheduledKind, id: string): Promise<ScheduleRecord | undefined> {
    const row = (await this.pool.query<ScheduleRow>(`SELECT ${SCHEDULE_COLUMNS} FROM schedules WHERE subject_kind = $1 AND subject_id = $2`, [kind, id])).rows[0];
    return row ? toSchedule(row) : undefined;
  }

  async listSchedules(query: ScheduleQuery = {}): Promise<ScheduleRecord[]> {
    const rows = (await this.pool.query<ScheduleRow>(
      `SELECT ${SCHEDULE_COLUMNS} FROM schedules WHERE ($1::text[] IS NULL OR state = ANY($1::text[])) AND execute_at >= $2 AND execute_at <= $3
        ORDER BY execute_at, subject_kind, subject_id LIMIT $4`,
      [query.states ? [...query.states] : null, query.from ?? Number.MIN_SAFE_INTEGER, query.to ?? Number.MAX_SAFE_INTEGER, query.limit ?? null],
    )).rows;
    return rows.map(toSchedule);
  }

  async releaseSchedule(kind: ScheduledKind, id: string, options: { actor: string; from: 'SCHEDULED' | 'LATE' }): Promise<ScheduleRecord | null> {
    const at = this.now();
    const work = () => this.transaction(async (client): Promise<ScheduleRecord | null> => {
      const row = (await client.query<ScheduleRow>(
        `UPDATE schedules SET state = 'RELEASED', released_at = $1, released_by = $2, late_by_ms = GREATEST(0, $1 - execute_at), updated_at = $1
          WHERE subject_kind = $3 AND subject_id = $4 AND state = $5 AND execute_at <= $1 RETURNING ${SCHEDULE_COLUMNS}`,
        [at, options.actor, kind, id, options.from],
      )).rows[0];
      if (!row) return null;
      const released = toSchedule(row);
      if (kind === 'batch') {
        await client.query(`UPDATE batches SET state = 'RUNNING', pause_reason = NULL, updated_at = $1 WHERE id = $2 AND state = 'SCHEDULED'`, [at, id]);
      } else if ((await client.query(`UPDATE payments SET state = 'QUEUED', status = 'QUEUED', last_error = NULL, updated_at = $1 WHERE kind = 'payout' AND id = $2 AND state = 'HELD'`, [at, id])).rowCount === 1) {
        await this.appendStatusEvent(client, 'payout', id, 'QUEUED', 'local', at, { message: releasedText(released.lateByMs ?? 0, options.actor) });
      }
      await this.appendAudit(client, at, { actor: options.actor, action: `${kind}.released-at-time`, subject: id, details: { executeAt: new Date(released.at).toISOString(), lateByMs: released.lateByMs, confirmedLate: options.from === 'LATE' } });
      return released;
    });
    return kind === 'payout' ? this.serial('payout', id, work) : work();
  }

  markScheduleLate(kind: ScheduledKind, id: string, actor: string): Promise<boolean> {
    const at = this.now();
    return this.transaction(async (client) => {
      const row = (await client.query<{ late_by_ms: string }>(
        `UPDATE schedules SET state = 'LATE', late_by_ms = $1 - execute_at, updated_at = $1 WHERE subject_kind = $2 AND subject_id = $3 AND state = 'SCHEDULED' AND execute_at <= $1 RETURNING late_by_ms`,
        [at, kind, id],
      )).rows[0];
      if (row) await this.appendAudit(client, at, { actor, action: `${kind}.release-late`, subject: id, details: { lateByMs: Number(row.late_by_ms) } });
      return row !== undefined;
    });
  }

  moveSchedule(kind: ScheduledKind, id: string, to: NewSchedule, actor: string): Promise<boolean> {
    const at = this.now();
    const work = () => this.transaction(async (client) => {
      const before = (await client.query<ScheduleRow>(`SELECT ${SCHEDULE_COLUMNS} FROM schedules WHERE subject_kind = $1 AND subject_id = $2 FOR UPDATE`, [kind, id])).rows[0];
      if (!before || (before.state !== 'SCHEDULED' && before.state !== 'LATE')) return false;
      await client.query(
        `UPDATE schedules SET execute_at = $1, zone = $2, local_time = $3, state = 'SCHEDULED', late_by_ms = NULL, updated_at = $4 WHERE subject_kind = $5 AND subject_id = $6`,
        [to.at, to.zone, to.local, at, kind, id],
      );
      const waiting = waitingText(to);
      if (kind === 'batch') await client.query(`UPDATE batches SET pause_reason = $1, updated_at = $2 WHERE id = $3 AND state = 'SCHEDULED'`, [waiting, at, id]);
      else await client.query(`UPDATE payments SET last_error = $1, updated_at = $2 WHERE kind = 'payout' AND id = $3 AND state = 'HELD'`, [waiting, at, id]);
      await this.appendAudit(client, at, { actor, action: `${kind}.schedule-moved`, subject: id, details: { from: { local: before.local_time, zone: before.zone }, to: { local: to.local, zone: to.zone } } });
      return true;
    });
    return kind === 'payout' ? this.serial('payout', id, work) : work();
  }

  cancelSchedule(kind: ScheduledKind, id: string, actor: string, reason: string): Promise<boolean> {
    const at = this.now();
    const work = () => this.transaction(async (client) => {
      const changed = (await client.query(`UPDATE schedules SET state = 'CANCELLED', updated_at = $1 WHERE subject_kind = $2 AND subject_id = $3 AND state IN ('SCHEDULED', 'LATE')`, [at, kind, id])).rowCount === 1;
      if (!changed) return false;
      if (kind === 'batch') {
        await client.query(`UPDATE batches SET state = 'CANCELLED', pause_reason = $1, updated_at = $2 WHERE id = $3 AND state = 'SCHEDULED'`, [reason, at, id]);
        const cancelled = (await client.query<{ id: string }>(
          `UPDATE payments SET state = 'CANCELLED', status = 'CANCELLED', is_final = TRUE, final_at = $1, updated_at = $1 WHERE kind = 'payout' AND batch_id = $2 AND state = 'QUEUED' RETURNING id`,
          [at, id],
        )).rows;
        for (const row of cancelled) await this.appendStatusEvent(client, 'payout', row.id, 'CANCELLED', 'local', at, { message: reason });
      } else if ((await client.query(
        `UPDATE payments SET state = 'DISCARDED', status = 'DISCARDED', is_final = TRUE, final_at = $1, last_error = $2, updated_at = $1 WHERE kind = 'payout' AND id = $3 AND state = 'HELD'`,
        [at, reason, id],
      )).rowCount === 1) {
        await this.appendStatusEvent(client, 'payout', id, 'DISCARDED', 'local', at, { message: reason });
      }
      await this.appendAudit(client, at, { actor, action: `${kind}.schedule-cancelled`, subject: id, details: { reason } });
      return true;
    });
    return kind === 'payout' ? this.serial('payout', id, work) : work();
  }

  markHeld(kind: PaymentKind, id: string, reason: string, actor = 'engine'): Promise<boolean> {
    const at = this.now();
    return this.serial(kind, id, () => this.transaction(async (client) => {
      const changed = (await client.query(
        `UPDATE payments SET state = 'HELD', status = 'HELD', last_error = $1, next_poll_at = NULL, updated_at = $2
          WHERE kind = $3 AND id = $4 AND state IN ('QUEUED', 'SENDING') AND unknown_since IS NULL`,
        [reason, at, kind, id],
      )).rowCount === 1;
      if (changed) {
        await this.appendStatusEvent(client, kind, id, 'HELD', 'local', at, { message: reason });
        await this.appendAudit(client, at, { actor, action: `${kind}.held`, subject: id, details: { reason } });
      }
      return changed;
    }));
  }

  releaseHeld(kind: PaymentKind, id: string, actor: string): Promise<boolean> {
    const at = this.now();
    return this.serial(kind, id, () => this.transaction(async (client) => {
      const changed = (await client.query(`UPDATE payments SET state = 'QUEUED', status = 'QUEUED', updated_at = $1 WHERE kind = $2 AND id = $3 AND state = 'HELD'`, [at, kind, id])).rowCount === 1;
      if (changed) {
        await this.appendStatusEvent(client, kind, id, 'QUEUED', 'local', at, { message: 'released by a person' });
        await this.appendAudit(client, at, { actor, action: `${kind}.released`, subject: id, details: {} });
      }
      return changed;
    }));
  }

  discardHeld(kind: PaymentKind, id: string, actor: string, reason: string): Promise<boolean> {
    const at = this.now();
    return this.serial(kind, id, () => this.transaction(async (client) => {
      const changed = (await client.query(
        `UPDATE payments SET state = 'DISCARDED', status = 'DISCARDED', is_final = TRUE, final_at = $1, last_error = $2, updated_at = $1 WHERE kind = $3 AND id = $4 AND state = 'HELD'`,
        [at, reason, kind, id],
      )).rowCount === 1;
      if (changed) {
        await this.appendStatusEvent(client, kind, id, 'DISCARDED', 'local', at, { message: reason });
        await this.appendAudit(client, at, { actor, action: `${kind}.discarded`, subject: id, details: { reason } });
      }
      return changed;
    }));
  }

  recordNotFound(kind: PaymentKind, id: string, nextPollAt: number, rule: { reads: number; spanMs: number }): Promise<boolean> {
    const at = this.now();
    return this.serial(kind, id, () => this.transaction(async (client) => {
      await client.query(
        `UPDATE payments SET not_found_since = COALESCE(not_found_since, $1), not_found_reads = not_found_reads + 1, next_poll_at = $2, updated_at = $1
          WHERE kind = $3 AND id = $4 AND state IN ('ACCEPTED', 'MISSING')`,
        [at, nextPollAt, kind, id],
      );
      const row = (await client.query('SELECT state, not_found_since, not_found_reads FROM payments WHERE kind = $1 AND id = $2', [kind, id])).rows[0];
      if (!row || row.state !== 'ACCEPTED' || row.not_found_since === null) return false;
      const since = pgInteger(row.not_found_since, 'not_found_since');
      const reads = pgInteger(row.not_found_reads, 'not_found_reads');
      if (reads < rule.reads || at - since < rule.spanMs) return false;
      await client.query(`UPDATE payments SET state = 'MISSING', status = 'MISSING', is_final = FALSE, updated_at = $1 WHERE kind = $2 AND id = $3`, [at, kind, id]);
      const message = `the gateway has answered "not found" ${reads} times since ${new Date(since).toISOString()}`;
      await this.appendStatusEvent(client, kind, id, 'MISSING', 'local', at, { message });
      await this.appendAudit(client, at, { actor: 'engine', action: `${kind}.missing`, subject: id, details: { message } });
      return true;
    }));
  }

  markLocalFinal(kind: PaymentKind, id: string, state: 'REJECTED' | 'MISMATCH', message: string, raw?: unknown, actor = 'engine'): Promise<boolean> {
    const at = this.now();
    return this.serial(kind, id, () => this.transaction(async (client) => {
      const changed = (await client.query(
        `UPDATE payments SET state = $1, status = $1, is_final = $2, last_error = $3, final_at = $4, next_poll_at = NULL, updated_at = $4
          WHERE kind = $5 AND id = $6 AND ($1 = 'MISMATCH' OR unknown_since IS NULL)`,
        [state, state === 'REJECTED', message, at, kind, id],
      )).rowCount === 1;
      if (!changed) return false;
      await this.appendStatusEvent(client, kind, id, state, 'local', at, { message, response: raw ?? null });
      await this.appendAudit(client, at, { actor, action: `${kind}.${state.toLowerCase()}`, subject: id, details: { message } });
      return true;
    }));
  }

  /**
   * Cancels unsent payments (QUEUED only, as SQLite's). A payment this desk has claimed (waiting for its rate
   * slot) is cancelled and its claim voided, so confirm() answers false as the SQLite journal's does; one
   * another desk has claimed is left alone (it may be leaving now) and not counted.
   */
  async cancelUnsent(kind: PaymentKind, ids: string[], actor = deskActor()): Promise<number> {
    const at = this.now();
    await Promise.all(ids.map((id) => this.settled(kind, id)));
    // Voided before the cancel commits: a confirm() in between must not let the request leave.
    for (const id of ids) if (this.held.has(`${kind}:${id}`)) this.voided.add(`${kind}:${id}`);
    return this.transaction(async (client) => {
      const cancelled = (await client.query<{ id: string }>(
        `UPDATE payments SET state = 'CANCELLED', status = 'CANCELLED', is_final = TRUE, final_at = $1, updated_at = $1, claimed_by = NULL
          WHERE kind = $2 AND id = ANY($3::text[]) AND state = 'QUEUED' AND (claimed_by IS NULL OR claimed_by = $4) RETURNING id`,
        [at, kind, ids, this.deskId],
      )).rows.map((r) => r.id);
      if (cancelled.length === 0) return 0;
      const order = new Map(ids.map((id, i) => [id, i]));
      cancelled.sort((a, b) => order.get(a)! - order.get(b)!);
      await client.query(
        `INSERT INTO status_events (kind, id, status, source, observed_at, raw_json) SELECT $1, id, 'CANCELLED', 'local', $2, NULL FROM unnest($3::text[]) WITH ORDINALITY AS t (id, n) ORDER BY n`,
        [kind, at, cancelled],
      );
      await this.appendAudit(client, at, { actor, action: `${kind}.cancelled`, subject: ids.length === 1 ? ids[0] : null, details: { count: cancelled.length } });
      return cancelled.length;
    });
  }

  /** As the SQLite journal's, but nothing is grouped here: written at once, as recordObservation. */
  recordObservationSoon(kind: PaymentKind, id: string, obs: StatusObservation): Promise<{ changed: boolean }> {
    return this.observe(kind, id, obs);
  }

  /** Stores one status read at once (payins, sent by the desk service). */
  recordObservation(kind: PaymentKind, id: string, obs: StatusObservation): Promise<{ changed: boolean }> {
    return this.observe(kind, id, obs);
  }

  /**
   * As the SQLite journal's recordObservation, on this desk's chain of writes to the payment. One statement
   * (one round trip, its own transaction): the row locked and updated, and its status event added unless
   * the last one says the same from the same source (folded, as the SQLite journal does).
   */
  private observe(kind: PaymentKind, id: string, obs: StatusObservation): Promise<{ changed: boolean }> {
    return this.serial(kind, id, async () => {
      const status = obs.status.toUpperCase();
      const before = await this.observations.add({ kind, id, obs, status, at: this.now() });
      if (before === null) throw new JournalError('NOT_FOUND', `no ${kind} with id ${id} in the journal`, [id]);
      return { changed: before !== status };
    });
  }

  /**
   * observe's writes, those waiting grouped in one statement (its own transaction): each row locked (in key
   * order) and updated, its status event added unless the last one says the same from the same source. A
   * claim of this desk's goes back in the same statement: an observed payment is sent (ACCEPTED) and never
   * unsent again, so the claim guards nothing any more, and its release costs no round trip. Answers each
   * payment's status before (null: not in the journal).
   */
  private readonly observations = new Grouped<{ kind: PaymentKind; id: string; obs: StatusObservation; status: string; at: number }, string | null>(async (items) => {
    const column = <T>(pick: (o: StatusObservation) => T | undefined) => items.map((i) => pick(i.obs) ?? null);
    const result = await retriedOnDeadlock(() => this.pool.query<{ kind: string; id: string; before_status: string | null; was_mine: boolean | null }>(
      `WITH w AS (
         SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::boolean[], $5::bigint[], $6::text[], $7::text[], $8::text[], $9::boolean[], $10::bigint[], $11::bigint[], $12::text[], $13::text[])
           WITH ORDINALITY AS t (kind, id, status, is_final, fee_minor, fee_currency_code, failure_reason, processed_at, is_test, at, next_poll_at, source, raw_json, n)
       ),
       before AS (
         SELECT p.pk, p.kind, p.id, p.status, p.claimed_by = $14 AS was_mine FROM payments p JOIN w ON p.kind = w.kind AND p.id = w.id
          ORDER BY p.pk FOR UPDATE OF p
       ),
       upd AS (
         UPDATE payments SET state = 'ACCEPTED', gateway_status = w.status, status = w.status, is_final = w.is_final,
           fee_minor = COALESCE(w.fee_minor, payments.fee_minor), fee_currency_code = COALESCE(w.fee_currency_code, payments.fee_currency_code),
           failure_reason = COALESCE(w.failure_reason, payments.failure_reason), processed_at = COALESCE(w.processed_at, payments.processed_at),
           is_test = COALESCE(w.is_test, payments.is_test), last_error = NULL, unknown_since = NULL, resend_refused = FALSE, not_found_since = NULL, not_found_reads = 0,
           accepted_at = COALESCE(payments.accepted_at, w.at), final_at = CASE WHEN w.is_final THEN COALESCE(payments.final_at, w.at) ELSE NULL END,
           next_poll_at = w.next_poll_at, updated_at = w.at, claimed_by = CASE WHEN payments.claimed_by = $14 THEN NULL ELSE payments.claimed_by END
         FROM before JOIN w ON w.kind = before.kind AND w.id = before.id
         WHERE payments.pk = before.pk
       ),
       last AS (
         SELECT DISTINCT ON (e.kind, e.id) e.kind, e.id, e.status, e.source FROM status_events e JOIN w ON e.kind = w.kind AND e.id = w.id
          ORDER BY e.kind, e.id, e.seq DESC
       ),
       ins AS (
         INSERT INTO status_events (kind, id, status, source, observed_at, raw_json)
         SELECT w.kind, w.id, w.status, w.source, w.at, w.raw_json FROM w JOIN before ON before.kind = w.kind AND before.id = w.id
          WHERE NOT EXISTS (SELECT 1 FROM last WHERE last.kind = w.kind AND last.id = w.id AND last.status = w.status AND last.source = w.source)
          ORDER BY w.n
       )
       SELECT w.kind, w.id, before.status AS before_status, before.was_mine
         FROM w LEFT JOIN before ON before.kind = w.kind AND before.id = w.id ORDER BY w.n`,
      [
        items.map((i) => i.kind), items.map((i) => i.id), items.map((i) => i.status), column((o) => o.isFinal), column((o) => o.feeMinor),
        column((o) => o.feeCurrencyCode), column((o) => o.failureReason), column((o) => o.processedAt), column((o) => o.isTest),
        items.map((i) => i.at), column((o) => o.nextPollAt), column((o) => o.source),
        items.map((i) => (i.obs.raw === null || i.obs.raw === undefined ? null : canonicalJson(i.obs.raw))), this.deskId,
      ],
    ));
    return result.rows.map((row) => {
      const key = `${row.kind}:${row.id}`;
      if (row.was_mine === true && this.held.has(key)) this.givenBack.add(key);
      return row.before_status;
    });
  });

  setNextPoll(kind: PaymentKind, id: string, at: number | null): Promise<void> {
    return this.serial(kind, id, async () => {
      await this.pool.query('UPDATE payments SET next_poll_at = $1 WHERE kind = $2 AND id = $3', [at, kind, id]);
    });
  }

  // ---- payments: reads ----

  async getPayment(kind: PaymentKind, id: string): Promise<PaymentRecord | undefined> {
    await this.settled(kind, id);
    const row = (await this.pool.query('SELECT * FROM payments WHERE kind = $1 AND id = $2', [kind, id])).rows[0];
    return row ? toPgPayment(row) : undefined;
  }

  private async mustGet(kind: PaymentKind, id: string): Promise<PaymentRecord> {
    const p = await this.getPayment(kind, id);
    if (!p) throw new JournalError('NOT_FOUND', `no ${kind} with id ${id} in the journal`, [id]);
    return p;
  }

  async paymentState(kind: PaymentKind, id: string): Promise<{ state: PaymentState; isFinal: boolean } | undefined> {
    await this.settled(kind, id);
    const row = (await this.pool.query('SELECT state, is_final FROM payments WHERE kind = $1 AND id = $2', [kind, id])).rows[0] as { state: PaymentState; is_final: boolean } | undefined;
    return row ? { state: row.state, isFinal: row.is_final } : undefined;
  }

  async unsentPayments(kind: PaymentKind, batchId?: string): Promise<PaymentRecord[]> {
    await this.allSettled();
    const rows = batchId === undefined
      ? (await this.pool.query(`SELECT * FROM payments WHERE kind = $1 AND state IN ${UNSENT} ORDER BY created_at, pk`, [kind])).rows
      : (await this.pool.query(`SELECT * FROM payments WHERE kind = $1 AND batch_id = $2 AND state IN ${UNSENT} ORDER BY row_number, pk`, [kind, batchId])).rows;
    return rows.map(toPgPayment);
  }

  async sendableCount(batchId: string): Promise<number> {
    await this.allSettled();
    const row = (await this.pool.query(`SELECT COUNT(*) AS n FROM payments WHERE batch_id = $1 AND (state IN ('QUEUED', 'SENDING') OR (state = 'UNKNOWN' AND NOT resend_refused))`, [batchId])).rows[0];
    return pgInteger(row?.n ?? 0, 'count');
  }

  async nextPollTime(skip: ReadonlySet<string> = new Set()): Promise<number | null> {
    await this.allSettled();
    const row = (skip.size === 0
      ? await this.pool.query('SELECT MIN(next_poll_at) AS t FROM payments WHERE next_poll_at IS NOT NULL')
      : await this.pool.query(`SELECT MIN(next_poll_at) AS t FROM payments WHERE next_poll_at IS NOT NULL AND NOT ((kind || ':' || id) = ANY($1::text[]))`, [[...skip]])).rows[0];
    return row?.t === null || row?.t === undefined ? null : pgInteger(row.t, 'next_poll_at');
  }

  /**
   * Payments whose next status read is due, soonest first (any state, as SQLite's). Each is taken for
   * pollTakeMs (its next_poll_at moved on), rows another desk is taking at this moment skipped, so two
   * desks never read one payment at once; the read's outcome sets the real next time. The records come
   * back with the next_poll_at they were due at, as SQLite's do.
   */
  async duePolls(now: number, limit: number, skip: ReadonlySet<string> = new Set()): Promise<DuePoll[]> {
    await this.allSettled();
    const rows = (await this.pool.query(
      `WITH due AS (
         SELECT pk, next_poll_at AS was FROM payments
          WHERE next_poll_at <= $1 AND NOT ((kind || ':' || id) = ANY($4::text[]))
          ORDER BY next_poll_at, pk LIMIT $2 FOR UPDATE SKIP LOCKED
       )
       UPDATE payments p SET next_poll_at = $3 FROM due WHERE p.pk = due.pk RETURNING p.pk, p.kind, p.id, due.was`,
      [now, limit, now + this.pollTakeMs, [...skip]],
    )).rows as { pk: unknown; kind: PaymentKind; id: string; was: unknown }[];
    return rows
      .map((r) => ({ kind: r.kind, id: r.id, nextPollAt: pgInteger(r.was, 'next_poll_at'), pk: pgInteger(r.pk, 'pk') }))
      .sort((a, b) => a.nextPollAt - b.nextPollAt || a.pk - b.pk)
      .map(({ pk: _pk, ...p }) => p);
  }

  async knownCurrencies(): Promise<string[]> {
    return (await this.pool.query<{ c: string }>('SELECT DISTINCT currency_code AS c FROM payments ORDER BY c')).rows.map((r) => r.c);
  }

  // ---- batches ----

  async getBatch(id: string): Promise<BatchRecord | undefined> {
    const row = (await this.pool.query('SELECT * FROM batches WHERE id = $1', [id])).rows[0];
    return row ? toBatch(pgBatchRow(row)) : undefined;
  }

  private async mustGetBatch(id: string): Promise<BatchRecord> {
    const b = await this.getBatch(id);
    if (!b) throw new JournalError('NOT_FOUND', `no batch with id ${id} in the journal`, [id]);
    return b;
  }

  async batchesIn(states: StoredBatchState[]): Promise<BatchRecord[]> {
    if (states.length === 0) return [];
    return (await this.pool.query('SELECT * FROM batches WHERE state = ANY($1::text[]) ORDER BY created_at, id', [states])).rows.map((r) => toBatch(pgBatchRow(r)));
  }

  async setBatchState(id: string, state: StoredBatchState, reason: string | null = null, actor = 'engine'): Promise<BatchRecord> {
    const at = this.now();
    await this.transaction(async (client) => {
      const before = (await client.query('SELECT state, pause_reason FROM batches WHERE id = $1 FOR UPDATE', [id])).rows[0] as { state: StoredBatchState; pause_reason: string | null } | undefined;
      if (!before) throw new JournalError('NOT_FOUND', `no batch with id ${id} in the journal`, [id]);
      if (before.state === state && before.pause_reason === reason) return;
      await client.query('UPDATE batches SET state = $1, pause_reason = $2, updated_at = $3 WHERE id = $4', [state, reason, at, id]);
      await this.appendAudit(client, at, { actor, action: `batch.${state.toLowerCase()}`, subject: id, details: reason ? { reason } : {} });
    });
    return this.mustGetBatch(id);
  }

  async batchCounts(id: string): Promise<BatchCounts> {
    await this.allSettled();
    const rows = (await this.pool.query('SELECT state, status, is_final, COUNT(*) AS n FROM payments WHERE batch_id = $1 GROUP BY state, status, is_final', [id])).rows as
      { state: PaymentState; status: string; is_final: boolean; n: string }[];
    const byState = Object.fromEntries(PAYMENT_STATES.map((state) => [state, 0])) as Record<PaymentState, number>;
    const byStatus: Record<string, number> = {};
    const c = { total: 0, sent: 0, final: 0, failed: 0, pending: 0 };
    for (const r of rows) {
      const n = pgInteger(r.n, 'count');
      c.total += n;
      byState[r.state] += n;
      byStatus[r.status] = (byStatus[r.status] ?? 0) + n;
      const accepted = r.state === 'ACCEPTED';
      if (accepted) c.sent += n;
      if (accepted && r.is_final) c.final += n;
      if ((accepted && r.is_final && r.status !== 'SUCCESS') || ['REJECTED', 'MISMATCH', 'MISSING', 'DISCARDED'].includes(r.state)) c.failed += n;
      if (['QUEUED', 'SENDING', 'UNKNOWN', 'HELD'].includes(r.state) || (accepted && !r.is_final)) c.pending += n;
    }
    return { ...c, byState, byStatus };
  }

  async preparation(kind: 'payout' | 'batch', id: string): Promise<{ preparedBy: string | null; preparedAt: number } | undefined> {
    const row = (kind === 'batch'
      ? await this.pool.query('SELECT prepared_by, created_at FROM batches WHERE id = $1', [id])
      : await this.pool.query(`SELECT prepared_by, created_at FROM payments WHERE kind = 'payout' AND id = $1`, [id])).rows[0];
    return row ? { preparedBy: row.prepared_by as string | null, preparedAt: pgInteger(row.created_at, 'created_at') } : undefined;
  }

  async possibleDuplicateIds(kind: 'payout' | 'batch', id: string): Promise<string[]> {
    // The LIKE skips the JSON parse for the rows without the flag (almost all); the jsonb value decides.
    const flagged = `details_json LIKE '%"possibleDuplicate":true%' AND (details_json::jsonb ->> 'possibleDuplicate') = 'true'`;
    const rows = (kind === 'batch'
      ? await this.pool.query<{ id: string }>(`SELECT id FROM payments WHERE batch_id = $1 AND ${flagged} ORDER BY row_number, pk`, [id])
      : await this.pool.query<{ id: string }>(`SELECT id FROM payments WHERE kind = 'payout' AND id = $1 AND ${flagged}`, [id])).rows;
    return rows.map((r) => r.id);
  }

  async manifestRows(kind: 'payout' | 'batch', id: string): Promise<ManifestRow[]> {
    const columns = `id, amount_minor, currency_code, account_name, account_number, payment_operator_code, payment_method_code, email_address, callback_url`;
    const rows = (kind === 'batch'
      ? await this.pool.query(`SELECT ${columns} FROM payments WHERE batch_id = $1 ORDER BY row_number, pk`, [id])
      : await this.pool.query(`SELECT ${columns} FROM payments WHERE kind = 'payout' AND id = $1`, [id])).rows;
    return rows.map((r) => ({
      id: r.id as string, amountMinor: pgInteger(r.amount_minor, 'amount_minor'), currencyCode: r.currency_code as string, accountName: r.account_name as string,
      accountNumber: r.account_number as string, paymentOperatorCode: r.payment_operator_code as string, paymentMethodCode: r.payment_method_code as string,
      emailAddress: r.email_address as string, callbackUrl: (r.callback_url as string | null) ?? null,
    }));
  }

  // ---- retries ----

  private async retryableIn(db: PgQueryable, batchId: string, notPaid: readonly string[]): Promise<PaymentRecord[]> {
    const settledUnpaid = (alias: string) =>
      `((${alias}.state = 'ACCEPTED' AND ${alias}.is_final AND ${alias}.gateway_status = ANY($2::text[])) OR ${alias}.state IN ('REJECTED', 'CANCELLED', 'DISCARDED'))`;
    const rows = (await db.query(
      `SELECT p.* FROM payments p
        WHERE p.kind = 'payout' AND p.batch_id = $1 AND p.intent_id IS NOT NULL AND ${settledUnpaid('p')}
          AND NOT EXISTS (SELECT 1 FROM payments q WHERE q.intent_id = p.intent_id AND q.pk <> p.pk AND (q.pk > p.pk OR NOT ${settledUnpaid('q')}))
        ORDER BY p.row_number, p.pk`,
      [batchId, [...notPaid]],
    )).rows;
    return rows.map(toPgPayment);
  }

  async retryableAttempts(batchId: string, notPaid: readonly string[]): Promise<PaymentRecord[]> {
    await this.allSettled();
    return this.retryableIn(this.pool, batchId, notPaid);
  }

  async retryBatch(input: { batchId: string; reviewedIds: readonly string[]; notPaid: readonly string[]; fileName: string; id?: string; newId: () => string; actor: string; preparedBy?: string }): Promise<BatchRecord> {
    await this.allSettled();
    const created = await this.transaction(async (client) => {
      // Two desks retrying one batch at once: the second waits here, then finds the retries made.
      const source = (await client.query('SELECT id FROM batches WHERE id = $1 FOR UPDATE', [input.batchId])).rows[0] as { id: string } | undefined;
      if (!source) throw new JournalError('NOT_FOUND', `no batch with id ${input.batchId} in the journal`, [input.batchId]);
      const retryable = await this.retryableIn(client, input.batchId, input.notPaid);
      const { rows, sha256 } = planRetryBatch(source.id, retryable, input.reviewedIds, input.newId);
      return this.insertBatch(client, { ...(input.id ? { id: input.id } : {}), fileName: input.fileName, sha256, rows, actor: input.actor, preparedBy: input.preparedBy });
    });
    return this.mustGetBatch(created);
  }

  // ---- balances and audit ----

  async insertBalanceSnapshots(snapshots: Omit<BalanceSnapshot, 'observedAt'>[], observedAt = this.now()): Promise<void> {
    if (snapshots.length === 0) return;
    await this.pool.query(
      `INSERT INTO balance_snapshots (currency_code, available_minor, reserved_minor, observed_at)
       SELECT c, a, r, $4 FROM unnest($1::text[], $2::bigint[], $3::bigint[]) WITH ORDINALITY AS t (c, a, r, n) ORDER BY n`,
      [snapshots.map((s) => s.currencyCode), snapshots.map((s) => String(s.availableMinor)), snapshots.map((s) => String(s.reservedMinor)), observedAt],
    );
  }

  /** Appends an audit entry; the actor defaults to the person at this desk (deskActor()). */
  audit(entry: NewAuditEntry): Promise<AuditEntry> {
    return this.transaction((client) => this.appendAudit(client, this.now(), entry));
  }

  // ---- the desk's reads (DeskJournal) ----
  // Reads of payment states, events or audit entries first wait for this desk's writes already started (the
  // chains); ids, accounts, batches, intents' links and balances are written awaited, so the rest need not.

  async history(query: HistoryQuery = {}): Promise<HistoryPage> {
    await this.writesStarted();
    return queryHistoryPg(this.pool, query);
  }

  /** Read in chunks by key (no transaction or cursor held open), after the writes started before the call. */
  iterateHistory(filter: HistoryFilter = {}): AsyncGenerator<PaymentRecord> {
    const started = this.writesStarted();
    const pool = this.pool;
    return (async function* () {
      await started;
      yield* iterateHistoryPg(pool, filter);
    })();
  }

  async timeline(kind: PaymentKind, id: string): Promise<StatusEvent[]> {
    await this.settled(kind, id);
    return paymentTimelinePg(this.pool, kind, id);
  }

  async intentAttempts(intentId: string): Promise<PaymentRecord[]> {
    await this.writesStarted();
    return intentAttemptsPg(this.pool, intentId);
  }

  retriedAs(id: string): Promise<string | null> {
    return retriedAsPg(this.pool, id);
  }

  batchRetries(batchId: string): Promise<Map<string, string>> {
    return batchRetriesPg(this.pool, batchId);
  }

  listBatches(limit?: number): Promise<BatchRecord[]> {
    return listBatchesPg(this.pool, limit);
  }

  async batchPayments(id: string): Promise<PaymentRecord[]> {
    await this.writesStarted();
    return batchPaymentsPg(this.pool, id);
  }

  existingPayoutIds(ids: string[]): Promise<Set<string>> {
    return existingPayoutIdsPg(this.pool, ids);
  }

  paymentRunRefs(kind: PaymentRunRefKind, refs: readonly string[]): Promise<PaymentRunRef[]> {
    return paymentRunRefsPg(this.pool, kind, refs);
  }

  batchFileSubmitted(sha256: string): Promise<boolean> {
    return batchFileSubmittedPg(this.pool, sha256);
  }

  knownBeneficiaryAccounts(keys: { accountName: string; emailAddress: string }[]): Promise<{ accountName: string; emailAddress: string; accountNumber: string }[]> {
    return knownBeneficiaryAccountsPg(this.pool, keys);
  }

  earliestLikePayouts(keys: LikePayoutKey[], since: number, skip?: LikePayoutSkip): Promise<LikePayout[]> {
    return earliestLikePayoutsPg(this.pool, keys, since, skip);
  }

  balanceSeries(currencyCode: string, from?: number, to?: number): Promise<BalanceSnapshot[]> {
    return balanceSeriesPg(this.pool, currencyCode, from, to);
  }

  latestBalances(): Promise<BalanceSnapshot[]> {
    return latestBalancesPg(this.pool);
  }

  async pendingPayoutTotals(): Promise<CurrencyTotal[]> {
    await this.writesStarted();
    return pendingPayoutTotalsPg(this.pool);
  }

  async payoutActivity(dayStarts: number[]): Promise<PayoutActivityRow[]> {
    await this.writesStarted();
    return payoutActivityPg(this.pool, dayStarts);
  }

  async statementPayments(since: number, acceptedBy: number): Promise<StatementPaymentRow[]> {
    await this.writesStarted();
    return statementPaymentsPg(this.pool, since, acceptedBy);
  }

  balanceAt(currencyCode: string, at: number): Promise<BalanceSnapshot | null> {
    return balanceAtPg(this.pool, currencyCode, at);
  }

  // ---- closing a period ----
  recordIssuedStatement(record: Omit<IssuedStatementRecord, 'seq'>): Promise<IssuedStatementRecord> {
    return closing.recordIssuedStatementPg(this.pool, record);
  }

  issuedStatement(periodFrom: number, periodTo: number, currencyScope: string): Promise<IssuedStatementRecord | null> {
    return closing.issuedStatementPg(this.pool, periodFrom, periodTo, currencyScope);
  }

  claimExportedMovements(exportId: string, movementIds: readonly string[], at: number): Promise<string[]> {
    return closing.claimExportedMovementsPg(this.pool, exportId, movementIds, at);
  }

  exportedMovements(movementIds: readonly string[]): Promise<ExportedMovement[]> {
    return closing.exportedMovementsPg(this.pool, movementIds);
  }

  accountingAccounts(): Promise<string | null> {
    return closing.accountingAccountsPg(this.pool);
  }

  setAccountingAccounts(accountsJson: string, at: number): Promise<void> {
    return closing.setAccountingAccountsPg(this.pool, accountsJson, at);
  }

  // ---- remittance advice by e-mail: the claim is one statement, so of two desks asking at once one mails ----
  remittanceMails(payoutIds: readonly string[]): Promise<RemittanceMailRecord[]> {
    return remittanceMailsPg(this.pool, payoutIds);
  }

  claimRemittanceMail(claim: RemittanceMailClaim, over: string | null): Promise<boolean> {
    return claimRemittanceMailPg(this.pool, claim, over);
  }

  recordRemittanceMail(payoutId: string, claim: string, update: RemittanceMailUpdate): Promise<boolean> {
    return recordRemittanceMailPg(this.pool, payoutId, claim, update);
  }

  /** Entries of held, released, discarded, missing and rejected payments are written on the chains. */
  async listAudit(limit?: number, beforeSeq?: number): Promise<AuditEntry[]> {
    await this.writesStarted();
    return listAuditPg(this.pool, limit, beforeSeq);
  }
}

function duplicate(kind: PaymentKind, ids: string[]): JournalError {
  return new JournalError('DUPLICATE_ID', `${kind} id already in the journal: ${ids.slice(0, 5).join(', ')}${ids.length > 5 ? ' …' : ''}`, ids);
}
