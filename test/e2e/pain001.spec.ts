// An ERP payment run in the app: a pain.001 dropped on Batches is read (its message, transactions and payment
// groups named in the review), sent, paid with one transaction failing, and answered with a pain.002 status report
// the ERP imports (ACSC per paid EndToEndId, RJCT with the gateway's reason). Screenshots for the user guide.
import { readFile } from 'node:fs/promises';
import { germanIban } from './support/csv-fixtures';
import { expect, openWithDemo, shot, test } from './support/journey';

interface Tx { endToEndId: string; amount: string; name: string; iban: string }

const GROUPS: Record<string, Tx[]> = {
  'PI-2026-03-SUPPLIERS': [
    { endToEndId: 'INV-2026-0311', amount: '1250.00', name: 'Müller & Söhne KG', iban: germanIban('370400440532013011') },
    { endToEndId: 'INV-2026-0312', amount: '480.40', name: 'Dupont SARL', iban: germanIban('370400440532013012') },
    // Ends in 0000: the sandbox refuses it (ACCOUNT_REJECTED).
    { endToEndId: 'INV-2026-0313', amount: '75.00', name: 'Closed Account Ltd', iban: germanIban('370400440532010000') },
  ],
  'PI-2026-03-FREIGHT': [{ endToEndId: 'FRT/2026/77', amount: '312.15', name: 'Huber Transporte', iban: germanIban('370400440532013077') }],
};

function cents(list: readonly Tx[]): string {
  return (list.reduce((t, x) => t + Math.round(Number(x.amount) * 100), 0) / 100).toFixed(2);
}

/** The run as an ERP exports it (pain.001.001.09). */
function paymentRun(): string {
  const all = Object.values(GROUPS).flat();
  const groups = Object.entries(GROUPS).map(([id, txs]) => `
    <PmtInf>
      <PmtInfId>${id}</PmtInfId><PmtMtd>TRF</PmtMtd><NbOfTxs>${txs.length}</NbOfTxs><CtrlSum>${cents(txs)}</CtrlSum>
      <PmtTpInf><SvcLvl><Cd>SEPA</Cd></SvcLvl></PmtTpInf><ReqdExctnDt><Dt>2026-03-03</Dt></ReqdExctnDt>
      <Dbtr><Nm>Acme Manufacturing GmbH</Nm></Dbtr><DbtrAcct><Id><IBAN>DE02120300000000202051</IBAN></Id></DbtrAcct>
      <DbtrAgt><FinInstnId><BICFI>BYLADEM1001</BICFI></FinInstnId></DbtrAgt>${txs.map((t) => `
      <CdtTrfTxInf>
        <PmtId><EndToEndId>${t.endToEndId}</EndToEndId></PmtId>
        <Amt><InstdAmt Ccy="EUR">${t.amount}</InstdAmt></Amt>
        <Cdtr><Nm>${t.name.replace('&', '&amp;')}</Nm><CtctDtls><EmailAdr>ap+${t.endToEndId.replace(/\W/g, '')}@supplier.example</EmailAdr></CtctDtls></Cdtr>
        <CdtrAcct><Id><IBAN>${t.iban}</IBAN></Id></CdtrAcct>
        <RmtInf><Ustrd>Invoice ${t.endToEndId}</Ustrd></RmtInf>
      </CdtTrfTxInf>`).join('')}
    </PmtInf>`);
  return `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.001.001.09">
  <CstmrCdtTrfInitn>
    <GrpHdr><MsgId>ACME-PAYRUN-2026-03</MsgId><CreDtTm>2026-03-02T09:15:00</CreDtTm><NbOfTxs>${all.length}</NbOfTxs><CtrlSum>${cents(all)}</CtrlSum><InitgPty><Nm>Acme Manufacturing GmbH</Nm></InitgPty></GrpHdr>${groups.join('')}
  </CstmrCdtTrfInitn>
</Document>
`;
}

test('a pain.001 from the ERP is uploaded, reviewed, paid and answered with a pain.002 status report', async ({ page, desk }) => {
  test.setTimeout(120_000);
  await openWithDemo(page, desk, 'batches');
  await expect(page.getByTestId('batch-drop-zone')).toContainText('pain.001');
  await page.getByTestId('batch-file-input').setInputFiles({ name: 'acme-payrun-2026-03.xml', mimeType: 'application/xml', buffer: Buffer.from(paymentRun()) });
  await expect(page.getByTestId('batch-iso20022')).toHaveText('ISO 20022 pain.001.001.09, 4 transactions in 2 payment groups');
  await expect(page.getByTestId('count-valid')).toContainText('4 valid');
  await expect(page.getByTestId('count-invalid')).toContainText('0');
  await expect(page.getByTestId('funding-EUR')).toContainText('funded');
  // EndToEndIds the gateway allows as ids are the payout ids; "FRT/2026/77" gets a new one.
  await expect(page.getByTestId('batch-rows')).toContainText('Müller & Söhne KG');
  await shot(page, 'batch-pain001');

  await page.getByTestId('batch-review-open').click();
  const review = page.getByTestId('batch-review');
  await expect(review).toContainText('4 payouts');
  await expect(review.getByTestId('batch-review-iso20022')).toHaveText('From the ERP: ISO 20022 pain.001.001.09, message ACME-PAYRUN-2026-03, 4 transactions in 2 payment groups');
  await expect(review).toContainText('INV-2026-0311');
  await review.getByTestId('confirm-batch').locator('input').check();
  await review.getByTestId('submit-batch').click();

  await expect(page.getByTestId('batch-state')).toHaveText('COMPLETED', { timeout: 90_000 });
  await expect(page.getByTestId('progress-pending')).toHaveText('0', { timeout: 60_000 });
  const results = page.getByTestId('batch-results');
  await expect(results.getByTestId('results-count-SUCCESS')).toHaveText('SUCCESS: 3', { timeout: 30_000 });
  await expect(results.getByTestId('results-count-FAILED')).toHaveText('FAILED: 1');
  await shot(page, 'batch-pain002');

  const download = page.waitForEvent('download');
  await results.getByTestId('batch-export-pain002').click();
  const file = await download;
  expect(file.suggestedFilename()).toBe('acme-payrun-2026-03-pain002.xml');
  const xml = await readFile(await file.path(), 'utf8');
  expect(xml).toContain('<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.002.001.10">');
  expect(xml).toContain('<OrgnlMsgId>ACME-PAYRUN-2026-03</OrgnlMsgId>');
  expect(xml).toContain('<GrpSts>PART</GrpSts>');
  const statusOf = (e2e: string) => new RegExp(`<OrgnlEndToEndId>${e2e}</OrgnlEndToEndId>\\s*<TxSts>(\\w+)</TxSts>`).exec(xml)?.[1];
  expect(['INV-2026-0311', 'INV-2026-0312', 'INV-2026-0313', 'FRT/2026/77'].map(statusOf)).toEqual(['ACSC', 'ACSC', 'RJCT', 'ACSC']);
  expect(xml).toMatch(/<OrgnlEndToEndId>INV-2026-0313<\/OrgnlEndToEndId>\s*<TxSts>RJCT<\/TxSts>\s*<StsRsnInf>\s*<Rsn>\s*<Cd>NARR<\/Cd>\s*<\/Rsn>\s*<AddtlInf>failed: ACCOUNT_REJECTED<\/AddtlInf>/);
});
