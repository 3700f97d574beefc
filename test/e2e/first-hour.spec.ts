import type { ProfileList, ProfileView } from '../../contract/api';
import { call, expect, openWithDemo, selectOption, test } from './support/journey';

test('a payout above the available balance is refused on the New payout screen and cannot be reviewed', async ({ page, desk }) => {
  await openWithDemo(page, desk, 'payouts/new');
  await selectOption(page, 'payout-currency', /^EUR/);
  await page.getByTestId('payout-amount').locator('input').fill('99999999999.00');
  await page.getByTestId('payout-account-name').locator('input').fill('Ada Lovelace');
  await page.getByTestId('payout-account-number').locator('input').fill('DE89370400440532013000');
  await page.getByTestId('payout-email').locator('input').fill('ada@example.com');
  // Shown at once, without leaving the amount field first.
  const refusal = page.getByTestId('payout-money-refusal');
  await expect(refusal).toContainText('Not enough funds for this payout');
  await expect(refusal).toContainText(/EUR short by 99999\d{6}\.\d\d \(needs 99999999999\.00, available \d+\.\d\d\)/);
  await expect(page.getByTestId('review-payout')).toBeDisabled();

  await page.getByTestId('payout-amount').locator('input').fill('12.50');
  await expect(refusal).toBeHidden();
  await expect(page.getByTestId('review-payout')).toBeEnabled();
  expect((await desk.sandboxState()).payoutCount).toBe(0);
});

test('profiles are edited and removed in Settings; removing the current one hands over to the next, the last one to the welcome screen', async ({ page, desk }) => {
  await openWithDemo(page, desk, 'settings');
  const other = await call<ProfileView>(desk.handlers, 'profiles:create', { name: 'Shop EU', baseUrl: 'http://127.0.0.1:9', merchantCode: 'SHOP-EU', environment: 'TEST' });
  await page.reload();

  await page.getByTestId(`profile-edit-${other.id}`).click();
  const dialog = page.getByTestId('profile-edit-dialog');
  await dialog.getByTestId('profile-edit-base-url').locator('input').fill('http://127.0.0.1:8799');
  await dialog.getByTestId('profile-edit-api-version').locator('input').fill('3');
  await dialog.getByTestId('profile-edit-rate').locator('input').fill('25');
  await dialog.getByTestId('profile-edit-save').click();
  await expect(dialog).toBeHidden();
  await expect(page.getByTestId('profiles-list')).toContainText('SHOP-EU · http://127.0.0.1:8799 · API v3 · 25 req/s');

  // The current (demo) profile goes, its journal kept: the other profile becomes current.
  const { activeProfileId: demoId } = await call<ProfileList>(desk.handlers, 'profiles:list');
  await page.getByTestId(`profile-remove-${demoId}`).click();
  await page.getByTestId('profile-remove-confirm-button').click();
  await expect(page.getByTestId('profiles-list')).not.toContainText('Demo');
  expect((await call<ProfileList>(desk.handlers, 'profiles:list')).activeProfileId).toBe(other.id);

  // Deleting the journal needs the profile id typed in.
  await page.getByTestId(`profile-remove-${other.id}`).click();
  await page.getByTestId('profile-remove-delete-journal').locator('input').check();
  await expect(page.getByTestId('profile-remove-confirm-button')).toBeDisabled();
  await page.getByTestId('profile-remove-confirm').locator('input').fill(other.id);
  await page.getByTestId('profile-remove-confirm-button').click();
  await expect(page).toHaveURL(/#\/welcome/);
  expect((await call<ProfileList>(desk.handlers, 'profiles:list')).profiles).toEqual([]);
});
