// Accessibility of every screen (issue 29): axe-core's rules on the page as a person sees it with the Demo
// profile, in light and dark theme. A serious or critical violation fails the test, named with its elements.
import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { expect, openWithDemo, test } from './support/journey';

/** The screens of the navigation drawer, by the name of their link. */
const SCREENS = ['Overview', 'Balances', 'New payout', 'Batches', 'Approvals', 'Payees', 'History', 'Payins', 'People', 'Settings'];

async function seriousViolations(page: Page): Promise<string[]> {
  const { violations } = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.slice(0, 4).map((n) => `${n.target.join(' ')} [${n.html.slice(0, 120)}] ${(n.failureSummary ?? '').replace(/\s+/g, ' ').slice(0, 160)}`).join(' | ')}`);
}

test('every screen, light and dark, has no serious or critical axe violation', async ({ page, desk }) => {
  // 18 screens, each read whole by axe: about 45 s alone, longer beside another journey on a 2-core machine.
  test.setTimeout(180_000);
  await openWithDemo(page, desk);
  const found: string[] = [];
  for (const theme of ['light', 'dark']) {
    if (theme === 'dark') await page.getByTestId('theme-toggle').click();
    for (const screen of SCREENS) {
      await page.getByRole('link', { name: screen, exact: true }).click();
      await expect(page.locator('h1')).toHaveText(screen);
      // The screen once settled. (Vuetify draws a busy button's spinner without a name of its own; the button has one.)
      await expect(page.locator('.v-progress-circular, .v-data-table-progress')).toHaveCount(0);
      // Transitions finished: a screen fading in is lighter than the screen a person reads.
      await page.evaluate(() =>
        Promise.all(
          document
            .getAnimations()
            .filter((a) => a.effect?.getTiming().iterations !== Infinity)
            // A cancelled animation rejects its promise: it is over all the same.
            .map((a) => a.finished.catch(() => undefined)),
        ),
      );
      for (const v of await seriousViolations(page)) found.push(`${theme} ${screen}: ${v}`);
    }
  }
  expect(found, found.join('\n')).toEqual([]);
});
