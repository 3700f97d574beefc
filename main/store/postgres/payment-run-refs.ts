// The pain.001 references the team journal keeps (main/iso20022/run-refs.ts): read for the review, and written by
// createBatch in its transaction. Batches are stored one at a time across desks (PgJournal's new-ids lock), and a
// reference another desk's batch holds makes INSERT … ON CONFLICT DO NOTHING skip it: the batch is then refused,
// naming the earlier ones, and rolled back.
import type { PaymentRunRef, PaymentRunRefKind } from '../../journal/types';
import { repeatedRunRefsError, type NewPaymentRunRef } from '../../iso20022/run-refs';
import type { PgQueryable } from './history';

interface RefRow {
  kind: PaymentRunRefKind;
  ref: string;
  batch_id: string;
  file_name: string | null;
  payout_id: string | null;
  pmt_inf_id: string | null;
  recorded_at: string;
}

/** The first batch that carried each of these references (each at most once). */
export async function paymentRunRefsPg(db: PgQueryable, kind: PaymentRunRefKind, refs: readonly string[]): Promise<PaymentRunRef[]> {
  if (refs.length === 0) return [];
  const rows = (await db.query<RefRow>(
    `SELECT r.kind, r.ref, r.batch_id, b.file_name, r.payout_id, r.pmt_inf_id, r.recorded_at
       FROM payment_run_refs r LEFT JOIN batches b ON b.id = r.batch_id
      WHERE r.kind = $1 AND r.ref = ANY($2::text[])
      ORDER BY r.recorded_at, r.ref`,
    [kind, [...new Set(refs)]],
  )).rows;
  return rows.map((r) => ({ kind: r.kind, ref: r.ref, batchId: r.batch_id, fileName: r.file_name, payoutId: r.payout_id, pmtInfId: r.pmt_inf_id, recordedAt: Number(r.recorded_at) }));
}

/** Keeps a new batch's references; throws DUPLICATE_PAYMENT_RUN_REF (naming the earlier ones) when one is kept already. Inside the batch's transaction. */
export async function recordPaymentRunRefsPg(db: PgQueryable, batchId: string, refs: readonly NewPaymentRunRef[], at: number): Promise<void> {
  if (refs.length === 0) return;
  // In key order, so two transactions inserting the same references meet in one order.
  const sorted = [...refs].sort((a, b) => (a.kind < b.kind ? -1 : a.kind > b.kind ? 1 : a.ref < b.ref ? -1 : a.ref > b.ref ? 1 : 0));
  const inserted = (await db.query<{ kind: PaymentRunRefKind; ref: string }>(
    `INSERT INTO payment_run_refs (kind, ref, batch_id, payout_id, pmt_inf_id, recorded_at)
     SELECT t.kind, t.ref, $1, t.payout_id, t.pmt_inf_id, $2
       FROM unnest($3::text[], $4::text[], $5::text[], $6::text[]) WITH ORDINALITY AS t (kind, ref, payout_id, pmt_inf_id, n)
      ORDER BY t.n
     ON CONFLICT DO NOTHING RETURNING kind, ref`,
    [batchId, at, sorted.map((r) => r.kind), sorted.map((r) => r.ref), sorted.map((r) => r.payoutId), sorted.map((r) => r.pmtInfId)],
  )).rows;
  if (inserted.length === sorted.length) return;
  const kept = new Set(inserted.map((r) => `${r.kind}\u0000${r.ref}`));
  const missing = sorted.filter((r) => !kept.has(`${r.kind}\u0000${r.ref}`));
  const found = [
    ...(await paymentRunRefsPg(db, 'MsgId', missing.filter((r) => r.kind === 'MsgId').map((r) => r.ref))),
    ...(await paymentRunRefsPg(db, 'EndToEndId', missing.filter((r) => r.kind === 'EndToEndId').map((r) => r.ref))),
  ];
  throw repeatedRunRefsError(found);
}
