// The calendar (issue 27): a payout and a batch sent on a date wait on the Calendar on their days, with their totals,
// are moved and cancelled there, and the funding forecast says which currency falls short on which day. Nothing
// reaches the gateway before its date.
import { expectAccessible, byTestId } from './support/axe';
import { germanIban } from './support/csv-fixtures';
import type { Page } from '@playwright/test';
import type { PaymentDetail, PayoutValidation, ProfileList } from '../../contract/api';
import type { DeskHarness } from './support/desk-bridge';
import { call, expect, openWithDemo, selectOption, shot, test } from './support/journey';

/** A screen's link in the navigation drawer. */
const nav = (page: Page, name: string) => page.getByRole('navigation').getByRole('link', { name, exact: true });

const ZONE = 'Europe/Berlin';

/** yyyy-MM-dd of now in ZONE. */
function todayIn(zone: string): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date());
}
/** The month after the one of `date`, day `day`: always ahead of now. */
function nextMonthDay(date: string, day: number): string {
  const [y, m] = date.split('-').map(Number) as [number, number];
  const d = new Date(Date.UTC(y, m, day));
  return d.toISOString().slice(0, 10);
}

/** A EUR payout scheduled through the real handlers, as New payout's "Send on a date" does (setup only). */
async function schedulePayout(desk: DeskHarness, amount: string, accountName: string, local: string): Promise<PaymentDetail> {
  const input = {
    amount, currencyCode: 'EUR', accountName, accountNumber: germanIban('370400440532099001'),
    paymentOperatorCode: await desk.operatorFor('EUR'), emailAddress: 'ap@late-supplier.example',
  };
  const v = await call<PayoutValidation>(desk.handlers, 'payouts:validate', input);
  if (!v.preview) throw new Error(`invalid payout: ${JSON.stringify(v.issues)}`);
  return call<PaymentDetail>(desk.handlers, 'payouts:create', { ...input, idPayout: v.preview.idPayout, executeOn: { local } });
}

/** "yyyy-MM-ddTHH:mm" of an instant in a zone. */
function wallTime(at: number, zone: string): string {
  const f = new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
  const p = Object.fromEntries(f.formatToParts(at).map((x) => [x.type, x.value]));
  return `${p['year']}-${p['month']}-${p['day']}T${p['hour']}:${p['minute']}`;
}

// 60,000.00 + 45,000.50 EUR and 125.75 USD; the demo merchant has 100,000.00 EUR (batch-funding.spec.ts).
const CSV = [
  'amount;currencyCode;accountName;accountNumber;paymentOperatorCode;emailAddress',
  `60000,00;EUR;Big Supplier A;${germanIban('370400440532077001')};EU_SEPA;big-a@example.com`,
  `45000,50;EUR;Big Supplier B;${germanIban('370400440532077002')};EU_SEPA;big-b@example.com`,
  `125,75;USD;US Vendor Inc;${germanIban('370400440532077003')};US_ACH;vendor@example.com`,
].join('\r\n');

test('a payout and a batch sent on a date wait on the Calendar on their days; one is moved, one cancelled, a late one confirmed; the forecast shows the shortfall', async ({ page, desk }) => {
  test.setTimeout(150_000);
  await page.setViewportSize({ width: 1280, height: 800 });
  await openWithDemo(page, desk, 'calendar');

  // Nothing scheduled yet: the Calendar says how a run gets there.
  await expect(page.locator('h1')).toHaveText('Calendar');
  await expect(page.getByTestId('empty-title')).toHaveText('Nothing scheduled');
  await expect(page.getByTestId('empty-text')).toContainText('Send on a date');
  await expect(page.getByTestId('calendar-empty-payout')).toBeVisible();

  // The profile's zone, chosen in Settings: the Calendar's days and the form's dates are read in it.
  await nav(page, 'Settings').click();
  await page.getByTestId('tab-gateway').click();
  const zone = page.getByTestId('settings-time-zone');
  await zone.locator('input').fill(ZONE);
  await page.keyboard.press('Escape');
  await page.getByTestId('settings-late-window').locator('input').fill('120');
  await page.getByTestId('settings-save').click();
  await expect(page.getByTestId('snackbar')).toContainText('Settings saved');
  await expect(zone).toContainText(`In use: ${ZONE}`);
  await page.getByTestId('snackbar').getByRole('button', { name: 'Close' }).click();

  const today = todayIn(ZONE);
  const payoutDay = nextMonthDay(today, 10);
  const batchDay = nextMonthDay(today, 15);
  const movedDay = nextMonthDay(today, 22);

  // New payout, "Send on a date": the review says when, and the result says scheduled, not sent.
  await nav(page, 'New payout').click();
  await selectOption(page, 'payout-currency', /^EUR/);
  await page.getByTestId('payout-amount').locator('input').fill('980.00');
  await page.getByTestId('payout-account-name').locator('input').fill('Grace Hopper');
  await page.getByTestId('payout-account-number').locator('input').fill('DE89370400440532013000');
  await page.getByTestId('payout-email').locator('input').fill('grace@example.com');
  await page.getByTestId('payout-send-on-date').locator('input').check();
  await expect(page.getByTestId('payout-execute-zone')).toContainText(ZONE);
  await page.getByTestId('payout-execute-date').locator('input').fill(payoutDay);
  await page.getByTestId('payout-execute-time').locator('input').fill('09:30');
  await expect(page.getByTestId('review-payout')).toBeEnabled();
  await page.getByTestId('payout-execute-time').locator('input').blur();
  await shot(page, 'new-payout-send-on-date');
  await page.getByTestId('review-payout').click();
  const review = page.getByTestId('payout-review');
  await expect(review.getByTestId('review-scheduled')).toContainText(`Sent on ${payoutDay} 09:30 ${ZONE}`);
  await review.getByTestId('confirm-payout').click();
  await expect(review.getByTestId('send-payout')).toHaveText('Schedule payout');
  await review.getByTestId('send-payout').click();
  await expect(page.getByTestId('payout-scheduled')).toContainText(`Scheduled for ${payoutDay} 09:30 ${ZONE}`);
  expect((await desk.sandboxState()).payoutCount, 'nothing sent before its date').toBe(0);
  // Its page says it waits for its date and offers no release by hand (the Calendar moves or cancels it).
  await page.getByTestId('payout-scheduled-open').click();
  await expect(page.getByTestId('detail-attention')).toContainText('Scheduled — sent on its date');
  await expect(page.getByTestId('detail-reason')).toHaveText(`Scheduled: released on ${payoutDay} 09:30 ${ZONE}, not before. Move or cancel it on the Calendar.`);
  await expect(page.getByTestId('detail-calendar')).toBeVisible();
  await expect(page.getByTestId('held-actions')).toHaveCount(0);

  // A batch from the batch review, "Release on a date": its EUR rows need more than the balance, which a release
  // later does not refuse (it may be topped up by then); the forecast says how much is missing.
  await nav(page, 'Batches').click();
  await page.getByTestId('batch-file-input').setInputFiles({ name: 'supplier-run-december.csv', mimeType: 'text/csv', buffer: Buffer.from(CSV) });
  await expect(page.getByTestId('count-valid')).toContainText('3 valid');
  await expect(page.getByTestId('batch-blockers')).toContainText('Not enough balance in EUR');
  await page.getByTestId('batch-release-on-date').locator('input').check();
  await expect(page.getByTestId('batch-execute-zone')).toContainText(ZONE);
  await page.getByTestId('batch-execute-date').locator('input').fill(batchDay);
  await expect(page.getByTestId('batch-release-shortfall')).toContainText('EUR');
  await expect(page.getByTestId('batch-blockers')).toHaveCount(0);
  await page.getByTestId('batch-review-open').click();
  const batchReview = page.getByTestId('batch-review');
  await expect(batchReview.getByTestId('batch-review-release-on')).toContainText(`Released on ${batchDay} 08:00 ${ZONE}`);
  await batchReview.getByTestId('confirm-batch').locator('input').check();
  await expect(batchReview.getByTestId('submit-batch')).toHaveText('Schedule batch');
  await batchReview.getByTestId('submit-batch').click();
  // Waiting for its date: it says when, and offers no Pause or Resume; Cancel stays.
  const progress = page.getByTestId('batch-progress');
  await expect(progress.getByTestId('batch-state')).toHaveText('SCHEDULED');
  await expect(progress.getByTestId('batch-releases-on')).toHaveText(`Releases on ${batchDay} 08:00 ${ZONE}`);
  await expect(progress.getByTestId('batch-resume')).toHaveCount(0);
  await expect(progress.getByTestId('batch-pause')).toHaveCount(0);
  await expect(progress.getByTestId('batch-cancel')).toBeVisible();
  await expect(page.getByTestId('past-batch-releases-on')).toHaveText(`Releases on ${batchDay} 08:00 ${ZONE}`);
  await shot(page, 'batch-scheduled');
  await expectAccessible(page, byTestId('batch-progress'));
  expect((await desk.sandboxState()).payoutCount).toBe(0);

  // Both on the Calendar, next month, on their days with their totals.
  await nav(page, 'Calendar').click();
  await expect(page.getByTestId('calendar-zone')).toHaveText(`Days in ${ZONE}`);
  await page.getByTestId('calendar-next').click();
  const payoutCell = page.getByTestId(`day-${payoutDay}`);
  const batchCell = page.getByTestId(`day-${batchDay}`);
  await expect(payoutCell).toContainText('Grace Hopper');
  await expect(payoutCell).toContainText('09:30');
  await expect(payoutCell.getByTestId('run-total')).toHaveText('EUR 980.00');
  await expect(payoutCell.getByTestId('run-state')).toHaveText('Scheduled');
  await expect(batchCell).toContainText('supplier-run-december.csv');
  await expect(batchCell.getByTestId('run-total')).toHaveText(['EUR 105,000.50', 'USD 125.75']);

  // The forecast: 980.00 on the 10th is covered; with the batch on the 15th EUR is short by 5,980.50.
  await expect(page.getByTestId(`forecast-${payoutDay}-EUR`)).toContainText('EUR 980.00');
  const shortLine = page.getByTestId(`forecast-${batchDay}-EUR`);
  await expect(shortLine).toContainText('EUR 105,980.50');
  await expect(shortLine.getByTestId('forecast-short-by')).toHaveText('EUR 5,980.50');
  await expect(page.getByTestId(`forecast-${batchDay}-USD`).getByTestId('forecast-short-by')).toHaveCount(0);
  await expect(page.getByTestId('forecast-shortfall-EUR')).toContainText(`EUR short by 5,980.50 on ${batchDay}`);
  await expect(page.getByTestId('forecast-shortfall-USD')).toHaveCount(0);

  // Move the payout to the 22nd: it says it needs approving again.
  await payoutCell.getByRole('button', { name: /Grace Hopper/ }).click();
  const detail = page.getByTestId('schedule-detail');
  await expect(detail.getByTestId('schedule-detail-when')).toHaveText(`${payoutDay} 09:30 ${ZONE}`);
  await expect(detail.getByTestId('schedule-detail-totals')).toContainText('EUR 980.00');
  await expect(detail.getByTestId('schedule-detail-subject')).toHaveText('HELD — waits for its date');
  await expect(detail.getByTestId('schedule-confirm-late'), 'only a late run is confirmed').toHaveCount(0);
  await expectAccessible(page, byTestId('schedule-detail'));
  await detail.getByTestId('schedule-move').click();
  await expect(detail.getByTestId('schedule-move-form')).toContainText('asks for its approvals again');
  await detail.getByTestId('schedule-move-date').locator('input').fill(movedDay);
  await detail.getByTestId('schedule-move-time').locator('input').fill('14:00');
  await detail.getByTestId('schedule-move-time').locator('input').blur();
  await shot(page, 'calendar-move');
  await expectAccessible(page, byTestId('schedule-detail'));
  await detail.getByTestId('schedule-move-save').click();
  await expect(page.getByTestId('snackbar')).toContainText(`Moved to ${movedDay} 14:00 ${ZONE}`);
  await expect(detail.getByTestId('schedule-detail-when')).toHaveText(`${movedDay} 14:00 ${ZONE}`);
  await detail.getByTestId('schedule-detail-close').click();
  await expect(payoutCell).not.toContainText('Grace Hopper');
  const movedCell = page.getByTestId(`day-${movedDay}`);
  await expect(movedCell).toContainText('Grace Hopper');
  await expect(movedCell).toContainText('14:00');
  // The batch is now short on its own day by 5,000.50; the payout on the 22nd adds its 980.00.
  await expect(page.getByTestId('forecast-shortfall-EUR')).toContainText(`EUR short by 5,000.50 on ${batchDay}`);
  await expect(page.getByTestId(`forecast-${movedDay}-EUR`).getByTestId('forecast-short-by')).toHaveText('EUR 5,980.50');

  // The guide's pictures: the month with the shortfall above it, then the forecast table.
  await page.getByTestId('snackbar').getByRole('button', { name: 'Close' }).click();
  await expect(page.getByTestId('snackbar')).toBeHidden();
  await nav(page, 'Calendar').focus();
  await shot(page, 'calendar');
  await page.getByTestId('forecast-table').scrollIntoViewIfNeeded();
  await shot(page, 'calendar-forecast');
  await expectAccessible(page);

  // Cancel the payout, with a reason: Cancelled on its day, and out of the forecast.
  await movedCell.getByRole('button', { name: /Grace Hopper/ }).click();
  await detail.getByTestId('schedule-cancel').click();
  const cancel = page.getByTestId('schedule-cancel-dialog');
  await expect(cancel).toContainText('the payout is discarded');
  await cancel.getByTestId('schedule-cancel-reason').locator('input').fill('invoice paid by card');
  await cancel.getByTestId('schedule-cancel-confirm').click();
  await expect(detail.getByTestId('schedule-detail-state')).toHaveText('Cancelled');
  await expect(detail.getByTestId('schedule-move')).toHaveCount(0);
  await detail.getByTestId('schedule-detail-close').click();
  await expect(movedCell.getByTestId('run-state')).toHaveText('Cancelled');
  await expect(page.getByTestId(`forecast-${movedDay}-EUR`)).toHaveCount(0);
  await expect(page.getByTestId('forecast-shortfall-EUR')).toContainText(`EUR short by 5,000.50 on ${batchDay}`);

  // Nothing reached the gateway: one waits for its date, one was cancelled before it.
  expect((await desk.sandboxState()).payoutCount).toBe(0);

  // The desk was off at a run's time and finds it 3 h late, past the 120-minute late window: it does not leave by
  // itself; it is Late on its day until a sender confirms it. (Setup: the run's time is put 3 h back in the journal,
  // as if the desk had been off since; then the release loop looks.)
  const late = await schedulePayout(desk, '50.00', 'Late Supplier GmbH', `${nextMonthDay(today, 5)}T10:00`);
  const { activeProfileId } = await call<ProfileList>(desk.handlers, 'profiles:list');
  if (!activeProfileId) throw new Error('no active profile');
  const dueAt = Math.floor((Date.now() - 3 * 3_600_000) / 60_000) * 60_000;
  const due = wallTime(dueAt, ZONE);
  expect(await (await desk.runtime.journalFor(activeProfileId)).moveSchedule('payout', late.id, { at: dueAt, zone: ZONE, local: due }, 'e2e: the desk was off')).toBe(true);
  await (await desk.runtime.engineFor(activeProfileId)).releaseDue();
  await page.getByTestId('calendar-today').click();
  const lateCell = page.getByTestId(`day-${due.slice(0, 10)}`);
  await expect(lateCell.getByTestId('run-state')).toHaveText('Late');
  await expect(lateCell.getByTestId('run-late')).toHaveText(/^late by 3 h/);
  expect((await desk.sandboxState()).payoutCount, 'a late run waits for a person').toBe(0);
  await lateCell.getByRole('button', { name: /Late Supplier GmbH/ }).click();
  await expect(detail.getByTestId('schedule-detail-late')).toContainText('late window');
  await detail.getByTestId('schedule-confirm-late').click();
  await page.getByTestId('schedule-late-dialog').getByTestId('schedule-late-confirm').click();
  await expect(detail.getByTestId('schedule-detail-state')).toHaveText('Released');
  await expect(detail.getByTestId('schedule-detail-released')).toBeVisible();
  await expect(detail.getByTestId('schedule-confirm-late')).toHaveCount(0);
  await detail.getByTestId('schedule-detail-close').click();
  await expect(lateCell.getByTestId('run-state')).toHaveText('Released');
  await expect.poll(async () => (await desk.sandboxState()).payoutCount, { timeout: 20_000 }).toBe(1);
  expect(desk.sandbox().state().payouts[0]?.amountMinor).toBe(5000);

  // Dark theme too: nothing serious or critical.
  await page.getByTestId('theme-toggle').click();
  await expectAccessible(page);
});
