// Alerts at a person's own desk, through the screens: on People › Alerts the unlocked person switches off a kind
// of desktop notification; main keeps it (a reload shows it still off) for that person only. The navigation
// drawer's Approvals item counts what waits for the unlocked approver: it follows unlocks and main's events, and
// the count goes down as they approve, and away when someone who cannot approve is unlocked.
import type { Locator, Page } from '@playwright/test';
import type { PaymentDetail, PayoutValidation, Result } from '../../contract/api';
import { APP_URL } from './support/bridge-page';
import type { DeskHarness } from './support/desk-bridge';
import { call, expect, shot, test } from './support/journey';
import { expectAccessible } from './support/axe';
import { enrolWithHandlers, KDF, lock, unlockAs } from './support/people';

const PASS = { ada: 'ada-admin-passphrase', alex: 'alex-approver-passphrase' };
const ADA = { name: 'Ada Admin', passphrase: PASS.ada };
const LABELS = [
  'Something waits for my approval',
  'A batch I prepared paused',
  'A batch I prepared finished with failures',
  'A payout I prepared was held',
  'A payout I prepared was returned',
  'A payout I prepared is missing at the gateway',
];

async function closeNotices(page: Page): Promise<void> {
  const close = page.getByTestId('snackbar').getByRole('button', { name: 'Close' }).first();
  for (let i = 0; i < 10 && (await close.isVisible()); i++) await close.click();
}


/** Light, then dark: a screenshot for the guide and axe on the part shown, in each theme; back to light after. */
async function shotBothThemes(page: Page, name: string, selector: string): Promise<void> {
  await closeNotices(page);
  await shot(page, name);
  await expectAccessible(page, selector);
  await page.getByTestId('theme-toggle').click();
  await shot(page, `${name}-dark`);
  await expectAccessible(page, selector);
  await page.getByTestId('theme-toggle').click();
}

/** The unlocked preparer sends a payout through the real handlers: dual control holds it for an approval. */
async function heldPayout(desk: DeskHarness, accountName: string, amount: string): Promise<void> {
  const input = { amount, currencyCode: 'EUR', accountName, accountNumber: 'DE89370400440532013000', paymentOperatorCode: await desk.operatorFor('EUR'), emailAddress: 'payee@example.com' };
  const v = await call<PayoutValidation>(desk.handlers, 'payouts:validate', input);
  const sent = (await desk.handlers['payouts:create']({ ...input, idPayout: v.preview!.idPayout })) as Result<PaymentDetail>;
  expect(sent.ok ? 'sent' : sent.error.code, `${accountName}: held for an approval`).toBe('PAYOUT_HELD');
}

/** Approvals › an item › Approve, with the passphrase; the dialog closes once it is signed. */
async function approveOnScreen(page: Page, title: string, passphrase: string): Promise<void> {
  await page.getByTestId('approvals-list').getByText(title).click();
  const detail = page.getByTestId('approval-detail');
  await detail.getByTestId('approval-approve').click();
  await detail.getByTestId('approve-passphrase').locator('input').fill(passphrase);
  await detail.getByTestId('approve-confirm').click();
  await expect(detail.getByTestId('approval-state')).toHaveText('approved (1 of 1)', KDF);
  await detail.getByRole('button', { name: 'Close' }).click();
  await expect(detail).toBeHidden();
}

/**
 * Contrast of a badge's number on its colour (WCAG 2 ratio). axe-core let Vuetify's white on orange (2.4:1)
 * through, so the badge is measured here.
 */
async function badgeContrast(badge: Locator): Promise<number> {
  return badge.locator('.v-badge__badge').evaluate((el) => {
    const style = getComputedStyle(el);
    const luminance = (css: string) => {
      const [r, g, b] = (css.match(/[\d.]+/g) ?? []).slice(0, 3).map((v) => Number(v) / 255).map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
      return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
    };
    const [hi, lo] = [luminance(style.color), luminance(style.backgroundColor)].sort((a, b) => b - a);
    return (hi! + 0.05) / (lo! + 0.05);
  });
}

/** The drawer's Approvals link shows `count` waiting for the unlocked person (0: no badge at all). */
async function expectBadge(link: Locator, count: number): Promise<void> {
  const badge = link.getByTestId('nav-approvals-badge');
  if (count === 0) {
    await expect(badge).toHaveCount(0);
    await expect(link).toHaveAccessibleName('Approvals');
    return;
  }
  await expect(badge).toHaveText(String(count));
  await expect(link.getByRole('status')).toHaveAccessibleName(`${count} waiting for your approval`);
  await expect(link).toHaveAccessibleName(`Approvals ${count} waiting for your approval`);
}

test('a person switches off a kind of alert at their desk: it stays off after a reload, for them only', async ({ page, desk }) => {
  test.setTimeout(120_000);
  await call(desk.handlers, 'profiles:createDemo');
  await call(desk.handlers, 'people:add', { name: 'Ada Admin', passphrase: PASS.ada });
  await enrolWithHandlers(desk.handlers, { name: 'Alex Approver', roles: ['approver'], passphrase: PASS.alex }, ADA);
  await page.goto(`${APP_URL}#/people`);
  await expect(page.getByTestId('session-name')).toHaveText('Ada Admin');

  // Every kind is on until the person switches it off.
  const card = page.getByTestId('alerts-card');
  await expect(card).toContainText('Ada Admin, at this desk');
  await expect(card.getByTestId('alerts-note')).toContainText('Desktop notifications at this desk for things you must act on, each told once');
  for (const label of LABELS) await expect(card.getByLabel(label)).toBeChecked();

  await card.getByLabel('Something waits for my approval').click();
  await expect(card.getByLabel('Something waits for my approval')).not.toBeChecked();
  await card.getByLabel('A payout I prepared was returned').click();
  await expect(card.getByLabel('A payout I prepared was returned')).not.toBeChecked();
  await card.scrollIntoViewIfNeeded();
  await shotBothThemes(page, 'people-alerts', '[data-testid="alerts-card"]');

  // Main kept it: a reload reads the switches again.
  await page.reload();
  await expect(page.getByTestId('session-name')).toHaveText('Ada Admin');
  await expect(card.getByLabel('Something waits for my approval')).not.toBeChecked();
  await expect(card.getByLabel('A payout I prepared was returned')).not.toBeChecked();
  await expect(card.getByLabel('A payout I prepared was held')).toBeChecked();

  // Switched on again, it stays on.
  await card.getByLabel('A payout I prepared was returned').click();
  await expect(card.getByLabel('A payout I prepared was returned')).toBeChecked();
  await page.reload();
  await expect(card.getByLabel('A payout I prepared was returned')).toBeChecked();
  await expect(card.getByLabel('Something waits for my approval')).not.toBeChecked();

  // Alex's switches are his own: Ada's mute does not reach him.
  await unlockAs(page, 'Alex Approver', PASS.alex);
  await expect(card).toContainText('Alex Approver, at this desk');
  for (const label of LABELS) await expect(card.getByLabel(label)).toBeChecked();

  // Nobody unlocked: no switches to show.
  await lock(page);
  await expect(card).toHaveCount(0);
});

test('the Approvals item of the drawer counts what waits for the unlocked approver, down as they approve, away for who cannot approve', async ({ page, desk }) => {
  test.setTimeout(180_000);
  // Ada (every role) prepares; Alex approves; one approval for anything.
  await call(desk.handlers, 'profiles:createDemo');
  await call(desk.handlers, 'people:add', { name: 'Ada Admin', passphrase: PASS.ada });
  const alex = await enrolWithHandlers(desk.handlers, { name: 'Alex Approver', roles: ['approver'], passphrase: PASS.alex }, ADA);
  await call(desk.handlers, 'approvals:setPolicy', { rules: { bands: { '*': [{ atLeast: '0', approvals: 1 }] }, newOrChangedPayee: 0 } });
  await heldPayout(desk, 'Grace Hopper', '75.00');
  await heldPayout(desk, 'Alan Turing', '40.00');

  await page.goto(`${APP_URL}#/balances`);
  await expect(page.getByTestId('session-name')).toHaveText('Ada Admin');
  const link = page.getByRole('navigation').getByRole('link', { name: /^Approvals/ });
  // Ada prepared both: nothing waits for her.
  await expectBadge(link, 0);

  // Alex unlocks: both wait for him, in the drawer and on the Approvals screen alike.
  await unlockAs(page, 'Alex Approver', PASS.alex);
  await expectBadge(link, 2);
  await link.click();
  await expect(page.getByTestId('approvals-list').locator('tbody tr')).toHaveCount(2);
  await expect(page.getByTestId('approvals-list')).toContainText('Grace Hopper');
  await expect(page.getByTestId('approvals-list')).toContainText('Alan Turing');
  expect(await badgeContrast(link.getByTestId('nav-approvals-badge')), 'the number reads on its colour (WCAG AA)').toBeGreaterThanOrEqual(4.5);
  await shotBothThemes(page, 'approvals-badge', 'nav');

  // One approved: one left.
  await approveOnScreen(page, 'Grace Hopper', PASS.alex);
  await expectBadge(link, 1);

  // Ada cannot approve what she prepared: no badge while she is unlocked.
  await unlockAs(page, 'Ada Admin', PASS.ada);
  await expectBadge(link, 0);

  // Main's events alone move it: Ada prepares another payout, then Alex unlocks, both outside the page.
  await heldPayout(desk, 'Ada Lovelace', '12.50');
  await expectBadge(link, 0);
  await call(desk.handlers, 'people:lock');
  await call(desk.handlers, 'people:unlock', { personId: alex.id, passphrase: PASS.alex });
  await expect(page.getByTestId('session-name')).toHaveText('Alex Approver');
  await expectBadge(link, 2);

  // He approves both: the badge goes.
  await approveOnScreen(page, 'Alan Turing', PASS.alex);
  await expectBadge(link, 1);
  await approveOnScreen(page, 'Ada Lovelace', PASS.alex);
  await expectBadge(link, 0);
  await expect(page.getByTestId('approvals-list')).toContainText('Nothing waits for your approval');
});
