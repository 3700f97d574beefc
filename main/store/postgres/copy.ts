// Copies a SQLite journal's read-side tables (batches, payments, status events) into the team database,
// row for row, pk and seq included: the seed of moving a desk's journal to the shared one, and how the
// contract tests put the same data on both sides. Every SQLite column must have a PostgreSQL column of
// the same name (refused otherwise, naming it), so a column added to one schema and not the other shows.
import type Database from 'better-sqlite3';
import type { PgQueryable } from './history';

const TABLES = [
  { name: 'batches', order: 'id', identity: null },
  { name: 'payments', order: 'pk', identity: 'pk' },
  { name: 'status_events', order: 'seq', identity: 'seq' },
] as const;

/** Rows per INSERT: one JSON document each, unpacked by json_populate_recordset. */
const CHUNK = 5_000;

export async function copyJournalToPg(sqlite: Database.Database, db: PgQueryable): Promise<Record<string, number>> {
  const copied: Record<string, number> = {};
  for (const table of TABLES) {
    const sqliteColumns = (sqlite.prepare(`SELECT name FROM pragma_table_info('${table.name}')`).all() as { name: string }[]).map((c) => c.name);
    const pgColumns = new Set(
      (await db.query<{ column_name: string }>('SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1', [table.name])).rows.map((c) => c.column_name),
    );
    const missing = sqliteColumns.filter((c) => !pgColumns.has(c));
    if (missing.length) throw new Error(`the team database's ${table.name} has no column ${missing.join(', ')} (SQLite journal has)`);
    const columns = sqliteColumns.join(', ');
    let chunk: unknown[] = [];
    const flush = async () => {
      if (!chunk.length) return;
      await db.query(`INSERT INTO ${table.name} (${columns}) OVERRIDING SYSTEM VALUE SELECT ${columns} FROM json_populate_recordset(NULL::${table.name}, $1)`, [JSON.stringify(chunk)]);
      copied[table.name] = (copied[table.name] ?? 0) + chunk.length;
      chunk = [];
    };
    for (const row of sqlite.prepare(`SELECT * FROM ${table.name} ORDER BY ${table.order}`).iterate()) {
      chunk.push(row);
      if (chunk.length >= CHUNK) await flush();
    }
    await flush();
    if (table.identity) {
      // Rows were written with their own keys: the next key the database gives must come after them.
      await db.query(`SELECT setval(pg_get_serial_sequence('${table.name}', '${table.identity}'), GREATEST((SELECT MAX(${table.identity}) FROM ${table.name}), 1))`);
    }
  }
  return copied;
}
