// A batch that came from a pain.001 reported back as an ISO 20022 pain.002.001.10 customer payment status report,
// which the ERP imports to close its invoices: the original message (MsgId, name, creation time), each payment
// group (PmtInfId) and each transaction by its EndToEndId with its status: ACSC paid; ACCP at the gateway, not paid
// yet; PDNG not at the gateway yet (queued, sending, held, outcome unknown); RJCT not paid, with the gateway's
// reason (failed, returned, refused, cancelled). Built with xmlbuilder2, loaded when a report is made.
import type { XMLBuilder } from 'xmlbuilder2/lib/interfaces';
import { NOT_PAID_STATUSES, isSuccessStatus } from '../domain/status';
import { formatMinor } from '../domain/money';
import { TimeSlicer, yieldToEventLoop } from '../csv/time-slice';
import type { PaymentRecord } from '../journal';
import { pain001OriginOf, type Pain001Origin } from './origin';

export const PAIN002_NAMESPACE = 'urn:iso:std:iso:20022:tech:xsd:pain.002.001.10';

export const TRANSACTION_STATUSES = ['ACSC', 'ACCP', 'PDNG', 'RJCT'] as const;
export type TransactionStatus = (typeof TRANSACTION_STATUSES)[number];
/** A group's or the message's status: the transactions' own when they agree; PART when some were rejected. */
export type GroupStatus = TransactionStatus | 'PART';

/** A payout's status in pain.002 words. */
export function transactionStatus(p: Pick<PaymentRecord, 'state' | 'gatewayStatus'>): TransactionStatus {
  switch (p.state) {
    case 'REJECTED':
    case 'CANCELLED':
    case 'DISCARDED':
      return 'RJCT';
    case 'ACCEPTED': {
      const status = (p.gatewayStatus ?? '').toUpperCase();
      if (isSuccessStatus(status)) return 'ACSC';
      return (NOT_PAID_STATUSES as readonly string[]).includes(status) ? 'RJCT' : 'ACCP';
    }
    default:
      // QUEUED, SENDING, UNKNOWN, HELD, MISSING, MISMATCH: not known to be at the gateway, or waiting for a person.
      return 'PDNG';
  }
}

export function groupStatus(statuses: readonly TransactionStatus[]): GroupStatus {
  const set = new Set(statuses);
  if (set.size === 1) return statuses[0]!;
  if (set.has('RJCT')) return 'PART';
  return set.has('PDNG') ? 'PDNG' : 'ACCP';
}

/** ExternalStatusReason1Code for what the gateway or the desk said; NARR (see AddtlInf) when no code fits. */
function reasonCode(p: Pick<PaymentRecord, 'state' | 'failureReason'>): string {
  if (p.state === 'CANCELLED' || p.state === 'DISCARDED') return 'DS02';
  const reason = (p.failureReason ?? '').toUpperCase();
  if (reason.includes('CLOSED')) return 'AC04';
  if (reason.includes('BLOCKED')) return 'AC06';
  if (reason.includes('INSUFFICIENT')) return 'AM04';
  return 'NARR';
}

function reasonText(p: Pick<PaymentRecord, 'state' | 'gatewayStatus' | 'failureReason' | 'lastError'>, status: TransactionStatus): string | null {
  if (status === 'RJCT') {
    const why = p.failureReason ?? (p.state === 'REJECTED' ? p.lastError : null);
    const what = p.state === 'CANCELLED' ? 'cancelled before it was sent' : p.state === 'DISCARDED' ? 'held, then discarded: never sent' : p.state === 'REJECTED' ? 'refused by the gateway' : (p.gatewayStatus ?? 'failed').toLowerCase();
    return why ? `${what}: ${why}` : what;
  }
  if (status === 'PDNG' && p.state !== 'QUEUED' && p.state !== 'SENDING') return `${p.state.toLowerCase()}${p.lastError ? `: ${p.lastError}` : ''}`;
  return null;
}

/** AddtlInf is Max105Text: a longer reason goes in pieces (at most three). */
function pieces(text: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length && out.length < 3; i += 105) out.push(text.slice(i, i + 105));
  return out;
}

export interface StatusReportInput {
  /** The report's own MsgId (Max35Text). */
  messageId: string;
  createdAt: string;
  /** Who reports: the profile's name. */
  initiatingParty: string;
  /** The batch's payouts, in row order. */
  payments: readonly PaymentRecord[];
  decimalsOf: (currencyCode: string) => number;
}

function countsPerStatus(parent: XMLBuilder, statuses: readonly TransactionStatus[]): void {
  for (const status of TRANSACTION_STATUSES) {
    const n = statuses.filter((s) => s === status).length;
    if (n === 0) continue;
    const per = parent.ele('NbOfTxsPerSts');
    per.ele('DtldNbOfTxs').txt(String(n));
    per.ele('DtldSts').txt(status);
  }
}

function transaction(parent: XMLBuilder, p: PaymentRecord, origin: Pain001Origin, status: TransactionStatus, decimals: number): void {
  const tx = parent.ele('TxInfAndSts');
  if (origin.instrId) tx.ele('OrgnlInstrId').txt(origin.instrId);
  tx.ele('OrgnlEndToEndId').txt(origin.endToEndId);
  tx.ele('TxSts').txt(status);
  const why = reasonText(p, status);
  if (why) {
    const reason = tx.ele('StsRsnInf');
    reason.ele('Rsn').ele('Cd').txt(status === 'RJCT' ? reasonCode(p) : 'NARR');
    for (const piece of pieces(why)) reason.ele('AddtlInf').txt(piece);
  }
  if ((status === 'ACSC' || status === 'ACCP') && p.acceptedAt !== null) tx.ele('AccptncDtTm').txt(new Date(p.acceptedAt).toISOString());
  tx.ele('OrgnlTxRef').ele('Amt').ele('InstdAmt', { Ccy: p.currencyCode }).txt(formatMinor(p.amountMinor, decimals));
}

/** Where a payment group's transactions go in the report's frame (an XML comment, replaced before it is returned). */
const SLOT = 'pain002-transactions-';

/**
 * The report's XML. Payouts that did not come from a pain.001 are left out; the message named is the first
 * payout's (one batch holds one file, and a retry batch the rows of one). xmlbuilder2 takes some 70 µs a
 * transaction, so the transactions are built as fragments a time slice at a time (`yieldNow` between), written
 * into the frame of the report: a 100,000-row batch takes seconds, and the main process keeps answering meanwhile.
 */
export async function pain002StatusReport(input: StatusReportInput, yieldNow: () => Promise<void> = yieldToEventLoop): Promise<string> {
  // One pass over the rows, in time slices like the writing below: 100,000 of them take a while.
  const ofMessage: { p: PaymentRecord; origin: Pain001Origin }[] = [];
  const statuses: TransactionStatus[] = [];
  // Payment groups in the order of their first transaction.
  const groups = new Map<string, number[]>();
  const slicer = new TimeSlicer(yieldNow);
  let first: Pain001Origin | null = null;
  for (const p of input.payments) {
    const origin = pain001OriginOf(p);
    first ??= origin;
    if (origin && origin.msgId === first!.msgId) {
      const list = groups.get(origin.pmtInfId) ?? [];
      list.push(ofMessage.length);
      groups.set(origin.pmtInfId, list);
      ofMessage.push({ p, origin });
      statuses.push(transactionStatus(p));
    }
    if (slicer.due()) await slicer.pause();
  }
  if (!first) throw new TypeError('pain002StatusReport: none of these payouts came from a pain.001');

  const { create, fragment } = await import('xmlbuilder2');
  const doc = create({ version: '1.0', encoding: 'UTF-8' }).ele(PAIN002_NAMESPACE, 'Document');
  const report = doc.ele('CstmrPmtStsRpt');
  const header = report.ele('GrpHdr');
  header.ele('MsgId').txt(input.messageId);
  header.ele('CreDtTm').txt(input.createdAt);
  header.ele('InitgPty').ele('Nm').txt(input.initiatingParty.slice(0, 140));
  const original = report.ele('OrgnlGrpInfAndSts');
  original.ele('OrgnlMsgId').txt(first.msgId);
  original.ele('OrgnlMsgNmId').txt(first.msgNmId);
  if (first.creDtTm) original.ele('OrgnlCreDtTm').txt(first.creDtTm);
  original.ele('GrpSts').txt(groupStatus(statuses));
  countsPerStatus(original, statuses);
  let slot = 0;
  for (const [pmtInfId, indexes] of groups) {
    const group = report.ele('OrgnlPmtInfAndSts');
    group.ele('OrgnlPmtInfId').txt(pmtInfId);
    group.ele('PmtInfSts').txt(groupStatus(indexes.map((i) => statuses[i]!)));
    group.com(`${SLOT}${slot++}`);
  }
  let frame = doc.end({ prettyPrint: true });

  const out: string[] = [];
  // A transaction takes some 70 µs to build: the clock is read every 16 of them.
  const writing = new TimeSlicer(yieldNow, 16);
  slot = 0;
  for (const indexes of groups.values()) {
    const marker = `<!--${SLOT}${slot++}-->`;
    const at = frame.indexOf(marker);
    const lineStart = frame.lastIndexOf('\n', at) + 1;
    const indent = at - lineStart;
    out.push(frame.slice(0, lineStart));
    frame = frame.slice(at + marker.length + (frame[at + marker.length] === '\n' ? 1 : 0));
    // TxInfAndSts sits one level below OrgnlPmtInfAndSts: at the comment's indentation (two spaces a level).
    let part = fragment();
    let inPart = 0;
    const flush = (): void => {
      if (inPart > 0) out.push(`${part.end({ prettyPrint: true, offset: indent / 2 })}\n`);
      part = fragment();
      inPart = 0;
    };
    for (const i of indexes) {
      const { p, origin } = ofMessage[i]!;
      transaction(part, p, origin, statuses[i]!, input.decimalsOf(p.currencyCode));
      inPart++;
      if (writing.due()) {
        flush();
        await writing.pause();
      }
    }
    flush();
  }
  out.push(frame);
  return out.join('');
}
