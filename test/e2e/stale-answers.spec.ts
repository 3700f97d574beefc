// Answers from main can come back in any order. Here the bridge holds the answer to the first request
// longer than the answer to the second, and the screen must show the second (the latest) only: the
// file chosen last, the search typed last. Found on a fresh machine as batch-funding.spec.ts seeing
// "0 valid" from the file chosen before (its re-read landed last, or the new file was not read at all).
import { expect, test, type Page } from '@playwright/test';
import type { Channel, IpcHandlerMap, PaymentDetail, PayoutValidation, Result } from '../../contract/api';
import { germanIban } from './support/csv-fixtures';
import { APP_URL, bridgePage } from './support/bridge-page';
import { createDesk } from './support/desk-bridge';

type Desk = Awaited<ReturnType<typeof createDesk>>;

async function call<T>(handlers: IpcHandlerMap, channel: Channel, args?: unknown): Promise<T> {
  const r = (await handlers[channel](args)) as Result<T>;
  if (!r.ok) throw new Error(`${channel} failed: ${r.error.code} ${r.error.message}`);
  return r.data;
}

/**
 * The real desk behind the page, with the first answer of `channel` whose arguments `hold` picks kept
 * `holdMs` longer than every other answer. `held()` tells whether that answer has been given.
 */
async function openWithSlowFirstAnswer(page: Page, desk: Desk, channel: Channel, holdMs: number, screen: string, hold: (args: unknown) => boolean = () => true): Promise<{ held: () => boolean }> {
  let holding = false;
  let released = false;
  const handlers = { ...desk.handlers } as Record<string, (args: unknown) => Promise<unknown>>;
  const real = desk.handlers[channel] as (args: unknown) => Promise<unknown>;
  handlers[channel] = async (args: unknown) => {
    const answer = await real(args);
    if (!holding && hold(args)) {
      holding = true;
      await new Promise((r) => setTimeout(r, holdMs));
      released = true;
    }
    return answer;
  };
  await bridgePage(page, { handlers: handlers as unknown as IpcHandlerMap, events: desk.events });
  await call(desk.handlers, 'profiles:createDemo');
  await page.goto(`${APP_URL}#/${screen}`);
  await expect(page.getByTestId('app-bar-status').getByTestId('env-TEST')).toBeVisible();
  return { held: () => released };
}

const HEADER = 'amount,currencyCode,accountName,accountNumber,paymentOperatorCode,emailAddress';
const csvOf = (rows: string[]) => Buffer.from([HEADER, ...rows].join('\r\n') + '\r\n');

/** What the History screen shows now, for a failure message: its total, load state and rows. */
async function historyScreenState(page: Page): Promise<string> {
  const text = async (id: string) => ((await page.getByTestId(id).count()) ? (await page.getByTestId(id).first().innerText()).trim() : 'absent');
  return [
    `url ${page.url()}`,
    `total "${await text('history-total')}"`,
    `loading ${await page.getByTestId('state-loading').count()}`,
    `error "${await text('state-error')}"`,
    `rows ${await page.getByTestId('history-row').count()}`,
    `placeholder rows ${await page.getByTestId('history-row-loading').count()}`,
  ].join(', ');
}

let desk: Desk | undefined;
test.afterEach(async ({ page }) => {
  await page.goto('about:blank').catch(() => undefined);
  await desk?.close();
  desk = undefined;
});

test('batch validation: the file chosen last is shown, even when the answer for the file before lands after it', async ({ page }) => {
  desk = await createDesk();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  const slow = await openWithSlowFirstAnswer(page, desk, 'batches:validateFile', 1500, 'batches');
  const operator = await desk.operatorFor('EUR');
  const input = page.getByTestId('batch-file-input');

  // First file: every amount invalid. Its answer is held for 1.5 s.
  await input.setInputFiles({ name: 'first.csv', mimeType: 'text/csv', buffer: csvOf([`abc,EUR,Old File,${germanIban('370400440532099001')},${operator},old@example.com`]) });
  // Second file, chosen while the first is still being read: three valid rows, answered at once.
  await page.waitForTimeout(100);
  await input.setInputFiles({
    name: 'second.csv', mimeType: 'text/csv',
    buffer: csvOf(['1.00', '2.00', '3.00'].map((a, i) => `${a},EUR,New Payee ${i},${germanIban(`37040044053209910${i}`)},${operator},new${i}@example.com`)),
  });
  await expect(page.getByTestId('count-valid')).toContainText('3 valid');
  // The first file's answer arrives now: it must not replace the second file's results.
  await expect.poll(slow.held, { timeout: 5_000 }).toBe(true);
  await page.waitForTimeout(300);
  await expect(page.getByTestId('count-valid')).toContainText('3 valid');
  await expect(page.getByTestId('count-invalid')).toContainText('0');
  await expect(page.getByText('second.csv')).toBeVisible();
  expect(errors).toEqual([]);
});

test('history search: the results of the search typed last are shown, even when the earlier search answers later', async ({ page }) => {
  desk = await createDesk();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  // The answer to the search for "Alpha" is held for 1.5 s; every other query answers at once.
  const slow = await openWithSlowFirstAnswer(page, desk, 'history:query', 1500, 'balances', (args) => (args as { filters?: { search?: string } }).filters?.search === 'Alpha');
  for (const [name, bban] of [['Alice Alpha', '370400440532011111'], ['Bob Bravo', '370400440532012222']] as const) {
    const payout = { amount: '10.00', currencyCode: 'EUR', accountName: name, accountNumber: germanIban(bban), paymentOperatorCode: await desk.operatorFor('EUR'), emailAddress: `${name.split(' ')[0]!.toLowerCase()}@example.com` };
    const v = await call<PayoutValidation>(desk.handlers, 'payouts:validate', payout);
    await call<PaymentDetail>(desk.handlers, 'payouts:create', { ...payout, idPayout: v.preview!.idPayout });
  }
  await page.goto(page.url().replace(/#.*$/, '#/history'));
  const rows = page.getByTestId('history-row');
  // The History screen's first open loads its code and charts: on a loaded CI machine that took over 5 s once.
  // Twice in many runs a fresh machine saw no row for the whole 20 s and it never reproduced here: if it comes
  // back, the failure says what the screen showed instead (loading, an error, placeholders, the total).
  await expect(rows).toHaveCount(2, { timeout: 20_000 }).catch(async (e: unknown) => {
    throw new Error(`${e instanceof Error ? e.message : String(e)}\nthe History screen showed: ${await historyScreenState(page)}`);
  });

  const search = page.getByTestId('history-search').locator('input');
  await search.fill('Alpha');
  // Past the 100 ms debounce, so "Alpha" is asked (and held) before "Bravo" is asked.
  await page.waitForTimeout(400);
  await search.fill('Bravo');
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toContainText('Bob Bravo');
  await expect.poll(slow.held, { timeout: 5_000 }).toBe(true);
  await page.waitForTimeout(300);
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toContainText('Bob Bravo');
  expect(errors).toEqual([]);
});
