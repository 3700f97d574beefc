// Schema parity of the two back ends: a profile's SQLite journal (main/store/sqlite/migrations.ts) and the team
// database (main/store/postgres/migrations.ts), each fully migrated, describe the same records where it matters:
// the same tables and views, the same columns in each shared table, the same NOT NULL-ness and storage class of
// each shared column, the same primary keys and the same unique constraints and unique indexes (partial ones with
// the same condition). What one back end has on purpose and the other has not is listed below, each with its
// reason; any other difference fails, naming the table and column, and so does an entry that describes no
// difference any more (the lists stay facts, not history).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openJournal } from '../../../main/store/sqlite';
import { migratePg } from '../../../main/store/postgres/migrations';
import { freshDatabase } from './cluster';

// ---- what differs on purpose -------------------------------------------------------------------------------

/** Tables only the SQLite journal has. */
const SQLITE_ONLY_TABLES: Readonly<Record<string, string>> = {
  meta: "the journal file's own key/value metadata (journal_id, naming its audit key in the keychain); a team's counterpart is team_identity",
  sqlite_sequence: "SQLite's own counters of AUTOINCREMENT keys (status_events, balance_snapshots); PostgreSQL has sequences (BIGSERIAL)",
  payments_text: 'FTS5 trigram index for substring search over payments; PostgreSQL has payments.search_text under a pg_trgm GIN index',
  payments_text_config: "FTS5's shadow table of payments_text (its configuration)",
  payments_text_data: "FTS5's shadow table of payments_text (the index itself)",
  payments_text_docsize: "FTS5's shadow table of payments_text (token counts per row)",
  payments_text_idx: "FTS5's shadow table of payments_text (segment directory)",
};

/** Tables only the team database has. */
const POSTGRES_ONLY_TABLES: Readonly<Record<string, string>> = {
  schema_version: 'the team schema version (migratePg); SQLite keeps it in PRAGMA user_version',
  dual_control_changes: "counter moved by every dual-control write, behind the 'dual_control' notification other desks follow",
  payee_changes: "counter moved by every payee-book write, behind the 'payees' notification; also the row each payee-book write locks first",
  rate_budget_slots: "the gateway's rate budget shared by the team's desks, one row per request slot",
  rate_budget_pauses: "the team-wide pause of the rate budget after a 429",
  rate_budget_waiters: 'desks refused a slot of the rate budget lately, for fair shares among desks',
  desk_leases: "each desk process's lease; a desk's send claims count while its lease is alive",
  team_identity: "the team's id, naming its audit keys in each desk's keychain (a single desk's journal: meta journal_id)",
  audit_signers: "each desk's public key under its key id, for the team audit log signed per desk",
};

/** Columns (table.column) only the SQLite journal has, in a table both have. */
const SQLITE_ONLY_COLUMNS: Readonly<Record<string, string>> = {};

/** Columns (table.column) only the team database has, in a table both have. */
const POSTGRES_ONLY_COLUMNS: Readonly<Record<string, string>> = {
  'payments.search_text': "generated, folded search fields under a pg_trgm GIN index: SQLite's payments_text (FTS5) instead",
  'payments.claimed_by': 'the desk holding the right to send the payment (send claims between desks sharing the database)',
  'audit_log.signature': "the writing desk's Ed25519 signature of the entry's hash (key in audit_signers); a single desk seals with its keychain",
  'approvals.seq': 'order of recording for ORDER BY recorded_at, seq; SQLite orders by the implicit rowid',
  'payee_approvals.seq': 'order of recording for ORDER BY recorded_at, seq; SQLite orders by the implicit rowid',
  'preparations.seq': 'order of recording for ORDER BY recorded_at, seq; SQLite orders by the implicit rowid',
};

/**
 * Columns (table.column) of both whose NOT NULL-ness differs. A rowid table of SQLite lets a PRIMARY KEY that is
 * not INTEGER hold NULL unless NOT NULL is declared (a legacy quirk SQLite keeps); PostgreSQL's PRIMARY KEY implies
 * NOT NULL. The desks always write these ids; closing the gap needs a SQLite table rebuild.
 */
const SQLITE_NULLABLE_KEY = 'SQLite TEXT PRIMARY KEY without NOT NULL accepts NULL (rowid-table quirk); PostgreSQL PRIMARY KEY is NOT NULL';
const NULLABILITY_DIFFERENCES: Readonly<Record<string, string>> = {
  'batches.id': SQLITE_NULLABLE_KEY,
  'intents.id': SQLITE_NULLABLE_KEY,
  'people.id': SQLITE_NULLABLE_KEY,
  'approvals.id': SQLITE_NULLABLE_KEY,
  'payee_approvals.id': SQLITE_NULLABLE_KEY,
  'preparations.id': SQLITE_NULLABLE_KEY,
};

/** Columns (table.column) of both whose storage class differs (beyond the mapping of storageClass below). */
const TYPE_DIFFERENCES: Readonly<Record<string, string>> = {};

/** Tables of both whose primary key columns differ. */
const PRIMARY_KEY_DIFFERENCES: Readonly<Record<string, string>> = {};

/** Unique constraints / unique indexes ("table: signature", see uniqueSignature) only the team database has. */
const POSTGRES_ONLY_UNIQUE: Readonly<Record<string, string>> = {
  'approvals: UNIQUE (seq)': 'comes with the PostgreSQL-only approvals.seq (BIGSERIAL UNIQUE)',
  'payee_approvals: UNIQUE (seq)': 'comes with the PostgreSQL-only payee_approvals.seq (IDENTITY UNIQUE)',
  'preparations: UNIQUE (seq)': 'comes with the PostgreSQL-only preparations.seq (BIGSERIAL UNIQUE)',
};

/** Unique constraints / unique indexes ("table: signature") only the SQLite journal has. */
const SQLITE_ONLY_UNIQUE: Readonly<Record<string, string>> = {};

/** Views only one back end has. */
const SQLITE_ONLY_VIEWS: Readonly<Record<string, string>> = {};
const POSTGRES_ONLY_VIEWS: Readonly<Record<string, string>> = {};

// ---- the schema as each back end reports it ----------------------------------------------------------------

type StorageClass = 'integer' | 'text' | 'real' | 'blob' | 'timestamp' | `other:${string}`;

interface ColumnInfo {
  notNull: boolean;
  storage: StorageClass;
}

interface TableInfo {
  columns: Map<string, ColumnInfo>;
  /** Primary key columns in key order; empty if none. */
  primaryKey: string[];
  /** Unique constraints and unique indexes other than the primary key, as uniqueSignature gives them. */
  unique: Set<string>;
}

interface SchemaInfo {
  tables: Map<string, TableInfo>;
  views: Set<string>;
}

/**
 * SQLite's type affinity of a declared type, and PostgreSQL's types in the same classes: epoch ms, minor units
 * and counters are INTEGER there and BIGINT/INTEGER here; flags are INTEGER 0/1 there and BOOLEAN here (the
 * adapters convert); JSON is TEXT in both.
 */
function storageClass(backEnd: 'sqlite' | 'postgres', type: string): StorageClass {
  const t = type.toLowerCase();
  if (backEnd === 'sqlite') {
    if (t.includes('int')) return 'integer';
    if (t.includes('char') || t.includes('clob') || t.includes('text')) return 'text';
    if (t === '' || t.includes('blob')) return 'blob';
    if (t.includes('real') || t.includes('floa') || t.includes('doub')) return 'real';
    return `other:${t}`;
  }
  if (['bigint', 'integer', 'smallint', 'boolean'].includes(t)) return 'integer';
  if (['text', 'character varying', 'character'].includes(t)) return 'text';
  if (['real', 'double precision'].includes(t)) return 'real';
  if (t === 'bytea') return 'blob';
  if (t.startsWith('timestamp')) return 'timestamp';
  return `other:${t}`;
}

/** A partial index's condition as both back ends can be compared on: no parentheses, casts, quotes or case. */
function normalizeCondition(condition: string): string {
  return condition
    .replace(/::[a-z ]+/gi, '')
    .replace(/[()"]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .toLowerCase();
}

/**
 * A unique rule as a comparable string: a constraint by its columns ("UNIQUE (kind, id)": SQLite names its
 * own sqlite_autoindex_…), an index made by CREATE UNIQUE INDEX also by its name, which the adapters word
 * refusals by ("UNIQUE INDEX payees_waiting (payee_id) WHERE …").
 */
function uniqueSignature(columns: string[], index: { name: string; condition: string | null } | null): string {
  const cols = `(${columns.map((c) => c.replace(/"/g, '')).join(', ')})`;
  if (!index) return `UNIQUE ${cols}`;
  return `UNIQUE INDEX ${index.name} ${cols}${index.condition ? ` WHERE ${normalizeCondition(index.condition)}` : ''}`;
}

function readSqlite(db: ReturnType<typeof openJournal>['db']): SchemaInfo {
  const objects = db.prepare(`SELECT type, name FROM sqlite_master WHERE type IN ('table', 'view')`).all() as { type: string; name: string }[];
  const tables = new Map<string, TableInfo>();
  const views = new Set<string>();
  for (const { type, name } of objects) {
    if (type === 'view') {
      views.add(name);
      continue;
    }
    const info = db.prepare(`SELECT name, type, "notnull" AS not_null, pk FROM pragma_table_info(?)`).all(name) as { name: string; type: string; not_null: number; pk: number }[];
    const keyColumns = info.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk);
    // A single INTEGER PRIMARY KEY is the rowid itself: never NULL, whatever table_info says.
    const rowidAlias = keyColumns.length === 1 && keyColumns[0]!.type.toUpperCase() === 'INTEGER' ? keyColumns[0]!.name : null;
    const columns = new Map<string, ColumnInfo>();
    for (const c of info) columns.set(c.name, { notNull: c.not_null === 1 || c.name === rowidAlias, storage: storageClass('sqlite', c.type) });
    const unique = new Set<string>();
    const indexes = db.prepare('SELECT name, "unique" AS isUnique, origin FROM pragma_index_list(?)').all(name) as { name: string; isUnique: number; origin: string }[];
    for (const index of indexes) {
      if (!index.isUnique || index.origin === 'pk') continue;
      const cols = (db.prepare('SELECT name FROM pragma_index_info(?) ORDER BY seqno').all(index.name) as { name: string | null }[]).map((c) => c.name ?? '<expression>');
      if (index.origin === 'u') {
        unique.add(uniqueSignature(cols, null));
      } else {
        const sql = (db.prepare(`SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ?`).get(index.name) as { sql: string | null } | undefined)?.sql ?? '';
        unique.add(uniqueSignature(cols, { name: index.name, condition: /\bWHERE\b([\s\S]*)$/i.exec(sql)?.[1] ?? null }));
      }
    }
    tables.set(name, { columns, primaryKey: keyColumns.map((c) => c.name), unique });
  }
  return { tables, views };
}

async function readPostgres(pool: pg.Pool): Promise<SchemaInfo> {
  const tables = new Map<string, TableInfo>();
  const views = new Set<string>();
  const found = await pool.query<{ table_name: string; table_type: string }>(
    `SELECT table_name, table_type FROM information_schema.tables WHERE table_schema = 'public'`,
  );
  for (const t of found.rows) {
    if (t.table_type === 'VIEW') views.add(t.table_name);
    else if (t.table_type === 'BASE TABLE') tables.set(t.table_name, { columns: new Map(), primaryKey: [], unique: new Set() });
  }
  const columns = await pool.query<{ table_name: string; column_name: string; is_nullable: string; data_type: string }>(
    `SELECT table_name, column_name, is_nullable, data_type FROM information_schema.columns WHERE table_schema = 'public' ORDER BY table_name, ordinal_position`,
  );
  for (const c of columns.rows) {
    tables.get(c.table_name)?.columns.set(c.column_name, { notNull: c.is_nullable === 'NO', storage: storageClass('postgres', c.data_type) });
  }
  // Every unique index (those behind PRIMARY KEY and UNIQUE constraints included), its key columns in order
  // and, for a partial one, its condition.
  const indexes = await pool.query<{ table_name: string; index_name: string; is_primary: boolean; is_constraint: boolean; columns: string[]; condition: string | null }>(`
    SELECT t.relname AS table_name, i.relname AS index_name, x.indisprimary AS is_primary,
           EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = x.indexrelid AND c.contype IN ('p', 'u')) AS is_constraint,
           ARRAY(SELECT pg_get_indexdef(x.indexrelid, k, true) FROM generate_series(1, x.indnkeyatts) AS k ORDER BY k) AS columns,
           pg_get_expr(x.indpred, x.indrelid) AS condition
      FROM pg_index x
      JOIN pg_class t ON t.oid = x.indrelid
      JOIN pg_class i ON i.oid = x.indexrelid
      JOIN pg_namespace n ON n.oid = t.relnamespace
     WHERE n.nspname = 'public' AND x.indisunique`);
  for (const index of indexes.rows) {
    const table = tables.get(index.table_name);
    if (!table) continue;
    if (index.is_primary) table.primaryKey = index.columns.map((c) => c.replace(/"/g, ''));
    else table.unique.add(uniqueSignature(index.columns, index.is_constraint ? null : { name: index.index_name, condition: index.condition }));
  }
  return { tables, views };
}

// ---- the comparison -----------------------------------------------------------------------------------------

/**
 * The differences between `only in SQLite` and `only in PostgreSQL` of one kind that no allow-list entry names,
 * and the allow-list entries that name no difference.
 */
function unlisted(what: string, sqliteOnly: Iterable<string>, postgresOnly: Iterable<string>, allowSqlite: Readonly<Record<string, string>>, allowPostgres: Readonly<Record<string, string>>, listNames: [string, string]): string[] {
  const problems: string[] = [];
  const seenSqlite = new Set(sqliteOnly);
  const seenPostgres = new Set(postgresOnly);
  for (const name of seenSqlite) if (!(name in allowSqlite)) problems.push(`${what} ${name}: only in SQLite, and not in ${listNames[0]}`);
  for (const name of seenPostgres) if (!(name in allowPostgres)) problems.push(`${what} ${name}: only in PostgreSQL, and not in ${listNames[1]}`);
  for (const name of Object.keys(allowSqlite)) if (!seenSqlite.has(name)) problems.push(`${listNames[0]} lists ${what} ${name}, which is no longer only in SQLite: remove the entry`);
  for (const name of Object.keys(allowPostgres)) if (!seenPostgres.has(name)) problems.push(`${listNames[1]} lists ${what} ${name}, which is no longer only in PostgreSQL: remove the entry`);
  return problems;
}

/** Per shared table, a property compared column by column; differences not in `allow` and stale entries of it. */
function columnDifferences(sqlite: SchemaInfo, postgres: SchemaInfo, what: string, listName: string, allow: Readonly<Record<string, string>>, show: (c: ColumnInfo) => string): string[] {
  const problems: string[] = [];
  const differing = new Set<string>();
  for (const [table, s] of sqlite.tables) {
    const p = postgres.tables.get(table);
    if (!p) continue;
    for (const [column, sc] of s.columns) {
      const pc = p.columns.get(column);
      if (!pc) continue;
      const [a, b] = [show(sc), show(pc)];
      if (a === b) continue;
      differing.add(`${table}.${column}`);
      if (!(`${table}.${column}` in allow)) problems.push(`column ${table}.${column}: ${what} is ${a} in SQLite but ${b} in PostgreSQL, and not in ${listName}`);
    }
  }
  for (const name of Object.keys(allow)) if (!differing.has(name)) problems.push(`${listName} lists column ${name}, whose ${what} no longer differs: remove the entry`);
  return problems;
}

function sharedTables(sqlite: SchemaInfo, postgres: SchemaInfo): string[] {
  return [...sqlite.tables.keys()].filter((t) => postgres.tables.has(t)).sort();
}

// ---- the test -----------------------------------------------------------------------------------------------

let sqlite: SchemaInfo;
let postgres: SchemaInfo;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'schema-parity-'));
  const journal = openJournal(join(dir, 'journal.sqlite'));
  try {
    sqlite = readSqlite(journal.db);
  } finally {
    journal.close();
  }
  const pool = new pg.Pool({ connectionString: await freshDatabase(inject('postgresUrl')), max: 2 });
  try {
    await migratePg(pool);
    postgres = await readPostgres(pool);
  } finally {
    await pool.end();
  }
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('the SQLite journal and the team database describe the same schema', () => {
  it('reads what it compares (the readers are not blind)', () => {
    for (const [name, schema] of [['SQLite', sqlite], ['PostgreSQL', postgres]] as const) {
      const payments = schema.tables.get('payments');
      expect(payments?.primaryKey, `${name}: payments' key`).toEqual(['pk']);
      expect(payments?.unique, `${name}: payments' unique (kind, id)`).toContain('UNIQUE (kind, id)');
      expect(payments?.columns.get('kind')?.notNull, `${name}: payments.kind NOT NULL`).toBe(true);
      expect(payments?.columns.get('reference')?.notNull, `${name}: payments.reference nullable`).toBe(false);
      const payees = schema.tables.get('payees');
      expect(payees?.primaryKey, `${name}: payees' key`).toEqual(['seq']);
      expect([...(payees?.unique ?? [])].sort(), `${name}: payees' unique rules`).toEqual([
        'UNIQUE (payee_id, version)',
        'UNIQUE INDEX payees_in_force (payee_id) WHERE effective_at is not null and closed_at is null',
        'UNIQUE INDEX payees_name_in_force (name_key) WHERE effective_at is not null and closed_at is null',
        'UNIQUE INDEX payees_waiting (payee_id) WHERE effective_at is null and closed_at is null',
      ]);
      expect(schema.tables.get('approvals')?.primaryKey, `${name}: approvals' key`).toEqual(['id']);
      expect(schema.tables.get('payee_approvals')?.primaryKey, `${name}: payee_approvals' key`).toEqual(['id']);
      expect(schema.tables.get('control_chain')?.unique, `${name}: control_chain's unique hash`).toContain('UNIQUE (hash)');
    }
  });

  it('has the same tables, but for those only one back end has on purpose', () => {
    const problems = unlisted(
      'table',
      [...sqlite.tables.keys()].filter((t) => !postgres.tables.has(t)),
      [...postgres.tables.keys()].filter((t) => !sqlite.tables.has(t)),
      SQLITE_ONLY_TABLES,
      POSTGRES_ONLY_TABLES,
      ['SQLITE_ONLY_TABLES', 'POSTGRES_ONLY_TABLES'],
    );
    expect(problems).toEqual([]);
  });

  it('has the same views', () => {
    const problems = unlisted(
      'view',
      [...sqlite.views].filter((v) => !postgres.views.has(v)),
      [...postgres.views].filter((v) => !sqlite.views.has(v)),
      SQLITE_ONLY_VIEWS,
      POSTGRES_ONLY_VIEWS,
      ['SQLITE_ONLY_VIEWS', 'POSTGRES_ONLY_VIEWS'],
    );
    expect(problems).toEqual([]);
  });

  it('has the same columns in every table both have', () => {
    const sqliteOnly: string[] = [];
    const postgresOnly: string[] = [];
    for (const table of sharedTables(sqlite, postgres)) {
      const s = sqlite.tables.get(table)!.columns;
      const p = postgres.tables.get(table)!.columns;
      for (const column of s.keys()) if (!p.has(column)) sqliteOnly.push(`${table}.${column}`);
      for (const column of p.keys()) if (!s.has(column)) postgresOnly.push(`${table}.${column}`);
    }
    const problems = unlisted('column', sqliteOnly, postgresOnly, SQLITE_ONLY_COLUMNS, POSTGRES_ONLY_COLUMNS, ['SQLITE_ONLY_COLUMNS', 'POSTGRES_ONLY_COLUMNS']);
    expect(problems).toEqual([]);
  });

  it('has the same NOT NULL columns', () => {
    const problems = columnDifferences(sqlite, postgres, 'NOT NULL-ness', 'NULLABILITY_DIFFERENCES', NULLABILITY_DIFFERENCES, (c) => (c.notNull ? 'NOT NULL' : 'nullable'));
    expect(problems).toEqual([]);
  });

  it('keeps each column in the same storage class', () => {
    const problems = columnDifferences(sqlite, postgres, 'storage class', 'TYPE_DIFFERENCES', TYPE_DIFFERENCES, (c) => c.storage);
    expect(problems).toEqual([]);
  });

  it('has the same primary key in every table both have', () => {
    const problems: string[] = [];
    const differing = new Set<string>();
    for (const table of sharedTables(sqlite, postgres)) {
      const a = sqlite.tables.get(table)!.primaryKey.join(', ');
      const b = postgres.tables.get(table)!.primaryKey.join(', ');
      if (a === b) continue;
      differing.add(table);
      if (!(table in PRIMARY_KEY_DIFFERENCES)) problems.push(`table ${table}: primary key is (${a}) in SQLite but (${b}) in PostgreSQL, and not in PRIMARY_KEY_DIFFERENCES`);
    }
    for (const table of Object.keys(PRIMARY_KEY_DIFFERENCES)) if (!differing.has(table)) problems.push(`PRIMARY_KEY_DIFFERENCES lists table ${table}, whose primary key no longer differs: remove the entry`);
    expect(problems).toEqual([]);
  });

  it('has the same unique constraints and unique indexes in every table both have', () => {
    const sqliteOnly: string[] = [];
    const postgresOnly: string[] = [];
    for (const table of sharedTables(sqlite, postgres)) {
      const s = sqlite.tables.get(table)!.unique;
      const p = postgres.tables.get(table)!.unique;
      for (const rule of s) if (!p.has(rule)) sqliteOnly.push(`${table}: ${rule}`);
      for (const rule of p) if (!s.has(rule)) postgresOnly.push(`${table}: ${rule}`);
    }
    const problems = unlisted('unique rule', sqliteOnly, postgresOnly, SQLITE_ONLY_UNIQUE, POSTGRES_ONLY_UNIQUE, ['SQLITE_ONLY_UNIQUE', 'POSTGRES_ONLY_UNIQUE']);
    expect(problems).toEqual([]);
  });
});
