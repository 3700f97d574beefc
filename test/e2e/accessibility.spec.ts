// Accessibility of every screen (issue 29): axe-core's rules on the page as a person sees it with the Demo
// profile, in light and dark theme. A serious or critical violation fails the test, named with its elements.
import { seriousViolations, settled } from './support/axe';
import { expect, openWithDemo, test } from './support/journey';

/** The screens of the navigation drawer, by the name of their link. */
const SCREENS = ['Overview', 'Balances', 'New payout', 'Batches', 'Approvals', 'Payees', 'History', 'Statements', 'Calendar', 'Payins', 'People', 'Settings'];


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
      await settled(page);
      for (const v of await seriousViolations(page)) found.push(`${theme} ${screen}: ${v}`);
    }
  }
  expect(found, found.join('\n')).toEqual([]);
});
