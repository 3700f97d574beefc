// The Overview, the home screen (issue 29): the app opens on it; on a new profile it says what to do next; then
// payouts sent through the real desk and the sandbox show on it as the gateway handles them (main's status
// events, no reload): today's count, amount, outcomes, fees and rates per currency, the balance read and what is
// still to settle, a bar chart of the seven days. "Waiting for me" shows the drawer badge's number. axe finds
// nothing serious or critical in light and dark, at 1280×800 and 1920×1080.
import type { Locator, Page } from '@playwright/test';
import type { PaymentDetail, PayoutValidation, Result } from '../../contract/api';
import { seriousViolations, settled } from './support/axe';
import { APP_URL } from './support/bridge-page';
import { call, expect, sendPayout, shot, test } from './support/journey';
import { enrolWithHandlers } from './support/people';


/** Axe's findings on the whole screen once it settled: nothing loading, transitions over. */
async function screenViolations(page: Page): Promise<string[]> {
  await expect(page.locator('.v-progress-circular')).toHaveCount(0);
  await settled(page);
  return seriousViolations(page);
}

/** One figure of a currency card: its count (if it has one) and its formatted amount or rate. */
async function expectFigure(card: Locator, cell: string, count: string | null, text: RegExp): Promise<void> {
  const figure = card.getByTestId(cell);
  if (count !== null) await expect(figure.getByTestId('count'), cell).toHaveText(count);
  await expect(figure.getByTestId('amount'), cell).toHaveText(text);
}

test('the app opens on the Overview, which says what to do on a new profile, then shows today\'s payouts per currency as the gateway handles them', async ({ page, desk }) => {
  test.setTimeout(120_000);
  await page.setViewportSize({ width: 1280, height: 800 });
  await call(desk.handlers, 'profiles:createDemo');
  await page.goto(APP_URL);
  await expect(page).toHaveURL(/#\/overview$/);
  await expect(page.locator('h1')).toHaveText('Overview');
  // First in the drawer.
  await expect(page.getByRole('navigation').getByRole('link').first()).toHaveAccessibleName('Overview');
  await expect(page.getByTestId('overview-note')).toContainText('A payout counts on the day the gateway accepted it');

  // Nothing sent and no balance read yet: what to do next, with the buttons that do it.
  const empty = page.getByTestId('state-empty');
  await expect(empty).toContainText('Nothing sent in the last 7 days');
  await expect(page.getByTestId('overview-empty-new-payout')).toBeVisible();
  await expect(page.getByTestId('overview-empty-import')).toBeVisible();
  const waiting = page.getByTestId('overview-waiting');
  await expect(waiting).toHaveAttribute('data-state', 'off');
  await expect(waiting).toContainText('Dual control is off on this profile');
  await settled(page);
  await shot(page, 'overview-empty');
  await page.getByTestId('overview-empty-new-payout').click();
  await expect(page).toHaveURL(/#\/payouts\/new$/);
  await page.getByRole('navigation').getByRole('link', { name: 'Overview', exact: true }).click();
  await expect(empty).toBeVisible();

  // The balances read (what Balances does on its first open): each currency shows its balance, and that
  // nothing was sent.
  await call(desk.handlers, 'balances:refresh');
  await page.getByTestId('overview-refresh').click();
  await expect(page.getByTestId('overview-nothing-sent')).toBeVisible();
  await expect(page.getByTestId('overview-quiet-EUR').getByTestId('overview-available')).toHaveText(/^EUR\s100,000\.00$/);
  await expect(page.getByTestId('overview-quiet-EUR').getByTestId('overview-to-settle')).toHaveText(/^EUR\s0\.00$/);
  expect(await screenViolations(page)).toEqual([]);
  await page.screenshot({ path: 'test-results/overview/balances-only.png' });

  // Payouts sent while the Overview is open: main's status events bring them in, no reload.
  await sendPayout(desk, '10.00', 'EUR', 'Alice Alpha', '370400440532011111');
  await sendPayout(desk, '20.00', 'EUR', 'Bob Bravo', '370400440532012222');
  await sendPayout(desk, '40.00', 'EUR', 'Dave Delta', '370400440532010000'); // the sandbox fails an account ending 0000
  await sendPayout(desk, '30.00', 'USD', 'Carol Charlie', '370400440532013333');

  const eur = page.getByTestId('overview-currency-EUR');
  await expect(eur).toBeVisible({ timeout: 10_000 });
  await expect(page.getByTestId('overview-nothing-sent')).toHaveCount(0);
  await expectFigure(eur, 'today-sent', '3', /^EUR\s70\.00$/);
  // Where they stand once the sandbox has decided each (a few seconds).
  await expect(eur.getByTestId('today-in-flight').getByTestId('count')).toHaveText('0', { timeout: 30_000 });
  await expectFigure(eur, 'today-succeeded', '2', /^EUR\s30\.00$/);
  await expectFigure(eur, 'today-failed', '1', /^EUR\s40\.00$/);
  await expectFigure(eur, 'today-returned', '0', /^EUR\s0\.00$/);
  // Fees: 0.25 + 0.5 % on each paid payout (0.30 + 0.35); the failed one is charged none.
  await expectFigure(eur, 'today-fees', null, /^EUR\s0\.65$/);
  await expectFigure(eur, 'today-failure-rate', null, /^33\.3 %$/);
  await expectFigure(eur, 'today-return-rate', null, /^0\.0 %$/);
  // Everything was sent today: the seven days say the same.
  await expectFigure(eur, 'week-sent', '3', /^EUR\s70\.00$/);
  await expectFigure(eur, 'week-fees', null, /^EUR\s0\.65$/);
  // The balance as the desk last read it (it reads again after sends: 100,000.00 less what left by then).
  await expect(eur.getByTestId('overview-available')).toHaveText(/^EUR\s(100,000\.00|99,9\d\d\.\d\d)$/);
  await expect(eur.getByTestId('overview-to-settle')).toHaveText(/^EUR\s0\.00$/);
  await expect(eur.getByTestId('overview-balance-observed')).toContainText('Balance read');

  const usd = page.getByTestId('overview-currency-USD');
  await expect(usd.getByTestId('today-in-flight').getByTestId('count')).toHaveText('0', { timeout: 30_000 });
  await expectFigure(usd, 'today-sent', '1', /^USD\s30\.00$/);
  await expectFigure(usd, 'today-fees', null, /^USD\s0\.45$/);
  await expectFigure(usd, 'today-failure-rate', null, /^0\.0 %$/);

  // A currency with nothing sent in the seven days shows its balance only.
  await expect(page.getByTestId('overview-quiet-GBP').getByTestId('overview-available')).toHaveText(/^GBP\s50,000\.00$/);
  await expect(page.getByTestId('overview-currency-GBP')).toHaveCount(0);

  // The chart of the seven days (loaded on first use), and what it shows as text: today last, with the three.
  await expect(eur.getByTestId('sent-by-day-chart-EUR').locator('canvas')).toBeVisible();
  const days = eur.getByTestId('sent-by-day-data-EUR').locator('li');
  await expect(days).toHaveCount(7);
  await expect(days.last()).toHaveAttribute('data-count', '3');
  await expect(days.last()).toContainText(/^Today, .*: 3 payouts, EUR\s70\.00$/);
  await expect(days.first()).toHaveAttribute('data-count', '0');

  // Light and dark, at the guide's two sizes: nothing serious or critical for axe.
  const found: string[] = [];
  for (const v of await screenViolations(page)) found.push(`light 1280: ${v}`);
  await shot(page, 'overview');
  await page.setViewportSize({ width: 1920, height: 1080 });
  for (const v of await screenViolations(page)) found.push(`light 1920: ${v}`);
  await shot(page, 'overview-1920');
  await page.getByTestId('theme-toggle').click();
  for (const v of await screenViolations(page)) found.push(`dark 1920: ${v}`);
  await page.setViewportSize({ width: 1280, height: 800 });
  for (const v of await screenViolations(page)) found.push(`dark 1280: ${v}`);
  await shot(page, 'overview-dark');
  expect(found, found.join('\n')).toEqual([]);
});

test('"Waiting for me" on the Overview shows the Approvals badge\'s number, or that nobody is unlocked', async ({ page, desk }) => {
  test.setTimeout(120_000);
  const ada = { name: 'Ada Admin', passphrase: 'ada-admin-passphrase' };
  await call(desk.handlers, 'profiles:createDemo');
  await call(desk.handlers, 'people:add', ada);
  const alex = await enrolWithHandlers(desk.handlers, { name: 'Alex Approver', roles: ['approver'], passphrase: 'alex-approver-passphrase' }, ada);
  await call(desk.handlers, 'approvals:setPolicy', { rules: { bands: { '*': [{ atLeast: '0', approvals: 1 }] }, newOrChangedPayee: 0 } });
  // Ada prepares two payouts: dual control holds them for an approval.
  for (const [accountName, amount] of [['Grace Hopper', '75.00'], ['Alan Turing', '40.00']] as const) {
    const input = { amount, currencyCode: 'EUR', accountName, accountNumber: 'DE89370400440532013000', paymentOperatorCode: await desk.operatorFor('EUR'), emailAddress: 'payee@example.com' };
    const v = await call<PayoutValidation>(desk.handlers, 'payouts:validate', input);
    const sent = (await desk.handlers['payouts:create']({ ...input, idPayout: v.preview!.idPayout })) as Result<PaymentDetail>;
    expect(sent.ok ? 'sent' : sent.error.code).toBe('PAYOUT_HELD');
  }

  await page.goto(APP_URL);
  await expect(page).toHaveURL(/#\/overview$/);
  await expect(page.getByTestId('session-name')).toHaveText('Ada Admin');
  const waiting = page.getByTestId('overview-waiting');
  const badge = page.getByRole('navigation').getByTestId('nav-approvals-badge');
  // Ada prepared both: nothing waits for her (and no badge).
  await expect(waiting).toHaveAttribute('data-state', 'count');
  await expect(waiting).toHaveAttribute('data-count', '0');
  await expect(waiting.getByTestId('overview-waiting-text')).toHaveText('Nothing waits for your approval.');
  await expect(badge).toHaveCount(0);

  // Nobody unlocked: said so, with the way to unlock.
  await call(desk.handlers, 'people:lock');
  await expect(waiting).toHaveAttribute('data-state', 'locked');
  await expect(waiting.getByTestId('overview-waiting-unlock')).toBeVisible();

  // Alex unlocks (outside the page; main's event): both wait for him, the same number as the drawer's badge.
  await call(desk.handlers, 'people:unlock', { personId: alex.id, passphrase: 'alex-approver-passphrase' });
  await expect(waiting).toHaveAttribute('data-count', '2');
  await expect(badge).toHaveText('2');
  await expect(waiting.getByTestId('overview-waiting-text')).toHaveText('2 items wait for your approval.');
  await expect(waiting.getByRole('status')).toHaveAccessibleName('2 waiting for your approval');
  await waiting.getByTestId('overview-waiting-open').click();
  await expect(page).toHaveURL(/#\/approvals$/);
  await expect(page.getByTestId('approvals-list').locator('tbody tr')).toHaveCount(2);
});
