import type { BalanceView, PayoutValidation } from '../../preload/api';
import { germanIban } from './support/csv-fixtures';
import { call, expect, openWithDemo, shot, test } from './support/journey';

test('after payouts the balances drop and the chart shows the history', async ({ page, desk }) => {
  test.setTimeout(90_000);
  await openWithDemo(page, desk, 'balances');
  const card = page.getByTestId('balance-EUR');
  await expect(card.getByTestId('balance-available')).toContainText('100,000.00');

  for (const [i, amount] of ['1000.00', '2500.00'].entries()) {
    const input = {
      amount,
      currencyCode: 'EUR',
      accountName: `Chart Payee ${i}`,
      accountNumber: germanIban(`37040044053201${5000 + i}`),
      paymentOperatorCode: await desk.operatorFor('EUR'),
      emailAddress: `chart${i}@example.com`,
    };
    const v = await call<PayoutValidation>(desk.handlers, 'payouts:validate', input);
    await call(desk.handlers, 'payouts:create', { ...input, idPayout: v.preview?.idPayout });
  }
  // Wait until the sandbox has settled both, then ask the gateway again from the screen.
  await expect
    .poll(async () => (await call<BalanceView[]>(desk.handlers, 'balances:refresh')).find((b) => b.currencyCode === 'EUR')?.available.amount, {
      timeout: 30_000,
    })
    .not.toBe('100000.00');
  await page.getByTestId('refresh-balances').click();
  await expect(card.getByTestId('balance-available')).not.toContainText('100,000.00');
  const chart = page.getByTestId('balance-chart');
  await expect(chart.locator('canvas')).toBeVisible();
  const points = await call<{ at: string }[]>(desk.handlers, 'balances:series', { currencyCode: 'EUR' });
  expect(points.length).toBeGreaterThanOrEqual(2);
  await shot(page, 'balances');
});
