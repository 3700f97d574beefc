import { readFile } from 'node:fs/promises';
import { BROKEN_ROWS, payoutCsv } from './support/csv-fixtures';
import { expect, openWithDemo, shot, test } from './support/journey';

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
