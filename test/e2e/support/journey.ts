// Shared steps of the journeys: a fresh desk per test, the Demo profile, screenshots for the guide.
import { mkdir } from 'node:fs/promises';
import { expect, test as base, type Page } from '@playwright/test';
import type { Channel, IpcHandlerMap, PaymentDetail, PayoutValidation, Result } from '../../../contract/api';
import { APP_URL } from './bridge-page';
import { germanIban } from './csv-fixtures';
import { startDesk, type DeskHarness } from './desk-bridge';

export const SCREENSHOTS = 'docs/screenshots';

export const test = base.extend<{ desk: DeskHarness }>({
  desk: async ({ page }, use) => {
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    const harness = await startDesk(page);
    await use(harness);
    await harness.close();
    expect(errors, 'no uncaught errors in the page').toEqual([]);
  },
});
export { expect };

/** Calls a real handler from the test (setup only; the assertions go through the UI). */
export async function call<T>(handlers: IpcHandlerMap, channel: Channel, args?: unknown): Promise<T> {
  const r = (await handlers[channel](args)) as Result<T>;
  if (!r.ok) throw new Error(`${channel} failed: ${r.error.code} ${r.error.message}`);
  return r.data;
}

/** Creates the Demo profile through the real services and opens the app on a screen. */
export async function openWithDemo(page: Page, desk: DeskHarness, screen = 'balances'): Promise<void> {
  await call(desk.handlers, 'profiles:createDemo');
  await page.goto(`${APP_URL}#/${screen}`);
  await expect(page.getByTestId('app-bar-status').getByTestId('env-TEST')).toBeVisible();
}

export async function shot(page: Page, name: string): Promise<void> {
  await mkdir(SCREENSHOTS, { recursive: true });
  // Let transitions settle so the guide shows the screen, not an animation frame.
  await page.waitForTimeout(350);
  await page.screenshot({ path: `${SCREENSHOTS}/${name}.png` });
}

export async function selectOption(page: Page, testId: string, optionText: string | RegExp): Promise<void> {
  await page.getByTestId(testId).click();
  await page.getByRole('option', { name: optionText }).first().click();
}

/**
 * Picks one option of a single-choice select and waits for its list to close, trying again while it stays open: a
 * click that lands while the list is still moving in chooses nothing (seen on loaded CI machines), and a click on
 * the page meanwhile would land on the list's overlay.
 */
export async function chooseOption(page: Page, testId: string, optionText: string | RegExp): Promise<void> {
  await expect(async () => {
    if ((await page.getByRole('listbox').count()) === 0) await page.getByTestId(testId).click();
    await page.getByRole('option', { name: optionText }).first().click({ timeout: 2_000 });
    await expect(page.getByRole('listbox')).toHaveCount(0, { timeout: 2_000 });
  }).toPass({ timeout: 20_000 });
  await expect(page.getByTestId(testId)).toContainText(optionText);
}

/** One payout sent through the real handlers as New payout sends it (validate, then create with the preview's id). */
export async function sendPayout(desk: DeskHarness, amount: string, currencyCode: string, accountName: string, bban: string): Promise<PaymentDetail> {
  const input = {
    amount,
    currencyCode,
    accountName,
    accountNumber: germanIban(bban),
    paymentOperatorCode: await desk.operatorFor(currencyCode),
    emailAddress: `${accountName.split(' ')[0]?.toLowerCase() ?? 'x'}@example.com`,
  };
  const v = await call<PayoutValidation>(desk.handlers, 'payouts:validate', input);
  if (!v.preview) throw new Error(`invalid payout: ${JSON.stringify(v.issues)}`);
  return call<PaymentDetail>(desk.handlers, 'payouts:create', { ...input, idPayout: v.preview.idPayout });
}
