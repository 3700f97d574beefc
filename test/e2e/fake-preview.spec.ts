import { expect, test } from '@playwright/test';
import type { Channel, IpcHandlerMap } from '../../contract/api';
import { APP_URL, bridgePage } from './support/bridge-page';
import { createFakeDesk } from './support/fake-desk';

test('screens render against the stand-in desk without page errors', async ({ page }) => {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => { if (m.type() === 'error' && !m.text().includes('frame-ancestors')) errors.push(m.text()); });
  await bridgePage(page, { handlers: createFakeDesk({ historyRows: 5000 }) });
  await page.goto(APP_URL);
  await page.getByTestId('create-demo').click();
  await expect(page.getByTestId('key-fingerprint')).toBeVisible();
  await page.getByTestId('test-connection').click();
  await expect(page.getByTestId('connected-channel')).toHaveText('Demo Store');
  await page.screenshot({ path: 'test-results/fake/first-run.png' });
  for (const s of ['balances', 'payouts/new', 'batches', 'history', 'payins', 'settings']) {
    await page.goto(`${APP_URL}#/${s}`);
    await page.waitForTimeout(700);
    await page.screenshot({ path: `test-results/fake/${s.replace('/', '-')}.png` });
  }
  expect(errors).toEqual([]);
});

test('recent payins, keys and profiles show loading, error (with a working Retry) and empty states', async ({ page }) => {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  const fake = createFakeDesk();
  // Channels made to fail, and one held open to see the loading state.
  const broken = new Set<Channel>();
  let release: (() => void) | undefined;
  const handlers: Record<string, (args: unknown) => Promise<unknown>> = { ...fake };
  for (const channel of ['history:query', 'keys:list', 'profiles:list'] as const) {
    const real = fake[channel] as (args: unknown) => Promise<unknown>;
    handlers[channel] = async (args: unknown) => {
      if (channel === 'history:query' && release === undefined && !broken.has(channel)) {
        await new Promise<void>((r) => (release = r));
      }
      if (broken.has(channel)) return { ok: false, error: { code: 'NETWORK', message: `${channel} failed on purpose`, retryable: true } };
      return real(args);
    };
  }
  await bridgePage(page, { handlers: handlers as IpcHandlerMap });
  await page.goto(APP_URL);
  await page.getByTestId('create-demo').click();
  await expect(page.getByTestId('key-fingerprint')).toBeVisible();

  const recent = page.getByTestId('payin-recent-state');
  await page.goto(`${APP_URL}#/payins`);
  await expect(recent.getByTestId('state-loading')).toBeVisible();
  release?.();
  await expect(recent.getByTestId('state-empty')).toContainText('No payin yet');

  broken.add('history:query');
  await page.reload();
  await expect(recent.getByTestId('state-error')).toContainText('history:query failed on purpose');
  await page.screenshot({ path: 'test-results/fake/payins-recent-error.png' });
  broken.delete('history:query');
  await recent.getByTestId('state-error').getByRole('button', { name: 'Retry' }).click();
  await expect(recent.getByTestId('state-empty')).toBeVisible();

  broken.add('profiles:list');
  broken.add('keys:list');
  await page.goto(`${APP_URL}#/settings`);
  const profiles = page.getByTestId('settings-profiles');
  // The panel reads the list again when it opens: a failure shows with a Retry that works.
  await expect(profiles.getByTestId('state-error')).toContainText('profiles:list failed on purpose');
  broken.delete('profiles:list');
  await profiles.getByTestId('state-error').getByRole('button', { name: 'Retry' }).click();
  await expect(profiles.getByTestId('profiles-list')).toContainText('Demo');

  await page.getByTestId('tab-keys').click();
  const keys = page.getByTestId('settings-keys');
  await expect(keys.getByTestId('state-error')).toContainText('keys:list failed on purpose');
  // No "Generate key" while the list is unknown: the profile may well have one.
  await expect(keys.getByRole('button', { name: /Generate key|Rotate key/ })).toHaveCount(0);
  await expect(page.locator('.v-window__container').first()).not.toHaveAttribute('style', /height/);
  await page.screenshot({ path: 'test-results/fake/settings-keys-error.png' });
  broken.delete('keys:list');
  await keys.getByTestId('state-error').getByRole('button', { name: 'Retry' }).click();
  await expect(keys.getByTestId('key-fingerprint')).toHaveText('ab:cd:ef');
  await expect(keys.getByTestId('rotate-key')).toBeVisible();
  expect(errors).toEqual([]);
});
