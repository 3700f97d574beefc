import type { BalanceView, PayoutValidation } from '../../contract/api';
import { germanIban } from './support/csv-fixtures';
import { call, expect, openWithDemo, shot, test } from './support/journey';

test('after payouts the balances drop and the chart shows one point per snapshot taken', async ({ page, desk }) => {
  test.setTimeout(60_000);
  await openWithDemo(page, desk, 'balances');
  const card = page.getByTestId('balance-EUR');
  await expect(card.getByTestId('balance-available')).toContainText('100,000.00');
  // Opening Balances on a new profile asks the gateway once: one snapshot per currency, one point each.
  const eurSeries = page.getByTestId('chart-series-EUR');
  await expect(eurSeries).toHaveAttribute('data-points', '1');

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
  // Wait until the sandbox has settled both (each read is one more snapshot; the funding check of each
  // payout reads the balance too), then ask again from the screen.
  await expect
    .poll(
      async () => {
        return (await call<BalanceView[]>(desk.handlers, 'balances:refresh')).find((b) => b.currencyCode === 'EUR')?.available.amount;
      },
      { timeout: 30_000 },
    )
    .not.toBe('100000.00');
  await page.getByTestId('refresh-balances').click();
  await expect(card.getByTestId('balance-available')).not.toContainText('100,000.00');

  // The chart is given every snapshot: one series per currency the gateway reports, one point per read.
  const chart = page.getByTestId('balance-chart');
  await expect(chart.locator('canvas')).toBeVisible();
  const currencies = (await call<BalanceView[]>(desk.handlers, 'balances:get')).map((b) => b.currencyCode);
  await expect(chart).toHaveAttribute('data-series', String(currencies.length));
  // Every read the journal kept is a point: compare with what it stored (the count depends on how many reads the
  // settling took), and at least the first read, one refresh while settling and the one from the screen.
  const stored = async (currencyCode: string) => (await call<unknown[]>(desk.handlers, 'balances:series', { currencyCode })).length;
  for (const code of currencies) {
    const series = page.getByTestId(`chart-series-${code}`);
    await expect.poll(async () => (await series.getAttribute('data-points')) === String(await stored(code)), { timeout: 10_000 }).toBe(true);
    expect(await stored(code)).toBeGreaterThanOrEqual(3);
  }
  // Its latest EUR point is the balance on the card: 100,000 less 3,500 paid out and 18.00 fees (0.25 + 0.5 % each).
  const available = (await card.getByTestId('balance-available').textContent())?.trim() ?? '';
  expect(available).not.toBe('');
  await expect(eurSeries).toContainText(`latest ${available}`);
  const series = await call<{ available: { amount: string } }[]>(desk.handlers, 'balances:series', { currencyCode: 'EUR' });
  expect(series.at(-1)?.available.amount).toBe('96482.00');
  // The tooltip names the exact amount the journal holds, formatted like the card.
  const box = await chart.boundingBox();
  if (!box) throw new Error('chart not laid out');
  await page.mouse.move(box.x + box.width - 30, box.y + box.height / 2);
  await expect(chart).toContainText(available);
  await page.mouse.move(0, 0);
  await shot(page, 'balances');
});
