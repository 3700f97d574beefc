// The payee book under dual control, through the Payees screen: a wrong IBAN is refused under its field;
// a payee is added and in force; a change of its IBAN waits for approval (the account in force stays) and
// its maker cannot approve it; an approver approves with the passphrase and the new account is in force.
// Import takes the file main's dialog chose and names a bad row by its number; export saves the book.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { expect, openWithDemo, shot, test } from './support/journey';
import { addFirstPerson, enrolAndGrant, KDF, unlockAs } from './support/people';

const PASS = { ada: 'ada-admin-passphrase', alex: 'alex-approver-passphrase' };

async function closeNotices(page: Page): Promise<void> {
  const close = page.getByTestId('snackbar').getByRole('button', { name: 'Close' }).first();
  for (let i = 0; i < 10 && (await close.isVisible()); i++) await close.click();
}

async function fillPayee(page: Page, fields: { name?: string; account?: string; operator?: string; email?: string; reference?: string }): Promise<void> {
  const dialog = page.getByTestId('payee-form-dialog');
  if (fields.name !== undefined) await dialog.getByTestId('payee-name').locator('input').fill(fields.name);
  if (fields.account !== undefined) await dialog.getByTestId('payee-account').locator('input').fill(fields.account);
  if (fields.operator !== undefined) await dialog.getByTestId('payee-operator').locator('input').fill(fields.operator);
  if (fields.email !== undefined) await dialog.getByTestId('payee-email').locator('input').fill(fields.email);
  if (fields.reference !== undefined) await dialog.getByTestId('payee-reference').locator('input').fill(fields.reference);
}

test('a payee\'s new IBAN waits for approval and is in force once an approver approves it', async ({ page, desk }) => {
  test.setTimeout(180_000);
  await openWithDemo(page, desk, 'people');
  await addFirstPerson(page, 'Ada Admin', PASS.ada);
  // Alex enrols at the desk; Ada compares his key's fingerprint and grants approver.
  await enrolAndGrant(page, { name: 'Alex Approver', roles: ['approver'], passphrase: PASS.alex }, { name: 'Ada Admin', passphrase: PASS.ada });

  await page.getByRole('link', { name: 'Payees' }).click();
  await expect(page.getByTestId('payees-list')).toContainText('The payee book is empty');

  // A mistyped IBAN: main's words under the account field, nothing saved.
  await page.getByTestId('payees-add').click();
  const form = page.getByTestId('payee-form-dialog');
  await fillPayee(page, { name: 'Jane Doe', account: 'DE89370400440532013001', operator: 'EU_SEPA', email: 'jane@example.com', reference: 'Invoice' });
  await form.getByTestId('payee-save').click();
  await expect(form.getByTestId('payee-account')).toContainText('check digits do not match');
  await fillPayee(page, { account: 'DE89 3704 0044 0532 0130 00' });
  await form.getByTestId('payee-save').click();
  await expect(form).toBeHidden();
  await expect(page.getByTestId('payee-state-Jane Doe')).toHaveText('in force');
  await expect(page.getByTestId('payee-account-Jane Doe')).toHaveText('…3000');

  await page.getByTestId('payees-add').click();
  await fillPayee(page, { name: 'Lee Chen', account: 'FR1420041010050500013M02606', operator: 'EU_SEPA', email: 'lee@example.com' });
  await form.getByTestId('payee-save').click();
  await expect(form).toBeHidden();

  // Ada changes Jane's IBAN: it waits for approval, the account in force stays, and Ada cannot approve it.
  await page.getByTestId('payee-edit-Jane Doe').click();
  await fillPayee(page, { account: 'GB82WEST12345698765432' });
  await expect(form.getByTestId('payee-bank-change-note')).toBeVisible();
  await form.getByTestId('payee-save').click();
  await expect(form).toBeHidden();
  await expect(page.getByTestId('payee-state-Jane Doe')).toHaveText('bank details awaiting approval');
  await expect(page.getByTestId('payee-account-Jane Doe')).toHaveText('…3000');
  await expect(page.getByTestId('payee-edit-Jane Doe')).toBeDisabled();
  await page.getByTestId('payee-review-Jane Doe').click();
  const change = page.getByTestId('payee-change-dialog');
  await expect(change.getByTestId('payee-change-rows')).toContainText('…5432');
  await expect(change.getByTestId('payee-change-why-not')).toContainText('You made this change');
  await expect(change.getByTestId('payee-approve')).toBeDisabled();
  await change.getByRole('button', { name: 'Close' }).click();

  // The approver: it waits for them; a wrong passphrase is refused; the right one puts it in force.
  await unlockAs(page, 'Alex Approver', PASS.alex);
  await expect(page.getByTestId('payees-waiting-for-me')).toContainText('1 change of bank details waits for your approval');
  await closeNotices(page);
  await shot(page, 'payees');
  await page.getByTestId('payee-review-Jane Doe').click();
  await expect(change.getByTestId('payee-change-status')).toContainText('Approvals: 0 of 1');
  await change.getByTestId('payee-approve').click();
  await change.getByTestId('payee-approve-passphrase').locator('input').fill('not-alex-passphrase');
  await change.getByTestId('payee-approve-confirm').click();
  await expect(change.getByTestId('payee-change-error')).toBeVisible(KDF);
  await change.getByTestId('payee-approve-passphrase').locator('input').fill(PASS.alex);
  await change.getByTestId('payee-approve-confirm').click();
  await expect(change).toBeHidden(KDF);
  await expect(page.getByTestId('payee-state-Jane Doe')).toHaveText('in force');
  await expect(page.getByTestId('payee-account-Jane Doe')).toHaveText('…5432');
  await expect(page.getByTestId('payees-waiting-for-me')).toHaveCount(0);

  // Search narrows the table.
  await page.getByTestId('payees-search').locator('input').fill('lee');
  await expect(page.getByTestId('payees-list')).toContainText('Lee Chen');
  await expect(page.getByTestId('payees-list')).not.toContainText('Jane Doe');
  await page.getByTestId('payees-search').locator('input').fill('');

  // Import: the file main's dialog chose; a bad row is named by its number and nothing is imported.
  const dir = await mkdtemp(join(tmpdir(), 'payees-e2e-'));
  try {
    const csv = join(dir, 'suppliers.csv');
    await writeFile(csv, 'accountName,accountNumber,paymentOperatorCode,emailAddress,reference\nKim Park,DE89370400440532013000,EU_SEPA,kim@example.com,\nMo Bad,DE89370400440532013001,EU_SEPA,mo@example.com,\n');
    await unlockAs(page, 'Ada Admin', PASS.ada);
    desk.answerNextDialog(csv);
    await page.getByTestId('payees-import').click();
    const imported = page.getByTestId('payee-import-dialog');
    await expect(imported.getByTestId('payee-import-refused')).toContainText('Nothing was imported');
    await expect(imported.getByTestId('payee-import-errors').locator('tbody tr')).toHaveCount(1);
    await expect(imported.getByTestId('payee-import-errors').locator('tbody td').first()).toHaveText('3');
    await imported.getByRole('button', { name: 'Close' }).click();
    await expect(page.getByTestId('payees-list')).not.toContainText('Kim Park');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }

  // Export: the book as CSV, through the browser's download path.
  const download = page.waitForEvent('download');
  await page.getByTestId('payees-export').click();
  expect((await download).suggestedFilename()).toMatch(/\.csv$/);
});
