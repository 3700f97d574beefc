// Remittance advice, through the real desk and its sandbox: a paid payout's detail (its page and the History drawer)
// has a Remittance advice button that saves main's PDF (who paid, the payee, the amount), audited with its SHA-256;
// a failed payout and a returned one (paid, then came back) have none. A batch's results save one PDF with a page
// per payee of the paid rows and say how many were left out; a batch with nothing paid has the button off, saying why.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import type { Locator, Page } from '@playwright/test';
import type { AuditEntryView, BatchValidation, BatchView, HistoryRow, Page as ResultPage } from '../../contract/api';
import { expectAccessible } from './support/axe';
import { APP_URL } from './support/bridge-page';
import { germanIban, payoutCsv } from './support/csv-fixtures';
import type { DeskHarness } from './support/desk-bridge';
import { call, expect, sendPayout, shot, test } from './support/journey';

const run = promisify(execFile);

/** The Demo profile with callbacks on, so a return reaches the desk in seconds rather than at the minute's recheck. */
async function demoWithCallbacks(desk: DeskHarness): Promise<void> {
  await call(desk.handlers, 'profiles:createDemo');
  await call(desk.handlers, 'settings:update', { callback: { enabled: true, port: 0 } });
  const profileId = desk.runtime.ctx.profiles.currentId();
  if (!profileId) throw new Error('no current profile');
  await desk.runtime.engineFor(profileId);
}

/** Polls the journal until each payout named is final with the status wanted. */
async function waitForStatuses(desk: DeskHarness, want: Record<string, string>): Promise<void> {
  await expect
    .poll(
      async () => {
        const rows = (await call<ResultPage<HistoryRow>>(desk.handlers, 'history:query', { offset: 0, limit: 100 })).items;
        return Object.fromEntries(rows.filter((r) => r.final && r.id in want).map((r) => [r.id, r.status]));
      },
      // A return comes about 5 s after SUCCESS, by callback.
      { timeout: 100_000, intervals: [1000] },
    )
    .toEqual(want);
}

/** Clicks a button that saves a file and catches the download: its name, path and bytes. */
async function download(page: Page, click: () => Promise<void>): Promise<{ name: string; path: string; bytes: Buffer }> {
  const event = page.waitForEvent('download');
  await click();
  const file = await event;
  const path = await file.path();
  return { name: file.suggestedFilename(), path, bytes: await readFile(path) };
}

const pdfText = async (path: string): Promise<string> => (await run('pdftotext', ['-layout', path, '-'])).stdout;
async function pdfPages(path: string): Promise<number> {
  const { stdout } = await run('pdfinfo', [path]);
  return Number(/^Pages:\s+(\d+)/m.exec(stdout)?.[1]);
}
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
async function adviceAudits(desk: DeskHarness): Promise<AuditEntryView[]> {
  return (await call<ResultPage<AuditEntryView>>(desk.handlers, 'audit:list', { limit: 50 })).items.filter((a) => a.action === 'remittance.saved');
}

/** Opens one payment's detail in the History drawer by searching its id. */
async function openInHistory(page: Page, id: string, status: string): Promise<Locator> {
  await page.goto(`${APP_URL}#/history`);
  await page.getByTestId('history-search').locator('input').fill(id);
  const row = page.getByTestId('history-row');
  await expect(row).toHaveCount(1);
  await expect(row.getByTestId('history-status')).toHaveText(status);
  await row.click();
  const drawer = page.getByTestId('history-drawer');
  await expect(drawer.getByTestId('detail-status')).toHaveText(status);
  return drawer;
}

test("a paid payout's detail saves its remittance advice as a PDF; a failed or returned payout offers none", async ({ page, desk }) => {
  test.setTimeout(180_000);
  await page.setViewportSize({ width: 1280, height: 800 });
  await demoWithCallbacks(desk);
  const paid = await sendPayout(desk, '1250.50', 'EUR', 'Alice Alpha', '370400440532011111');
  const failed = await sendPayout(desk, '40.00', 'EUR', 'Dave Delta', '370400440532010000');
  const returned = await sendPayout(desk, '30.00', 'EUR', 'Erin Echo', '370400440532019999');
  await waitForStatuses(desk, { [paid.id]: 'SUCCESS', [failed.id]: 'FAILED', [returned.id]: 'RETURNED' });

  // The payout's own page: the button, accessible, and the guide's picture of it.
  await page.goto(`${APP_URL}#/payouts/${paid.id}`);
  await expect(page.getByTestId('app-bar-status').getByTestId('env-TEST')).toBeVisible();
  await expect(page.getByTestId('detail-status')).toHaveText('SUCCESS');
  const button = page.getByTestId('remittance-advice');
  await expect(button).toBeVisible();
  await expect(button).toHaveText('Remittance advice');
  await expectAccessible(page);
  await shot(page, 'payout-remittance-advice');

  // The PDF as main made it, byte for byte: the payee, the account's end, who paid, the payment id and the amount.
  const advice = await download(page, () => button.click());
  expect(advice.name).toBe(`remittance-${paid.id}.pdf`);
  expect(advice.bytes.subarray(0, 5).toString('latin1')).toBe('%PDF-');
  const text = await pdfText(advice.path);
  expect(text).toContain('Remittance advice');
  expect(text).toMatch(/Paid to\s+Alice Alpha <alice@example\.com>/);
  expect(text).toMatch(/Into account\s+ending …1111/);
  expect(text).toMatch(/Payer\s+Demo Store/);
  expect(text).toContain(paid.id);
  expect(text).toContain('1250.50 EUR');
  expect(await pdfPages(advice.path)).toBe(1);
  // Audited with the SHA-256 of exactly the bytes saved.
  const audits = await adviceAudits(desk);
  expect(audits).toHaveLength(1);
  expect(audits[0]?.subject).toBe(paid.id);
  expect(audits[0]?.details).toMatchObject({ payouts: 1, payees: 1, sha256: sha256(advice.bytes) });

  // The History drawer shows the same panel: the button for the paid payout, none for the failed or returned one.
  const drawer = await openInHistory(page, paid.id, 'SUCCESS');
  await expect(drawer.getByTestId('remittance-advice')).toBeVisible();
  await expectAccessible(page, '[data-testid="history-drawer"]');
  for (const [p, status] of [[failed, 'FAILED'], [returned, 'RETURNED']] as const) {
    const other = await openInHistory(page, p.id, status);
    await expect(other.getByTestId('detail-timeline')).toContainText(status);
    await expect(other.getByTestId('remittance-advice'), `${status}: no advice`).toHaveCount(0);
    // On its own page too.
    await page.goto(`${APP_URL}#/payouts/${p.id}`);
    await expect(page.getByTestId('detail-status')).toHaveText(status);
    await expect(page.getByTestId('remittance-advice'), `${status}: no advice on its page`).toHaveCount(0);
  }
  // The returned payout was paid first: its timeline says SUCCESS, and still no advice is offered.
  await expect(page.getByTestId('detail-timeline')).toContainText('SUCCESS');
  expect(await adviceAudits(desk), 'nothing more was made').toHaveLength(1);
});

/** Submits a CSV through the real handlers (every warning confirmed) and returns the batch. */
async function submitCsv(desk: DeskHarness, fileName: string, csv: string): Promise<BatchView> {
  const validation = await call<BatchValidation>(desk.handlers, 'batches:validateFile', { source: { kind: 'bytes', fileName, bytes: Buffer.from(csv) } });
  expect(validation.counts.invalid, fileName).toBe(0);
  const confirmedWarningRows = [...new Set(validation.warnings.map((w) => w.rowNumber))];
  return call<BatchView>(desk.handlers, 'batches:submit', { validationId: validation.validationId, confirmedWarningRows });
}

/** Opens a past batch on the Batches screen and waits for its results with every row final. */
async function openFinished(page: Page, batch: BatchView, counts: Record<string, number>): Promise<void> {
  await page.getByRole('button', { name: `Open batch ${batch.fileName}` }).click();
  await expect(page.getByTestId('batch-state')).toHaveText('COMPLETED', { timeout: 60_000 });
  const results = page.getByTestId('batch-results');
  for (const [status, n] of Object.entries(counts)) await expect(results.getByTestId(`results-count-${status}`)).toHaveText(`${status}: ${n}`, { timeout: 30_000 });
}

test("a batch's remittance advice has a page per payee paid and says what it left out; with nothing paid the button is off", async ({ page, desk }) => {
  test.setTimeout(180_000);
  await page.setViewportSize({ width: 1280, height: 800 });
  await demoWithCallbacks(desk);
  // Supplier A is paid twice (one payee, one page), B once, C's account (ending 0000) is refused.
  const a = { accountName: 'Supplier A GmbH', accountNumber: germanIban('370400440532021111'), emailAddress: 'a@example.com' };
  const csv = payoutCsv(4, {
    1: { ...a, amount: '10.00' },
    2: { ...a, amount: '12.50' },
    3: { accountName: 'Supplier B GmbH', accountNumber: germanIban('370400440532022222'), emailAddress: 'b@example.com', amount: '20.00' },
    4: { accountName: 'Supplier C GmbH', accountNumber: germanIban('370400440532020000'), emailAddress: 'c@example.com', amount: '30.00' },
  });
  const mixed = await submitCsv(desk, 'suppliers-april.csv', csv);
  const unpaid = await submitCsv(desk, 'closed-accounts.csv', payoutCsv(1, { 1: { accountNumber: germanIban('370400440532030000'), amount: '5.00' } }));

  await page.goto(`${APP_URL}#/batches`);
  await expect(page.getByTestId('past-batches')).toContainText('suppliers-april.csv');

  // Nothing paid: the button is there, off, and says why.
  await openFinished(page, unpaid, { FAILED: 1 });
  const results = page.getByTestId('batch-results');
  await expect(results.getByTestId('batch-remittance')).toBeDisabled();
  await expect(results.getByTestId('batch-remittance-wrap')).toHaveAttribute('title', /None of this batch's payouts has been paid yet/);

  // Three paid rows for two payees, one failed: a page per payee, and the notice counts them.
  await page.getByTestId('batch-new').click();
  await openFinished(page, mixed, { SUCCESS: 3, FAILED: 1 });
  const button = results.getByTestId('batch-remittance');
  await expect(button).toBeEnabled();
  await expectAccessible(page, '[data-testid="batch-results"]');
  const advice = await download(page, () => button.click());
  expect(advice.name).toMatch(/^remittance-suppliers-april-[0-9a-f-]{8}\.pdf$/);
  expect(advice.bytes.subarray(0, 5).toString('latin1')).toBe('%PDF-');
  expect(await pdfPages(advice.path)).toBe(2);
  const text = await pdfText(advice.path);
  expect(text).toContain('Remittance advice');
  for (const shown of ['Supplier A GmbH', 'Supplier B GmbH', '10.00 EUR', '12.50 EUR', '22.50 EUR', '20.00 EUR', 'suppliers-april.csv']) expect(text).toContain(shown);
  expect(text, 'the failed row is left out').not.toContain('Supplier C GmbH');
  await expect(page.getByTestId('snackbar')).toContainText('Advice for 2 payees, 3 paid payouts; 1 payout not paid left out');
  const audits = await adviceAudits(desk);
  expect(audits.map((e) => e.subject)).toEqual([mixed.id]);
  expect(audits[0]?.details).toMatchObject({ payees: 2, payouts: 3, notPaid: 1, sha256: sha256(advice.bytes) });
});
