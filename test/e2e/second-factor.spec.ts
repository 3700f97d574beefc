// The second factor through the screens: Ada sets hers up on People (a QR code drawn by main, the key as text,
// a code of the app confirms it, ten recovery codes shown once); after a new unlock, a change of roles asks
// for a code in the shared prompt (Cancel changes nothing; a recovery code lets it through), and approving a
// payee's new bank details takes the app's code beside the passphrase. The test plays the phone with the
// secret the dialog shows. With the policy's switch on, someone without a second factor is sent to People.
// A held payout's approval takes the code in the approval dialog the same way.
import type { Page } from '@playwright/test';
import { Secret, TOTP } from 'otpauth';
import type { PayeeChangeOutcome, PaymentDetail, PayoutValidation, Result, SecondFactorEnrolment } from '../../contract/api';
import { APP_URL } from './support/bridge-page';
import { call, expect, shot, test } from './support/journey';
import { byTestId, expectAccessible } from './support/axe';
import { enrolWithHandlers, KDF, unlockAs } from './support/people';

const PASS = { ada: 'ada-admin-passphrase', bea: 'bea-preparer-passphrase', alex: 'alex-approver-passphrase' };
const ADA = { name: 'Ada Admin', passphrase: PASS.ada };
const RECOVERY_CODE = /^[A-Z0-9]{5}-[A-Z0-9]{5}$/;

/** The phone: the code an authenticator app shows for this secret, `stepsAhead` 30-second steps from now. */
function appCode(secret: string, stepsAhead = 0): string {
  return new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate({ timestamp: Date.now() + stepsAhead * 30_000 });
}

/** Six digits the app does not show now, nor one step either side, nor the next code the test types. */
function notAppCode(secret: string): string {
  const valid = [-1, 0, 1, 2].map((s) => appCode(secret, s));
  return ['000000', '111111', '222222', '333333', '444444'].find((c) => !valid.includes(c))!;
}

async function closeNotices(page: Page): Promise<void> {
  const close = page.getByTestId('snackbar').getByRole('button', { name: 'Close' }).first();
  for (let i = 0; i < 10 && (await close.isVisible()); i++) await close.click();
}


/** People › Second factor › Set up…: returns the secret the dialog showed and the ten recovery codes. */
async function setUpSecondFactor(page: Page, screenshots = false): Promise<{ secret: string; recovery: string[] }> {
  const card = page.getByTestId('second-factor-card');
  await card.getByTestId('second-factor-setup').click();
  const setup = page.getByTestId('second-factor-setup-dialog');
  const qr = setup.getByRole('img', { name: 'QR code of your second factor' });
  await expect(qr).toBeVisible();
  // A data: URL drawn by main: it shows only where the page's Content-Security-Policy lets data: images in.
  await expect.poll(() => qr.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);
  const secret = ((await setup.getByTestId('second-factor-secret').textContent()) ?? '').replace(/\s/g, '');
  expect(secret, 'a 160-bit secret in base32').toMatch(/^[A-Z2-7]{32}$/);
  if (screenshots) {
    await closeNotices(page);
    await shot(page, 'second-factor-setup');
    await expectAccessible(page, byTestId('second-factor-setup-dialog'));
  }

  // A code that is not the app's: refused, and nothing is set up.
  const codeInput = setup.getByTestId('second-factor-setup-code').locator('input');
  await codeInput.fill(notAppCode(secret));
  await setup.getByTestId('second-factor-setup-confirm').click();
  await expect(setup.getByTestId('second-factor-setup-error')).toContainText('does not match the secret just shown');

  await codeInput.fill(appCode(secret));
  await setup.getByTestId('second-factor-setup-confirm').click();
  await expect(setup.getByTestId('second-factor-codes-warning')).toContainText('they are shown only this once');
  const codes = setup.getByTestId('second-factor-recovery-code');
  await expect(codes).toHaveCount(10);
  const recovery = (await codes.allTextContents()).map((c) => c.trim());
  for (const c of recovery) expect(c).toMatch(RECOVERY_CODE);
  expect(new Set(recovery).size, 'ten different recovery codes').toBe(10);
  // Done only once the person says the codes are stored; clicking beside the dialog does not close it.
  await expect(setup.getByTestId('second-factor-setup-done')).toBeDisabled();
  await page.mouse.click(5, 5);
  await expect(setup).toBeVisible();
  await setup.getByTestId('second-factor-codes-stored').locator('input').check();
  if (screenshots) {
    await shot(page, 'second-factor-recovery-codes');
    await expectAccessible(page, byTestId('second-factor-setup-dialog'));
  }
  await setup.getByTestId('second-factor-setup-done').click();
  await expect(setup).toBeHidden();
  return { secret, recovery };
}

test('a person sets up a second factor; a role change then asks for a code in the prompt, and an approval takes the app\'s code', async ({ page, desk }) => {
  test.setTimeout(180_000);
  // Ada (every role) and Bea, a preparer, through the real handlers; Ada stays unlocked.
  await call(desk.handlers, 'profiles:createDemo');
  await call(desk.handlers, 'people:add', { name: 'Ada Admin', passphrase: PASS.ada });
  const bea = await enrolWithHandlers(desk.handlers, { name: 'Bea Preparer', roles: ['preparer'], passphrase: PASS.bea }, ADA);
  await page.goto(`${APP_URL}#/people`);
  await expect(page.getByTestId('session-name')).toHaveText('Ada Admin');

  const card = page.getByTestId('second-factor-card');
  await expect(card).toContainText('Ada Admin, at this desk');
  await expect(card.getByTestId('second-factor-state')).toHaveText('not set up');
  await expect(card.getByTestId('second-factor-on-approve')).toContainText('Approving asks only for your passphrase');

  const { secret, recovery } = await setUpSecondFactor(page, true);
  await expect(card.getByTestId('second-factor-state')).toHaveText('set up');
  await expect(card.getByTestId('second-factor-codes-left')).toHaveText('10 recovery codes left');
  await expect(card.getByTestId('second-factor-on-approve')).toContainText('A code is asked when you approve');
  await expect(card.getByTestId('second-factor-on-admin')).toContainText('A code is asked for admin changes');
  // The code typed at set-up covers the next 5 minutes; the recovery codes are not offered again.
  await expect(card.getByTestId('second-factor-covered')).toContainText('Your last code covers these until');
  await expect(card.getByTestId('second-factor-setup')).toHaveCount(0);
  await closeNotices(page);
  await card.scrollIntoViewIfNeeded();
  await shot(page, 'second-factor-card');
  await expectAccessible(page, byTestId('second-factor-card'));

  // A new unlock forgets that code: granting Bea approver asks for one. Cancel: nothing changes, and the dialog says why.
  await unlockAs(page, 'Ada Admin', PASS.ada);
  await expect(card.getByTestId('second-factor-covered')).toHaveCount(0);
  const beaRow = page.getByTestId('people-list').locator('tr', { hasText: 'Bea Preparer' });
  await page.getByTestId('person-roles-Bea Preparer').click();
  const roles = page.getByTestId('person-roles-dialog');
  await roles.getByLabel(/^approver /).check();
  await roles.getByTestId('person-roles-save').click();
  const prompt = page.getByTestId('second-factor-prompt');
  await expect(prompt.getByTestId('second-factor-prompt-why')).toHaveText('Type the code your authenticator app shows (or a recovery code) to sign admin changes.');
  await prompt.getByTestId('second-factor-prompt-cancel').click();
  await expect(prompt).toBeHidden();
  await expect(roles).toContainText('Type the code your authenticator app shows');
  await expect(beaRow.locator('.v-chip')).toHaveText(['preparer']);

  // Again, with a recovery code from the paper: the change is signed, and that code is used up.
  await roles.getByTestId('person-roles-save').click();
  await expect(prompt).toBeVisible();
  await prompt.getByTestId('second-factor-prompt-code').locator('input').fill(recovery[0]!);
  await shot(page, 'second-factor-prompt');
  await expectAccessible(page, byTestId('second-factor-prompt'));
  await prompt.getByTestId('second-factor-prompt-confirm').click();
  await expect(prompt).toBeHidden();
  await expect(roles).toBeHidden();
  await expect(beaRow.locator('.v-chip')).toHaveText(['preparer', 'approver']);
  await expect(card.getByTestId('second-factor-codes-left')).toHaveText('9 recovery codes left');

  // Bea changes a payee's bank details (through the handlers): it waits for an approver.
  await call(desk.handlers, 'people:lock');
  await call(desk.handlers, 'people:unlock', { personId: bea.id, passphrase: PASS.bea });
  const added = await call<PayeeChangeOutcome>(desk.handlers, 'payees:add', { name: 'Jane Doe', accountNumber: 'DE89370400440532013000', operatorCode: 'EU_SEPA', emailAddress: 'jane@example.com' });
  const edited = await call<PayeeChangeOutcome>(desk.handlers, 'payees:edit', { payeeId: added.payee.id, accountNumber: 'GB82WEST12345698765432' });
  expect(edited.inForce, 'a new account waits for approval').toBe(false);
  // The page follows main's session events: Bea is shown unlocked before Ada locks her out again.
  await expect(page.getByTestId('session-name')).toHaveText('Bea Preparer');

  // Ada, unlocked afresh, approves it: the form asks for the app's code beside the passphrase.
  await unlockAs(page, 'Ada Admin', PASS.ada);
  await page.getByRole('link', { name: 'Payees' }).click();
  await page.getByTestId('payee-review-Jane Doe').click();
  const change = page.getByTestId('payee-change-dialog');
  await change.getByTestId('payee-approve').click();
  const code = change.getByTestId('payee-approve-code').locator('input');
  await expect(code).toBeVisible();
  await expect(code).toHaveAttribute('autocomplete', 'one-time-code');
  await expect(code).toHaveAttribute('inputmode', 'numeric');
  await change.getByTestId('payee-approve-passphrase').locator('input').fill(PASS.ada);
  await expect(change.getByTestId('payee-approve-confirm'), 'not without the code').toBeDisabled();
  // The app's next code (a phone a little ahead is accepted, one step): the step of the code typed at set-up
  // may not have passed yet, and a code is never taken twice.
  await code.fill(appCode(secret, 1));
  await change.getByTestId('payee-approve-confirm').click();
  await expect(change).toBeHidden(KDF);
  await expect(page.getByTestId('payee-state-Jane Doe')).toHaveText('in force');
  await expect(page.getByTestId('payee-account-Jane Doe')).toHaveText('…5432');

  // Remove, with a code: approving asks only for the passphrase again.
  await page.getByRole('link', { name: 'People' }).click();
  await card.getByTestId('second-factor-remove').click();
  const remove = page.getByTestId('second-factor-remove-dialog');
  await remove.getByTestId('second-factor-remove-code').locator('input').fill(recovery[1]!);
  await remove.getByTestId('second-factor-remove-confirm').click();
  await expect(remove).toBeHidden();
  await expect(card.getByTestId('second-factor-state')).toHaveText('not set up');
  await expect(card.getByTestId('second-factor-on-approve')).toContainText('Approving asks only for your passphrase');
});

test('with the policy\'s second-factor switch on, an admin without one is sent to People, and once set up cannot remove it', async ({ page, desk }) => {
  test.setTimeout(120_000);
  await call(desk.handlers, 'profiles:createDemo');
  await call(desk.handlers, 'people:add', { name: 'Ada Admin', passphrase: PASS.ada });
  await page.goto(`${APP_URL}#/settings`);
  await expect(page.getByTestId('session-name')).toHaveText('Ada Admin');
  await page.getByTestId('tab-approvals').click();
  const panel = page.getByTestId('policy-panel');
  await page.getByTestId('policy-add-currency').click();
  await panel.getByTestId('policy-second-factor').locator('input').check();
  await expect(panel.getByTestId('policy-second-factor-own')).toContainText('You have no second factor set up at this desk');
  // Switching it on is signed under the policy before it, which asked for no code.
  await panel.getByTestId('policy-save').click();
  await expect(panel).toContainText('Version 1');

  // The next admin change needs Ada's second factor, which she has not set up: main's words and the way to People.
  await panel.getByTestId('policy-second-admin').locator('input').check();
  await panel.getByTestId('policy-save').click();
  const needed = panel.getByTestId('second-factor-needed');
  await expect(needed).toContainText('Ada Admin needs a second factor to sign admin changes on this profile');
  await expect(panel).toContainText('Version 1');
  await needed.getByTestId('second-factor-setup-link').click();
  await expect(page).toHaveURL(/#\/people$/);

  const card = page.getByTestId('second-factor-card');
  await expect(card.getByTestId('second-factor-missing')).toContainText('set up a second factor before you do');
  await setUpSecondFactor(page);
  await expect(card.getByTestId('second-factor-state')).toHaveText('set up');
  await expect(card.getByTestId('second-factor-remove')).toBeDisabled();
  await expect(card.getByTestId('second-factor-remove-blocked')).toContainText('The approval policy requires a second factor');
});

test('approving a held payout asks the approver for the app\'s code beside the passphrase; a wrong one is refused', async ({ page, desk }) => {
  test.setTimeout(120_000);
  // Ada (every role), Alex an approver, one approval for anything; Ada's payout is held for it.
  await call(desk.handlers, 'profiles:createDemo');
  await call(desk.handlers, 'people:add', { name: 'Ada Admin', passphrase: PASS.ada });
  const alex = await enrolWithHandlers(desk.handlers, { name: 'Alex Approver', roles: ['approver'], passphrase: PASS.alex }, ADA);
  await call(desk.handlers, 'approvals:setPolicy', { rules: { bands: { '*': [{ atLeast: '0', approvals: 1 }] }, newOrChangedPayee: 0 } });
  const input = { amount: '75.00', currencyCode: 'EUR', accountName: 'Grace Hopper', accountNumber: 'DE89370400440532013000', paymentOperatorCode: await desk.operatorFor('EUR'), emailAddress: 'grace@example.com' };
  const v = await call<PayoutValidation>(desk.handlers, 'payouts:validate', input);
  const sent = (await desk.handlers['payouts:create']({ ...input, idPayout: v.preview!.idPayout })) as Result<PaymentDetail>;
  expect(sent.ok ? 'sent' : sent.error.code, 'held for an approval').toBe('PAYOUT_HELD');

  // Alex sets up his second factor at his desk (through the handlers; the test is his phone), then locks.
  await call(desk.handlers, 'people:lock');
  await call(desk.handlers, 'people:unlock', { personId: alex.id, passphrase: PASS.alex });
  const { secret } = await call<SecondFactorEnrolment>(desk.handlers, 'people:beginSecondFactor');
  await call(desk.handlers, 'people:confirmSecondFactor', { code: appCode(secret) });
  await call(desk.handlers, 'people:lock');

  await page.goto(`${APP_URL}#/approvals`);
  await unlockAs(page, 'Alex Approver', PASS.alex);
  await page.getByTestId('approvals-list').getByText('Grace Hopper').click();
  const detail = page.getByTestId('approval-detail');
  await detail.getByTestId('approval-approve').click();
  const code = detail.getByTestId('approve-code').locator('input');
  await expect(code).toBeVisible();
  await expect(detail.getByTestId('approve-form')).toContainText('Type your passphrase and the code your authenticator app shows to sign');
  await detail.getByTestId('approve-passphrase').locator('input').fill(PASS.alex);
  await expect(detail.getByTestId('approve-confirm'), 'not without the code').toBeDisabled();

  // A code the app does not show: refused, nothing signed; passphrase and code are typed again.
  await code.fill(notAppCode(secret));
  await detail.getByTestId('approve-confirm').click();
  await expect(detail.getByTestId('approve-error')).toContainText('not the one your authenticator app shows now', KDF);
  await expect(detail.getByTestId('approval-state')).toHaveText('waiting for approval (1 of 1)');
  await expect(code).toHaveValue('');

  // The app's next code (one step ahead is accepted; the step used at set-up may not have passed yet).
  await detail.getByTestId('approve-passphrase').locator('input').fill(PASS.alex);
  await code.fill(appCode(secret, 1));
  await detail.getByTestId('approve-confirm').click();
  await expect(detail.getByTestId('approval-state')).toHaveText('approved (1 of 1)', KDF);
  await expect(detail.getByTestId('approval-decisions')).toContainText('Approved by Alex Approver');
  expect((await desk.sandboxState()).payoutCount, 'approved is not sent: a sender sends').toBe(0);
});

test('"Your last code covers these until" goes by itself once that time has passed', async ({ page, desk }) => {
  test.setTimeout(90_000);
  // The page's clock, so five minutes pass at once; main keeps real time (its answer still says covered).
  await page.clock.install();
  await call(desk.handlers, 'profiles:createDemo');
  await call(desk.handlers, 'people:add', { name: 'Ada Admin', passphrase: PASS.ada });
  // Ada sets up her second factor (through the handlers; the test is her phone): the code typed covers 5 minutes.
  const { secret } = await call<SecondFactorEnrolment>(desk.handlers, 'people:beginSecondFactor');
  await call(desk.handlers, 'people:confirmSecondFactor', { code: appCode(secret) });
  await page.goto(`${APP_URL}#/people`);
  const card = page.getByTestId('second-factor-card');
  await expect(card.getByTestId('second-factor-covered')).toContainText('Your last code covers these until');

  await page.clock.fastForward('05:01');
  await expect(card.getByTestId('second-factor-covered')).toHaveCount(0);
  await expect(card.getByTestId('second-factor-state')).toHaveText('set up');
});
