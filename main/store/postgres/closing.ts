// Closing a period on the team database: the SQLite journal's records (../closing.ts), the same tables. Claiming
// exported movements is one INSERT … ON CONFLICT DO NOTHING RETURNING: of two desks exporting at once, each movement
// goes to exactly one export.
import type { ExportedMovement, IssuedStatementRecord } from '../../journal/types';
import { ISSUED_STATEMENT_SQL, toIssuedStatement, type IssuedStatementRow } from '../closing';
import { pgInteger, type PgQueryable } from './history';

export async function recordIssuedStatementPg(db: PgQueryable, rec: Omit<IssuedStatementRecord, 'seq'>): Promise<IssuedStatementRecord> {
  const rows = (
    await db.query<{ seq: string }>(
      'INSERT INTO issued_statements (period_from, period_to, currency_scope, figures_json, digest, issued_at, issued_by) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING seq',
      [rec.periodFrom, rec.periodTo, rec.currencyScope, rec.figuresJson, rec.digest, rec.issuedAt, rec.issuedBy],
    )
  ).rows;
  return { ...rec, seq: pgInteger(rows[0]?.seq, 'seq') };
}

export async function issuedStatementPg(db: PgQueryable, periodFrom: number, periodTo: number, currencyScope: string): Promise<IssuedStatementRecord | null> {
  const r = (await db.query<IssuedStatementRow>(ISSUED_STATEMENT_SQL(['$1::bigint', '$2::bigint', '$3']), [periodFrom, periodTo, currencyScope])).rows[0];
  return r ? toIssuedStatement(r, pgInteger) : null;
}

export async function claimExportedMovementsPg(db: PgQueryable, exportId: string, ids: readonly string[], at: number): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = (
    await db.query<{ movement_id: string }>(
      `INSERT INTO exported_movements (movement_id, export_id, exported_at) SELECT id, $2, $3 FROM unnest($1::text[]) AS id
        ON CONFLICT (movement_id) DO NOTHING RETURNING movement_id`,
      [ids, exportId, at],
    )
  ).rows;
  const claimed = new Set(rows.map((r) => r.movement_id));
  return ids.filter((id) => claimed.has(id));
}

export async function exportedMovementsPg(db: PgQueryable, ids: readonly string[]): Promise<ExportedMovement[]> {
  if (ids.length === 0) return [];
  const rows = (await db.query<{ movement_id: string; export_id: string; exported_at: string }>('SELECT movement_id, export_id, exported_at FROM exported_movements WHERE movement_id = ANY($1)', [ids])).rows;
  return rows.map((r) => ({ movementId: r.movement_id, exportId: r.export_id, exportedAt: pgInteger(r.exported_at, 'exported_at') }));
}

export async function accountingAccountsPg(db: PgQueryable): Promise<string | null> {
  return (await db.query<{ accounts_json: string }>('SELECT accounts_json FROM accounting_accounts WHERE only_row')).rows[0]?.accounts_json ?? null;
}

export async function setAccountingAccountsPg(db: PgQueryable, json: string, at: number): Promise<void> {
  await db.query(
    'INSERT INTO accounting_accounts (only_row, accounts_json, updated_at) VALUES (TRUE, $1, $2) ON CONFLICT (only_row) DO UPDATE SET accounts_json = EXCLUDED.accounts_json, updated_at = EXCLUDED.updated_at',
    [json, at],
  );
}
