// Settings → Team database: a profile is pointed at a team PostgreSQL (a throwaway cluster started for
// this spec). The password is typed once and afterwards shown only as "saved in the keychain"; a port
// nobody listens on gives a clear error; the real database answers with its versions.
import { createServer } from 'node:net';
import { startCluster, freshDatabase, type Cluster } from '../integration/postgres/cluster';
import { teamPasswordAccount } from '../../main/keys/team-password';
import { PG_SCHEMA_VERSION } from '../../main/store/postgres/migrations';
import { expect, openWithDemo, selectOption, shot, test } from './support/journey';

let cluster: Cluster | undefined;
test.beforeAll(async () => {
  cluster = await startCluster();
});
test.afterAll(async () => {
  await cluster?.stop();
});

function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

test('a profile is pointed at a team database; the password stays in the keychain', async ({ page, desk }) => {
  test.setTimeout(120_000);
  const dbUrl = await freshDatabase(cluster!.url);
  await openWithDemo(page, desk, 'settings');
  await page.getByTestId('tab-team').click();
  const card = page.getByTestId('settings-team');
  await expect(card).toContainText('keeps its own journal');
  await expect(page.getByTestId('team-password-state')).toHaveText(/No password/);
  await expect(page.getByTestId('team-check')).toBeDisabled();

  // A password in the URL is refused with where it goes instead.
  await page.getByTestId('team-url').getByRole('textbox').fill('postgres://postgres:hunter2@127.0.0.1:5432/payouts');
  await page.getByTestId('team-save').click();
  await expect(page.getByText('the password goes in the keychain, not in the URL').first()).toBeVisible();

  const port = await closedPort();
  await page.getByTestId('team-url').getByRole('textbox').fill(`postgres://postgres@127.0.0.1:${port}/payouts`);
  await selectOption(page, 'team-tls', /^disable \(not encrypted\)/);
  await expect(page.getByTestId('team-tls-warning')).toContainText('Not encrypted');
  await page.getByTestId('team-password').getByRole('textbox').fill('team-pw-e2e');
  await page.getByTestId('team-save').click();
  await expect(page.getByTestId('team-password-state')).toHaveText(/Password saved in the keychain/);
  await expect(page.getByTestId('team-password').getByRole('textbox')).toHaveValue('');
  const profileId = desk.runtime.ctx.profiles.currentId()!;
  expect(await desk.runtime.ctx.keyStore.get(teamPasswordAccount(profileId))).toBe('team-pw-e2e');

  await page.getByTestId('team-check').click();
  await expect(page.getByTestId('team-check-result')).toContainText(`nothing accepts connections on port ${port} of 127.0.0.1`);

  // The right database: saved without typing the password again (the saved one is kept).
  await page.getByTestId('team-url').getByRole('textbox').fill(dbUrl);
  // The check uses what is saved: with unsaved changes it waits for Save.
  await expect(page.getByTestId('team-check')).toBeDisabled();
  await page.getByTestId('team-save').click();
  await expect(page.getByTestId('team-password-state')).toHaveText(/Password saved in the keychain/);
  await page.getByTestId('team-check').click();
  const result = page.getByTestId('team-check-result');
  await expect(result).toContainText(/PostgreSQL \d+/);
  await expect(result).toContainText(`team schema version ${PG_SCHEMA_VERSION}`);
  await expect(page.locator('body')).not.toContainText('team-pw-e2e');
  // The guide's picture without the notice of the refused URL over it.
  const close = page.getByTestId('snackbar').getByRole('button', { name: 'Close' }).first();
  for (let i = 0; i < 10 && (await close.isVisible()); i++) await close.click();
  await shot(page, 'settings-team-database');
});
