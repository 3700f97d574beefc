// Closing a period on the Statements screen: last month's statement is issued with its digest and holds; a balance
// read of last month that comes in later moves its closing figures, and the screen says "Changed since issued" with
// each figure from what it was to what it is, and issues it again. Accounting export posts this month's EUR movements
// to the accounts typed in the dialog as a Xero manual journal (the file read back: balanced, the accounts, the
// amounts), and a second export of the same period carries nothing, naming the export that did.
import { readFile } from 'node:fs/promises';
import type { Page } from '@playwright/test';
import type { HistoryRow, Page as ResultPage } from '../../contract/api';
import { seriousViolations, settled } from './support/axe';
import { APP_URL } from './support/bridge-page';
import { call, chooseOption, expect, sendPayout, shot, test } from './support/journey';

const MADE = { timeout: 20_000 };

/** Local midnights of last month, as the screen's "Last month" sends them. */
function lastMonth(page: Page): Promise<{ from: number; to: number }> {
  return page.evaluate(() => {
    const now = new Date();
    return { from: new Date(now.getFullYear(), now.getMonth() - 1, 1).getTime(), to: new Date(now.getFullYear(), now.getMonth(), 1).getTime() };
  });
}

test('last month is issued and then shows what changed since; the accounting export posts each movement once', async ({ page, desk }) => {
  test.setTimeout(180_000);
  await page.setViewportSize({ width: 1280, height: 800 });
  await call(desk.handlers, 'profiles:createDemo');
  const profileId = desk.runtime.ctx.profiles.currentId();
  if (!profileId) throw new Error('no current profile');
  await desk.runtime.engineFor(profileId);
  await call(desk.handlers, 'balances:refresh');
  const paid = [await sendPayout(desk, '12.50', 'EUR', 'Alice Alpha', '370400440532011111'), await sendPayout(desk, '7.25', 'EUR', 'Bob Bravo', '370400440532012222')];
  await expect
    .poll(async () => (await call<ResultPage<HistoryRow>>(desk.handlers, 'history:query', { offset: 0, limit: 10 })).items.filter((r) => r.final && r.status === 'SUCCESS').length, { timeout: 60_000 })
    .toBe(2);

  // Last month, as the desk had read it: a balance read early in the month (its opening) and one a week before its end.
  await page.goto(`${APP_URL}#/statements`);
  const month = await lastMonth(page);
  const journal = await desk.runtime.journalFor(profileId);
  await journal.insertBalanceSnapshots([{ currencyCode: 'EUR', availableMinor: 500_000, reservedMinor: 0 }], month.from + 2 * 86_400_000);
  await journal.insertBalanceSnapshots([{ currencyCode: 'EUR', availableMinor: 500_000, reservedMinor: 0 }], month.to - 7 * 86_400_000);

  await page.getByTestId('preset-last-month').click();
  await chooseOption(page, 'statement-currency', 'All currencies');
  await page.getByTestId('statement-make').click();
  const note = page.getByTestId('statement-issued');
  await expect(note).toContainText('was not issued yet', MADE);
  await page.getByTestId('statement-issue').click();
  await expect(page.getByTestId('statement-issued-holds')).toContainText('unchanged since');

  // A read of the last day comes in later (another desk, a late sync): the closing balance moves to it.
  await journal.insertBalanceSnapshots([{ currencyCode: 'EUR', availableMinor: 498_000, reservedMinor: 0 }], month.to - 60_000);
  await page.getByTestId('statement-make').click();
  const changed = page.getByTestId('statement-issued-changed');
  await expect(changed).toContainText('Changed since issued', MADE);
  const available = changed.getByTestId('statement-change').filter({ hasText: 'EUR closing available' });
  await expect(available).toContainText('4980.00');
  // The "Statement issued" notice of the first issue fades out about now: axe read it mid-fade once (contrast 1.9:1).
  await expect(page.getByRole('status').filter({ hasText: 'Statement issued' })).toHaveCount(0, { timeout: 15_000 });
  await settled(page);
  expect(await seriousViolations(page)).toEqual([]);
  await shot(page, 'statement-changed-since-issued');
  await page.getByTestId('statement-issue-again').click();
  await expect(page.getByTestId('statement-issued-holds')).toContainText('unchanged since');

  // This month in EUR, to Xero, with the ledger's own account codes.
  await page.getByTestId('preset-this-month').click();
  await chooseOption(page, 'statement-currency', 'EUR');
  await page.getByTestId('statement-make').click();
  await expect(page.getByTestId('statement-currency-EUR')).toBeVisible(MADE);
  await page.getByTestId('statement-export').click();
  await page.getByTestId('statement-export-accounting').click();
  const dialog = page.getByTestId('accounting-dialog');
  await expect(dialog.getByTestId('accounting-account-clearing').locator('input')).toHaveValue('Payment gateway clearing');
  for (const [key, value] of [['clearing', '1010'], ['payouts', '6000'], ['fees', '6100']] as const) await dialog.getByTestId(`accounting-account-${key}`).locator('input').fill(value);
  await chooseOption(page, 'accounting-format', 'Xero manual journals');
  await settled(page);
  expect(await seriousViolations(page)).toEqual([]);
  await shot(page, 'accounting-export');
  const download = page.waitForEvent('download');
  await dialog.getByTestId('accounting-export').click();
  const file = await download;
  expect(file.suggestedFilename()).toMatch(/^accounting-.*-EUR-AX-.*\.xero\.csv$/);
  const rows = (await readFile(await file.path(), 'utf8')).trim().split(/\r?\n/).map((r) => r.split(','));
  expect(rows[0]).toEqual(['*Narration', '*Date', 'Description', '*AccountCode', '*TaxRate', '*Amount']);
  const body = rows.slice(1);
  expect(body.filter((r) => r[3] === '6000').map((r) => r[5])).toEqual(['19.75']);
  expect(body.reduce((t, r) => t + Number(r[5]!.replace('.', '')), 0)).toBe(0);
  await expect(dialog.getByTestId('accounting-result')).toContainText(`${2 * paid.length} movements`);
  // The accounts were saved for the profile.
  expect(await call(desk.handlers, 'statements:accounts')).toMatchObject({ clearing: '1010', payouts: '6000', fees: '6100' });

  // The same period again: nothing new, and the snackbar names the export that carried it.
  await dialog.getByTestId('accounting-export').click();
  await expect(page.getByTestId('snackbar')).toContainText('exported before', { timeout: 10_000 });
});
