// The pain.001 references a single desk's journal keeps (main/iso20022/run-refs.ts): read for the review, and
// written by createBatch in its transaction after a check for the same references (the key refuses a repeat too).
import type Database from 'better-sqlite3';
import type { PaymentRunRef, PaymentRunRefKind } from '../../journal/types';
import { repeatedRunRefsError, type NewPaymentRunRef } from '../../iso20022/run-refs';

interface RefRow {
  kind: PaymentRunRefKind;
  ref: string;
  batch_id: string;
  file_name: string | null;
  payout_id: string | null;
  pmt_inf_id: string | null;
  recorded_at: number;
}

// CROSS JOIN keeps json_each the outer loop, each ref one seek of the key: with a plain JOIN SQLite walks every
// reference of the kind once per ref asked (100,000 against 100,000 took minutes).
export const LOOKUP_SQL = `SELECT r.kind, r.ref, r.batch_id, b.file_name, r.payout_id, r.pmt_inf_id, r.recorded_at
  FROM json_each(@refs) AS k CROSS JOIN payment_run_refs AS r ON r.kind = @kind AND r.ref = k.value
  LEFT JOIN batches AS b ON b.id = r.batch_id
  ORDER BY r.recorded_at, r.ref`;

const INSERT_SQL = `INSERT INTO payment_run_refs (kind, ref, batch_id, payout_id, pmt_inf_id, recorded_at) VALUES (?, ?, ?, ?, ?, ?)`;

type Prepare = (sql: string) => Database.Statement;

/** The first batch that carried each of these references (each at most once). */
export function paymentRunRefs(prepare: Prepare, kind: PaymentRunRefKind, refs: readonly string[]): PaymentRunRef[] {
  if (refs.length === 0) return [];
  const rows = prepare(LOOKUP_SQL).all({ kind, refs: JSON.stringify([...new Set(refs)]) }) as RefRow[];
  return rows.map((r) => ({ kind: r.kind, ref: r.ref, batchId: r.batch_id, fileName: r.file_name, payoutId: r.payout_id, pmtInfId: r.pmt_inf_id, recordedAt: r.recorded_at }));
}

/** Keeps a new batch's references; throws DUPLICATE_PAYMENT_RUN_REF (naming the earlier ones) when one is kept already. Inside the batch's transaction. */
export function recordPaymentRunRefs(prepare: Prepare, batchId: string, refs: readonly NewPaymentRunRef[], at: number): void {
  if (refs.length === 0) return;
  const found = [
    ...paymentRunRefs(prepare, 'MsgId', refs.filter((r) => r.kind === 'MsgId').map((r) => r.ref)),
    ...paymentRunRefs(prepare, 'EndToEndId', refs.filter((r) => r.kind === 'EndToEndId').map((r) => r.ref)),
  ];
  if (found.length > 0) throw repeatedRunRefsError(found);
  const insert = prepare(INSERT_SQL);
  for (const r of refs) insert.run(r.kind, r.ref, batchId, r.payoutId, r.pmtInfId, at);
}
