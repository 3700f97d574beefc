// A payout whose credentials the gateway refuses is stored and HELD, never lost and never sent behind a
// person's back: the desk says why, and a person releases it after the fix or discards it.
// The refusal is the realistic one: the signing key is rotated, and the gateway has not processed the
// new key letter yet (the harness holds back the registration), so the token request fails with 401.
import type { PaymentDetail, PayoutInput, PayoutValidation, Result } from '../../contract/api';
import { call, expect, openWithDemo, selectOption, shot, test } from './support/journey';
import type { DeskHarness } from './support/desk-bridge';

/** The desk now signs with a key the gateway does not know yet. */
async function rotateKeyGatewayHasNotSeen(desk: DeskHarness): Promise<void> {
  desk.withholdNewKeys();
  await call(desk.handlers, 'keys:rotate', {});
}

test('a payout refused for its credentials is kept as held, says why, stays held until the fix, then is released and paid once', async ({ page, desk }) => {
  test.setTimeout(90_000);
  await openWithDemo(page, desk, 'payouts/new');
  await rotateKeyGatewayHasNotSeen(desk);

  await selectOption(page, 'payout-currency', /^EUR/);
  await page.getByTestId('payout-amount').locator('input').fill('980.00');
  await page.getByTestId('payout-account-name').locator('input').fill('Grace Hopper');
  await page.getByTestId('payout-account-number').locator('input').fill('DE89370400440532013000');
  await page.getByTestId('payout-email').locator('input').fill('grace@example.com');
  await expect(page.getByTestId('review-payout')).toBeEnabled();
  await page.getByTestId('review-payout').click();
  await page.getByTestId('confirm-payout').click();
  await page.getByTestId('send-payout').click();

  // Not an "unexpected problem": a clear warning that it is kept as held, with the exact reason.
  const held = page.getByTestId('payout-held');
  await expect(held).toBeVisible({ timeout: 30_000 });
  await expect(held).toContainText('kept as a held payout');
  await expect(held.getByTestId('payout-held-message')).toContainText(/held/i);
  await expect(page.getByTestId('snackbar')).toHaveCount(0);
  await expect(page.getByTestId('review-payout'), 'the same payout cannot be sent again by accident').toBeDisabled();
  await shot(page, 'payout-held-new');
  expect((await desk.sandboxState()).payoutCount, 'nothing reached the gateway').toBe(0);

  await held.getByTestId('payout-held-open').click();
  await expect(page.getByTestId('detail-status')).toHaveText('HELD');
  const id = decodeURIComponent(page.url().replace(/^.*#\/payouts\//, ''));
  expect(id).not.toBe('new');
  const attention = page.getByTestId('detail-attention');
  await expect(attention).toContainText('Held');
  await expect(attention.getByTestId('detail-reason')).toContainText(/Held, not sent: .+/);
  await expect(page.getByTestId('detail-desk-state')).toHaveText(/release or discard/);
  await shot(page, 'payout-held');

  // Released before the gateway has the key: still held, and the dialog says why; nothing is sent.
  await page.getByTestId('held-release').click();
  const release = page.getByTestId('release-dialog');
  await expect(release).toContainText('Release and send');
  await release.getByTestId('release-confirm').click();
  await expect(release.getByTestId('release-error')).toContainText('Still held — nothing was sent.');
  await expect(release.getByTestId('release-error')).toContainText(id);
  await expect(page.getByTestId('detail-status')).toHaveText('HELD');
  expect((await desk.sandboxState()).payoutCount).toBe(0);

  // The gateway processes the key letter; the person releases it again. A double click releases once.
  expect(await desk.deliverWithheldKeys()).toBeGreaterThan(0);
  await release.getByTestId('release-confirm').dblclick();
  await expect(release).toBeHidden();
  await expect(page.getByTestId('held-actions')).toHaveCount(0);
  await expect(page.getByTestId('detail-status')).toHaveText('SUCCESS', { timeout: 30_000 });
  await expect(page.getByTestId('detail-attention')).toHaveCount(0);
  await expect(page.getByTestId('detail-desk-state')).toHaveText('Sent — the gateway reports SUCCESS');
  await expect(page.getByTestId('detail-timeline')).toContainText('HELD');
  const state = await desk.sandboxState();
  expect(state.payoutCount).toBe(1);
  expect(state.createAttempts[id], 'sent under its own id, once').toBe(1);
});

test('a held payout is found in History by its status and discarded with a reason: never sent', async ({ page, desk }) => {
  test.setTimeout(60_000);
  await openWithDemo(page, desk, 'history');
  const payout: PayoutInput = {
    amount: '45.10',
    currencyCode: 'EUR',
    accountName: 'Wrong Supplier BV',
    accountNumber: 'DE89370400440532013000',
    paymentOperatorCode: await desk.operatorFor('EUR'),
    emailAddress: 'wrong@example.com',
  };
  await rotateKeyGatewayHasNotSeen(desk);
  const v = await call<PayoutValidation>(desk.handlers, 'payouts:validate', payout);
  const created = (await desk.handlers['payouts:create']({ ...payout, idPayout: v.preview?.idPayout })) as Result<PaymentDetail>;
  expect(created.ok ? 'sent' : created.error.code).toBe('PAYOUT_HELD');
  const id = v.preview?.idPayout ?? '';

  await page.reload();
  await page.getByTestId('filter-status').click();
  for (const status of ['HELD', 'UNKNOWN', 'MISSING', 'DISCARDED']) await expect(page.getByRole('option', { name: status, exact: true })).toBeVisible();
  await page.getByRole('option', { name: 'HELD', exact: true }).click();
  await page.keyboard.press('Escape');
  const row = page.getByTestId('history-row');
  await expect(row).toHaveCount(1);
  await expect(row.getByTestId('history-status')).toHaveText('HELD');
  await expect(row.getByTestId('history-status')).toHaveClass(/bg-held/);
  await shot(page, 'history-held');

  await row.click();
  const drawer = page.getByTestId('history-drawer');
  await expect(drawer.getByTestId('detail-status')).toHaveText('HELD');
  await expect(drawer.getByTestId('detail-reason')).not.toBeEmpty();
  await drawer.getByTestId('held-discard').click();
  const discard = page.getByTestId('discard-dialog');
  await discard.getByRole('textbox', { name: 'Reason' }).fill('Wrong supplier; paid by bank transfer instead');
  await discard.getByTestId('discard-confirm').dblclick();
  await expect(discard).toBeHidden();
  await expect(drawer.getByTestId('detail-status')).toHaveText('DISCARDED');
  await expect(drawer.getByTestId('detail-attention')).toContainText('never sent');
  await expect(drawer.getByTestId('held-actions')).toHaveCount(0);
  await expect(page.getByTestId('snackbar')).toContainText('Discarded');

  // Even after the gateway knows the key, a discarded payout is never sent.
  await desk.deliverWithheldKeys();
  await page.waitForTimeout(1500);
  const state = await desk.sandboxState();
  expect(state.payoutCount).toBe(0);
  expect(state.createAttempts[id] ?? 0).toBe(0);
  const after = await call<PaymentDetail>(desk.handlers, 'payouts:get', { idPayout: id });
  expect(after.localState).toBe('DISCARDED');
});
