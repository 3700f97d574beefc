import { germanIban } from './support/csv-fixtures';
import { expect, openWithDemo, shot, test } from './support/journey';

const HEADER = ['amount', 'currencyCode', 'accountName', 'accountNumber', 'paymentOperatorCode', 'emailAddress'];

/** Rows written with a decimal comma; `;`-separated as Excel writes them in Germany, or comma-separated with quotes. */
function csv(delimiter: ';' | ',', rows: string[][]): Buffer {
  const cell = (v: string) => (v.includes(delimiter) ? `"${v}"` : v);
  return Buffer.from([HEADER, ...rows].map((r) => r.map(cell).join(delimiter)).join('\r\n') + '\r\n');
}

// 60,000.00 + 45,000.50 EUR against the demo merchant's 100,000.00 EUR: short by 5,000.50. The USD row is funded.
const ROWS = [
  ['60000,00', 'EUR', 'Big Supplier A', germanIban('370400440532077001'), 'EU_SEPA', 'big-a@example.com'],
  ['45000,50', 'EUR', 'Big Supplier B', germanIban('370400440532077002'), 'EU_SEPA', 'big-b@example.com'],
  ['125,75', 'USD', 'US Vendor Inc', germanIban('370400440532077003'), 'US_ACH', 'vendor@example.com'],
];

test('decimal commas are read when the file is ";"-separated or the user says so; a shortfall blocks, and only the funded currency is sent', async ({ page, desk }) => {
  test.setTimeout(60_000);
  await openWithDemo(page, desk, 'batches');
  const input = page.getByTestId('batch-file-input');

  // Comma-separated with quoted decimal commas: read with a decimal point (auto), every amount is an error …
  await input.setInputFiles({ name: 'quoted-commas.csv', mimeType: 'text/csv', buffer: csv(',', ROWS) });
  await expect(page.getByTestId('count-invalid')).toContainText('3 with errors');
  await expect(page.getByTestId('batch-dialect')).toContainText('decimal point (auto)');
  // … until the user says the file uses a decimal comma: the same file is read again.
  await page.getByTestId('decimal-comma').click();
  await expect(page.getByTestId('count-valid')).toContainText('3 valid');
  await expect(page.getByTestId('count-invalid')).toContainText('0');
  await expect(page.getByTestId('batch-dialect')).toContainText('decimal comma');
  await expect(page.getByTestId('funding-USD')).toContainText('USD 125.75');

  // ";"-separated: auto reads decimal commas; forcing a decimal point turns them into errors.
  await page.getByTestId('decimal-auto').click();
  await input.setInputFiles({ name: 'excel-de.csv', mimeType: 'text/csv', buffer: csv(';', ROWS) });
  await expect(page.getByTestId('count-valid')).toContainText('3 valid');
  await expect(page.getByTestId('batch-dialect')).toContainText('delimiter “;”, decimal comma (auto)');
  await page.getByTestId('decimal-point').click();
  await expect(page.getByTestId('count-invalid')).toContainText('3 with errors');
  await page.getByTestId('decimal-auto').click();
  await expect(page.getByTestId('count-valid')).toContainText('3 valid');

  // The EUR rows need more than the balance: the shortfall is shown and blocks the review.
  const eur = page.getByTestId('funding-EUR');
  await expect(eur).toContainText('EUR 105,000.50');
  await expect(eur).toContainText('EUR 100,000.00');
  await expect(eur).toContainText('Short by EUR 5,000.50');
  await expect(page.getByTestId('funding-USD')).toContainText('funded');
  await expect(page.getByTestId('batch-blockers')).toContainText('Not enough balance in EUR');
  await expect(page.getByTestId('batch-review-open')).toBeDisabled();
  await shot(page, 'batch-shortfall');

  // Send only the funded currencies: the review shows the USD row alone.
  await page.getByTestId('only-funded').locator('input').check();
  await expect(page.getByTestId('batch-blockers')).toHaveCount(0);
  await expect(page.getByTestId('batch-review-open')).toHaveText(/Review 1 payout\b/);
  await page.getByTestId('batch-review-open').click();
  const review = page.getByTestId('batch-review');
  await expect(review).toContainText(/Review batch: 1 payout(?!s)/);
  await expect(review.getByTestId('batch-review-totals')).toContainText('1 × USD = USD 125.75');
  await expect(review.getByTestId('batch-review-totals')).not.toContainText('EUR');
  await expect(review).toContainText('US Vendor Inc');
  await expect(review).not.toContainText('Big Supplier');
  await review.getByTestId('confirm-batch').locator('input').check();
  await review.getByTestId('submit-batch').click();
  await expect(page.getByTestId('batch-progress')).toBeVisible();

  // The gateway receives the USD payout and nothing in EUR.
  await expect.poll(async () => (await desk.sandboxState()).payoutCount, { timeout: 20_000 }).toBe(1);
  const [sent] = desk.sandbox().state().payouts;
  expect(sent?.currencyCode).toBe('USD');
  expect(sent?.amountMinor).toBe(12575);
  await expect(page.getByTestId('progress-done')).toHaveText('1', { timeout: 30_000 });
  await page.waitForTimeout(500);
  expect((await desk.sandboxState()).payoutCount).toBe(1);
});
