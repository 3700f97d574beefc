// A payee's version history on the Payees screen (issue 29): under dual control, Jane Doe is added (version 1),
// her e-mail and reference are edited on the screen (2, in force at once), a new IBAN is rejected by the approver
// (3), and another IBAN is proposed on the screen (4, waiting for approval). Versions, opened from the keyboard,
// lists the four newest first with what each changed from the one before it (old → new), who proposed it and
// where it stands; axe-core finds nothing serious in the open dialog, light or dark. The dialog's loading
// state (the answer held), its error state (the answer refused) and Retry are seen too, and Escape returns the
// keyboard to the row's button.
import type { Page } from '@playwright/test';
import type { Channel, IpcHandlerMap, PayeeChangeOutcome, PersonInfo, Result } from '../../contract/api';
import { APP_URL, bridgePage } from './support/bridge-page';
import { createDesk } from './support/desk-bridge';
import { call, expect, shot, test } from './support/journey';
import { byTestId, expectAccessible } from './support/axe';
import { enrolWithHandlers } from './support/people';

const PASS = { ada: 'ada-admin-passphrase', alex: 'alex-approver-passphrase' };
const CHANNEL: Channel = 'payees:versions';

type Desk = Awaited<ReturnType<typeof createDesk>>;
let desk: Desk | undefined;
test.afterEach(async ({ page }) => {
  await page.goto('about:blank').catch(() => undefined);
  await desk?.close();
  desk = undefined;
});

/** How the bridge answers payees:versions: as main does, held until released, or refused. */
interface VersionsControl {
  mode: 'real' | 'hold' | 'fail';
  release: (() => void) | null;
}

async function closeNotices(page: Page): Promise<void> {
  const close = page.getByTestId('snackbar').getByRole('button', { name: 'Close' }).first();
  for (let i = 0; i < 10 && (await close.isVisible()); i++) await close.click();
}


async function editPayee(page: Page, name: string, fields: { account?: string; email?: string; reference?: string }): Promise<void> {
  await page.getByTestId(`payee-edit-${name}`).click();
  const form = page.getByTestId('payee-form-dialog');
  if (fields.account !== undefined) await form.getByTestId('payee-account').locator('input').fill(fields.account);
  if (fields.email !== undefined) await form.getByTestId('payee-email').locator('input').fill(fields.email);
  if (fields.reference !== undefined) await form.getByTestId('payee-reference').locator('input').fill(fields.reference);
  await form.getByTestId('payee-save').click();
  await expect(form).toBeHidden();
}

test('a payee\'s versions: newest first, what each changed, who proposed it and where it stands', async ({ page }) => {
  test.setTimeout(180_000);
  desk = await createDesk();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  const control: VersionsControl = { mode: 'real', release: null };
  const handlers = { ...desk.handlers } as Record<string, (args: unknown) => Promise<unknown>>;
  const real = desk.handlers[CHANNEL] as (args: unknown) => Promise<unknown>;
  handlers[CHANNEL] = async (args: unknown) => {
    if (control.mode === 'fail') return { ok: false, error: { code: 'NETWORK', message: 'the versions could not be read (on purpose)', retryable: true } } satisfies Result<never>;
    if (control.mode === 'hold') await new Promise<void>((r) => (control.release = r));
    return real(args);
  };
  await bridgePage(page, { handlers: handlers as unknown as IpcHandlerMap, events: desk.events });

  // Dual control: Ada (every role, unlocked) and Alex the approver; Ada adds Jane Doe: version 1.
  await call(desk.handlers, 'profiles:createDemo');
  await call(desk.handlers, 'people:add', { name: 'Ada Admin', passphrase: PASS.ada });
  const alex = await enrolWithHandlers(desk.handlers, { name: 'Alex Approver', roles: ['approver'], passphrase: PASS.alex }, { name: 'Ada Admin', passphrase: PASS.ada });
  const ada = (await call<PersonInfo[]>(desk.handlers, 'people:list')).find((p) => p.name === 'Ada Admin')!;
  const jane = await call<PayeeChangeOutcome>(desk.handlers, 'payees:add', { name: 'Jane Doe', accountNumber: 'DE89370400440532013000', operatorCode: 'EU_SEPA', emailAddress: 'jane@example.com' });
  await page.goto(`${APP_URL}#/payees`);
  await expect(page.getByTestId('app-bar-status').getByTestId('env-TEST')).toBeVisible();
  await expect(page.getByTestId('session-name')).toHaveText('Ada Admin');

  // Version 2, on the screen: a new e-mail and a reference default, in force at once (not a bank detail).
  await editPayee(page, 'Jane Doe', { email: 'jane.doe@example.com', reference: 'May invoices' });
  await expect(page.getByTestId('payee-state-Jane Doe')).toHaveText('in force');

  // Version 3: a new IBAN, which Alex rejects.
  await call(desk.handlers, 'payees:edit', { payeeId: jane.payee.id, accountNumber: 'GB82WEST12345698765432' });
  await call(desk.handlers, 'people:lock');
  await call(desk.handlers, 'people:unlock', { personId: alex.id, passphrase: PASS.alex });
  await call(desk.handlers, 'payees:reject', { payeeId: jane.payee.id, reason: 'Jane did not send this account' });
  await call(desk.handlers, 'people:lock');
  await call(desk.handlers, 'people:unlock', { personId: ada.id, passphrase: PASS.ada });
  await page.reload();
  await expect(page.getByTestId('session-name')).toHaveText('Ada Admin');
  await expect(page.getByTestId('payee-state-Jane Doe')).toHaveText('in force');

  // Version 4, on the screen: another IBAN, waiting for Alex's approval.
  await editPayee(page, 'Jane Doe', { account: 'FR1420041010050500013M02606' });
  await expect(page.getByTestId('payee-state-Jane Doe')).toHaveText('bank details awaiting approval');
  await closeNotices(page);
  // The row's Versions button (an icon with its name for screen readers) passes axe with the rest of the table.
  await expectAccessible(page, byTestId('payees-list'));

  // Versions, from the keyboard; main's answer held a moment: the dialog says it is loading.
  control.mode = 'hold';
  const versionsButton = page.getByTestId('payee-versions-Jane Doe');
  await expect(versionsButton).toHaveAccessibleName('Versions of Jane Doe');
  await versionsButton.focus();
  await page.keyboard.press('Enter');
  const dialog = page.getByRole('dialog', { name: 'Versions of Jane Doe' });
  await expect(dialog).toBeVisible();
  await expect(dialog.getByTestId('state-loading')).toBeVisible();
  await expect.poll(() => control.release !== null).toBe(true);
  control.mode = 'real';
  control.release?.();

  const rows = dialog.getByTestId('payee-versions-rows').locator('tbody > tr');
  await expect(rows).toHaveCount(4);
  await expect(dialog.getByTestId('payee-versions-summary')).toContainText('4 versions, newest first');
  await expect(rows.locator('th')).toHaveText([/^\s*4/, /^\s*3/, /^\s*2/, /^\s*1/]);

  const v4 = dialog.getByTestId('payee-version-4');
  await expect(v4.getByTestId('payee-version-bank-change')).toBeVisible();
  await expect(v4.getByTestId('payee-version-changes')).toContainText('From version 3');
  await expect(v4.getByTestId('payee-version-change-Account')).toHaveText(/…5432\s*changed to\s*…2606/);
  await expect(v4.getByTestId('payee-version-proposed')).toContainText('Ada Admin');
  await expect(v4.getByTestId('payee-version-proposed')).toContainText('by hand');
  await expect(v4.getByTestId('payee-version-state')).toContainText('waiting for approval');
  await expect(v4.getByTestId('payee-version-approvals')).toContainText('Approvals: 0 of 1');

  const v3 = dialog.getByTestId('payee-version-3');
  await expect(v3.getByTestId('payee-version-change-Account')).toHaveText(/…3000\s*changed to\s*…5432/);
  await expect(v3.getByTestId('payee-version-state')).toContainText('rejected');
  await expect(v3.getByTestId('payee-version-state')).toContainText('Rejected');
  await expect(v3.getByTestId('payee-version-state')).not.toContainText('In force from');

  const v2 = dialog.getByTestId('payee-version-2');
  await expect(v2.getByTestId('payee-version-bank-change')).toHaveCount(0);
  await expect(v2.getByTestId('payee-version-change-E-mail')).toHaveText(/jane@example\.com\s*changed to\s*jane\.doe@example\.com/);
  await expect(v2.getByTestId('payee-version-change-Reference default')).toHaveText(/—\s*changed to\s*May invoices/);
  await expect(v2.getByTestId('payee-version-changes')).not.toContainText('Account');
  await expect(v2.getByTestId('payee-version-state')).toContainText('in force');
  await expect(v2.getByTestId('payee-version-state')).toContainText('In force from');

  const v1 = dialog.getByTestId('payee-version-1');
  await expect(v1.getByTestId('payee-version-changes')).toContainText('First version');
  await expect(v1.getByTestId('payee-version-changes')).toContainText('…3000');
  await expect(v1.getByTestId('payee-version-changes')).toContainText('jane@example.com');
  await expect(v1.getByTestId('payee-version-state')).toContainText('superseded');
  await expect(v1.getByTestId('payee-version-state')).toContainText('Superseded');
  await expect(v1.getByTestId('payee-version-proposed')).toContainText('Ada Admin');

  await expectAccessible(page, byTestId('payee-versions-dialog'));
  await shot(page, 'payee-versions');

  // Escape closes it and the keyboard is back on the row's Versions button.
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
  await expect(versionsButton).toBeFocused();

  // Dark theme: the same dialog, read by axe again.
  await page.getByTestId('theme-toggle').click();
  await versionsButton.click();
  await expect(dialog.getByTestId('payee-versions-rows').locator('tbody > tr')).toHaveCount(4);
  await expectAccessible(page, byTestId('payee-versions-dialog'));
  await dialog.getByTestId('payee-versions-close').click();
  await expect(dialog).toBeHidden();
  await page.getByTestId('theme-toggle').click();

  // Main refuses the answer: the dialog says so, and Retry reads the versions again.
  control.mode = 'fail';
  await versionsButton.click();
  await expect(dialog.getByTestId('state-error')).toContainText('the versions could not be read (on purpose)');
  control.mode = 'real';
  await dialog.getByTestId('state-error').getByRole('button', { name: 'Retry' }).click();
  await expect(dialog.getByTestId('payee-versions-rows').locator('tbody > tr')).toHaveCount(4);
  await dialog.getByTestId('payee-versions-close').click();
  await expect(dialog).toBeHidden();

  expect(errors).toEqual([]);
});
