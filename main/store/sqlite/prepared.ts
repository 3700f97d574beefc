// One prepared statement per SQL text and connection, for the store functions that take a bare connection (the
// audit log, the history reads) or are called on every send (the dual-control records). Preparing the same text
// again on each call was 6-7 % of a simulated history's CPU (a profile of issue 25). Only for statements run with
// get/all/run: one being iterated is busy until the walk ends, so a walk prepares its own.
import type Database from 'better-sqlite3';

const byConnection = new WeakMap<Database.Database, Map<string, Database.Statement>>();

export function prepared(db: Database.Database, sql: string): Database.Statement {
  let statements = byConnection.get(db);
  if (!statements) byConnection.set(db, (statements = new Map()));
  let statement = statements.get(sql);
  if (!statement) statements.set(sql, (statement = db.prepare(sql)));
  return statement;
}
