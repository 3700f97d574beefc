// New payout, the same amount and currency to the same account as a payout of the last days: the form names the
// earlier payout, the review asks for a second tick ("a separate payment"), and only then is it sent — once.
import type { Page } from '@playwright/test';
import { expect, openWithDemo, selectOption, shot, test } from './support/journey';
import { byTestId, expectAccessible } from './support/axe';

/** The payout's own page (New payout itself is #/payouts/new). */
const SENT = /#\/payouts\/(?!new$)[A-Za-z0-9_-]+$/;

async function fillPayout(page: Page, amount: string): Promise<void> {
  await selectOption(page, 'payout-currency', /^EUR/);
  await page.getByTestId('payout-amount').locator('input').fill(amount);
  await page.getByTestId('payout-account-name').locator('input').fill('Grace Hopper');
  await page.getByTestId('payout-account-number').locator('input').fill('DE02120300000000202051');
  await page.getByTestId('payout-email').locator('input').fill('grace@example.com');
  await expect(page.getByTestId('review-payout')).toBeEnabled();
}

async function reviewAndSend(page: Page, separate: boolean): Promise<void> {
  await page.getByTestId('review-payout').click();
  const review = page.getByTestId('payout-review');
  await expect(review).toBeVisible();
  await page.getByTestId('confirm-payout').click();
  if (separate) {
    await expect(page.getByTestId('send-payout')).toBeDisabled();
    await page.getByTestId('confirm-separate-payment').click();
  }
  await page.getByTestId('send-payout').click();
  await expect(page).toHaveURL(SENT);
}

test('a payout like one of the last days is named on the form and sent only once a person ticks that it is a separate payment', async ({ page, desk }) => {
  // Two payouts followed to their pages and an axe pass: over a minute on a busy 2-core machine.
  test.setTimeout(150_000);
  await openWithDemo(page, desk, 'payouts/new');
  await fillPayout(page, '310.00');
  await expect(page.getByTestId('payout-possible-duplicate')).toHaveCount(0);
  await reviewAndSend(page, false);
  const first = decodeURIComponent(page.url().split('/payouts/')[1]!);

  await page.goto(page.url().replace(/#\/.*$/, '#/payouts/new'));
  await fillPayout(page, '310.00');
  const warning = page.getByTestId('payout-possible-duplicate');
  await expect(warning).toContainText(`possible duplicate of payout ${first}`);
  await expect(warning).toContainText('310.00 EUR to the same account …2051');
  // Another amount is another payment: no warning.
  await page.getByTestId('payout-amount').locator('input').fill('310.01');
  await expect(warning).toHaveCount(0);
  await page.getByTestId('payout-amount').locator('input').fill('310.00');
  await expect(warning).toBeVisible();
  await shot(page, 'new-payout-possible-duplicate');

  await page.getByTestId('review-payout').click();
  const review = page.getByTestId('payout-review');
  await expect(review.getByTestId('review-possible-duplicate')).toContainText(first);
  await page.getByTestId('confirm-payout').click();
  // The ticked review box alone does not send it.
  await expect(page.getByTestId('send-payout')).toBeDisabled();
  await expectAccessible(page, byTestId('payout-review'));
  await shot(page, 'payout-review-possible-duplicate');
  await page.getByTestId('confirm-separate-payment').click();
  await page.getByTestId('send-payout').click();
  await expect(page).toHaveURL(SENT);
  expect(decodeURIComponent(page.url().split('/payouts/')[1]!)).not.toBe(first);
  expect((await desk.sandboxState()).payoutCount).toBe(2);
});
