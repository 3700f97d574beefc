// The journal's records of closing a period, in SQLite (PostgreSQL: postgres/closing.ts, the same tables): statements
// as issued, movements already in an accounting export, and the accounts those exports post to. Issued statements and
// exported movements are only ever added (triggers refuse a change), so a second export cannot repeat a line.
import type Database from 'better-sqlite3';
import type { ExportedMovement, IssuedStatementRecord } from '../journal/types';

export interface IssuedStatementRow {
  seq: number | string;
  period_from: number | string;
  period_to: number | string;
  currency_scope: string;
  figures_json: string;
  digest: string;
  issued_at: number | string;
  issued_by: string | null;
}

export const ISSUED_STATEMENT_SQL = (p: [string, string, string]) =>
  `SELECT seq, period_from, period_to, currency_scope, figures_json, digest, issued_at, issued_by FROM issued_statements
    WHERE period_from = ${p[0]} AND period_to = ${p[1]} AND currency_scope = ${p[2]} ORDER BY seq DESC LIMIT 1`;

export function toIssuedStatement(r: IssuedStatementRow, int: (v: unknown, name: string) => number): IssuedStatementRecord {
  return {
    seq: int(r.seq, 'seq'),
    periodFrom: int(r.period_from, 'period_from'),
    periodTo: int(r.period_to, 'period_to'),
    currencyScope: r.currency_scope,
    figuresJson: r.figures_json,
    digest: r.digest,
    issuedAt: int(r.issued_at, 'issued_at'),
    issuedBy: r.issued_by,
  };
}

const sqliteInt = (v: unknown) => v as number;

export function recordIssuedStatement(db: Database.Database, rec: Omit<IssuedStatementRecord, 'seq'>): IssuedStatementRecord {
  const result = db
    .prepare('INSERT INTO issued_statements (period_from, period_to, currency_scope, figures_json, digest, issued_at, issued_by) VALUES (?, ?, ?, ?, ?, ?, ?)')
    .run(rec.periodFrom, rec.periodTo, rec.currencyScope, rec.figuresJson, rec.digest, rec.issuedAt, rec.issuedBy);
  return { ...rec, seq: Number(result.lastInsertRowid) };
}

export function issuedStatement(db: Database.Database, periodFrom: number, periodTo: number, currencyScope: string): IssuedStatementRecord | null {
  const r = db.prepare(ISSUED_STATEMENT_SQL(['?', '?', '?'])).get(periodFrom, periodTo, currencyScope) as IssuedStatementRow | undefined;
  return r ? toIssuedStatement(r, sqliteInt) : null;
}

export function claimExportedMovements(db: Database.Database, exportId: string, ids: readonly string[], at: number): string[] {
  const insert = db.prepare('INSERT INTO exported_movements (movement_id, export_id, exported_at) VALUES (?, ?, ?) ON CONFLICT (movement_id) DO NOTHING');
  return db.transaction(() => ids.filter((id) => insert.run(id, exportId, at).changes === 1))();
}

export function exportedMovements(db: Database.Database, ids: readonly string[]): ExportedMovement[] {
  if (ids.length === 0) return [];
  const rows = db
    .prepare('SELECT movement_id, export_id, exported_at FROM exported_movements WHERE movement_id IN (SELECT value FROM json_each(?))')
    .all(JSON.stringify(ids)) as { movement_id: string; export_id: string; exported_at: number }[];
  return rows.map((r) => ({ movementId: r.movement_id, exportId: r.export_id, exportedAt: r.exported_at }));
}

export function accountingAccounts(db: Database.Database): string | null {
  const r = db.prepare('SELECT accounts_json FROM accounting_accounts WHERE only_row = 1').get() as { accounts_json: string } | undefined;
  return r?.accounts_json ?? null;
}

export function setAccountingAccounts(db: Database.Database, json: string, at: number): void {
  db.prepare('INSERT INTO accounting_accounts (only_row, accounts_json, updated_at) VALUES (1, ?, ?) ON CONFLICT (only_row) DO UPDATE SET accounts_json = excluded.accounts_json, updated_at = excluded.updated_at').run(json, at);
}
