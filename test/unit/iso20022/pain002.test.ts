// The pain.002 status report of a batch from a pain.001, parsed back: the original message, each payment group and
// each EndToEndId with the status the ERP reads (ACSC paid, ACCP at the gateway, PDNG not there yet, RJCT with the
// gateway's reason), and the amounts as the pain.001 gave them. Also a large report, built in time slices.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { SaxesParser } from 'saxes';
import { describe, expect, it } from 'vitest';
import { importPain001 } from '../../../main/iso20022/pain001';
import { PAIN002_NAMESPACE, groupStatus, pain002StatusReport, transactionStatus } from '../../../main/iso20022/pain002';
import { pain001OriginOf } from '../../../main/iso20022/origin';
import type { PaymentRecord } from '../../../main/journal';

const FIXTURE = readFileSync(fileURLToPath(new URL('../../fixtures/iso20022/erp-run-v09.xml', import.meta.url)));
const SETTINGS = {
  operatorRules: [
    { when: 'serviceLevel' as const, is: 'SEPA', operator: 'EU_SEPA' },
    { when: 'bicCountry' as const, is: 'CH', operator: 'CH_BANK' },
    { when: 'bicCountry' as const, is: 'JP', operator: 'JP_ZENGIN' },
  ],
  fallbackEmail: 'ap@acme.example',
};

interface ParsedReport {
  namespace: string;
  texts: Map<string, string[]>;
  transactions: { group: string; endToEndId: string; instrId: string | null; status: string; reason: string | null; info: string; amount: string; currency: string }[];
  groups: { id: string; status: string }[];
}

/** Reads the report back with a namespace-aware parser: every text by its element path, and each transaction. */
function parse(xml: string): ParsedReport {
  const parser = new SaxesParser({ xmlns: true });
  const names: string[] = [];
  const texts = new Map<string, string[]>();
  const transactions: ParsedReport['transactions'] = [];
  const groups: ParsedReport['groups'] = [];
  let namespace = '';
  let text = '';
  let currency = '';
  parser.on('opentag', (node) => {
    if (names.length === 0) namespace = node.uri;
    expect(node.uri).toBe(PAIN002_NAMESPACE);
    names.push(node.local);
    text = '';
    if (node.local === 'TxInfAndSts') transactions.push({ group: groups.at(-1)?.id ?? '', endToEndId: '', instrId: null, status: '', reason: null, info: '', amount: '', currency: '' });
    if (node.local === 'InstdAmt') currency = node.attributes['Ccy']?.value ?? '';
  });
  parser.on('text', (t) => (text += t));
  parser.on('closetag', () => {
    const path = names.join('/');
    const value = text.trim();
    texts.set(path, [...(texts.get(path) ?? []), value]);
    const tx = transactions.at(-1);
    const local = names.at(-1);
    if (local === 'OrgnlPmtInfId') groups.push({ id: value, status: '' });
    if (local === 'PmtInfSts') groups.at(-1)!.status = value;
    if (tx && path.includes('TxInfAndSts')) {
      if (local === 'OrgnlEndToEndId') tx.endToEndId = value;
      if (local === 'OrgnlInstrId') tx.instrId = value;
      if (local === 'TxSts') tx.status = value;
      if (local === 'Cd' && path.endsWith('StsRsnInf/Rsn/Cd')) tx.reason = value;
      if (local === 'AddtlInf') tx.info += value;
      if (local === 'InstdAmt') [tx.amount, tx.currency] = [value, currency];
    }
    names.pop();
    text = '';
  });
  parser.write(xml).close();
  return { namespace, texts, transactions, groups };
}

/** The fixture's rows as the journal would hold them, each in the state given. */
async function payments(states: readonly Partial<PaymentRecord>[]): Promise<PaymentRecord[]> {
  const r = await importPain001(FIXTURE, { iso20022: SETTINGS, currencies: new Map([['EUR', 2], ['CHF', 2], ['JPY', 0]]) });
  return r.rows.map((row, i) => ({
    ...row.payout, id: row.payout.idPayout, rowNumber: row.rowNumber, details: { extra: row.extra }, acceptedAt: Date.parse('2026-03-03T08:00:00Z'),
    state: 'ACCEPTED', gatewayStatus: 'SUCCESS', failureReason: null, lastError: null, ...states[i],
  }) as PaymentRecord);
}

describe('the pain.002 status report of a batch from a pain.001', () => {
  it('names the original message, its groups and each EndToEndId with its status and the reason of a rejection', async () => {
    const rows = await payments([
      {},
      { gatewayStatus: 'FAILED', failureReason: 'ACCOUNT_REJECTED' },
      { state: 'QUEUED', gatewayStatus: null, acceptedAt: null },
      { gatewayStatus: 'PROCESSING' },
      { gatewayStatus: 'RETURNED', failureReason: 'ACCOUNT_CLOSED' },
      { state: 'HELD', gatewayStatus: null, acceptedAt: null, lastError: 'the gateway refused the credentials (HTTP 401)' },
    ]);
    const xml = await pain002StatusReport({ messageId: 'STS-1', createdAt: '2026-03-03T10:00:00.000Z', initiatingParty: 'Acme & Co', payments: rows, decimalsOf: (c) => (c === 'JPY' ? 0 : 2) });
    const report = parse(xml);
    expect(report.namespace).toBe('urn:iso:std:iso:20022:tech:xsd:pain.002.001.10');
    const at = (path: string) => report.texts.get(`Document/CstmrPmtStsRpt/${path}`);
    expect(at('GrpHdr/MsgId')).toEqual(['STS-1']);
    expect(at('GrpHdr/InitgPty/Nm')).toEqual(['Acme & Co']);
    expect(at('OrgnlGrpInfAndSts/OrgnlMsgId')).toEqual(['ERP-RUN-2026-03-02']);
    expect(at('OrgnlGrpInfAndSts/OrgnlMsgNmId')).toEqual(['pain.001.001.09']);
    expect(at('OrgnlGrpInfAndSts/OrgnlCreDtTm')).toEqual(['2026-03-02T09:15:00']);
    expect(at('OrgnlGrpInfAndSts/GrpSts')).toEqual(['PART']);
    expect(at('OrgnlGrpInfAndSts/NbOfTxsPerSts/DtldSts')).toEqual(['ACSC', 'ACCP', 'PDNG', 'RJCT']);
    expect(at('OrgnlGrpInfAndSts/NbOfTxsPerSts/DtldNbOfTxs')).toEqual(['1', '1', '2', '2']);
    expect(report.groups).toEqual([
      { id: 'PI-EUR-SEPA', status: 'PART' },
      { id: 'PI-CHF', status: 'PART' },
      { id: 'PI-JPY', status: 'PDNG' },
    ]);
    expect(report.transactions.map(({ info: _info, ...t }) => t)).toEqual([
      { group: 'PI-EUR-SEPA', endToEndId: 'INV-2026-0001', instrId: 'ACME-0001', status: 'ACSC', reason: null, amount: '1250.00', currency: 'EUR' },
      { group: 'PI-EUR-SEPA', endToEndId: 'INV/2026/0002', instrId: null, status: 'RJCT', reason: 'NARR', amount: '80.50', currency: 'EUR' },
      { group: 'PI-EUR-SEPA', endToEndId: 'NOTPROVIDED', instrId: null, status: 'PDNG', reason: null, amount: '12.50', currency: 'EUR' },
      { group: 'PI-CHF', endToEndId: 'CH-2026-17', instrId: null, status: 'ACCP', reason: null, amount: '500.00', currency: 'CHF' },
      { group: 'PI-CHF', endToEndId: 'CH-2026-18', instrId: null, status: 'RJCT', reason: 'AC04', amount: '99.95', currency: 'CHF' },
      { group: 'PI-JPY', endToEndId: 'JP_2026_5', instrId: null, status: 'PDNG', reason: 'NARR', amount: '150000', currency: 'JPY' },
    ]);
    expect(report.transactions.map((t) => t.info)).toEqual(['', 'failed: ACCOUNT_REJECTED', '', '', 'returned: ACCOUNT_CLOSED', 'held: the gateway refused the credentials (HTTP 401)']);
    expect(at('OrgnlPmtInfAndSts/TxInfAndSts/AccptncDtTm')).toEqual(['2026-03-03T08:00:00.000Z', '2026-03-03T08:00:00.000Z']);
  });

  it('a run paid in full is ACSC throughout; one refused in full is RJCT', async () => {
    const paid = parse(await pain002StatusReport({ messageId: 'S', createdAt: '2026-03-03T10:00:00Z', initiatingParty: 'A', payments: await payments([]), decimalsOf: () => 2 }));
    expect(paid.texts.get('Document/CstmrPmtStsRpt/OrgnlGrpInfAndSts/GrpSts')).toEqual(['ACSC']);
    expect(new Set(paid.transactions.map((t) => t.status))).toEqual(new Set(['ACSC']));
    const cancelled = await payments(Array(6).fill({ state: 'CANCELLED', gatewayStatus: null }));
    const refused = parse(await pain002StatusReport({ messageId: 'S', createdAt: '2026-03-03T10:00:00Z', initiatingParty: 'A', payments: cancelled, decimalsOf: () => 2 }));
    expect(refused.texts.get('Document/CstmrPmtStsRpt/OrgnlGrpInfAndSts/GrpSts')).toEqual(['RJCT']);
    expect(refused.transactions.every((t) => t.status === 'RJCT' && t.reason === 'DS02' && t.info === 'cancelled before it was sent')).toBe(true);
  });

  it('stays one well-formed document when the transactions are written in several time slices', async () => {
    const one = (await payments([]))[0]!;
    const many = Array.from({ length: 3000 }, (_, i) => ({ ...one, id: `p-${i}`, amountMinor: i + 1, details: { extra: { ...(one.details!['extra'] as Record<string, string>), EndToEndId: `E-${i}`, PmtInfId: `G-${Math.floor(i / 1000)}` } } }));
    let turns = 0;
    const xml = await pain002StatusReport({ messageId: 'S', createdAt: '2026-03-03T10:00:00Z', initiatingParty: 'A', payments: many, decimalsOf: () => 2 }, async () => {
      turns++;
      await new Promise((r) => setImmediate(r));
    });
    expect(turns).toBeGreaterThan(0);
    const report = parse(xml);
    expect(report.groups.map((g) => g.id)).toEqual(['G-0', 'G-1', 'G-2']);
    expect(report.transactions.map((t) => t.endToEndId)).toEqual(many.map((_, i) => `E-${i}`));
    expect(report.transactions.map((t) => t.amount).slice(0, 3)).toEqual(['0.01', '0.02', '0.03']);
    expect(report.transactions.every((t, i) => t.group === `G-${Math.floor(i / 1000)}`)).toBe(true);
  });

  it('knows which payouts came from a pain.001, and says each status in pain.002 words', () => {
    expect(pain001OriginOf({ details: { extra: { EndToEndId: 'E', MsgId: 'M', MsgNmId: 'pain.001.001.03', PmtInfId: 'P' } } })).toEqual({ endToEndId: 'E', instrId: null, pmtInfId: 'P', msgId: 'M', msgNmId: 'pain.001.001.03', creDtTm: null });
    // A CSV with an "EndToEndId" column is no pain.001.
    expect(pain001OriginOf({ details: { extra: { EndToEndId: 'E' } } })).toBeNull();
    expect(pain001OriginOf({ details: null })).toBeNull();
    const cases: [Pick<PaymentRecord, 'state' | 'gatewayStatus'>, string][] = [
      [{ state: 'ACCEPTED', gatewayStatus: 'SUCCESS' }, 'ACSC'],
      [{ state: 'ACCEPTED', gatewayStatus: 'PENDING' }, 'ACCP'],
      [{ state: 'ACCEPTED', gatewayStatus: 'SOMETHING_NEW' }, 'ACCP'],
      [{ state: 'ACCEPTED', gatewayStatus: 'EXPIRED' }, 'RJCT'],
      [{ state: 'REJECTED', gatewayStatus: null }, 'RJCT'],
      [{ state: 'DISCARDED', gatewayStatus: null }, 'RJCT'],
      [{ state: 'SENDING', gatewayStatus: null }, 'PDNG'],
      [{ state: 'UNKNOWN', gatewayStatus: null }, 'PDNG'],
      [{ state: 'MISSING', gatewayStatus: 'PENDING' }, 'PDNG'],
    ];
    expect(cases.map(([p]) => transactionStatus(p))).toEqual(cases.map(([, s]) => s));
    expect([groupStatus(['ACSC', 'ACCP']), groupStatus(['ACSC', 'PDNG']), groupStatus(['PDNG', 'RJCT'])]).toEqual(['ACCP', 'PDNG', 'PART']);
  });
});
