// Keyboard shortcuts and empty states (issue 29). There is no Electron menu in this browser: the page answers
// the keys of the one table (contract/shortcuts.ts) itself, running the same commands as the menu's items.
// The empty screens of a fresh profile say what they are and what to do next, with the button that does it.
import type { Page } from '@playwright/test';
import { acceleratorText, SHORTCUTS } from '../../contract/shortcuts';
import { addFirstPerson } from './support/people';
import { byTestId, expectAccessible, seriousViolations, settled } from './support/axe';
import { expect, openWithDemo, shot, test } from './support/journey';


async function closeNotices(page: Page): Promise<void> {
  const close = page.getByTestId('snackbar').getByRole('button', { name: 'Close' }).first();
  for (let i = 0; i < 10 && (await close.isVisible()); i++) await close.click();
}

const heading = (page: Page) => page.locator('h1');

test('Ctrl+digits (and Ctrl+,) go to the screens; Ctrl+N and Ctrl+F put the cursor in Amount and in the History search, also from a field; F5 refreshes without reloading', async ({ page, desk }) => {
  await openWithDemo(page, desk, 'balances');
  await expect(page.getByTestId('balance-EUR')).toBeVisible();

  const screens: [string, RegExp, string][] = [
    ['Control+3', /#\/payouts\/new$/, 'New payout'],
    ['Control+4', /#\/batches$/, 'Batches'],
    ['Control+5', /#\/approvals$/, 'Approvals'],
    ['Control+6', /#\/payees$/, 'Payees'],
    ['Control+7', /#\/history$/, 'History'],
    ['Control+8', /#\/payins$/, 'Payins'],
    ['Control+9', /#\/people$/, 'People'],
    ['Control+,', /#\/settings$/, 'Settings'],
    ['Control+1', /#\/overview$/, 'Overview'],
    ['Control+2', /#\/balances$/, 'Balances'],
  ];
  for (const [keys, url, title] of screens) {
    await page.keyboard.press(keys);
    await expect(page, keys).toHaveURL(url);
    await expect(heading(page)).toHaveText(title);
  }
  // New payout: the screen, the cursor in Amount.
  await page.keyboard.press('Control+n');
  await expect(page).toHaveURL(/#\/payouts\/new$/);
  const amount = page.getByTestId('payout-amount').locator('input');
  await expect(amount).toBeFocused();
  await page.keyboard.type('12.50');
  await expect(amount).toHaveValue('12.50');

  // Find in History, pressed while typing in Amount: the History search field, ready for typing.
  await page.keyboard.press('Control+f');
  await expect(page).toHaveURL(/#\/history$/);
  const search = page.getByTestId('history-search').locator('input');
  await expect(search).toBeFocused();
  await page.keyboard.type('nobody by this name');
  await expect(search).toHaveValue('nobody by this name');
  // Again from the field: what it holds is selected, so typing replaces it.
  await page.keyboard.press('Control+f');
  await page.keyboard.type('Jane');
  await expect(search).toHaveValue('Jane');
  // A screen shortcut from inside a field works as the menu's would.
  await page.keyboard.press('Control+2');
  await expect(page).toHaveURL(/#\/balances$/);

  // F5: Balances asks the gateway again; the page is not reloaded (its state survives).
  const card = page.getByTestId('balance-EUR').getByTestId('balance-available');
  await expect(card).toContainText('100,000.00');
  await page.evaluate(() => ((window as unknown as Record<string, unknown>)['__notReloaded'] = true));
  const merchant = Object.keys(desk.sandbox().state().balances)[0];
  if (!merchant) throw new Error('the sandbox has no merchant');
  desk.sandbox().fund(merchant, 'EUR', 123_45);
  await page.keyboard.press('F5');
  await expect(card).toContainText('100,123.45');
  expect(await page.evaluate(() => (window as unknown as Record<string, unknown>)['__notReloaded'])).toBe(true);
});

test('Help › Keyboard shortcuts lists the table, opens from the keyboard, the app bar and About, holds the other shortcuts while open, and passes axe', async ({ page, desk }) => {
  await openWithDemo(page, desk, 'balances');
  const dialog = page.getByTestId('shortcuts-dialog');

  await page.keyboard.press('Control+/');
  await expect(dialog).toBeVisible();
  for (const s of SHORTCUTS) {
    const row = dialog.getByTestId(`shortcut-${s.command}`);
    await expect(row).toContainText(acceleratorText(s.accelerator, false));
    await expect(row).toContainText(s.label);
  }
  await expect(dialog.locator('tr')).toHaveCount(SHORTCUTS.length);

  // While it is open the other shortcuts wait: nothing navigates behind it.
  await page.keyboard.press('Control+4');
  await expect(dialog).toBeVisible();
  await expect(page).toHaveURL(/#\/balances$/);

  await expectAccessible(page, byTestId('shortcuts-dialog'));
  await shot(page, 'keyboard-shortcuts');
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();

  // Dark theme: the same dialog, from the app bar's button.
  await page.getByTestId('theme-toggle').click();
  await page.getByTestId('shortcuts-open').click();
  await expect(dialog).toBeVisible();
  await expectAccessible(page, byTestId('shortcuts-dialog'));
  await page.getByTestId('shortcuts-close').click();
  await expect(dialog).toBeHidden();

  // From About (Help › About in the menu): About gives way to the list.
  desk.events.emit('menuCommand', { command: 'about' });
  await expect(page.getByTestId('about-dialog')).toBeVisible();
  await page.getByTestId('about-shortcuts').click();
  await expect(dialog).toBeVisible();
  await expect(page.getByTestId('about-dialog')).toBeHidden();
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();

  // The menu's items send the same commands (Go › History, Help › Keyboard shortcuts).
  desk.events.emit('menuCommand', { command: 'go-history' });
  await expect(page).toHaveURL(/#\/history$/);
  desk.events.emit('menuCommand', { command: 'shortcuts' });
  await expect(dialog).toBeVisible();
});

test('Ctrl+L locks the unlocked person, as the app bar’s Lock does; with nobody set up it says there is nothing to lock', async ({ page, desk }) => {
  test.setTimeout(120_000);
  await openWithDemo(page, desk, 'people');
  const snackbar = page.getByTestId('snackbar');
  await page.keyboard.press('Control+l');
  await expect(snackbar).toContainText('nothing to lock');
  await closeNotices(page);

  await addFirstPerson(page, 'Ada Admin', 'ada-admin-passphrase');
  await expect(page.getByTestId('session-lock')).toBeVisible();
  await page.keyboard.press('Control+l');
  await expect(page.getByTestId('session-who')).toHaveCount(0);
  await expect(page.getByTestId('session-unlock')).toBeVisible();
  await page.keyboard.press('Control+l');
  await expect(snackbar).toContainText('Nobody is unlocked');
});

test('the empty screens of a fresh profile say what they are and what to do next, and their buttons do it', async ({ page, desk }) => {
  // Five screens, each read whole by axe in both themes: about 40 s alone, longer beside another journey.
  test.setTimeout(180_000);
  await openWithDemo(page, desk, 'batches');

  // Batches: no batch yet; its button opens the file picker, like File › Import CSV batch….
  const batches = page.getByTestId('state-empty');
  await expect(batches.getByTestId('empty-title')).toHaveText('No batches yet');
  await expect(batches).toContainText('Import a CSV file of payouts');
  await settled(page);
  await shot(page, 'batches-empty');
  const chooser = page.waitForEvent('filechooser');
  await page.getByTestId('batches-empty-import').click();
  await chooser;

  // History: nothing yet (and where to start), or nothing matching the filters (and how to clear them).
  await page.keyboard.press('Control+7');
  const history = page.getByTestId('state-empty');
  await expect(history.getByTestId('empty-title')).toHaveText('No payments yet');
  await expect(history.getByTestId('history-empty-new-payout')).toBeVisible();
  await settled(page);
  await shot(page, 'history-empty');
  await page.getByTestId('history-search').locator('input').fill('nobody by this name');
  await expect(history.getByTestId('empty-title')).toHaveText('No payment matches these filters');
  await history.getByTestId('history-empty-clear').click();
  await expect(history.getByTestId('empty-title')).toHaveText('No payments yet');
  await expect(page.getByTestId('history-search').locator('input')).toHaveValue('');
  await history.getByTestId('history-empty-new-payout').click();
  await expect(page).toHaveURL(/#\/payouts\/new$/);

  // Approvals without dual control: why nothing waits, and where to turn it on.
  await page.keyboard.press('Control+5');
  const approvals = page.getByTestId('approvals-list').getByTestId('state-empty');
  await expect(approvals.getByTestId('empty-title')).toHaveText('Dual control is off on this profile');
  await settled(page);
  await shot(page, 'approvals-empty');
  await approvals.getByTestId('approvals-empty-people').click();
  await expect(page).toHaveURL(/#\/people$/);
  // People: nobody set up, and the one button that starts it.
  const people = page.getByTestId('people-none');
  await expect(people.getByTestId('empty-title')).toHaveText('Nobody is set up yet');
  await expect(people.getByTestId('people-add')).toBeVisible();
  await expect(page.getByTestId('people-list')).toHaveCount(0);
  await settled(page);
  await shot(page, 'people-empty');

  // Payins: no payin yet; its button puts the cursor in the request's Amount.
  await page.keyboard.press('Control+8');
  const recent = page.getByTestId('payin-recent-state').getByTestId('state-empty');
  await expect(recent.getByTestId('empty-title')).toHaveText('No payin yet');
  await expect(page.getByTestId('payin-none-open')).toContainText('No payin open');
  await settled(page);
  await shot(page, 'payins-empty');
  await recent.getByTestId('payins-empty-request').click();
  await expect(page.getByTestId('payin-amount-input').locator('input')).toBeFocused();

  // Every empty screen passes axe, light and dark.
  for (const theme of ['light', 'dark']) {
    if (theme === 'dark') await page.getByTestId('theme-toggle').click();
    for (const [keys, screen] of [['Control+4', 'batches'], ['Control+7', 'history'], ['Control+5', 'approvals'], ['Control+9', 'people'], ['Control+8', 'payins']] as const) {
      await page.keyboard.press(keys);
      await expect(page).toHaveURL(new RegExp(`#/${screen}$`));
      await expect(page.locator('[data-testid="state-empty"], [data-testid="people-none"]').first()).toBeVisible();
      await settled(page);
      const found = await seriousViolations(page, 'main');
      expect(found, `${theme} ${screen}:\n${found.join('\n')}`).toEqual([]);
    }
  }
});
