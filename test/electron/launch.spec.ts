// The built app in the real Electron binary: the window and its isolation, the Demo profile in one
// click, one payout to its final status. Each test starts the app on a fresh data folder.
// Where Electron cannot run here, every test is skipped with the reason (printed by global-setup.ts).
import { expect, test as base } from '@playwright/test';
import { IPC_METHODS } from '../../contract/api';
import { electronRequired, launchDesk, selectOption, whyNotRunnable, type LaunchedDesk } from './support/electron-app';

const notRunnable = whyNotRunnable();

const test = base.extend<{ desk: LaunchedDesk }>({
  // eslint-disable-next-line no-empty-pattern -- Playwright reads fixture dependencies from this pattern
  desk: async ({}, use, testInfo) => {
    if (notRunnable) throw new Error(`PAYOUT_DESK_REQUIRE_ELECTRON=1 but Electron cannot run here: ${notRunnable}`);
    const desk = await launchDesk();
    try {
      await use(desk);
    } finally {
      if (testInfo.status !== testInfo.expectedStatus && desk.output.length)
        await testInfo.attach('electron-main-output', { body: desk.output.slice(-200).join('\n'), contentType: 'text/plain' });
      await desk.close();
    }
    expect(desk.pageErrors, 'no uncaught errors in the page').toEqual([]);
  },
});

test.skip(notRunnable !== null && !electronRequired, `Electron launch tests skipped: ${notRunnable}`);

test('the window opens on the first-run screen, with window.desk and no Node in the page', async ({ desk }) => {
  const { page } = desk;
  // Served from the app's own protocol, never file:// or a dev server.
  await expect(page).toHaveURL(/^app:\/\/desk\/index\.html#\/welcome$/);

  // The app shell: the bar and every screen in the drawer (disabled until a profile exists).
  await expect(page.locator('.v-app-bar')).toContainText('Payout Desk');
  const nav = page.getByRole('navigation');
  for (const title of ['Balances', 'New payout', 'Batches', 'History', 'Payins', 'Settings']) {
    await expect(nav.getByText(title, { exact: true })).toBeVisible();
  }
  // The first-run screen.
  await expect(page.getByRole('heading', { name: 'Welcome to Payout Desk' })).toBeVisible();
  await expect(page.getByTestId('demo-card')).toBeVisible();
  await expect(page.getByTestId('real-card')).toBeVisible();

  // The preload exposes the contract and nothing else.
  const globals = await page.evaluate(() => {
    const w = window as unknown as Record<string, unknown>;
    const bridge = w['desk'];
    return {
      desk: typeof bridge,
      areas: bridge && typeof bridge === 'object' ? Object.keys(bridge).sort() : [],
      require: typeof w['require'],
      process: typeof w['process'],
      ipcRenderer: typeof w['ipcRenderer'],
      electron: typeof w['electron'],
      module: typeof w['module'],
      Buffer: typeof w['Buffer'],
    };
  });
  expect(globals).toEqual({
    desk: 'object',
    areas: [...Object.keys(IPC_METHODS), 'events'].sort(),
    require: 'undefined',
    process: 'undefined',
    ipcRenderer: 'undefined',
    electron: 'undefined',
    module: 'undefined',
    Buffer: 'undefined',
  });
});

test('the Demo profile is created in one click and the app bar shows the TEST environment', async ({ desk }) => {
  const { page } = desk;
  await page.getByTestId('create-demo').click();
  await expect(page.getByTestId('key-fingerprint')).toHaveText(/^([0-9a-f]{2}:){31}[0-9a-f]{2}$/i, { timeout: 30_000 });
  await expect(page.getByTestId('app-bar-status').getByTestId('env-TEST')).toBeVisible();
  await expect(page.getByTestId('app-bar-status').getByTestId('profile-name')).not.toBeEmpty();
});

test('a single payout is reviewed, confirmed, sent and followed to SUCCESS', async ({ desk }) => {
  const { page } = desk;
  await page.getByTestId('create-demo').click();
  await expect(page.getByTestId('app-bar-status').getByTestId('env-TEST')).toBeVisible({ timeout: 30_000 });
  await page.getByTestId('finish-setup').click();
  await expect(page).toHaveURL(/#\/balances$/);
  await page.getByRole('navigation').getByText('New payout', { exact: true }).click();
  await expect(page).toHaveURL(/#\/payouts\/new$/);

  await selectOption(page, 'payout-currency', /^EUR/);
  await page.getByTestId('payout-amount').locator('input').fill('12.345');
  await page.getByTestId('payout-amount').locator('input').blur();
  // Main's validation, over IPC: EUR has two decimals.
  await expect(page.getByTestId('payout-amount')).toContainText(/decimal/i);
  await page.getByTestId('payout-amount').locator('input').fill('1250.50');
  await page.getByTestId('payout-account-name').locator('input').fill('Ada Lovelace');
  await page.getByTestId('payout-account-number').locator('input').fill('DE89370400440532013000');
  await page.getByTestId('payout-email').locator('input').fill('ada@example.com');
  await expect(page.getByTestId('review-payout')).toBeEnabled();

  await page.getByTestId('review-payout').click();
  const review = page.getByTestId('payout-review');
  await expect(review.getByTestId('review-amount')).toContainText('1,250.50');
  await expect(review.getByTestId('review-body')).toContainText('DE89370400440532013000');
  await expect(page.getByTestId('send-payout')).toBeDisabled();
  await page.getByTestId('confirm-payout').click();
  await page.getByTestId('send-payout').click();

  await expect(page).toHaveURL(/#\/payouts\/[A-Za-z0-9_-]+$/);
  await expect(page.getByTestId('detail-status')).toHaveText('SUCCESS', { timeout: 60_000 });
  await expect(page.getByTestId('detail-amount')).toContainText('1,250.50');
  await expect(page.getByTestId('detail-timeline')).toContainText('SUCCESS');
});
