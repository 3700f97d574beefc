import { expect, openWithDemo, selectOption, shot, test } from './support/journey';

test('a payin is created, paid in the sandbox and shown as SUCCESS with its account data', async ({ page, desk }) => {
  test.setTimeout(90_000);
  await openWithDemo(page, desk, 'payins');
  await expect(page.getByTestId('payin-recent-state').getByTestId('state-empty')).toContainText('No payin yet');
  await selectOption(page, 'payin-currency', 'EUR');
  await page.getByTestId('payin-amount-input').locator('input').fill('49.90');
  await page.getByTestId('payin-options').click();
  await expect(page.getByTestId('payin-method')).toContainText('VAPAY');
  await page.getByTestId('payin-customer-name').locator('input').fill('Grace Hopper');
  await page.getByTestId('payin-customer-account').locator('input').fill('DE89370400440532013000');
  await page.getByTestId('payin-customer-email').locator('input').fill('grace@example.com');
  await page.getByTestId('payin-create').click();

  const card = page.getByTestId('payin-card');
  await expect(card.getByTestId('payin-account-number')).not.toBeEmpty();
  await expect(card.getByTestId('payin-bank')).toContainText('VaPay');
  await expect(card.getByTestId('payin-reference')).not.toHaveText('—');
  await expect(card.getByTestId('payin-amount')).toContainText('49.90');
  await expect(card.getByTestId('payin-status')).toHaveText('PENDING');
  await expect(page.getByTestId('payin-recent')).toContainText('Grace Hopper');
  await shot(page, 'payins');

  await page.getByTestId('payin-mark-paid').click();
  await page.getByTestId('payin-refresh').click();
  await expect(card.getByTestId('payin-status')).toHaveText('SUCCESS', { timeout: 30_000 });
  await page.getByTestId('payin-load-account-data').click();
  await expect(page.getByTestId('payin-account-data')).toContainText('Grace Hopper');

  await page.getByTestId('payin-share').click();
  const dialog = page.getByTestId('payin-share-dialog');
  await expect(dialog.getByTestId('payin-share-token')).toHaveText(/^[\w-]+\.[\w-]+\.[\w-]+$/);
  await shot(page, 'payin-share');
  await dialog.getByRole('button', { name: 'Done' }).click();
  await expect(page.getByTestId('payin-share-token')).toHaveCount(0);
});
