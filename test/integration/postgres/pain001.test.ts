// An ERP payment run through the desk's IPC handlers against the sandbox, on a single desk's SQLite journal and on
// a team database: a pain.001 is validated (its message named, its EndToEndIds as payout ids where the gateway
// allows), submitted and paid, one transaction failing; its pain.002 status report says ACSC and RJCT with the
// gateway's reason per EndToEndId; the results CSV carries the EndToEndIds; the same run again is refused (its MsgId),
// a transaction of an earlier run is an error on its row (its EndToEndId), a run validated twice is stored once; and a
// CSV batch has no pain.002 to give.
import { SaxesParser } from 'saxes';
import { afterEach, beforeEach, describe, expect, inject, it } from 'vitest';
import type { BatchResultRow, BatchValidation, BatchView, FileContent } from '../../../contract/api';
import { startSandbox, type SandboxHandle } from '../../../sandbox/index';
import { sandboxConfig } from '../engine/setup';
import { freshDatabase } from './cluster';
import { eventually, openTeamAppDesk, teamCsv, type TeamAppDesk } from './team-app-desk';

let sandbox: SandboxHandle;
let desk: TeamAppDesk | undefined;

beforeEach(async () => {
  sandbox = await startSandbox(sandboxConfig());
});
afterEach(async () => {
  await desk?.close();
  desk = undefined;
  await sandbox.close();
});

interface Tx { group: string; endToEndId: string; amount: string; iban: string; name: string }

/** A pain.001.001.09 as an ERP writes it: the payment groups in order, control sums exact. */
function pain001(msgId: string, txs: readonly Tx[]): string {
  const sum = (list: readonly Tx[]) => (list.reduce((t, x) => t + Math.round(Number(x.amount) * 100), 0) / 100).toFixed(2);
  const groups = [...new Set(txs.map((t) => t.group))];
  const body = groups.map((g) => {
    const own = txs.filter((t) => t.group === g);
    const tx = own.map((t) => `
      <CdtTrfTxInf>
        <PmtId><EndToEndId>${t.endToEndId}</EndToEndId></PmtId>
        <Amt><InstdAmt Ccy="EUR">${t.amount}</InstdAmt></Amt>
        <Cdtr><Nm>${t.name}</Nm><CtctDtls><EmailAdr>ap@${t.name.toLowerCase().replace(/\W+/g, '')}.example</EmailAdr></CtctDtls></Cdtr>
        <CdtrAcct><Id><IBAN>${t.iban}</IBAN></Id></CdtrAcct>
        <RmtInf><Ustrd>Invoice ${t.endToEndId}</Ustrd></RmtInf>
      </CdtTrfTxInf>`).join('');
    return `
    <PmtInf>
      <PmtInfId>${g}</PmtInfId><PmtMtd>TRF</PmtMtd><NbOfTxs>${own.length}</NbOfTxs><CtrlSum>${sum(own)}</CtrlSum>
      <PmtTpInf><SvcLvl><Cd>SEPA</Cd></SvcLvl></PmtTpInf>
      <ReqdExctnDt><Dt>2026-03-03</Dt></ReqdExctnDt>
      <Dbtr><Nm>Acme GmbH</Nm></Dbtr><DbtrAcct><Id><IBAN>DE02120300000000202051</IBAN></Id></DbtrAcct>
      <DbtrAgt><FinInstnId><BICFI>BYLADEM1001</BICFI></FinInstnId></DbtrAgt>${tx}
    </PmtInf>`;
  });
  return `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.001.001.09">
  <CstmrCdtTrfInitn>
    <GrpHdr><MsgId>${msgId}</MsgId><CreDtTm>2026-03-02T09:00:00</CreDtTm><NbOfTxs>${txs.length}</NbOfTxs><CtrlSum>${sum(txs)}</CtrlSum><InitgPty><Nm>Acme GmbH</Nm></InitgPty></GrpHdr>${body.join('')}
  </CstmrCdtTrfInitn>
</Document>
`;
}

/** Each transaction of a pain.002: its EndToEndId, status and additional information; and the original MsgId. */
function statusReport(xml: string): { orgnlMsgId: string; groupStatus: string; transactions: Record<string, { status: string; info: string }> } {
  const parser = new SaxesParser({ xmlns: true });
  const names: string[] = [];
  let text = '';
  let current = '';
  const out = { orgnlMsgId: '', groupStatus: '', transactions: {} as Record<string, { status: string; info: string }> };
  parser.on('opentag', (n) => {
    expect(n.uri).toBe('urn:iso:std:iso:20022:tech:xsd:pain.002.001.10');
    names.push(n.local);
    text = '';
  });
  parser.on('text', (t) => (text += t));
  parser.on('closetag', () => {
    const local = names.pop();
    const value = text.trim();
    if (local === 'OrgnlMsgId') out.orgnlMsgId = value;
    if (local === 'GrpSts') out.groupStatus = value;
    if (local === 'OrgnlEndToEndId') {
      current = value;
      out.transactions[current] = { status: '', info: '' };
    }
    if (local === 'TxSts') out.transactions[current]!.status = value;
    if (local === 'AddtlInf') out.transactions[current]!.info += value;
    text = '';
  });
  parser.write(xml).close();
  return out;
}

const FAILS = 'DE94370400440532010000'; // ends in 0000: the sandbox fails it (ACCOUNT_REJECTED)
const RUN: Tx[] = [
  { group: 'PI-SUPPLIERS', endToEndId: 'E2E-PAID-1', amount: '100.00', iban: 'DE89370400440532013000', name: 'Supplier One' },
  { group: 'PI-SUPPLIERS', endToEndId: 'E2E/FAIL/2', amount: '25.50', iban: FAILS, name: 'Supplier Two' },
  { group: 'PI-FREIGHT', endToEndId: 'E2E-PAID-3', amount: '7.05', iban: 'AT611904300234573201', name: 'Freight Three' },
];

describe.each(['sqlite', 'postgres'] as const)('a pain.001 payment run on %s', (backEnd) => {
  it('is validated, paid and reported back as a pain.002 with each transaction status', async () => {
    desk = await openTeamAppDesk({ name: `pain001-${backEnd}`, teamUrl: backEnd === 'postgres' ? await freshDatabase(inject('postgresUrl')) : null, gatewayUrl: sandbox.url, senderOf: sandbox });
    const d = desk;
    const file = { kind: 'base64', fileName: 'run-2026-03.xml', base64: Buffer.from(pain001('ACME-RUN-42', RUN)).toString('base64') };

    const checked = await d.call<BatchValidation>('batches:validateFile', { source: file });
    expect(checked.iso20022).toEqual({ version: 'pain.001.001.09', messageId: 'ACME-RUN-42', createdAt: '2026-03-02T09:00:00', transactions: 3, paymentGroups: 2 });
    expect(checked.errors).toEqual([]);
    expect(checked.counts).toEqual({ rows: 3, valid: 3, invalid: 0, warnings: 0 });
    // EndToEndIds the gateway's id rule allows are the payout ids; "E2E/FAIL/2" has slashes, so a new id.
    const [first, second, third] = checked.rows;
    expect([first!.idPayout, third!.idPayout]).toEqual(['E2E-PAID-1', 'E2E-PAID-3']);
    expect(second!.idPayout).toMatch(/^[0-9a-f-]{36}$/);
    expect(checked.rows.map((r) => [r.money.amount, r.paymentOperatorCode, r.reference])).toEqual([
      ['100.00', 'EU_SEPA', 'Invoice E2E-PAID-1'],
      ['25.50', 'EU_SEPA', 'Invoice E2E/FAIL/2'],
      ['7.05', 'EU_SEPA', 'Invoice E2E-PAID-3'],
    ]);

    const batch = await d.call<BatchView>('batches:submit', { validationId: checked.validationId, confirmedWarningRows: [] });
    await eventually(async () => (await d.call<BatchView>('batches:get', { batchId: batch.id })).progress.pending === 0, 'every payout of the run final', 60_000);
    const results = await d.call<BatchResultRow[]>('batches:results', { batchId: batch.id });
    expect(results.map((r) => [r.endToEndId, r.status])).toEqual([['E2E-PAID-1', 'SUCCESS'], ['E2E/FAIL/2', 'FAILED'], ['E2E-PAID-3', 'SUCCESS']]);

    const report = await d.call<FileContent>('batches:exportResults', { batchId: batch.id, format: 'pain.002' });
    expect(report).toMatchObject({ fileName: 'run-2026-03-pain002.xml', mimeType: 'application/xml' });
    const parsed = statusReport(report.content);
    expect(parsed.orgnlMsgId).toBe('ACME-RUN-42');
    expect(parsed.groupStatus).toBe('PART');
    expect(parsed.transactions).toEqual({
      'E2E-PAID-1': { status: 'ACSC', info: '' },
      'E2E/FAIL/2': { status: 'RJCT', info: 'failed: ACCOUNT_REJECTED' },
      'E2E-PAID-3': { status: 'ACSC', info: '' },
    });
    // The results CSV still works, and carries each row's EndToEndId and message for the ERP.
    const csv = await d.call<FileContent>('batches:exportResults', { batchId: batch.id });
    expect(csv.mimeType).toBe('text/csv');
    const header = csv.content.replace(/^\uFEFF/, '').split(/\r?\n/)[0]!.split(',');
    expect(header).toEqual(expect.arrayContaining(['EndToEndId', 'PmtInfId', 'MsgId']));
    expect(csv.content).toContain('E2E/FAIL/2');

    // The same run again: its MsgId was imported, so the file is refused as a whole, naming the batch and when.
    const again = await d.fails('batches:validateFile', { source: file });
    expect(again.code).toBe('RUN_ALREADY_IMPORTED');
    expect(again.message).toMatch(new RegExp(`^This payment run \\(MsgId "ACME-RUN-42"\\) was imported before, as batch ${batch.id} \\(file run-2026-03\\.xml\\) on \\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2} UTC`));
    // A new run repeating a transaction, here one whose EndToEndId was not its payout's id: an error on its row.
    const rerun = (msgId: string, txs: readonly Tx[]) => ({ kind: 'base64', fileName: `${msgId}.xml`, base64: Buffer.from(pain001(msgId, txs)).toString('base64') });
    const next = await d.call<BatchValidation>('batches:validateFile', { source: rerun('ACME-RUN-43', [RUN[1]!, { ...RUN[0]!, endToEndId: 'E2E-NEW-4' }]) });
    expect(next.errors.map((e) => [e.rowNumber, e.column, e.code])).toEqual([[1, 'CdtTrfTxInf/PmtId/EndToEndId', 'END_TO_END_ID_EXISTS']]);
    expect(next.errors[0]!.message).toContain(`PmtInf "PI-SUPPLIERS", EndToEndId "E2E/FAIL/2": its EndToEndId was imported before in PmtInf "PI-SUPPLIERS", as payout ${second!.idPayout} of batch ${batch.id}`);

    // Validated twice before either is submitted (two desks, or one person twice): the journal refuses the second,
    // though each validation gave the transaction its own payout id ("E2E/NEW/5" does not fit the id rule).
    const fresh = rerun('ACME-RUN-44', [{ ...RUN[0]!, endToEndId: 'E2E/NEW/5' }]);
    const one = await d.call<BatchValidation>('batches:validateFile', { source: fresh });
    const two = await d.call<BatchValidation>('batches:validateFile', { source: fresh });
    await d.call<BatchView>('batches:submit', { validationId: one.validationId, confirmedWarningRows: one.warnings.map((w) => w.rowNumber) });
    const late = await d.fails('batches:submit', { validationId: two.validationId, confirmedWarningRows: two.warnings.map((w) => w.rowNumber) });
    expect(late.code).toBe('DUPLICATE_PAYMENT_RUN_REF');
    expect(one.rows[0]!.idPayout).not.toBe(two.rows[0]!.idPayout);
    expect(late.message).toContain('MsgId "ACME-RUN-44" was imported before');
    expect(late.message).toContain('EndToEndId imported before: "E2E/NEW/5" (PmtInf "PI-SUPPLIERS") as payout');

    // A CSV batch came from no pain.001: no status report to give.
    const fromCsv = await d.call<BatchValidation>('batches:validateFile', { source: teamCsv('csv-run', 1) });
    const csvBatch = await d.call<BatchView>('batches:submit', { validationId: fromCsv.validationId, confirmedWarningRows: fromCsv.warnings.map((w) => w.rowNumber) });
    expect(await d.fails('batches:exportResults', { batchId: csvBatch.id, format: 'pain.002' })).toMatchObject({ code: 'NOT_FROM_PAIN001' });
  });
});
