import { call, expect, openWithDemo, shot, test } from './support/journey';
import type { PaymentDetail } from '../../contract/api';

test("a failing payout's reason is shown in History", async ({ page, desk }) => {
  await openWithDemo(page, desk, 'balances');
  const payout = {
    amount: '75.00',
    currencyCode: 'EUR',
    accountName: 'Closed Account Ltd',
    accountNumber: 'DE00000000000000000000',
    paymentOperatorCode: await desk.operatorFor('EUR'),
    emailAddress: 'closed@example.com',
  };
  const preview = await call<{ preview: { idPayout: string } | null; issues: unknown[] }>(desk.handlers, 'payouts:validate', payout);
  expect(preview.issues).toEqual([]);
  const created = await call<PaymentDetail>(desk.handlers, 'payouts:create', { ...payout, idPayout: preview.preview?.idPayout });

  await page.goto(page.url().replace(/#.*$/, '#/history'));
  await page.getByTestId('history-search').locator('input').fill(created.id);
  const row = page.getByTestId('history-row');
  await expect(row).toHaveCount(1);
  await expect(row.getByTestId('history-status')).toHaveText('FAILED', { timeout: 30_000 });
  await row.click();
  const drawer = page.getByTestId('history-drawer');
  await expect(drawer.getByTestId('detail-status')).toHaveText('FAILED');
  await expect(drawer.getByTestId('detail-failure')).not.toBeEmpty();
  await expect(drawer.getByTestId('detail-timeline')).toContainText('FAILED');
  await shot(page, 'history-detail');
});
