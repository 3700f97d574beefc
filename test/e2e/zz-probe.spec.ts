import { expect, openWithDemo, selectOption, test } from './support/journey';
test('probe', async ({ page, desk }) => {
  await openWithDemo(page, desk, 'payouts/new');
  await selectOption(page, 'payout-currency', /^EUR/);
  await page.getByTestId('payout-amount').locator('input').fill('1250.50');
  await page.getByTestId('payout-account-name').locator('input').fill('Ada Lovelace');
  await page.getByTestId('payout-account-number').locator('input').fill('DE89370400440532013000');
  await page.getByTestId('payout-email').locator('input').fill('ada@example.com');
  await expect(page.getByTestId('review-payout')).toBeEnabled();
  await page.getByTestId('review-payout').click();
  const d = page.getByTestId('payout-review');
  await expect(d).toBeVisible();
  console.log('SEND', await d.getByTestId('send-payout').getAttribute('class'));
  console.log('BACK', await d.getByRole('button', { name: 'Back' }).getAttribute('class'));
});
