// Dual control, the whole journey through the screens: the admin sets up the team (the first person; the
// others enrol at the desk and the admin grants their roles after comparing their key's fingerprint) and a
// policy, a preparer uploads a batch, which waits for approval; an approver reads the manifest and approves
// with their passphrase; a sender resumes it; the results go out with the approvals sheet. Each person works
// under their own unlock, and each step that is not theirs is refused. With two admins and the policy's
// "two admins" switch, a grant of approver waits for the second admin's signature.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import type { PersonInfo } from '../../contract/api';
import { payoutCsv } from './support/csv-fixtures';
import { APP_URL } from './support/bridge-page';
import { call, expect, openWithDemo, selectOption, shot, test } from './support/journey';
import { addFirstPerson, enrol, enrolAndGrant, enrolWithHandlers, grantRoles, KDF, unlockAs as unlock } from './support/people';

const PASS = { ada: 'ada-admin-passphrase', pat: 'pat-preparer-passphrase', alex: 'alex-approver-passphrase', sam: 'sam-sender-passphrase', bea: 'bea-admin-passphrase', cy: 'cy-approver-passphrase' };
const ADA = { name: 'Ada Admin', passphrase: PASS.ada };
const ROOT_FINGERPRINT = /^[0-9a-f]{4}(:[0-9a-f]{4}){7}$/;

/** A screenshot for the guide without the queue of earlier notices over it. */
async function cleanShot(page: Page, name: string): Promise<void> {
  const close = page.getByTestId('snackbar').getByRole('button', { name: 'Close' }).first();
  for (let i = 0; i < 10 && (await close.isVisible()); i++) await close.click();
  await shot(page, name);
}

async function unlockAs(page: Page, name: string, passphrase: string, screenshot?: string): Promise<void> {
  await unlock(page, name, passphrase, screenshot ? () => cleanShot(page, screenshot) : undefined);
}

test('admin sets up people and a policy; a batch waits for approval, is approved, sent by a sender and exported with its approvals', async ({ page, desk }) => {
  test.setTimeout(300_000);
  await openWithDemo(page, desk, 'people');

  // The first person: every role, unlocked at once, with the one-person warning.
  await expect(page.getByTestId('people-none')).toBeVisible();
  await expect(page.getByTestId('people-enrol')).toHaveCount(0);
  await page.getByTestId('people-add').click();
  await expect(page.getByTestId('one-person-warning')).toContainText('nobody checks their payouts');
  await page.getByTestId('person-add-dialog').getByRole('button', { name: 'Cancel' }).click();
  await addFirstPerson(page, 'Ada Admin', PASS.ada);
  await expect(page.getByTestId('session-who')).toContainText('admin');
  // Ada signed the control records' root here: its fingerprint is shown, confirmed at this desk (it made them).
  await expect(page.getByTestId('control-fingerprint')).toHaveText(ROOT_FINGERPRINT);
  await expect(page.getByTestId('control-confirmed')).toHaveText('confirmed at this desk');
  // Nobody else is added here: the others enrol themselves, and Ada grants their roles.
  await expect(page.getByTestId('people-add')).toHaveCount(0);
  await expect(page.getByTestId('people-enrol-note')).toContainText('enrols at their own desk');
  await enrolAndGrant(page, { name: 'Pat Preparer', roles: ['preparer'], passphrase: PASS.pat }, ADA);
  await enrolAndGrant(page, { name: 'Alex Approver', roles: ['approver'], passphrase: PASS.alex }, ADA);
  await enrolAndGrant(page, { name: 'Sam Sender', roles: ['sender', 'viewer'], passphrase: PASS.sam }, ADA);
  await expect(page.getByTestId('control-proposals')).toHaveCount(0);
  await cleanShot(page, 'dual-control-people');

  // The policy: one approval for any amount in any currency.
  await page.getByRole('link', { name: 'Settings' }).click();
  await page.getByTestId('tab-approvals').click();
  await page.getByTestId('policy-add-currency').click();
  await expect(page.getByTestId('policy-currency-code-0').locator('input')).toHaveValue('*');
  await page.getByTestId('policy-save').click();
  await expect(page.getByTestId('policy-panel')).toContainText('Version 1');
  await expect(page.getByTestId('policy-panel')).toContainText('set by Ada Admin');
  await cleanShot(page, 'dual-control-policy');

  // The preparer uploads a batch: it is not sent, it waits for approval (1 of 1).
  await unlockAs(page, 'Pat Preparer', PASS.pat);
  await page.getByRole('link', { name: 'Batches' }).click();
  await page.getByTestId('batch-file-input').setInputFiles({ name: 'suppliers-april.csv', mimeType: 'text/csv', buffer: Buffer.from(payoutCsv(4)) });
  await expect(page.getByTestId('count-valid')).toContainText('4');
  for (const box of await page.locator('[data-testid^="confirm-warning-"]').all()) await box.check();
  await page.getByTestId('batch-review-open').click();
  const review = page.getByTestId('batch-review');
  await review.getByTestId('confirm-batch').locator('input').check();
  await review.getByTestId('submit-batch').click();
  await expect(page.getByTestId('batch-state')).toHaveText('PAUSED', { timeout: 30_000 });
  await expect(page.getByTestId('batch-progress').getByTestId('approval-state')).toHaveText('waiting for approval (1 of 1)');
  await expect(page.getByTestId('batch-approval-note')).toContainText('Nothing is sent until it is approved');
  // Who can still approve it, as main works it out: the approvers other than Pat, who prepared it.
  await expect(page.getByTestId('batch-still-needed')).toHaveText('It needs 1 more approval from: Ada Admin, Alex Approver.');
  expect((await desk.sandboxState()).payoutCount, 'nothing reached the gateway').toBe(0);
  // Pat may not send: Resume is not offered as if it could work, and says why.
  await expect(page.getByTestId('batch-resume')).toBeDisabled();
  await expect(page.getByTestId('batch-resume-blocked')).toHaveText('Pat Preparer is not a sender: a sender resumes it');
  await cleanShot(page, 'dual-control-batch-waiting');
  // Pat prepared it: it is under "Prepared by me", and Pat cannot approve it.
  await page.getByRole('link', { name: 'Approvals' }).click();
  await page.getByTestId('approvals-tab-prepared').click();
  await expect(page.getByTestId('approvals-list')).toContainText('suppliers-april.csv');
  await page.getByTestId('approvals-tab-mine').click();
  await expect(page.getByTestId('approvals-list')).not.toContainText('suppliers-april.csv');

  // The approver: the batch waits for them; the manifest shows totals first, then the rows.
  await unlockAs(page, 'Alex Approver', PASS.alex, 'dual-control-unlock');
  await expect(page.getByTestId('approvals-list')).toContainText('suppliers-april.csv');
  await page.getByTestId('approvals-list').getByText('suppliers-april.csv').click();
  const detail = page.getByTestId('approval-detail');
  await expect(detail.getByTestId('approval-totals')).toContainText('4 payouts');
  await expect(detail.getByTestId('approval-prepared')).toContainText('Pat Preparer');
  await expect(detail.getByTestId('approval-rows')).toContainText('Supplier 01 GmbH');
  await cleanShot(page, 'dual-control-approval');
  await detail.getByTestId('approval-approve').click();
  await detail.getByTestId('approve-passphrase').locator('input').fill('not-alex-passphrase');
  await detail.getByTestId('approve-confirm').click();
  await expect(detail.getByTestId('approve-error')).toBeVisible(KDF);
  await detail.getByTestId('approve-passphrase').locator('input').fill(PASS.alex);
  await detail.getByTestId('approve-confirm').click();
  await expect(detail.getByTestId('approval-state')).toHaveText('approved (1 of 1)', KDF);
  await expect(detail.getByTestId('approval-decisions')).toContainText('Approved by Alex Approver');
  await cleanShot(page, 'dual-control-approved');
  await detail.getByRole('button', { name: 'Close' }).click();
  expect((await desk.sandboxState()).payoutCount, 'approved is not sent: a sender sends').toBe(0);

  // The sender resumes it; it is sent and every row reaches a final status.
  await unlockAs(page, 'Sam Sender', PASS.sam);
  await page.getByRole('link', { name: 'Batches' }).click();
  await expect(page.getByTestId('batch-approval-note')).toContainText('Approved by Alex Approver');
  await expect(page.getByTestId('batch-resume-blocked')).toHaveCount(0);
  await page.getByTestId('batch-resume').click();
  await expect(page.getByTestId('progress-done')).toHaveText('4', { timeout: 60_000 });
  await expect(page.getByTestId('batch-state')).toHaveText('COMPLETED');
  expect((await desk.sandboxState()).payoutCount).toBe(4);

  // Results, and the approvals sheet: who approved, with what roles, the signature.
  const download = page.waitForEvent('download');
  await page.getByTestId('batch-export-approvals').click();
  const sheet = await readFile(await (await download).path(), 'utf8');
  const lines = sheet.trim().split(/\r?\n/);
  expect(lines).toHaveLength(2);
  expect(lines[1]).toContain('Alex Approver');
  expect(lines[1]).toContain('approve');
  await cleanShot(page, 'dual-control-sent');

  // Lock: nobody is unlocked, and the app bar says so.
  await page.getByTestId('session-lock').click();
  await expect(page.getByTestId('session-unlock')).toBeVisible();
});

test('onboarding names the first person (every role, unlocked), warns that nobody checks a one-person shop, and TEST may skip it', async ({ page, desk }) => {
  test.setTimeout(60_000);
  await call(desk.handlers, 'profiles:createDemo');
  await page.goto(`${APP_URL}#/welcome`);
  const step = page.getByTestId('people-step');
  await expect(step.getByTestId('one-person-warning')).toContainText('nobody checks your payouts');
  // TEST: the desk may be used without people.
  await expect(page.getByTestId('finish-setup')).toHaveText(/Skip and go to the desk/);
  await step.getByTestId('person-name').locator('input').fill('Olu Owner');
  await step.getByTestId('person-passphrase').locator('input').fill('olu-owner-passphrase');
  await expect(step.getByTestId('first-person-create')).toBeDisabled();
  await step.getByTestId('person-passphrase-confirm').locator('input').fill('olu-owner-passphrase');
  await step.getByTestId('first-person-create').click();
  await expect(step.getByTestId('first-person-done')).toContainText('Olu Owner is unlocked', KDF);
  await expect(step.getByTestId('first-person-warning')).toContainText('nobody checks their payouts');
  await expect(page.getByTestId('session-name')).toHaveText('Olu Owner');
  await step.scrollIntoViewIfNeeded();
  await cleanShot(page, 'dual-control-first-person');
  await page.getByTestId('finish-setup').click();
  await page.getByRole('link', { name: 'People' }).click();
  await expect(page.getByTestId('people-list')).toContainText('Olu Owner');
  await expect(page.getByTestId('people-list')).toContainText('admin');
});

test('a single payout is held for approval, shows "waiting for approval (1 of 1)" on its page, is approved and released by a sender', async ({ page, desk }) => {
  test.setTimeout(90_000);
  // Set-up through the real handlers: Ada (every role, unlocked), Alex the approver, one approval for anything.
  await call(desk.handlers, 'profiles:createDemo');
  await call(desk.handlers, 'people:add', { name: 'Ada Admin', passphrase: PASS.ada });
  await enrolWithHandlers(desk.handlers, { name: 'Alex Approver', roles: ['approver'], passphrase: PASS.alex }, ADA);
  await call(desk.handlers, 'approvals:setPolicy', { rules: { bands: { '*': [{ atLeast: '0', approvals: 1 }] }, newOrChangedPayee: 0 } });
  await page.goto(`${APP_URL}#/payouts/new`);
  await expect(page.getByTestId('session-name')).toHaveText('Ada Admin');

  await selectOption(page, 'payout-currency', /^EUR/);
  await page.getByTestId('payout-amount').locator('input').fill('75.00');
  await page.getByTestId('payout-account-name').locator('input').fill('Grace Hopper');
  await page.getByTestId('payout-account-number').locator('input').fill('DE89370400440532013000');
  await page.getByTestId('payout-email').locator('input').fill('grace@example.com');
  await page.getByTestId('review-payout').click();
  await page.getByTestId('confirm-payout').click();
  await page.getByTestId('send-payout').click();
  const held = page.getByTestId('payout-held');
  await expect(held).toBeVisible({ timeout: 30_000 });
  await held.getByTestId('payout-held-open').click();
  await expect(page.getByTestId('detail-status')).toHaveText('HELD');
  await expect(page.getByTestId('payment-detail').getByTestId('approval-state')).toHaveText('waiting for approval (1 of 1)');
  await expect(page.getByTestId('detail-still-needed')).toHaveText('It needs 1 more approval from: Alex Approver.');
  expect((await desk.sandboxState()).payoutCount).toBe(0);

  // Ada prepared it and cannot approve it; Alex can.
  await unlockAs(page, 'Alex Approver', PASS.alex);
  await page.getByRole('link', { name: 'Approvals' }).click();
  await page.getByTestId('approvals-list').getByText('Grace Hopper').click();
  const detail = page.getByTestId('approval-detail');
  await expect(detail.getByTestId('approval-totals')).toContainText('1 payout');
  await detail.getByTestId('approval-approve').click();
  await detail.getByTestId('approve-passphrase').locator('input').fill(PASS.alex);
  await detail.getByTestId('approve-confirm').click();
  await expect(detail.getByTestId('approval-state')).toHaveText('approved (1 of 1)', KDF);
  await detail.getByRole('button', { name: 'Close' }).click();

  // Alex is not a sender: the release is refused, nothing is sent. Ada (sender) releases it.
  await page.getByRole('link', { name: 'History' }).click();
  await page.getByText('Grace Hopper').first().click();
  await expect(page.getByTestId('payment-detail').getByTestId('approval-state')).toHaveText('approved (1 of 1)');
  await page.getByTestId('held-release').click();
  await page.getByTestId('release-dialog').getByTestId('release-confirm').click();
  await expect(page.getByTestId('release-dialog').getByTestId('release-error')).toContainText('sender');
  expect((await desk.sandboxState()).payoutCount).toBe(0);
  await page.getByTestId('release-dialog').getByTestId('release-back').click();
  await unlockAs(page, 'Ada Admin', PASS.ada);
  await page.getByTestId('held-release').click();
  await page.getByTestId('release-dialog').getByTestId('release-confirm').click();
  await expect(page.getByTestId('detail-status')).toHaveText('SUCCESS', { timeout: 30_000 });
  expect((await desk.sandboxState()).payoutCount).toBe(1);

  // The same 75.00 to the same account again, confirmed by Ada as a separate payment: held for approval, and its
  // approver is shown that it is like the payout just paid.
  const again = await desk.handlers['payouts:create']({
    idPayout: 'grace-again', amount: '75.00', currencyCode: 'EUR', accountName: 'Grace Hopper', accountNumber: 'DE89370400440532013000',
    paymentOperatorCode: 'EU_SEPA', emailAddress: 'grace@example.com', confirmPossibleDuplicate: true,
  });
  expect(again.ok ? 'sent' : again.error.code).toBe('PAYOUT_HELD');
  await unlockAs(page, 'Alex Approver', PASS.alex);
  await page.getByRole('link', { name: 'Approvals' }).click();
  await page.getByTestId('approvals-list').getByText('Grace Hopper').first().click();
  await expect(detail.getByTestId('approval-possible-duplicates')).toContainText('1 row is like a payout of the last days');
  await expect(detail.getByTestId('approval-row-duplicate')).toHaveAttribute('title', /^possible duplicate of payout [0-9a-f-]{36} of \d{4}-\d{2}-\d{2}: 75\.00 EUR to the same account …3000$/);
  expect((await desk.sandboxState()).payoutCount).toBe(1);
});

test('a second person cannot be added, only enrolled; with two admins a grant of approver waits for the second admin\'s signature', async ({ page, desk }) => {
  test.setTimeout(120_000);
  // Ada (the root), Bea made admin while Ada was the only one, then the policy's "two admins" switch.
  await call(desk.handlers, 'profiles:createDemo');
  await call(desk.handlers, 'people:add', { name: 'Ada Admin', passphrase: PASS.ada });
  const refused = (await desk.handlers['people:add']({ name: 'Mallory', passphrase: 'mallory-passphrase' })) as { ok: boolean; error?: { code: string } };
  expect(refused.ok, 'a second person is never added by someone else').toBe(false);
  expect(refused.error?.code).toBe('NOT_ALLOWED');
  await enrolWithHandlers(desk.handlers, { name: 'Bea Admin', roles: ['admin', 'approver'], passphrase: PASS.bea }, ADA);
  await page.goto(`${APP_URL}#/settings`);
  await expect(page.getByTestId('session-name')).toHaveText('Ada Admin');
  await page.getByTestId('tab-approvals').click();
  const panel = page.getByTestId('policy-panel');
  await page.getByTestId('policy-add-currency').click();
  await panel.getByTestId('policy-second-admin').locator('input').check();
  await panel.getByTestId('policy-save').click();
  // Switching it on is itself signed by the one admin it was not yet on for: in force at once.
  await expect(panel).toContainText('Version 1');
  await expect(panel.getByTestId('policy-waiting')).toHaveCount(0);

  // Cy enrols; Ada grants approver: it waits for a second admin, and Cy is still a viewer.
  await page.getByRole('link', { name: 'People' }).click();
  await expect(page.getByTestId('control-root')).toContainText('need two admins');
  const cyFingerprint = await enrol(page, 'Cy Approver', PASS.cy);
  await unlockAs(page, 'Ada Admin', PASS.ada);
  await grantRoles(page, 'Cy Approver', ['approver'], cyFingerprint);
  await expect(page.getByTestId('snackbar')).toContainText("Cy Approver's roles set to approver: waiting for a second admin's signature (1 of 2)");
  const cyRow = page.getByTestId('people-list').locator('tr', { hasText: 'Cy Approver' });
  await expect(cyRow.locator('.v-chip')).toHaveText(['viewer']);
  const waiting = page.getByTestId('control-proposals');
  await expect(waiting.getByTestId('proposal-what')).toHaveText("Cy Approver's roles set to approver");
  await expect(waiting).toContainText('Signed by Ada Admin · 1 of 2 signatures');
  await expect(waiting.getByTestId('proposal-sign')).toBeDisabled();
  await expect(waiting.getByTestId('proposal-why-not')).toHaveText('You signed it: a second admin signs it');
  await cleanShot(page, 'people-control-waiting');

  // Bea, the second admin, signs it: the grant is in force and nothing waits.
  await unlockAs(page, 'Bea Admin', PASS.bea);
  await waiting.getByTestId('proposal-sign').click();
  await expect(page.getByTestId('control-proposals')).toHaveCount(0);
  await expect(cyRow.locator('.v-chip')).toHaveText(['approver']);
  const people = await call<PersonInfo[]>(desk.handlers, 'people:list');
  expect(people.find((p) => p.name === 'Cy Approver')?.roles).toEqual(['approver']);

  // A policy change now needs both admins: saved by Bea, it waits, and version 1 stays in force.
  await page.getByRole('link', { name: 'Settings' }).click();
  await page.getByTestId('tab-approvals').click();
  await panel.getByTestId('policy-band-0-0-approvals').click();
  await page.getByRole('option', { name: '2' }).click();
  await panel.getByTestId('policy-save').click();
  await expect(panel.getByTestId('policy-waiting')).toContainText('waits for a second admin');
  await expect(panel).toContainText('Version 1');
});

test('with dual control on, a backup of the merchant key needs the unlocked admin and a second person who types their own passphrase', async ({ page, desk }) => {
  test.setTimeout(120_000);
  await call(desk.handlers, 'profiles:createDemo');
  await call(desk.handlers, 'people:add', { name: 'Ada Admin', passphrase: PASS.ada });
  await enrolWithHandlers(desk.handlers, { name: 'Alex Approver', roles: ['approver'], passphrase: PASS.alex }, ADA);
  await page.goto(`${APP_URL}#/settings`);
  await expect(page.getByTestId('session-name')).toHaveText('Ada Admin');
  await page.getByTestId('tab-keys').click();
  await page.getByTestId('key-active').getByRole('button', { name: 'Backup' }).click();
  const dialog = page.getByTestId('backup-dialog');
  await expect(dialog.getByTestId('backup-second-note')).toContainText('a second person, an admin or an approver');
  await dialog.getByTestId('backup-passphrase').locator('input').fill('a long backup passphrase');
  await dialog.getByLabel(/whoever has this file/).check();
  // Not without the second person; Ada, unlocked, is not offered as her own second.
  await expect(dialog.getByTestId('backup-save')).toBeDisabled();
  await dialog.getByTestId('backup-second-person').click();
  await expect(page.getByRole('option')).toHaveText([/^Alex Approver/]);
  await page.getByRole('option', { name: /^Alex Approver/ }).click();

  // A wrong passphrase of Alex's: main refuses, nothing is exported, and the dialog says main's words.
  await dialog.getByTestId('backup-second-passphrase').locator('input').fill('not-alex-passphrase');
  await dialog.getByTestId('backup-save').click();
  await expect(dialog.getByTestId('backup-error')).toContainText("Alex Approver's passphrase is wrong: nothing was exported", KDF);
  await expect(dialog.getByTestId('backup-second-passphrase').locator('input')).toHaveValue('');

  // Alex types his own: main's save dialog, and the file is written.
  const target = join(desk.home, 'two-people.backup.pem');
  await dialog.getByTestId('backup-second-passphrase').locator('input').fill(PASS.alex);
  await cleanShot(page, 'key-backup-two-people');
  desk.answerNextDialog(target);
  await dialog.getByTestId('backup-save').click();
  await expect(dialog).toContainText(`Saved to ${target}`, KDF);
  expect(await readFile(target, 'utf8')).toMatch(/^-----BEGIN ENCRYPTED PRIVATE KEY-----/);
});
