// Duplicates across history for ERP payment runs: a pain.001 run whose MsgId was imported before is refused, and
// so is a transaction whose EndToEndId was seen before in any earlier run, whether or not it became that payout's
// id. The journal keeps the first batch that carried each reference (a table with a unique key on both back
// ends); the review looks them up (pain001.ts) and the journal's createBatch refuses a repeat again in its own
// transaction, so two desks submitting the same run at once cannot both store it. A retry's attempts carry their
// first attempt's references and add none. "NOTPROVIDED" (no EndToEndId given) is never kept.
import { JournalError, type NewPayment, type PaymentRunRef, type PaymentRunRefKind } from '../journal';
import { NOT_PROVIDED_END_TO_END_ID, pain001OriginOf } from './origin';

/** What the review asks the journal (DeskJournal.paymentRunRefs). */
export interface PaymentRunRefLookup {
  paymentRunRefs(kind: PaymentRunRefKind, refs: readonly string[]): PaymentRunRef[] | Promise<PaymentRunRef[]>;
}

/** A reference a new batch carries, as the journal keeps it. */
export interface NewPaymentRunRef {
  kind: PaymentRunRefKind;
  ref: string;
  payoutId: string | null;
  pmtInfId: string | null;
}

/**
 * The references a new batch's rows carry (none for a CSV batch): each MsgId once, and each EndToEndId with its
 * payout. Throws DUPLICATE_PAYMENT_RUN_REF when the batch itself repeats an EndToEndId (the review refuses that
 * first, as ID_DUPLICATE).
 */
export function paymentRunRefsOf(rows: readonly NewPayment[]): NewPaymentRunRef[] {
  const refs: NewPaymentRunRef[] = [];
  const msgIds = new Set<string>();
  const endToEndIds = new Map<string, string>();
  for (const row of rows) {
    if (row.retryOf) continue;
    const origin = pain001OriginOf({ details: row.details ?? null });
    if (!origin) continue;
    if (!msgIds.has(origin.msgId)) {
      msgIds.add(origin.msgId);
      refs.push({ kind: 'MsgId', ref: origin.msgId, payoutId: null, pmtInfId: null });
    }
    if (origin.endToEndId === NOT_PROVIDED_END_TO_END_ID) continue;
    const first = endToEndIds.get(origin.endToEndId);
    if (first !== undefined) {
      throw new JournalError(
        'DUPLICATE_PAYMENT_RUN_REF',
        `payouts ${first} and ${row.id} carry the same EndToEndId "${origin.endToEndId}"; each transaction of a payment run needs its own, and nothing was stored`,
        [first, row.id],
      );
    }
    endToEndIds.set(origin.endToEndId, row.id);
    refs.push({ kind: 'EndToEndId', ref: origin.endToEndId, payoutId: row.id, pmtInfId: origin.pmtInfId || null });
  }
  return refs;
}

/** "2026-03-02 09:00 UTC": when the earlier batch was stored. */
export function importedAtText(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** "batch B-7 (file run-03.xml) on 2026-03-02 09:00 UTC". */
export function earlierBatchText(ref: PaymentRunRef): string {
  return `batch ${ref.batchId}${ref.fileName ? ` (file ${ref.fileName})` : ''} on ${importedAtText(ref.recordedAt)}`;
}

/** The review's words for a run whose MsgId was imported before (an error on the file as a whole). */
export function repeatedMsgIdText(ref: PaymentRunRef): string {
  return `This payment run (MsgId "${ref.ref}") was imported before, as ${earlierBatchText(ref)}; nothing of it was imported now. A run is imported once: importing it again would pay its transactions a second time. If the ERP made a new run, it must give it a new MsgId; if only part of the run was sent then, export the rest from the ERP as a new run.`;
}

/** The review's words for a transaction whose EndToEndId was imported before (an error on its row). */
export function repeatedEndToEndIdText(ref: PaymentRunRef): string {
  const group = ref.pmtInfId ? ` in PmtInf "${ref.pmtInfId}"` : '';
  return `its EndToEndId was imported before${group}, as payout ${ref.payoutId ?? '(unknown)'} of ${earlierBatchText(ref)}: this transaction was sent before. If it was paid, take it out of the run; if it is a new payment, give it a new EndToEndId in the ERP`;
}

/** The journal's refusal of a batch repeating references it keeps (found: the earlier ones); nothing is stored. */
export function repeatedRunRefsError(found: readonly PaymentRunRef[]): JournalError {
  const msgId = found.find((r) => r.kind === 'MsgId');
  const endToEnd = found.filter((r) => r.kind === 'EndToEndId');
  const parts: string[] = [];
  if (msgId) parts.push(`payment run MsgId "${msgId.ref}" was imported before, as ${earlierBatchText(msgId)}`);
  if (endToEnd.length > 0) {
    const shown = endToEnd.slice(0, 3).map((r) => `"${r.ref}"${r.pmtInfId ? ` (PmtInf "${r.pmtInfId}")` : ''} as payout ${r.payoutId ?? '(unknown)'} of ${earlierBatchText(r)}`);
    parts.push(`${endToEnd.length === 1 ? 'EndToEndId' : `${endToEnd.length} EndToEndIds`} imported before: ${shown.join('; ')}${endToEnd.length > 3 ? '; …' : ''}`);
  }
  return new JournalError(
    'DUPLICATE_PAYMENT_RUN_REF',
    `${parts.join('; and ')}. Nothing was stored: the same run or transaction is imported once`,
    found.map((r) => r.payoutId ?? r.batchId),
  );
}
