import { APP_URL } from './support/bridge-page';
import { expect, shot, test } from './support/journey';

test('a new user creates the Demo profile in one click, sees the key and connects to the sandbox', async ({ page, desk }) => {
  await page.goto(APP_URL);
  await expect(page).toHaveURL(/#\/welcome/);
  await expect(page.getByTestId('demo-card')).toBeVisible();
  await shot(page, 'first-run');

  await page.getByTestId('create-demo').click();
  const fingerprint = page.getByTestId('key-fingerprint');
  await expect(fingerprint).toHaveText(/^([0-9a-f]{2}:){31}[0-9a-f]{2}$/i);
  await expect(page.getByTestId('public-key-pem')).toContainText('BEGIN PUBLIC KEY');
  await expect(page.getByTestId('env-TEST')).toBeVisible();

  // The key letter is a file the user can save and hand to the gateway.
  const download = page.waitForEvent('download');
  await page.getByTestId('save-key-letter').click();
  expect((await download).suggestedFilename()).toMatch(/letter/i);

  await page.getByTestId('test-connection').click();
  await expect(page.getByTestId('connected-channel')).toHaveText('Demo Store');
  await expect(page.getByTestId('channel-name')).toContainText('Demo Store');
  await expect(page.getByTestId('connection-state')).toHaveText('online');
  await shot(page, 'first-run-key');

  await page.getByTestId('finish-setup').click();
  await expect(page.getByTestId('balance-EUR')).toBeVisible();
  await expect(page.getByTestId('balance-EUR').getByTestId('balance-available')).toContainText('EUR');
  expect(desk.home).toBeTruthy();
});

test('a connection failure is shown with the exact reason', async ({ page, desk }) => {
  await page.goto(APP_URL);
  await page.getByTestId('create-demo').click();
  await expect(page.getByTestId('key-fingerprint')).toBeVisible();
  await desk.stopGateway();
  await page.getByTestId('test-connection').click();
  await expect(page.getByTestId('connection-error')).toBeVisible();
  await expect(page.getByTestId('connection-error')).toContainText(/reach|connect|refused|network/i);
});
