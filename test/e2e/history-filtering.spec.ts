import type { PaymentDetail, PayoutValidation } from '../../preload/api';
import { germanIban } from './support/csv-fixtures';
import { call, expect, openWithDemo, shot, test } from './support/journey';
import type { DeskHarness } from './support/desk-bridge';

async function payout(desk: DeskHarness, amount: string, currencyCode: string, accountName: string, bban: string): Promise<PaymentDetail> {
  const input = {
    amount,
    currencyCode,
    accountName,
    accountNumber: germanIban(bban),
    paymentOperatorCode: await desk.operatorFor(currencyCode),
    emailAddress: `${accountName.split(' ')[0]?.toLowerCase() ?? 'x'}@example.com`,
  };
  const v = await call<PayoutValidation>(desk.handlers, 'payouts:validate', input);
  if (!v.preview) throw new Error(`invalid payout: ${JSON.stringify(v.issues)}`);
  return call<PaymentDetail>(desk.handlers, 'payouts:create', { ...input, idPayout: v.preview.idPayout });
}

test('History filters by status, currency and kind, and searches by name', async ({ page, desk }) => {
  test.setTimeout(90_000);
  await openWithDemo(page, desk, 'balances');
  await payout(desk, '10.00', 'EUR', 'Alice Alpha', '370400440532011111');
  await payout(desk, '20.00', 'EUR', 'Bob Bravo', '370400440532012222');
  await payout(desk, '30.00', 'USD', 'Carol Charlie', '370400440532013333');
  const failed = await payout(desk, '40.00', 'EUR', 'Dave Delta', '370400440532010000');

  await page.goto(page.url().replace(/#.*$/, '#/history'));
  await expect(page.getByTestId('history-total')).toContainText('4 payments');
  const rows = page.getByTestId('history-row');
  await expect(rows).toHaveCount(4);
  // Wait for the sandbox to finish the failing one, so the status filter has something to find.
  await expect(rows.filter({ hasText: 'Dave Delta' }).getByTestId('history-status')).toHaveText('FAILED', { timeout: 30_000 });
  await shot(page, 'history');

  await page.getByTestId('filter-status').click();
  await page.getByRole('option', { name: 'FAILED' }).click();
  await page.keyboard.press('Escape');
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toContainText(failed.id);

  await page.getByTestId('filter-clear').click();
  await expect(rows).toHaveCount(4);
  await page.getByTestId('filter-currency').click();
  await page.getByRole('option', { name: 'USD' }).click();
  await page.keyboard.press('Escape');
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toContainText('Carol Charlie');

  await page.getByTestId('filter-clear').click();
  await page.getByTestId('history-search').locator('input').fill('Bravo');
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toContainText('Bob Bravo');

  await page.getByTestId('filter-clear').click();
  await page.getByTestId('filter-kind').click();
  await page.getByRole('option', { name: 'Payins' }).click();
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('state-empty')).toBeVisible();

  // Export of the filtered rows: only what the table shows.
  await page.getByTestId('filter-clear').click();
  await page.getByTestId('filter-currency').click();
  await page.getByRole('option', { name: 'EUR' }).click();
  await page.keyboard.press('Escape');
  await expect(rows).toHaveCount(3);
  const download = page.waitForEvent('download');
  await page.getByTestId('history-export').click();
  const text = await (await download).createReadStream().then(async (s) => {
    const chunks: Buffer[] = [];
    for await (const c of s) chunks.push(c as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  });
  expect(text).toContain('Alice Alpha');
  expect(text).not.toContain('Carol Charlie');
});
