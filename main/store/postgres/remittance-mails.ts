// The remittance mail outbox on the team database: the same statements as the SQLite journal's
// (store/remittance-mails.ts). Two desks asked to mail one payout's advice at once both run the claim; PostgreSQL lets
// one INSERT … ON CONFLICT DO NOTHING (or one UPDATE … WHERE claim = the one read) change the row, so one desk mails.
import type { QueryResultRow } from 'pg';
import type { RemittanceMailClaim, RemittanceMailRecord, RemittanceMailState, RemittanceMailUpdate } from '../../journal/port';
import { claimAgainSql, claimNewSql, claimValues, recordSql, recordValues, toRemittanceMail, type Placeholder } from '../remittance-mails';
import { pgInteger, type PgQueryable } from './history';

const pgPlaceholder: Placeholder = (n) => `$${n}`;

function fromPg(r: QueryResultRow): RemittanceMailRecord {
  return toRemittanceMail({
    payout_id: r.payout_id as string,
    batch_id: r.batch_id as string | null,
    recipient: r.recipient as string,
    state: r.state as RemittanceMailState,
    attempts: pgInteger(r.attempts, 'attempts'),
    last_reply: r.last_reply as string | null,
    message_id: r.message_id as string | null,
    sends: pgInteger(r.sends, 'sends'),
    sent_at: r.sent_at === null ? null : pgInteger(r.sent_at, 'sent_at'),
    requested_by: r.requested_by as string,
    claim: r.claim as string,
    created_at: pgInteger(r.created_at, 'created_at'),
    updated_at: pgInteger(r.updated_at, 'updated_at'),
  });
}

export async function remittanceMailsPg(db: PgQueryable, payoutIds: readonly string[]): Promise<RemittanceMailRecord[]> {
  if (payoutIds.length === 0) return [];
  const rows = (await db.query('SELECT * FROM remittance_mails WHERE payout_id = ANY($1::text[]) ORDER BY payout_id', [payoutIds])).rows;
  return rows.map(fromPg);
}

export async function claimRemittanceMailPg(db: PgQueryable, claim: RemittanceMailClaim, over: string | null): Promise<boolean> {
  const result = over === null
    ? await db.query(claimNewSql(pgPlaceholder), claimValues(claim))
    : await db.query(claimAgainSql(pgPlaceholder), [...claimValues(claim), over]);
  return result.rowCount === 1;
}

export async function recordRemittanceMailPg(db: PgQueryable, payoutId: string, claim: string, update: RemittanceMailUpdate): Promise<boolean> {
  return (await db.query(recordSql(pgPlaceholder), recordValues(payoutId, claim, update))).rowCount === 1;
}
