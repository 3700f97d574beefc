import { expect, test } from '@playwright/test';
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
