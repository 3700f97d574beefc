// Every screen at the two window sizes finance desks use (a 1280×800 laptop, a 1920×1080 monitor), light and dark,
// with a few payouts in the journal: nothing runs off the side (no horizontal scrolling of the page), and nothing is
// cut at the right edge. Each screen is saved under test-results/screens/ for a person to look at.
import { mkdir } from 'node:fs/promises';
import { settled } from './support/axe';
import { expect, openWithDemo, sendPayout, test } from './support/journey';

const SCREENS = ['Overview', 'Balances', 'New payout', 'Batches', 'Approvals', 'Payees', 'History', 'Statements', 'Calendar', 'Payins', 'People', 'Settings'];
const SIZES = [
  { width: 1280, height: 800 },
  { width: 1920, height: 1080 },
];

test('every screen fits 1280×800 and 1920×1080 in light and dark, without scrolling sideways', async ({ page, desk }) => {
  test.setTimeout(240_000);
  await openWithDemo(page, desk);
  await sendPayout(desk, '125.00', 'EUR', 'Alice Alpha', '370400440532011111');
  await sendPayout(desk, '80.40', 'EUR', 'Dave Delta', '370400440532010000');
  await mkdir('test-results/screens', { recursive: true });
  const found: string[] = [];
  for (const size of SIZES) {
    await page.setViewportSize(size);
    for (const theme of ['light', 'dark']) {
      if (theme === 'dark') await page.getByTestId('theme-toggle').click();
      for (const screen of SCREENS) {
        await page.getByRole('link', { name: screen, exact: true }).click();
        await expect(page.locator('h1')).toHaveText(screen);
        await expect(page.locator('.v-progress-circular, .v-data-table-progress')).toHaveCount(0, { timeout: 20_000 });
        await settled(page);
        const overflow = await page.evaluate(() => {
          const root = document.scrollingElement ?? document.documentElement;
          // Elements whose right edge lies beyond the window: cut off, or the cause of a sideways scroll.
          const cut = [...document.querySelectorAll('main *')]
            .filter((e) => {
              const r = e.getBoundingClientRect();
              // A closed side panel waits off-screen on purpose.
              if (e.closest('.v-navigation-drawer:not(.v-navigation-drawer--active)')) return false;
              return r.width > 0 && r.right > window.innerWidth + 1 && getComputedStyle(e).position !== 'fixed';
            })
            .slice(0, 3)
            .map((e) => `${e.tagName.toLowerCase()}${e.getAttribute('data-testid') ? `[${e.getAttribute('data-testid')}]` : ''}.${[...e.classList].slice(0, 2).join('.')}`);
          return { scrolls: root.scrollWidth > root.clientWidth + 1, cut };
        });
        if (overflow.scrolls || overflow.cut.length) found.push(`${size.width}×${size.height} ${theme} ${screen}: ${overflow.scrolls ? 'scrolls sideways; ' : ''}${overflow.cut.join(', ')}`);
        await page.screenshot({ path: `test-results/screens/${size.width}-${theme}-${screen.replace(/\s+/g, '-').toLowerCase()}.png` });
      }
      if (theme === 'dark') await page.getByTestId('theme-toggle').click();
    }
  }
  expect(found, found.join('\n')).toEqual([]);
});
