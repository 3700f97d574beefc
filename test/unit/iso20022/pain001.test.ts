// The pain.001 reader: files another tool wrote (the npm "sepa" generator, versions 001.001.03 and 001.001.09), a
// hand-written 001.001.09 run with three payment groups (test/fixtures/iso20022/erp-run-v09.xml), every refusal of a
// whole file (nothing of it kept), and the problems that are errors on one transaction's row.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import SEPA from 'sepa';
import { describe, expect, it } from 'vitest';
import type { CsvJournalLookup, CsvOperator } from '../../../main/csv/types';
import { Pain001FileError } from '../../../main/iso20022/errors';
import { importPain001, type Pain001ImportOptions } from '../../../main/iso20022/pain001';
import { importPayoutFile, isPain001Result, looksLikeXml } from '../../../main/iso20022/payout-file';
import type { Iso20022Settings } from '../../../main/iso20022/settings';
import type { PaymentRunRefLookup } from '../../../main/iso20022/run-refs';
import type { PaymentRunRef, PaymentRunRefKind } from '../../../main/journal/types';

const FIXTURE = readFileSync(fileURLToPath(new URL('../../fixtures/iso20022/erp-run-v09.xml', import.meta.url)), 'utf8');
const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);

const SETTINGS: Iso20022Settings = {
  operatorRules: [
    { when: 'serviceLevel', is: 'SEPA', operator: 'EU_SEPA' },
    { when: 'bicCountry', is: 'CH', operator: 'CH_BANK' },
    { when: 'bicCountry', is: 'JP', operator: 'JP_ZENGIN' },
  ],
  fallbackEmail: 'ap@acme.example',
};
const OPERATORS: CsvOperator[] = [
  { code: 'EU_SEPA', paymentMethodCode: 'BANK_TRANSFER', currencyCodes: ['EUR'] },
  { code: 'CH_BANK', paymentMethodCode: 'BANK_TRANSFER', currencyCodes: ['CHF'] },
  { code: 'JP_ZENGIN', paymentMethodCode: 'BANK_TRANSFER', currencyCodes: ['JPY'] },
];
const OPTIONS: Pain001ImportOptions = { iso20022: SETTINGS, operators: OPERATORS, currencies: new Map([['EUR', 2], ['CHF', 2], ['JPY', 0]]) };
const GENERATED_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** The fixture with one piece of text replaced (which must be there exactly once). */
function edited(from: string, to: string, text = FIXTURE): string {
  expect(text.split(from)).toHaveLength(2);
  return text.replace(from, to);
}

async function refusal(text: string, options: Pain001ImportOptions = OPTIONS): Promise<Pain001FileError> {
  const error = await importPain001(bytes(text), options).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(Pain001FileError);
  return error as Pain001FileError;
}

describe('a pain.001 written by the npm "sepa" generator', () => {
  function generated(version: 'pain.001.001.03' | 'pain.001.001.09'): string {
    const doc = new SEPA.Document(version);
    doc.grpHdr.id = 'SEPAJS-RUN-7';
    doc.grpHdr.created = new Date('2026-03-02T08:00:00Z');
    doc.grpHdr.initiatorName = 'Example LLC';
    const payees = [
      { name: 'Example Customer', iban: 'DE89370400440532013000', bic: 'COBADEFFXXX', amount: 50.23, info: 'INVOICE 54', e2e: 'XMPL.CUST487.INVOICE.54' },
      { name: 'Second Supplier', iban: 'AT611904300234573201', bic: 'BKAUATWWXXX', amount: 1200.5, info: 'INVOICE 55', e2e: 'INV-55' },
      { name: 'Third Supplier', iban: 'BE68539007547034', bic: 'GEBABEBBXXX', amount: 0.07, info: 'INVOICE 56', e2e: 'INV_56' },
    ];
    for (const [g, group] of [payees.slice(0, 2), payees.slice(2)].entries()) {
      const info = doc.createPaymentInfo();
      info.requestedExecutionDate = new Date('2026-03-03T00:00:00Z');
      info.debtorIBAN = 'DE87123456781234567890';
      info.debtorBIC = 'XMPLDEM0XXX';
      info.debtorName = `Example LLC ${g}`;
      doc.addPaymentInfo(info);
      for (const p of group) {
        const tx = info.createTransaction();
        tx.creditorName = p.name;
        tx.creditorIBAN = p.iban;
        tx.creditorBIC = p.bic;
        tx.amount = p.amount;
        tx.remittanceInfo = p.info;
        tx.end2endId = p.e2e;
        info.addTransaction(tx);
      }
    }
    return doc.toString();
  }

  it.each(['pain.001.001.03', 'pain.001.001.09'] as const)('%s: every transaction becomes a row, exact to the cent, its EndToEndId kept', async (version) => {
    const xml = generated(version);
    expect(xml).toContain(`urn:iso:std:iso:20022:tech:xsd:${version}`);
    const r = await importPain001(bytes(xml), OPTIONS);
    expect(r.errors).toEqual([]);
    expect(r.iso20022).toMatchObject({ version, messageId: 'SEPAJS-RUN-7', transactions: 3, paymentGroups: 2 });
    expect(r.counts).toEqual({ rows: 3, valid: 3, invalid: 0, warnings: 0 });
    expect(r.rows.map((row) => [row.rowNumber, row.payout.amountMinor, row.payout.accountName, row.payout.accountNumber, row.payout.reference, row.payout.paymentOperatorCode])).toEqual([
      [1, 5023, 'Example Customer', 'DE89370400440532013000', 'INVOICE 54', 'EU_SEPA'],
      [2, 120050, 'Second Supplier', 'AT611904300234573201', 'INVOICE 55', 'EU_SEPA'],
      [3, 7, 'Third Supplier', 'BE68539007547034', 'INVOICE 56', 'EU_SEPA'],
    ]);
    // The generator writes no creditor e-mail: the profile's fallback address goes on the payouts.
    expect(r.rows.every((row) => row.payout.emailAddress === 'ap@acme.example')).toBe(true);
    // "XMPL.CUST487.INVOICE.54" has dots, which the gateway's ids do not allow: a new id, the EndToEndId kept.
    expect(r.rows[0]!.idGenerated).toBe(true);
    expect(r.rows[0]!.payout.idPayout).toMatch(GENERATED_ID);
    expect(r.rows[0]!.extra).toMatchObject({ EndToEndId: 'XMPL.CUST487.INVOICE.54', MsgId: 'SEPAJS-RUN-7', MsgNmId: version, PmtInfId: 'SEPAJS-RUN-7.0' });
    expect(r.rows.slice(1).map((row) => [row.payout.idPayout, row.idGenerated])).toEqual([['INV-55', false], ['INV_56', false]]);
    // Its payment group's requested execution date, as the generator wrote it (a date in both versions).
    expect(r.rows.map((row) => row.extra['ReqdExctnDt'])).toEqual(['2026-03-03', '2026-03-03', '2026-03-03']);
    expect(r.totals).toEqual([{ currencyCode: 'EUR', amountMinor: 5023 + 120050 + 7, count: 3 }]);
  });

  it('without a fallback e-mail, a creditor the file gives no address is an error on its row, naming the transaction', async () => {
    const r = await importPain001(bytes(generated('pain.001.001.09')), { ...OPTIONS, iso20022: { ...SETTINGS, fallbackEmail: null } });
    expect(r.counts).toMatchObject({ valid: 0, invalid: 3 });
    expect(r.errors[0]).toMatchObject({ rowNumber: 1, column: 'CdtTrfTxInf/Cdtr/CtctDtls/EmailAdr', code: 'REQUIRED' });
    expect(r.errors[0]!.message).toMatch(/^PmtInf "SEPAJS-RUN-7\.0", EndToEndId "XMPL\.CUST487\.INVOICE\.54": the creditor has no e-mail address/);
  });
});

describe('a hand-written pain.001.001.09 with three payment groups', () => {
  it('maps each transaction: amounts in their currency, IBAN or other account, remittance as the reference, the operator by the rules', async () => {
    const r = await importPain001(bytes(FIXTURE), { ...OPTIONS, fileName: 'run.xml' });
    expect(r.errors).toEqual([]);
    expect(r.warnings).toEqual([]);
    expect(r.fileName).toBe('run.xml');
    expect(r.iso20022).toEqual({ version: 'pain.001.001.09', messageId: 'ERP-RUN-2026-03-02', createdAt: '2026-03-02T09:15:00', transactions: 6, paymentGroups: 3 });
    const rows = r.rows.map(({ rowNumber, payout, extra }) => ({ rowNumber, ...payout, pmtInfId: extra['PmtInfId'], endToEndId: extra['EndToEndId'] }));
    expect(rows).toEqual([
      {
        rowNumber: 1, idPayout: 'INV-2026-0001', amountMinor: 125000, currencyCode: 'EUR', accountName: 'Müller & Söhne KG', accountNumber: 'DE89370400440532013000',
        paymentOperatorCode: 'EU_SEPA', paymentMethodCode: 'BANK_TRANSFER', emailAddress: 'buchhaltung@mueller-soehne.example', reference: 'Invoice 2026-0001 PO 4711',
        pmtInfId: 'PI-EUR-SEPA', endToEndId: 'INV-2026-0001',
      },
      {
        rowNumber: 2, idPayout: expect.stringMatching(GENERATED_ID), amountMinor: 8050, currencyCode: 'EUR', accountName: 'Dupont SARL', accountNumber: 'FR1420041010050500013M02606',
        paymentOperatorCode: 'EU_SEPA', paymentMethodCode: 'BANK_TRANSFER', emailAddress: 'compta@dupont.example', reference: 'RF18539007547034',
        pmtInfId: 'PI-EUR-SEPA', endToEndId: 'INV/2026/0002',
      },
      {
        // "12.500": three decimals written, the third a zero; NOTPROVIDED is no id; Strd references joined.
        rowNumber: 3, idPayout: expect.stringMatching(GENERATED_ID), amountMinor: 1250, currencyCode: 'EUR', accountName: 'Huber Transporte', accountNumber: 'AT611904300234573201',
        paymentOperatorCode: 'EU_SEPA', paymentMethodCode: 'BANK_TRANSFER', emailAddress: 'ap@acme.example', reference: 'R-77, R-78',
        pmtInfId: 'PI-EUR-SEPA', endToEndId: 'NOTPROVIDED',
      },
      {
        rowNumber: 4, idPayout: 'CH-2026-17', amountMinor: 50000, currencyCode: 'CHF', accountName: 'Berger AG', accountNumber: 'CH9300762011623852957',
        paymentOperatorCode: 'CH_BANK', paymentMethodCode: 'BANK_TRANSFER', emailAddress: 'kreditoren@berger.example', pmtInfId: 'PI-CHF', endToEndId: 'CH-2026-17',
      },
      {
        rowNumber: 5, idPayout: 'CH-2026-18', amountMinor: 9995, currencyCode: 'CHF', accountName: 'Keller GmbH', accountNumber: '12-345678-9',
        paymentOperatorCode: 'CH_BANK', paymentMethodCode: 'BANK_TRANSFER', emailAddress: 'info@keller.example', reference: 'Rechnung 18', pmtInfId: 'PI-CHF', endToEndId: 'CH-2026-18',
      },
      {
        // Its own service level (URGP) matches no rule; the creditor agent's BIC country (JP) does.
        rowNumber: 6, idPayout: 'JP_2026_5', amountMinor: 150000, currencyCode: 'JPY', accountName: 'Tanaka Seiki', accountNumber: '0012345678',
        paymentOperatorCode: 'JP_ZENGIN', paymentMethodCode: 'BANK_TRANSFER', emailAddress: 'ap@tanaka.example', reference: 'Order 5', pmtInfId: 'PI-JPY', endToEndId: 'JP_2026_5',
      },
    ]);
    expect(r.rows[0]!.extra).toEqual({ EndToEndId: 'INV-2026-0001', InstrId: 'ACME-0001', PmtInfId: 'PI-EUR-SEPA', MsgId: 'ERP-RUN-2026-03-02', MsgNmId: 'pain.001.001.09', CreDtTm: '2026-03-02T09:15:00', ReqdExctnDt: '2026-03-03' });
    expect(r.totals).toEqual([
      { currencyCode: 'CHF', amountMinor: 59995, count: 2 },
      { currencyCode: 'EUR', amountMinor: 134300, count: 3 },
      { currencyCode: 'JPY', amountMinor: 150000, count: 1 },
    ]);
  });

  it('reads the same run with namespace prefixes, from UTF-8 with a byte order mark', async () => {
    const prefixed = FIXTURE.replace('<Document xmlns=', '<p:Document xmlns:p=').replace('</Document>', '</p:Document>').replace(/<(\/?)(?!p:|acme:|\?|!)([A-Za-z]+)/g, '<$1p:$2');
    expect(prefixed).toContain('<p:CdtTrfTxInf>');
    const r = await importPain001(bytes(`\uFEFF${prefixed}`), OPTIONS);
    expect(r.errors).toEqual([]);
    expect(r.rows.map((row) => row.payout.amountMinor)).toEqual([125000, 8050, 1250, 50000, 9995, 150000]);
  });

  it("keeps each payment group's requested execution date with its transactions: <Dt>, <DtTm>, or a 001.001.03 date", async () => {
    const first = await importPain001(bytes(FIXTURE), OPTIONS);
    // Three groups: two ask for 2026-03-03, the JPY one for 2026-03-04 (schedules/file-dates.ts decides what that means).
    expect(first.rows.map((row) => [row.extra['PmtInfId'], row.extra['ReqdExctnDt']])).toEqual([
      ['PI-EUR-SEPA', '2026-03-03'], ['PI-EUR-SEPA', '2026-03-03'], ['PI-EUR-SEPA', '2026-03-03'], ['PI-CHF', '2026-03-03'], ['PI-CHF', '2026-03-03'], ['PI-JPY', '2026-03-04'],
    ]);
    const timed = await importPain001(bytes(edited('<Dt>2026-03-04</Dt>', '<DtTm>2026-12-24T09:30:00+01:00</DtTm>')), OPTIONS);
    expect(timed.rows[5]!.extra['ReqdExctnDt']).toBe('2026-12-24T09:30:00+01:00');
    // 001.001.03: the date is the element's own text.
    const v03 = FIXTURE.replace('pain.001.001.09', 'pain.001.001.03').replace(/<ReqdExctnDt>\s*<Dt>([^<]*)<\/Dt>\s*<\/ReqdExctnDt>/g, '<ReqdExctnDt>$1</ReqdExctnDt>').replace(/BICFI>/g, 'BIC>');
    const old = await importPain001(bytes(v03), OPTIONS);
    expect(old.iso20022.version).toBe('pain.001.001.03');
    expect(old.rows.map((row) => row.extra['ReqdExctnDt'])).toEqual(first.rows.map((row) => row.extra['ReqdExctnDt']));
    // The schema allows one date per group.
    expect(await refusal(edited('<Dt>2026-03-04</Dt>', '<Dt>2026-03-04</Dt><DtTm>2026-03-04T10:00:00</DtTm>'))).toMatchObject({ code: 'XML_DUPLICATE_ELEMENT', transaction: 'PmtInf "PI-JPY"' });
  });

  it('is told from a CSV by its content, not its name', async () => {
    expect(looksLikeXml(bytes(FIXTURE))).toBe(true);
    expect(looksLikeXml(bytes(`\uFEFF \r\n${FIXTURE}`))).toBe(true);
    expect(looksLikeXml(bytes('amount,currencyCode\n1,EUR\n'))).toBe(false);
    const asCsvName = await importPayoutFile(bytes(FIXTURE), { ...OPTIONS, fileName: 'run.csv' });
    expect(isPain001Result(asCsvName) && asCsvName.counts.valid).toBe(6);
    const csv = await importPayoutFile(bytes('amount,currencyCode,accountName,accountNumber,paymentOperatorCode,emailAddress\n1.00,EUR,A,DE89370400440532013000,EU_SEPA,a@example.com\n'), { fileName: 'run.xml' });
    expect(isPain001Result(csv)).toBe(false);
    expect(csv.counts.valid).toBe(1);
  });
});

describe('errors on one transaction: its row is invalid, the others are not', () => {
  it('an amount with more decimals than its currency has (the desk never rounds)', async () => {
    const text = edited('<InstdAmt Ccy="EUR">80.5</InstdAmt>', '<InstdAmt Ccy="EUR">80.505</InstdAmt>', edited('<CtrlSum>1343.00</CtrlSum>', '<CtrlSum>1343.005</CtrlSum>', edited('<CtrlSum>151942.95</CtrlSum>', '<CtrlSum>151942.955</CtrlSum>')));
    const r = await importPain001(bytes(text), OPTIONS);
    expect(r.counts).toEqual({ rows: 6, valid: 5, invalid: 1, warnings: 0 });
    expect(r.errors).toEqual([
      {
        rowNumber: 2,
        column: 'CdtTrfTxInf/Amt/InstdAmt',
        code: 'AMOUNT_PRECISION',
        message: 'PmtInf "PI-EUR-SEPA", EndToEndId "INV/2026/0002": InstdAmt "80.505" has 3 decimals, but EUR has 2; the ERP must round it (the desk never rounds an amount)',
      },
    ]);
    // Yen has no minor unit.
    const yen = edited('<InstdAmt Ccy="JPY">150000</InstdAmt>', '<InstdAmt Ccy="JPY">150000.5</InstdAmt>', edited('<CtrlSum>150000</CtrlSum>', '<CtrlSum>150000.5</CtrlSum>', edited('<CtrlSum>151942.95</CtrlSum>', '<CtrlSum>151943.45</CtrlSum>')));
    expect((await importPain001(bytes(yen), OPTIONS)).errors).toMatchObject([{ rowNumber: 6, code: 'AMOUNT_PRECISION', message: expect.stringContaining('JPY has no minor unit') }]);
  });

  it('a transaction no operator rule maps', async () => {
    const r = await importPain001(bytes(FIXTURE), { ...OPTIONS, iso20022: { ...SETTINGS, operatorRules: SETTINGS.operatorRules.slice(0, 2) } });
    expect(r.counts).toMatchObject({ valid: 5, invalid: 1 });
    expect(r.errors).toEqual([
      {
        rowNumber: 6,
        column: 'payment operator (profile rule)',
        code: 'OPERATOR_UNKNOWN',
        message: expect.stringMatching(/^PmtInf "PI-JPY", EndToEndId "JP_2026_5": no operator rule of this profile matches it \(service level URGP, creditor agent BIC MHCBJPJT; the rules: service level SEPA → EU_SEPA; BIC country CH → CH_BANK\)/),
      },
    ]);
  });

  it('the same EndToEndId twice, a creditor without a name or an account, an equivalent amount', async () => {
    let text = edited('<EndToEndId>CH-2026-18</EndToEndId>', '<EndToEndId>CH-2026-17</EndToEndId>');
    text = edited('<Nm>Dupont SARL</Nm>', '', text);
    text = edited('<Othr>\n              <Id>0012345678</Id>\n            </Othr>', '', text);
    text = edited('<InstdAmt Ccy="EUR">1250.00</InstdAmt>', '<EqvtAmt><Amt Ccy="EUR">1250.00</Amt><CcyOfTrf>USD</CcyOfTrf></EqvtAmt>', text);
    const r = await importPain001(bytes(text), OPTIONS);
    expect(r.errors.map((e) => [e.rowNumber, e.column, e.code])).toEqual([
      [1, 'CdtTrfTxInf/Amt/InstdAmt', 'AMOUNT_FORMAT'],
      [2, 'CdtTrfTxInf/Cdtr/Nm', 'REQUIRED'],
      [5, 'CdtTrfTxInf/PmtId/EndToEndId', 'ID_DUPLICATE'],
      [6, 'CdtTrfTxInf/CdtrAcct/Id', 'REQUIRED'],
    ]);
    expect(r.counts).toMatchObject({ valid: 2, invalid: 4 });
    expect(r.errors[2]!.message).toBe('PmtInf "PI-CHF", EndToEndId "CH-2026-17": EndToEndId "CH-2026-17" is also the EndToEndId of transaction 4; each transaction of a payment run needs its own');
  });

  it('against the journal: an EndToEndId already used as a payout id is refused, and the same file again is a warning', async () => {
    const journal: CsvJournalLookup = {
      existingPayoutIds: (ids) => new Set(ids.filter((id) => id === 'CH-2026-17')),
      batchFileSubmitted: () => true,
      knownBeneficiaryAccounts: () => [],
    };
    const r = await importPain001(bytes(FIXTURE), { ...OPTIONS, journal });
    expect(r.counts).toEqual({ rows: 6, valid: 5, invalid: 1, warnings: 1 });
    expect(r.errors).toEqual([{ rowNumber: 4, column: 'CdtTrfTxInf/PmtId/EndToEndId', code: 'ID_EXISTS', message: expect.stringMatching(/^PmtInf "PI-CHF", EndToEndId "CH-2026-17": its EndToEndId is already the id of a payout in the journal/) }]);
    expect(r.warnings).toEqual([{ rowNumber: 0, column: null, code: 'FILE_ALREADY_SUBMITTED', message: expect.stringContaining('MsgId "ERP-RUN-2026-03-02"') }]);
  });
});

describe('duplicates across history: a run or a transaction imported before', () => {
  const T = Date.UTC(2026, 1, 27, 14, 5);
  /** The journal's references: these MsgIds and EndToEndIds were imported before, in batch B-OLD. */
  function earlier(msgIds: string[], endToEndIds: Record<string, string>): PaymentRunRefLookup & { asked: [PaymentRunRefKind, string[]][] } {
    const asked: [PaymentRunRefKind, string[]][] = [];
    return {
      asked,
      paymentRunRefs(kind, refs) {
        asked.push([kind, [...refs]]);
        const known = kind === 'MsgId' ? refs.filter((r) => msgIds.includes(r)) : refs.filter((r) => r in endToEndIds);
        return known.map((ref): PaymentRunRef => ({
          kind, ref, batchId: 'B-OLD', fileName: 'run-02-27.xml', payoutId: kind === 'MsgId' ? null : endToEndIds[ref]!, pmtInfId: kind === 'MsgId' ? null : 'PI-OLD', recordedAt: T,
        }));
      },
    };
  }

  it('a run whose MsgId was imported before is refused as a whole, naming the earlier batch and when', async () => {
    const paymentRuns = earlier(['ERP-RUN-2026-03-02'], {});
    const e = await refusal(FIXTURE, { ...OPTIONS, paymentRuns });
    expect(e.code).toBe('RUN_ALREADY_IMPORTED');
    expect(e.path).toBe('Document/CstmrCdtTrfInitn/GrpHdr/MsgId');
    expect(e.message).toMatch(/^This payment run \(MsgId "ERP-RUN-2026-03-02"\) was imported before, as batch B-OLD \(file run-02-27\.xml\) on 2026-02-27 14:05 UTC; nothing of it was imported now\./);
    // A new MsgId: read as usual.
    expect((await importPain001(bytes(FIXTURE), { ...OPTIONS, paymentRuns: earlier(['ERP-RUN-2026-02-27'], {}) })).counts).toMatchObject({ rows: 6, valid: 6 });
  });

  it('a transaction whose EndToEndId was imported before is an error on its row, whether or not it was the payout id', async () => {
    // INV/2026/0002 did not fit the id rule, so its payout had another id: only the EndToEndId ties them.
    const paymentRuns = earlier([], { 'INV/2026/0002': '0b6a3c1e-old', 'CH-2026-17': 'CH-2026-17' });
    const journal: CsvJournalLookup = {
      existingPayoutIds: (ids) => new Set(ids.filter((id) => id === 'CH-2026-17')),
      batchFileSubmitted: () => false,
      knownBeneficiaryAccounts: () => [],
    };
    const r = await importPain001(bytes(FIXTURE), { ...OPTIONS, journal, paymentRuns });
    // Said once per row, in the words of history (not also as an existing payout id).
    expect(r.errors.map((e) => [e.rowNumber, e.column, e.code])).toEqual([
      [2, 'CdtTrfTxInf/PmtId/EndToEndId', 'END_TO_END_ID_EXISTS'],
      [4, 'CdtTrfTxInf/PmtId/EndToEndId', 'END_TO_END_ID_EXISTS'],
    ]);
    expect(r.errors[0]!.message).toBe(
      'PmtInf "PI-EUR-SEPA", EndToEndId "INV/2026/0002": its EndToEndId was imported before in PmtInf "PI-OLD", as payout 0b6a3c1e-old of batch B-OLD (file run-02-27.xml) on 2026-02-27 14:05 UTC: this transaction was sent before. If it was paid, take it out of the run; if it is a new payment, give it a new EndToEndId in the ERP',
    );
    expect(r.counts).toEqual({ rows: 6, valid: 4, invalid: 2, warnings: 0 });
    expect(r.rows.map((row) => row.rowNumber)).toEqual([1, 3, 5, 6]);
    // NOTPROVIDED (row 3) is no reference: never looked up, never an error.
    expect(paymentRuns.asked).toEqual([['MsgId', ['ERP-RUN-2026-03-02']], ['EndToEndId', ['INV-2026-0001', 'INV/2026/0002', 'CH-2026-17', 'CH-2026-18', 'JP_2026_5']]]);
  });
});

describe('refusals of the whole file: nothing of it is kept', () => {
  it('a DOCTYPE, with entities ("billion laughs") or an external one (XXE), before anything is expanded', async () => {
    const laughs = edited('<Document ', '<!DOCTYPE Document [<!ENTITY lol "lol"><!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;"><!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">]>\n<Document ');
    const e = await refusal(laughs.replace('<Nm>Berger AG</Nm>', '<Nm>&lol2;</Nm>'));
    expect(e.code).toBe('XML_DOCTYPE');
    expect(e.message).toMatch(/DOCTYPE declaration \(line 4\).*refused before anything in it is expanded/);
    const xxe = await refusal(edited('<Document ', '<!DOCTYPE Document [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>\n<Document ').replace('<Nm>Berger AG</Nm>', '<Nm>&xxe;</Nm>'));
    expect(xxe.code).toBe('XML_DOCTYPE');
    expect(xxe.message).not.toContain('root:');
  });

  it('an entity reference without a DOCTYPE is not XML at all', async () => {
    const e = await refusal(edited('<Nm>Berger AG</Nm>', '<Nm>&xxe;</Nm>'));
    expect(e.code).toBe('XML_MALFORMED');
    expect(e.message).toMatch(/^The file is not well-formed XML at line \d+, column \d+: undefined entity/);
  });

  it('an unknown namespace: another version, another message, or none', async () => {
    const v05 = await refusal(FIXTURE.replace('pain.001.001.09', 'pain.001.001.05'));
    expect(v05).toMatchObject({ code: 'XML_NAMESPACE', message: expect.stringContaining('is pain.001.001.05, a version not read here') });
    const dd = await refusal(FIXTURE.replace('pain.001.001.09', 'pain.008.001.08'));
    expect(dd.message).toContain('is pain.008.001.08, not a credit transfer initiation (pain.001)');
    const none = await refusal(FIXTURE.replace(' xmlns="urn:iso:std:iso:20022:tech:xsd:pain.001.001.09"', ''));
    expect(none.message).toContain('<Document> has no namespace');
    const statement = await refusal('<?xml version="1.0"?><Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08"><BkToCstmrStmt/></Document>');
    expect(statement.message).toContain('has the namespace "urn:iso:std:iso:20022:tech:xsd:camt.053.001.08"');
  });

  it('control sums that do not match, compared exactly as decimals', async () => {
    const header = await refusal(edited('<CtrlSum>151942.95</CtrlSum>', '<CtrlSum>151942.94</CtrlSum>'));
    expect(header).toMatchObject({ code: 'XML_CONTROL_SUM_MISMATCH', path: 'Document/CstmrCdtTrfInitn/GrpHdr/CtrlSum' });
    expect(header.message).toBe('GrpHdr/CtrlSum is 151942.94, but the amounts of its transactions add up to 151942.950: the file is incomplete or was changed after the ERP made it; nothing was imported.');
    const group = await refusal(edited('<CtrlSum>599.95</CtrlSum>', '<CtrlSum>599.96</CtrlSum>'));
    expect(group).toMatchObject({ code: 'XML_CONTROL_SUM_MISMATCH', path: 'Document/CstmrCdtTrfInitn/PmtInf/CtrlSum', transaction: 'PmtInf "PI-CHF"' });
    // The same value written otherwise is the same sum: 599.950 = 599.95.
    expect((await importPain001(bytes(edited('<CtrlSum>599.95</CtrlSum>', '<CtrlSum>599.950</CtrlSum>')), OPTIONS)).counts.valid).toBe(6);
  });

  it('transaction counts that do not match, of the message and of a payment group', async () => {
    const header = await refusal(edited('<NbOfTxs>6</NbOfTxs>', '<NbOfTxs>7</NbOfTxs>'));
    expect(header).toMatchObject({ code: 'XML_COUNT_MISMATCH', message: expect.stringMatching(/^GrpHdr\/NbOfTxs says 7 transactions, but the file holds 6/) });
    const group = await refusal(edited('<NbOfTxs>2</NbOfTxs>', '<NbOfTxs>3</NbOfTxs>'));
    expect(group.message).toMatch(/^PmtInf\/NbOfTxs of PmtInf "PI-CHF" says 3 transactions, but the payment group holds 2/);
  });

  it('a missing mandatory element, named with its transaction and path', async () => {
    const e2e = await refusal(edited('<EndToEndId>INV-2026-0001</EndToEndId>', ''));
    expect(e2e).toMatchObject({
      code: 'XML_MISSING_ELEMENT',
      path: 'Document/CstmrCdtTrfInitn/PmtInf/CdtTrfTxInf/PmtId/EndToEndId',
      transaction: 'PmtInf "PI-EUR-SEPA", transaction 1 (InstrId "ACME-0001")',
    });
    const msgId = await refusal(edited('<MsgId>ERP-RUN-2026-03-02</MsgId>', ''));
    expect(msgId).toMatchObject({ code: 'XML_MISSING_ELEMENT', path: 'Document/CstmrCdtTrfInitn/GrpHdr/MsgId' });
    const jpyDebtorAgent = '</DbtrAcct>\n      <DbtrAgt>\n        <FinInstnId>\n          <BICFI>BYLADEM1001</BICFI>\n        </FinInstnId>\n      </DbtrAgt>\n      <CdtTrfTxInf>\n        <PmtId>\n          <EndToEndId>JP_2026_5';
    const debtorAgent = await refusal(edited(jpyDebtorAgent, jpyDebtorAgent.replace(/<DbtrAgt>[\s\S]*<\/DbtrAgt>\n {6}/, '')));
    expect(debtorAgent).toMatchObject({ code: 'XML_MISSING_ELEMENT', path: 'Document/CstmrCdtTrfInitn/PmtInf/DbtrAgt', message: expect.stringContaining('PmtInf "PI-JPY": the mandatory element DbtrAgt is missing') });
  });

  it('malformed XML, an element twice, an encoding other than UTF-8, an amount that is not a number', async () => {
    expect((await refusal(FIXTURE.slice(0, FIXTURE.length / 2))).code).toBe('XML_MALFORMED');
    expect((await refusal(edited('<Nm>Berger AG</Nm>', '<Nm>Berger AG</Name>'))).code).toBe('XML_MALFORMED');
    expect(await refusal(edited('<EndToEndId>CH-2026-17</EndToEndId>', '<EndToEndId>CH-2026-17</EndToEndId><EndToEndId>again</EndToEndId>'))).toMatchObject({ code: 'XML_DUPLICATE_ELEMENT' });
    expect(await refusal(FIXTURE.replace('encoding="UTF-8"', 'encoding="ISO-8859-1"'))).toMatchObject({ code: 'XML_ENCODING', message: expect.stringContaining('"ISO-8859-1"') });
    expect(await refusal(edited('<InstdAmt Ccy="CHF">99.95</InstdAmt>', '<InstdAmt Ccy="CHF">99,95</InstdAmt>'))).toMatchObject({ code: 'XML_INVALID_VALUE', transaction: 'PmtInf "PI-CHF", transaction 5 (EndToEndId "CH-2026-18")' });
    expect((await refusal('  \n')).code).toBe('EMPTY_FILE');
  });
});
