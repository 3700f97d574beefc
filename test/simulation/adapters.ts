// Where the simulated desk keeps its records: its own SQLite journal file (the default), or a team database
// on PostgreSQL that the profile points at (the desk opens the team stores as the app does: team journal with
// its desk lease, dual control, payee book, change feed). Per adapter: how fake time passes, how a desk
// process opens its stores and crashes, and what the oracle reads straight from the tables (SQL on each),
// so the invariants make the same checks on both.
import type { Clock } from '@sinonjs/fake-timers';
import pg from 'pg';
import type { ApprovalPolicy, PolicyRules } from '../../main/approvals/policy';
import type { DualControlRepository } from '../../main/approvals/repository';
import { SqliteDualControlRepository } from '../../main/approvals/sqlite-repository';
import type { AppContext } from '../../main/context';
import { journalPath } from '../../main/desk/profile-engine';
import type { DeskRuntime, DeskRuntimeOptions } from '../../main/desk/runtime';
import { openJournal, type DeskJournal, type Journal } from '../../main/journal';
import { GENESIS_HASH, verifyAuditRows, type AuditMark, type AuditVerifyResult } from '../../main/journal/audit-log';
import { deskIdOption } from '../../main/journal/pg/connect';
import { migratePg } from '../../main/journal/pg/migrations';
import { silentLogger } from '../../main/log';
import { readAuditSigners, teamAuditRow } from '../../main/team/team-audit';
import { openTeamStores } from '../../main/team/team-stores';
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

/** What no port method returns, read straight from the tables, and the one edit a person makes there. */
export interface JournalTables {
  /** People and approvals, through the adapter's own repository (the desk's records, not the gate's view). */
  readonly dualControl: DualControlRepository;
  /** The newest policy version set at or before `at`. */
  policyAt(at: number): Promise<ApprovalPolicy | undefined>;
  /** The audit chain after `from` (a previous check's mark), and where the next check starts. */
  auditSince(from: AuditMark): Promise<{ result: AuditVerifyResult; mark: AuditMark }>;
  /** The whole chain. */
  auditWhole(): Promise<AuditVerifyResult>;
  /** Someone changes a payout's e-mail straight in the journal (invariant 7: the approvals no longer match). */
  editEmail(id: string, email: string): Promise<void>;
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

  constructor(private readonly journal: Journal) {
    this.dualControl = new SqliteDualControlRepository(journal);
  }

  async policyAt(at: number): Promise<ApprovalPolicy | undefined> {
    const row = this.journal.db.prepare('SELECT version, profile_id, rules_json, set_by, set_at, signature FROM policies WHERE set_at <= ? ORDER BY version DESC LIMIT 1').get(at) as PolicyRow | undefined;
    return row && toPolicy(row);
  }

  async auditSince(from: AuditMark): Promise<{ result: AuditVerifyResult; mark: AuditMark }> {
    return this.journal.verifyAuditSince(from);
  }

  async auditWhole(): Promise<AuditVerifyResult> {
    return this.journal.verifyAudit();
  }

  async editEmail(id: string, email: string): Promise<void> {
    this.journal.db.prepare(`UPDATE payments SET email_address = ? WHERE kind = 'payout' AND id = ?`).run(email, id);
  }
}

interface PolicyRow {
  version: number | string;
  profile_id: string;
  rules_json: string;
  set_by: string;
  set_at: number | string;
  signature: string;
}

const toPolicy = (row: PolicyRow): ApprovalPolicy => ({
  profileId: row.profile_id, version: Number(row.version), rules: JSON.parse(row.rules_json) as PolicyRules, setBy: row.set_by, setAt: Number(row.set_at), signature: row.signature,
});

// ---- PostgreSQL: a team database of its own per history ----

/** LISTEN connections a desk's team stores hold for good: dual control, payee book, change feed. */
const LISTENING = 3;

/** Per process and cluster: a migrated database each history's database is copied from (a fresh one in ~50 ms). */
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
      const name = `sim_template_${process.pid}`;
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
    const name = `sim_${process.pid}_${++databases}`;
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
  constructor(
    private readonly admin: pg.Client,
    readonly dualControl: DualControlRepository,
    private readonly runtime: DeskRuntime,
  ) {}

  async policyAt(at: number): Promise<ApprovalPolicy | undefined> {
    const r = await this.admin.query<PolicyRow>('SELECT version, profile_id, rules_json, set_by, set_at, signature FROM policies WHERE set_at <= $1 ORDER BY version DESC LIMIT 1', [at]);
    const row = r.rows[0];
    return row && toPolicy(row);
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

  async editEmail(id: string, email: string): Promise<void> {
    await this.admin.query(`UPDATE payments SET email_address = $1 WHERE kind = 'payout' AND id = $2`, [email, id]);
  }
}
