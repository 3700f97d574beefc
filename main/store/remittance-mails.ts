// The remittance mail outbox (issue 28): one row per payout whose advice was e-mailed, or is being, on both back
// ends (the team journal's twin is postgres/remittance-mails.ts; the SQL is the same, only the placeholders differ).
// A row is claimed before the SMTP server is spoken to, by one statement that only one writer can win: an INSERT that
// does nothing when the row exists, or an UPDATE that only applies while the row still carries the claim that was
// read. Every later write names the claim too, so a send that lost its row (to a forced resend) changes nothing.
import type Database from 'better-sqlite3';
import type { RemittanceMailClaim, RemittanceMailRecord, RemittanceMailState, RemittanceMailUpdate } from '../journal/port';

export interface RemittanceMailRow {
  payout_id: string;
  batch_id: string | null;
  recipient: string;
  state: RemittanceMailState;
  attempts: number;
  last_reply: string | null;
  message_id: string | null;
  sends: number;
  sent_at: number | null;
  requested_by: string;
  claim: string;
  created_at: number;
  updated_at: number;
}

export function toRemittanceMail(r: RemittanceMailRow): RemittanceMailRecord {
  return {
    payoutId: r.payout_id,
    batchId: r.batch_id,
    recipient: r.recipient,
    state: r.state,
    attempts: r.attempts,
    lastReply: r.last_reply,
    messageId: r.message_id,
    sends: r.sends,
    sentAt: r.sent_at,
    requestedBy: r.requested_by,
    claim: r.claim,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

export type Placeholder = (n: number) => string;
const sqlitePlaceholder: Placeholder = (n) => `@p${n}`;
/** Positional values as SQLite's named parameters @p1, @p2…: a value used twice is given once. */
const named = (values: unknown[]) => Object.fromEntries(values.map((v, i) => [`p${i + 1}`, v]));

/** Claims a payout that has no row yet: a second claimant's INSERT does nothing. Parameters as claimValues. */
export function claimNewSql(p: Placeholder): string {
  return `INSERT INTO remittance_mails (payout_id, batch_id, recipient, state, attempts, last_reply, message_id, sends, sent_at, requested_by, claim, created_at, updated_at)
    VALUES (${p(1)}, ${p(2)}, ${p(3)}, 'queued', 0, NULL, ${p(4)}, 0, NULL, ${p(5)}, ${p(6)}, ${p(7)}, ${p(7)})
    ON CONFLICT (payout_id) DO NOTHING`;
}

/** Claims a row again (a repeat after a refusal, or a forced resend), only while it carries the claim read: claimValues then that claim. */
export function claimAgainSql(p: Placeholder): string {
  return `UPDATE remittance_mails SET batch_id = ${p(2)}, recipient = ${p(3)}, state = 'queued', attempts = 0, last_reply = NULL, message_id = ${p(4)},
      requested_by = ${p(5)}, claim = ${p(6)}, updated_at = ${p(7)}
    WHERE payout_id = ${p(1)} AND claim = ${p(8)}`;
}

/** An attempt's outcome, written only while the claim holds the row. */
export function recordSql(p: Placeholder): string {
  return `UPDATE remittance_mails SET state = ${p(3)}, attempts = ${p(4)}, last_reply = ${p(5)}, sent_at = COALESCE(${p(6)}, sent_at),
      sends = sends + ${p(7)}, updated_at = ${p(8)}
    WHERE payout_id = ${p(1)} AND claim = ${p(2)}`;
}

export function claimValues(c: RemittanceMailClaim): unknown[] {
  return [c.payoutId, c.batchId, c.recipient, c.messageId, c.requestedBy, c.claim, c.at];
}

export function recordValues(payoutId: string, claim: string, u: RemittanceMailUpdate): unknown[] {
  return [payoutId, claim, u.state, u.attempts, u.lastReply, u.state === 'sent' ? u.at : null, u.state === 'sent' ? 1 : 0, u.at];
}

// ---- SQLite ----

export function remittanceMails(db: Database.Database, payoutIds: readonly string[]): RemittanceMailRecord[] {
  if (payoutIds.length === 0) return [];
  const rows = db.prepare('SELECT * FROM remittance_mails WHERE payout_id IN (SELECT value FROM json_each(?)) ORDER BY payout_id').all(JSON.stringify(payoutIds)) as RemittanceMailRow[];
  return rows.map(toRemittanceMail);
}

export function claimRemittanceMail(db: Database.Database, claim: RemittanceMailClaim, over: string | null): boolean {
  const run = over === null ? db.prepare(claimNewSql(sqlitePlaceholder)).run(named(claimValues(claim))) : db.prepare(claimAgainSql(sqlitePlaceholder)).run(named([...claimValues(claim), over]));
  return run.changes === 1;
}

export function recordRemittanceMail(db: Database.Database, payoutId: string, claim: string, update: RemittanceMailUpdate): boolean {
  return db.prepare(recordSql(sqlitePlaceholder)).run(named(recordValues(payoutId, claim, update))).changes === 1;
}
