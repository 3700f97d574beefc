import { readFile } from 'node:fs/promises';
import type { Page } from '@playwright/test';
import type { PaymentDetail, PayoutValidation } from '../../preload/api';
import { BROKEN_ROWS, germanIban, payoutCsv } from './support/csv-fixtures';
import { call, expect, openWithDemo, shot, test } from './support/journey';

test('a 50-row CSV with 3 bad rows is fixed, re-uploaded, reviewed, submitted, finished and exported', async ({ page, desk }) => {
  test.setTimeout(180_000);
  await openWithDemo(page, desk, 'batches');
  await expect(page.getByTestId('batch-drop-zone')).toBeVisible();

  const input = page.getByTestId('batch-file-input');
  await input.setInputFiles({ name: 'suppliers-march.csv', mimeType: 'text/csv', buffer: Buffer.from(payoutCsv(50, BROKEN_ROWS)) });
  await expect(page.getByTestId('count-rows')).toContainText('50');
  await expect(page.getByTestId('count-invalid')).toContainText('3');
  await expect(page.getByTestId('batch-review-open')).toBeDisabled();
  await expect(page.getByTestId('batch-blockers')).toContainText('3 row(s) have errors');

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
