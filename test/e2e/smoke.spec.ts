import { expect, test } from '@playwright/test';
import { RENDERER_ORIGIN, serveRenderer } from './support/serve-renderer';

test('the built renderer shows the app shell with every screen in the drawer', async ({ page }) => {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await serveRenderer(page);
  await page.goto(`${RENDERER_ORIGIN}/index.html`);
  const nav = page.getByRole('navigation');
  for (const title of ['Overview', 'Balances', 'New payout', 'Batches', 'Payees', 'History', 'Statements', 'Payins', 'Settings']) {
    await expect(nav.getByText(title, { exact: true })).toBeVisible();
  }
  await page.screenshot({ path: 'test-results/screens/shell.png' });
  expect(errors).toEqual([]);
});
