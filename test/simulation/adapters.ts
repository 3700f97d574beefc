// Where the simulated desk keeps its records: its own SQLite journal file (the default), or a team database
// on PostgreSQL that the profile points at (the desk opens the team stores as the app does: team journal with
// its desk lease, dual control, payee book, change feed). Per adapter: how fake time passes, how a desk
// process opens its stores and crashes, and what the oracle reads straight from the tables (SQL on each),
// so the invariants make the same checks on both.
import { threadId } from 'node:worker_threads';
import type { Clock } from '@sinonjs/fake-timers';
import pg from 'pg';
import type { ApprovalRecord } from '../../main/approvals/approval';
import type { DualControlRepository } from '../../main/trust/repository';
import { SqliteDualControlRepository } from '../../main/store/sqlite/dual-control';
import type { AppContext } from '../../main/context';
import { journalPath } from '../../main/desk/profile-engine';
import type { DeskRuntime, DeskRuntimeOptions } from '../../main/desk/runtime';
import { type DeskJournal } from '../../main/journal';
import { openJournal, type Journal } from '../../main/store/sqlite';
import { GENESIS_HASH, verifyAuditRows, type AuditMark, type AuditVerifyResult } from '../../main/audit/chain';
import { deskIdOption } from '../../main/store/postgres/connect';
import { migratePg } from '../../main/store/postgres/migrations';
import { silentLogger } from '../../main/log';
import { readAuditSigners, teamAuditRow } from '../../main/store/postgres/audit-seal';
import { openTeamStores } from '../../main/store/postgres/profile-stores';
import { PgTraffic } from './pg-io';

export const SIM_PROFILE = 'sim';

export type AdapterName = 'sqlite' | 'postgres';
/** Where a history runs: the desk's own SQLite journal, or a fresh team database on a PostgreSQL cluster. */
export type Adapter = { name: 'sqlite' } | { name: 'postgres'; clusterUrl: string };
export const SQLITE: Adapter = { name: 'sqlite' };

/** The journal as the running desk process has it open, and what the oracle reads beside its port. */
export interface SimJournal {
  /** Read through the port's own methods (DeskJournal), awaited: the same calls on both adapters. */
  readonly port: DeskJournal;
  readonly tables: JournalTables;
}

/** What no port method returns, read straight from the tables, and the edits an adversary makes there. */
export interface JournalTables {
  /** Approvals and the control chain, through the adapter's own repository (the desk's records, not the gate's view). */
  readonly dualControl: DualControlRepository;
  /** The audit chain after `from` (a previous check's mark), and where the next check starts. */
  auditSince(from: AuditMark): Promise<{ result: AuditVerifyResult; mark: AuditMark }>;
  /** The whole chain. */
  auditWhole(): Promise<AuditVerifyResult>;
  /** Someone with the journal file or the database's password writes rows as they please (adversary.ts). */
  readonly rows: RowAccess;
}

/** A stored row of one of the dual-control tables, as the adversary saves it to put it back later. */
export type SavedRow = Record<string, unknown>;

/**
 * Writes no desk would make, straight in the tables: what a holder of the journal file (who can drop SQLite's
 * triggers) or of the team database's owner password can do. Payments: a payout's columns.
 */
export interface RowAccess {
  setPayment(id: string, set: { state?: string; unknownSince?: number; accountNumber?: string; emailAddress?: string }): Promise<void>;
  /** Rows of control_chain or approvals, in order. */
  saved(table: 'control_chain' | 'approvals'): Promise<SavedRow[]>;
  /** Deletes rows of the table (all, or with seq above `aboveSeq` for the chain). */
  remove(table: 'control_chain' | 'approvals', aboveSeq?: number): Promise<void>;
  /** Puts rows back exactly as saved. */
  putBack(table: 'control_chain' | 'approvals', rows: readonly SavedRow[]): Promise<void>;
  /** Rewrites one control record's stored text and hash. */
  rewriteChain(seq: number, json: string, hash: string): Promise<void>;
  insertChain(seq: number, json: string, hash: string): Promise<void>;
  insertApproval(a: ApprovalRecord): Promise<void>;
  /** A person and role grants in the tables from before the control chain. */
  insertLegacyPerson(id: string, name: string, publicKey: string, roles: readonly string[], at: number): Promise<void>;
  /** A payee version marked in force, as no service wrote it (another account for a name). */
  insertPayeeVersion(v: { payeeId: string; name: string; nameKey: string; account: string; email: string; emailKey: string; at: number }): Promise<void>;
  /** A NOTIFY on a channel (the team database only; nothing on SQLite). */
  notify(channel: string, payload: string): Promise<void>;
  /** A schedule marked released at `at` (before its time), its payout queued or its batch running, as no desk wrote it. */
  releaseEarly(kind: 'payout' | 'batch', id: string, at: number): Promise<void>;
  /** A schedule's time rewritten (instant, zone, wall time), as no desk wrote it. */
  setScheduleTime(kind: 'payout' | 'batch', id: string, time: { at: number; zone: string; local: string }): Promise<void>;
}

/** One history's records. */
export interface SimStorage {
  readonly adapter: AdapterName;
  /** The fake clock is installed (from here on every timer is fake). */
  attach(clock: Clock): void;
  /** Lets `ms` of fake time pass. */
  tick(ms: number): Promise<void>;
  /** Points the profile at its records (a team database: the profile's teamDatabase). */
  prepareProfile(ctx: AppContext): void;
  /** What desk process `name` opens its stores with, reads them with, and how it dies. */
  desk(ctx: AppContext, home: string, name: string): DeskStorage;
  /** A desk process is about to start over the same records: what a crashed one left is dealt with first. */
  beforeStart(): Promise<void>;
  /** After the history, once the fake clock is gone. */
  close(): Promise<void>;
}

export interface DeskStorage {
  readonly runtimeOptions: Pick<DeskRuntimeOptions, 'openJournal' | 'openTeamStores'>;
  journal(runtime: DeskRuntime): Promise<SimJournal>;
  /** The process dies at once: nothing more of it reaches the records, it gives nothing back. */
  crash(runtime: DeskRuntime): void;
}

export async function openStorage(adapter: Adapter): Promise<SimStorage> {
  return adapter.name === 'sqlite' ? new SqliteStorage() : PgStorage.open(adapter.clusterUrl);
}

// ---- SQLite: the profile's journal file in the data folder ----

class SqliteStorage implements SimStorage {
  readonly adapter = 'sqlite';
  private clock: Clock | null = null;

  attach(clock: Clock): void {
    this.clock = clock;
  }

  async tick(ms: number): Promise<void> {
    await this.clock!.tickAsync(ms);
  }

  prepareProfile(): void {}

  desk(_ctx: AppContext, home: string): DeskStorage {
    // The journal file as this process opens it.
    let journal: Journal | undefined;
    return {
      runtimeOptions: { openJournal: (profileId) => (journal = openJournal(journalPath(home, profileId))) },
      async journal(runtime) {
        const port = await runtime.journalFor(SIM_PROFILE);
        if (!journal || port !== journal) throw new Error("the desk's journal is not the file this process opened");
        return { port: journal, tables: new SqliteTables(journal) };
      },
      crash(runtime) {
        // Closing the connection directly drops what close() would flush: a crash stores nothing more.
        if (journal?.db.open) journal.db.close();
        // Its timers would keep firing into a closed journal; a dead process has none.
        void runtime.reset(SIM_PROFILE).catch(() => undefined);
      },
    };
  }

  async beforeStart(): Promise<void> {}

  async close(): Promise<void> {}
}

class SqliteTables implements JournalTables {
  readonly dualControl: DualControlRepository;
  readonly rows: RowAccess;

  constructor(private readonly journal: Journal) {
    this.dualControl = new SqliteDualControlRepository(journal);
    this.rows = new SqliteRows(journal);
  }

  async auditSince(from: AuditMark): Promise<{ result: AuditVerifyResult; mark: AuditMark }> {
    return this.journal.verifyAuditSince(from);
  }

  async auditWhole(): Promise<AuditVerifyResult> {
    return this.journal.verifyAudit();
  }
}

const PAYMENT_COLUMNS = { state: 'state', unknownSince: 'unknown_since', accountNumber: 'account_number', emailAddress: 'email_address' } as const;

/** The holder of the journal file: the append-only triggers are dropped first (anyone with the file can). */
class SqliteRows implements RowAccess {
  constructor(private readonly journal: Journal) {}

  private get db() {
    return this.journal.db;
  }

  private unguard(table: string): void {
    for (const t of ['no_update', 'no_delete']) this.db.exec(`DROP TRIGGER IF EXISTS ${table}_${t}`);
  }

  async setPayment(id: string, set: Parameters<RowAccess['setPayment']>[1]): Promise<void> {
    const entries = Object.entries(set).filter(([, v]) => v !== undefined) as [keyof typeof PAYMENT_COLUMNS, unknown][];
    if (entries.length === 0) return;
    const status = set.state ? ', status = ?' : '';
    this.db.prepare(`UPDATE payments SET ${entries.map(([k]) => `${PAYMENT_COLUMNS[k]} = ?`).join(', ')}${status} WHERE kind = 'payout' AND id = ?`)
      .run(...entries.map(([, v]) => v), ...(set.state ? [set.state] : []), id);
  }

  async saved(table: 'control_chain' | 'approvals'): Promise<SavedRow[]> {
    return this.db.prepare(`SELECT rowid AS _rowid, * FROM ${table} ORDER BY rowid`).all() as SavedRow[];
  }

  async remove(table: 'control_chain' | 'approvals', aboveSeq = 0): Promise<void> {
    this.unguard(table);
    if (table === 'control_chain') this.db.prepare('DELETE FROM control_chain WHERE seq > ?').run(aboveSeq);
    else this.db.exec('DELETE FROM approvals');
  }

  async putBack(table: 'control_chain' | 'approvals', rows: readonly SavedRow[]): Promise<void> {
    for (const row of rows) {
      const columns = Object.keys(row).filter((c) => c !== '_rowid');
      this.db.prepare(`INSERT OR REPLACE INTO ${table} (rowid, ${columns.join(', ')}) VALUES (?, ${columns.map(() => '?').join(', ')})`).run(row['_rowid'], ...columns.map((c) => row[c]));
    }
  }

  async rewriteChain(seq: number, json: string, hash: string): Promise<void> {
    this.unguard('control_chain');
    this.db.prepare('UPDATE control_chain SET record_json = ?, hash = ? WHERE seq = ?').run(json, hash, seq);
  }

  async insertChain(seq: number, json: string, hash: string): Promise<void> {
    this.db.prepare('INSERT INTO control_chain (seq, hash, record_json, recorded_at) VALUES (?, ?, ?, ?)').run(seq, hash, json, Date.now());
  }

  async insertApproval(a: ApprovalRecord): Promise<void> {
    this.db.prepare(
      `INSERT INTO approvals (id, profile_id, subject_kind, subject_id, manifest_digest, policy_version, decision, reason, signer_id, signed_at, signature, recorded_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(a.id, a.profileId, a.subject.kind, a.subject.id, a.manifestDigest, a.policyVersion, a.decision, a.reason, a.signerId, a.signedAt, a.signature, Date.now());
  }

  async insertLegacyPerson(id: string, name: string, publicKey: string, roles: readonly string[], at: number): Promise<void> {
    this.db.prepare('INSERT OR IGNORE INTO people (id, name, public_key, created_at) VALUES (?, ?, ?, ?)').run(id, name, publicKey, at);
    for (const role of roles) this.db.prepare('INSERT INTO role_grants (person_id, role, granted_at) VALUES (?, ?, ?)').run(id, role, at);
  }

  async insertPayeeVersion(v: Parameters<RowAccess['insertPayeeVersion']>[0]): Promise<void> {
    this.db.prepare(
      `INSERT OR IGNORE INTO payees (payee_id, version, name, name_key, account_number, operator_code, email_address, email_key, source, bank_change, change_digest, created_at, effective_at)
       VALUES (?, 1, ?, ?, ?, 'EU_SEPA', ?, ?, 'hand', 0, ?, ?, ?)`,
    ).run(v.payeeId, v.name, v.nameKey, v.account, v.email, v.emailKey, '0'.repeat(64), v.at, v.at);
  }

  async notify(): Promise<void> {}

  async releaseEarly(kind: 'payout' | 'batch', id: string, at: number): Promise<void> {
    this.db.prepare(`UPDATE schedules SET state = 'RELEASED', released_at = ?, released_by = 'someone', late_by_ms = 0, updated_at = ? WHERE subject_kind = ? AND subject_id = ?`).run(at, at, kind, id);
    if (kind === 'batch') this.db.prepare(`UPDATE batches SET state = 'RUNNING', pause_reason = NULL WHERE id = ?`).run(id);
    else this.db.prepare(`UPDATE payments SET state = 'QUEUED', status = 'QUEUED', last_error = NULL WHERE kind = 'payout' AND id = ?`).run(id);
  }

  async setScheduleTime(kind: 'payout' | 'batch', id: string, time: { at: number; zone: string; local: string }): Promise<void> {
    this.db.prepare(`UPDATE schedules SET execute_at = ?, zone = ?, local_time = ? WHERE subject_kind = ? AND subject_id = ?`).run(time.at, time.zone, time.local, kind, id);
  }
}

// ---- PostgreSQL: a team database of its own per history ----

/** LISTEN connections a desk's team stores hold for good: dual control, payee book, change feed. */
const LISTENING = 3;

/** Per thread (histories run in worker threads too: parallel.ts) and cluster: a migrated database each history's database is copied from (a fresh one in ~50 ms). */
const templates = new Map<string, Promise<string>>();
let databases = 0;

function databaseUrl(clusterUrl: string, name: string): string {
  return clusterUrl.replace(/\/[^/]*$/, `/${name}`);
}

async function adminQuery(url: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

function templateOn(clusterUrl: string): Promise<string> {
  let template = templates.get(clusterUrl);
  if (!template) {
    template = (async () => {
      const name = `sim_template_${process.pid}_${threadId}`;
      await adminQuery(clusterUrl, `DROP DATABASE IF EXISTS ${name}`);
      await adminQuery(clusterUrl, `CREATE DATABASE ${name}`);
      const pool = new pg.Pool({ connectionString: databaseUrl(clusterUrl, name), max: 1 });
      try {
        await migratePg(pool);
      } finally {
        await pool.end();
      }
      return name;
    })();
    templates.set(clusterUrl, template);
    template.catch(() => templates.delete(clusterUrl));
  }
  return template;
}

/** Drops this process's template databases (the end of a run on a cluster that outlives it). */
export async function dropTemplates(): Promise<void> {
  for (const [clusterUrl, template] of templates) {
    const name = await template.catch(() => null);
    if (name) await adminQuery(clusterUrl, `DROP DATABASE IF EXISTS ${name}`).catch(() => undefined);
  }
  templates.clear();
}

class PgStorage implements SimStorage {
  readonly adapter = 'postgres';
  private readonly traffic = new PgTraffic();
  private clock: Clock | null = null;
  /** Desk processes that crashed since the last start (their names, the prefix of their desk ids). */
  private readonly crashed: string[] = [];

  private constructor(
    private readonly clusterUrl: string,
    private readonly name: string,
    /** Someone at the database who is not a desk: the oracle's reads, the lease that ran out, an edit. */
    private readonly admin: pg.Client,
  ) {}

  static async open(clusterUrl: string): Promise<PgStorage> {
    const template = await templateOn(clusterUrl);
    const name = `sim_${process.pid}_${threadId}_${++databases}`;
    await adminQuery(clusterUrl, `CREATE DATABASE ${name} TEMPLATE ${template}`);
    const admin = new pg.Client({ connectionString: databaseUrl(clusterUrl, name) });
    await admin.connect();
    return new PgStorage(clusterUrl, name, admin);
  }

  attach(clock: Clock): void {
    this.clock = clock;
    this.traffic.install();
  }

  tick(ms: number): Promise<void> {
    return this.traffic.tick(this.clock!, ms);
  }

  prepareProfile(ctx: AppContext): void {
    // Trust authentication on the loopback test cluster: no password in the keychain.
    ctx.profiles.update(SIM_PROFILE, { teamDatabase: { url: databaseUrl(this.clusterUrl, this.name), tls: 'disable', caFile: null } });
  }

  desk(ctx: AppContext, _home: string, name: string): DeskStorage {
    const deskName = `sim-${name}`;
    return {
      runtimeOptions: {
        openTeamStores: async (profile) => {
          // One connection beside the listening ones: the desk's statements run one at a time, in the order asked (pg-io.ts).
          const stores = await openTeamStores({ ctx, profile, log: silentLogger, deskName, poolSize: LISTENING + 1 });
          if (!stores.team) return stores;
          // The team's rate budget decides on the database's clock, which the fake clock cannot move: a fake
          // second would be a few real milliseconds there, and its answers would depend on how fast the machine
          // is. The desk's own limiter (the one a single desk uses, on the fake clock) stands in; the budget is
          // tested on real time (test/integration/postgres, bench/team-rate-budget.ts).
          return { ...stores, team: { ...stores.team, limiter: ctx.limiterFor(profile) } };
        },
      },
      journal: async (runtime) => ({
        port: await runtime.journalFor(SIM_PROFILE),
        tables: new PgTables(this.admin, await runtime.dualControlFor(SIM_PROFILE), runtime),
      }),
      crash: (runtime) => {
        this.traffic.cut(deskIdOption(`${deskName}:`));
        this.crashed.push(deskName);
        // Its timers (engine, lease heartbeat, listeners' retries) would keep firing; a dead process has none.
        // Cut off, nothing of this reaches the database: no claim is given back, the lease stays.
        void runtime.reset(SIM_PROFILE).catch(() => undefined);
        void runtime.storesFor(SIM_PROFILE).then((stores) => stores.close()).catch(() => undefined);
      },
    };
  }

  async beforeStart(): Promise<void> {
    await this.traffic.settle();
    if (this.crashed.length === 0) return;
    // Its sessions end (an open transaction rolls back), as the server would notice after the crash.
    await this.traffic.endCut();
    for (const name of this.crashed.splice(0)) {
      // The lease ran out while the desk was down. Leases run on the database's clock, which the fake clock
      // does not move: without this the dead desk's claims would stay its own for 60 s of real time, which is
      // hours of fake time or never. So each restart is one that came after the lease ran out, as a desk
      // started again a minute after a crash finds it; its claims are then taken over (UNKNOWN first, read
      // with GET or sent again under the same id). A restart within the lease (the claims wait) is not simulated.
      await this.admin.query(`UPDATE desk_leases SET lease_until = clock_timestamp() - interval '1 millisecond' WHERE starts_with(desk_id, $1)`, [`${name}:`]);
    }
    await this.traffic.settle();
  }

  async close(): Promise<void> {
    this.traffic.uninstall();
    await this.admin.end().catch(() => undefined);
    // FORCE: a desk that never quit (the history ended on a crash) still has its sessions.
    await adminQuery(this.clusterUrl, `DROP DATABASE IF EXISTS ${this.name} WITH (FORCE)`);
  }
}

class PgTables implements JournalTables {
  readonly rows: RowAccess;

  constructor(
    private readonly admin: pg.Client,
    readonly dualControl: DualControlRepository,
    private readonly runtime: DeskRuntime,
  ) {
    this.rows = new PgRows(admin);
  }

  /**
   * As the SQLite journal's verifyAuditSince: the walk of audit-log.ts over the rows after `from`, each desk's
   * entries checked against the key it registered (audit_signers), then the head (when there are rows, the
   * last of them is the head: the oracle reads at a quiet point, nothing is written meanwhile).
   */
  async auditSince(from: AuditMark): Promise<{ result: AuditVerifyResult; mark: AuditMark }> {
    const rows = (await this.admin.query('SELECT * FROM audit_log WHERE seq > $1 ORDER BY seq', [from.seq])).rows.map(teamAuditRow);
    const walk = verifyAuditRows(rows, from, { keys: new Map(), signers: rows.length > 0 ? await readAuditSigners(this.admin) : new Map(), logName: "the team's audit log" }, () => null);
    if (rows.length === 0) {
      const head = (await this.admin.query<{ seq: string; hash: string }>('SELECT seq, hash FROM audit_log ORDER BY seq DESC LIMIT 1')).rows[0];
      const headSeq = head ? Number(head.seq) : 0;
      if (headSeq !== walk.mark.seq || (head?.hash ?? GENESIS_HASH) !== walk.mark.hash) {
        walk.problems.push({ seq: Math.min(headSeq, walk.mark.seq) + 1, code: 'HEAD_MISMATCH', message: `the log ends at entry ${headSeq} (hash ${head?.hash ?? GENESIS_HASH}) where entry ${walk.mark.seq} was checked before: entries were removed or rewritten` });
      }
    }
    return { result: { ok: walk.problems.length === 0, entries: walk.entries, problems: walk.problems }, mark: walk.mark };
  }

  /** As the desk checks its team's log (team-audit.ts). */
  async auditWhole(): Promise<AuditVerifyResult> {
    return (await this.runtime.auditSeal(SIM_PROFILE)).verify();
  }
}

/**
 * The holder of the database owner's password: triggers off for its own writes (session_replication_role), so
 * the append-only guards and the change notifications do not fire for them; a NOTIFY is sent by hand.
 */
class PgRows implements RowAccess {
  private unguarded = false;

  constructor(private readonly admin: pg.Client) {}

  private async q(sql: string, params: unknown[] = []): Promise<pg.QueryResult> {
    if (!this.unguarded) {
      await this.admin.query("SET session_replication_role = 'replica'");
      this.unguarded = true;
    }
    return this.admin.query(sql, params);
  }

  async setPayment(id: string, set: Parameters<RowAccess['setPayment']>[1]): Promise<void> {
    const entries = Object.entries(set).filter(([, v]) => v !== undefined) as [keyof typeof PAYMENT_COLUMNS, unknown][];
    if (entries.length === 0) return;
    const assignments = entries.map(([k], i) => `${PAYMENT_COLUMNS[k]} = $${i + 1}`);
    if (set.state) assignments.push(`status = $${entries.length + 1}`);
    await this.q(`UPDATE payments SET ${assignments.join(', ')} WHERE kind = 'payout' AND id = $${assignments.length + 1}`, [...entries.map(([, v]) => v), ...(set.state ? [set.state] : []), id]);
  }

  async saved(table: 'control_chain' | 'approvals'): Promise<SavedRow[]> {
    return (await this.q(`SELECT * FROM ${table} ORDER BY ${table === 'control_chain' ? 'seq' : 'seq'}`)).rows as SavedRow[];
  }

  async remove(table: 'control_chain' | 'approvals', aboveSeq = 0): Promise<void> {
    if (table === 'control_chain') await this.q('DELETE FROM control_chain WHERE seq > $1', [aboveSeq]);
    else await this.q('DELETE FROM approvals');
  }

  async putBack(table: 'control_chain' | 'approvals', rows: readonly SavedRow[]): Promise<void> {
    for (const row of rows) {
      const columns = Object.keys(row);
      await this.q(`INSERT INTO ${table} (${columns.join(', ')}) OVERRIDING SYSTEM VALUE VALUES (${columns.map((_, i) => `$${i + 1}`).join(', ')}) ON CONFLICT DO NOTHING`, columns.map((c) => row[c]));
    }
  }

  async rewriteChain(seq: number, json: string, hash: string): Promise<void> {
    await this.q('UPDATE control_chain SET record_json = $1, hash = $2 WHERE seq = $3', [json, hash, seq]);
  }

  async insertChain(seq: number, json: string, hash: string): Promise<void> {
    await this.q('INSERT INTO control_chain (seq, hash, record_json) VALUES ($1, $2, $3)', [seq, hash, json]);
  }

  async insertApproval(a: ApprovalRecord): Promise<void> {
    await this.q(
      `INSERT INTO approvals (id, profile_id, subject_kind, subject_id, manifest_digest, policy_version, decision, reason, signer_id, signed_at, signature)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
      [a.id, a.profileId, a.subject.kind, a.subject.id, a.manifestDigest, a.policyVersion, a.decision, a.reason, a.signerId, a.signedAt, a.signature],
    );
  }

  async insertLegacyPerson(id: string, name: string, publicKey: string, roles: readonly string[], at: number): Promise<void> {
    await this.q('INSERT INTO people (id, name, public_key, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING', [id, name, publicKey, at]);
    for (const role of roles) await this.q('INSERT INTO role_grants (person_id, role, granted_at) VALUES ($1, $2, $3)', [id, role, at]);
  }

  async insertPayeeVersion(v: Parameters<RowAccess['insertPayeeVersion']>[0]): Promise<void> {
    await this.q(
      `INSERT INTO payees (payee_id, version, name, name_key, account_number, operator_code, email_address, email_key, source, bank_change, change_digest, created_at, effective_at)
       VALUES ($1, 1, $2, $3, $4, 'EU_SEPA', $5, $6, 'hand', FALSE, $7, $8, $8) ON CONFLICT DO NOTHING`,
      [v.payeeId, v.name, v.nameKey, v.account, v.email, v.emailKey, '0'.repeat(64), v.at],
    );
  }

  async notify(channel: string, payload: string): Promise<void> {
    await this.admin.query('SELECT pg_notify($1, $2)', [channel, payload]);
  }

  async releaseEarly(kind: 'payout' | 'batch', id: string, at: number): Promise<void> {
    await this.q(`UPDATE schedules SET state = 'RELEASED', released_at = $1, released_by = 'someone', late_by_ms = 0, updated_at = $1 WHERE subject_kind = $2 AND subject_id = $3`, [at, kind, id]);
    if (kind === 'batch') await this.q(`UPDATE batches SET state = 'RUNNING', pause_reason = NULL WHERE id = $1`, [id]);
    else await this.q(`UPDATE payments SET state = 'QUEUED', status = 'QUEUED', last_error = NULL WHERE kind = 'payout' AND id = $1`, [id]);
  }

  async setScheduleTime(kind: 'payout' | 'batch', id: string, time: { at: number; zone: string; local: string }): Promise<void> {
    await this.q(`UPDATE schedules SET execute_at = $1, zone = $2, local_time = $3 WHERE subject_kind = $4 AND subject_id = $5`, [time.at, time.zone, time.local, kind, id]);
  }
}
