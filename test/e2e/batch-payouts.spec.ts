import { readFile } from 'node:fs/promises';
import type { Page } from '@playwright/test';
import type { PaymentDetail, PayoutValidation } from '../../contract/api';
import { BROKEN_ROWS, germanIban, payoutCsv } from './support/csv-fixtures';
import { call, expect, openWithDemo, shot, test } from './support/journey';

test('a 50-row CSV with 3 bad rows is fixed, re-uploaded, reviewed, submitted, finished and exported', async ({ page, desk }) => {
  test.setTimeout(180_000);
  await openWithDemo(page, desk, 'batches');
  await expect(page.getByTestId('batch-drop-zone')).toBeVisible();

  // The template: its file name, the canonical header, and an example row that imports cleanly.
  const templateDownload = page.waitForEvent('download');
  await page.getByTestId('batch-template').click();
  const template = await templateDownload;
  expect(template.suggestedFilename()).toBe('payout-batch-template.csv');
  const templateText = await readFile(await template.path(), 'utf8');
  expect(templateText.split('\r\n')[0]).toBe(
    'idPayout,amount,currencyCode,accountName,accountNumber,paymentOperatorCode,paymentMethodCode,emailAddress,callbackUrl,reference',
  );
  const input = page.getByTestId('batch-file-input');
  await input.setInputFiles({ name: 'payout-batch-template.csv', mimeType: 'text/csv', buffer: Buffer.from(templateText) });
  await expect(page.getByTestId('count-valid')).toContainText('1 valid');
  await expect(page.getByTestId('count-invalid')).toContainText('0');

  await input.setInputFiles({ name: 'suppliers-march.csv', mimeType: 'text/csv', buffer: Buffer.from(payoutCsv(50, BROKEN_ROWS)) });
  await expect(page.getByTestId('count-rows')).toContainText('50');
  await expect(page.getByTestId('count-invalid')).toContainText('3');
  await expect(page.getByTestId('batch-review-open')).toBeDisabled();
  await expect(page.getByTestId('batch-blockers')).toContainText('3 rows have errors');

  // Each error sits on its own row, in the column it is about.
  await page.getByTestId('errors-only').locator('input').check();
  await expect(page.getByTestId('cell-error-6-amount')).toBeVisible();
  await expect(page.getByTestId('cell-error-18-currencyCode')).toBeVisible();
  await expect(page.getByTestId('cell-error-34-emailAddress')).toBeVisible();
  await shot(page, 'batch-validation-errors');

  await input.setInputFiles({ name: 'suppliers-march-fixed.csv', mimeType: 'text/csv', buffer: Buffer.from(payoutCsv(50)) });
  await expect(page.getByTestId('count-invalid')).toContainText('0');
  await expect(page.getByTestId('count-valid')).toContainText('50');
  await expect(page.getByTestId('funding-EUR')).toContainText('funded');
  for (const box of await page.locator('[data-testid^="confirm-warning-"]').all()) await box.check();
  await page.getByTestId('batch-review-open').click();

  const review = page.getByTestId('batch-review');
  await expect(review).toContainText('50 payouts');
  await expect(review.getByTestId('batch-sha256')).toHaveText(/^[0-9a-f]{64}$/);
  await expect(review.getByTestId('batch-review-totals')).toContainText('50 × EUR');
  await shot(page, 'batch-review');
  await review.getByTestId('confirm-batch').locator('input').check();
  await review.getByTestId('submit-batch').click();

  await expect(page.getByTestId('batch-progress')).toBeVisible();
  // Pause at once (10 creates/s: the 50 rows take ~5 s to send). Rows the runner already claimed (up to
  // twice the rate) still go out while the chip says PAUSING…; once PAUSED, sending stops and stays stopped.
  await page.getByTestId('batch-pause').click();
  await expect(page.getByTestId('batch-state')).toHaveText('PAUSED');
  const sentWhenPaused = Number(await page.getByTestId('progress-sent').textContent());
  expect(sentWhenPaused).toBeLessThan(50);
  expect((await desk.sandboxState()).payoutCount).toBe(sentWhenPaused);
  await shot(page, 'batch-paused');
  await page.waitForTimeout(1500);
  await expect(page.getByTestId('progress-sent')).toHaveText(String(sentWhenPaused));
  expect((await desk.sandboxState()).payoutCount, 'nothing reaches the gateway while paused').toBe(sentWhenPaused);
  await page.getByTestId('batch-resume').click();
  await expect(page.getByTestId('batch-state')).not.toHaveText('PAUSED');
  // While rows are being sent the screen says how fast, not "0.0/s" (more than 30 rows are left at 10 a second).
  await expect(page.getByTestId('progress-rate')).not.toHaveText('0.0/s');
  await shot(page, 'batch-progress');
  // Every payout reaches a final gateway status, not merely "sent".
  await expect(page.getByTestId('progress-done')).toHaveText('50', { timeout: 150_000 });
  await expect(page.getByTestId('progress-pending')).toHaveText('0');
  await expect(page.getByTestId('progress-failed')).toHaveText('0');
  await expect(page.getByTestId('batch-state')).toHaveText('COMPLETED');
  const results = page.getByTestId('batch-results');
  await expect(results).toBeVisible();
  await shot(page, 'batch-results');

  const download = page.waitForEvent('download');
  await results.getByTestId('batch-export').click();
  const file = await (await download).path();
  const text = await readFile(file, 'utf8');
  const lines = text.trim().split(/\r?\n/);
  expect(lines).toHaveLength(51);
  const statusColumn = lines[0]?.split(',').indexOf('status') ?? -1;
  expect(statusColumn).toBeGreaterThan(0);
  expect(lines.slice(1).map((l) => l.split(',')[statusColumn])).toEqual(Array(50).fill('SUCCESS'));

  await expect(page.getByTestId('past-batches')).toContainText('suppliers-march-fixed.csv');
});

test('two warnings on one row are confirmed one by one, and a file submitted before can be sent again once confirmed', async ({ page, desk }) => {
  test.setTimeout(120_000);
  await openWithDemo(page, desk, 'batches');
  // Ada was paid before to another account: her rows in the file get "bank details changed".
  const earlier = {
    amount: '10.00',
    currencyCode: 'EUR',
    accountName: 'Ada Lovelace',
    accountNumber: germanIban('370400440532000001'),
    paymentOperatorCode: 'EU_SEPA',
    emailAddress: 'ada@example.com',
  };
  const v = await call<PayoutValidation>(desk.handlers, 'payouts:validate', earlier);
  await call<PaymentDetail>(desk.handlers, 'payouts:create', { ...earlier, idPayout: v.preview?.idPayout });

  // Rows 2 and 3 pay Ada's new account the same amount: row 3 is also a likely duplicate of row 2.
  const ada = { accountName: 'Ada Lovelace', accountNumber: germanIban('370400440532000002'), emailAddress: 'ada@example.com' };
  const csv = Buffer.from(payoutCsv(2, { 1: { ...ada, amount: '25.00' }, 2: { ...ada, amount: '25.00' } }));
  const input = page.getByTestId('batch-file-input');
  await input.setInputFiles({ name: 'ada.csv', mimeType: 'text/csv', buffer: csv });
  await expect(page.getByTestId('count-valid')).toContainText('2');
  const duplicate = page.getByTestId('confirm-warning-3-DUPLICATE_ROW').locator('input');
  const changed3 = page.getByTestId('confirm-warning-3-BANK_DETAILS_CHANGED').locator('input');
  const changed2 = page.getByTestId('confirm-warning-2-BANK_DETAILS_CHANGED').locator('input');
  await duplicate.check();
  await expect(changed3).not.toBeChecked();
  await changed2.check();
  await expect(page.getByTestId('batch-blockers')).toContainText('Confirm every warning first');
  await expect(page.getByTestId('batch-review-open')).toBeDisabled();
  await changed3.check();
  await expect(page.getByTestId('batch-blockers')).toHaveCount(0);
  await submitReviewed(page, 2);

  // The same bytes again: one more warning, for the whole file (row 0); nothing else blocks it.
  await page.getByTestId('batch-new').click();
  await input.setInputFiles({ name: 'ada.csv', mimeType: 'text/csv', buffer: csv });
  await expect(page.getByTestId('already-submitted')).toBeVisible();
  await expect(page.getByTestId('batch-blockers')).not.toContainText('submitted before');
  await expect(page.getByTestId('batch-review-open')).toBeDisabled();
  for (const box of await page.locator('[data-testid^="confirm-warning-"]').all()) await box.locator('input').check();
  await expect(page.getByTestId('confirm-warning-0-FILE_ALREADY_SUBMITTED').locator('input')).toBeChecked();
  await expect(page.getByTestId('batch-blockers')).toHaveCount(0);
  await page.getByTestId('batch-review-open').click();
  await expect(page.getByTestId('batch-review-resubmit')).toBeVisible();
  await page.getByTestId('batch-review').getByRole('button', { name: 'Back' }).click();
  await submitReviewed(page, 2);

  // 1 single payout + 2 batches of 2: the gateway holds all five.
  await expect.poll(async () => (await desk.sandboxState()).payoutCount, { timeout: 60_000 }).toBe(5);
});

async function submitReviewed(page: Page, rows: number): Promise<void> {
  await page.getByTestId('batch-review-open').click();
  const review = page.getByTestId('batch-review');
  await expect(review).toContainText(`${rows} payouts`);
  await review.getByTestId('confirm-batch').locator('input').check();
  await review.getByTestId('submit-batch').click();
  await expect(page.getByTestId('batch-progress')).toBeVisible();
}

test('a running batch is cancelled: unsent rows are CANCELLED, accepted ones finish, and the retry lists them before sending', async ({ page, desk }) => {
  test.setTimeout(60_000);
  await openWithDemo(page, desk, 'batches');
  await page.getByTestId('batch-file-input').setInputFiles({ name: 'cancel-me.csv', mimeType: 'text/csv', buffer: Buffer.from(payoutCsv(80)) });
  await expect(page.getByTestId('count-valid')).toContainText('80');
  await submitReviewed(page, 80);

  // Let a few go out, then cancel the rest. At 10 creates/s most of the 80 are still queued; the ones
  // already claimed by the runner (up to twice the rate) still go out after the click.
  await expect.poll(async () => Number(await page.getByTestId('progress-sent').textContent()), { timeout: 10_000 }).toBeGreaterThanOrEqual(3);
  await page.getByTestId('batch-cancel').click();
  await page.getByTestId('batch-cancel-confirm').click();
  await expect(page.getByTestId('batch-state')).toHaveText('CANCELLED');
  const results = page.getByTestId('batch-results');
  const cancelledChip = results.getByTestId('results-count-CANCELLED');
  await expect(cancelledChip).toBeVisible();
  const cancelled = Number((await cancelledChip.textContent())?.replace(/\D/g, ''));
  const accepted = 80 - cancelled;
  expect(cancelled).toBeGreaterThan(0);
  expect(accepted).toBeGreaterThanOrEqual(3);
  // The gateway has exactly the accepted ones, and they keep going to a final status after the cancel.
  expect((await desk.sandboxState()).payoutCount).toBe(accepted);
  await expect(results.getByTestId('results-count-SUCCESS')).toHaveText(`SUCCESS: ${accepted}`, { timeout: 30_000 });
  await expect(cancelledChip).toHaveText(`CANCELLED: ${cancelled}`);
  await expect(page.getByTestId('progress-pending')).toHaveText('0');

  // The retry shows every row it sends again, with the count and the exact totals, and sends nothing before the confirm.
  const batchId = (await call<{ items: { id: string; fileName: string }[] }>(desk.handlers, 'batches:list', { limit: 10 })).items.find(
    (b) => b.fileName === 'cancel-me.csv',
  )?.id;
  const rows = await call<{ status: string; money: { amount: string } }[]>(desk.handlers, 'batches:results', { batchId });
  const cancelledCents = rows.filter((r) => r.status === 'CANCELLED').reduce((sum, r) => sum + Number(r.money.amount.replace('.', '')), 0);
  const expectedTotal = `EUR ${(Math.floor(cancelledCents / 100)).toLocaleString('en-US')}.${String(cancelledCents % 100).padStart(2, '0')}`;

  await results.getByTestId('batch-retry-failed').click();
  const retry = page.getByTestId('batch-retry-review');
  await expect(retry).toContainText(`Send ${cancelled} failed row${cancelled === 1 ? '' : 's'} again?`);
  await expect(retry.getByTestId('batch-retry-total-EUR')).toHaveText(`${cancelled} × EUR = ${expectedTotal}`);
  await expect(retry.getByTestId('batch-retry-confirm')).toBeDisabled();
  await shot(page, 'batch-retry-review');
  await retry.getByTestId('batch-retry-back').click();
  await expect(retry).toBeHidden();
  expect((await desk.sandboxState()).payoutCount, 'Back sends nothing').toBe(accepted);

  await results.getByTestId('batch-retry-failed').click();
  await retry.getByTestId('confirm-retry').locator('input').check();
  await retry.getByTestId('batch-retry-confirm').click();
  await expect(page.getByTestId('batch-progress')).toContainText('cancel-me-retry.csv');
  await expect.poll(async () => (await desk.sandboxState()).payoutCount, { timeout: 30_000 }).toBe(80);
});
