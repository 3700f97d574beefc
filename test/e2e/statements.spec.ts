// Statements: a period closed per currency, through the real desk and its sandbox. The balances are read, payouts
// are paid, fail and come back, then the statement of this month on the screen says per currency whether the
// closing balance the gateway gives now is the opening one moved by what was processed — and shows the same
// figures as main's own statements:get answer (the page adds nothing up). A period with nothing in it says what
// to do; axe finds nothing serious or critical in light and dark at 1280×800. Export saves the statement shown as
// CSV, PDF and camt.053 (each file read back, each audited with its SHA-256), whatever the picker was changed to.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import type { Locator, Page } from '@playwright/test';
import type { AuditEntryView, HistoryRow, Money, Page as ResultPage, PaymentDetail, StatementView } from '../../contract/api';
import { seriousViolations, settled } from './support/axe';
import { APP_URL } from './support/bridge-page';
import { call, chooseOption, expect, sendPayout, shot, test } from './support/journey';

/** Picks a currency; the list closes before anything else is clicked (journey.ts chooseOption). */
const chooseCurrency = (page: Page, name: string): Promise<void> => chooseOption(page, 'statement-currency', name);

/** Making a statement reads the gateway's balance: on a loaded machine that takes more than the default 5 s. */
const MADE = { timeout: 20_000 };

/** An amount as the page shows it, reduced to its digits ("EUR 99,968.95" → "99968.95"; en locale as in every spec). */
const digitsOf = (text: string): string => text.replace(/[^\d.-]/g, '');

/** The period the screen's "This month" sends: local midnights in the browser's own time zone. */
function thisMonth(page: Page): Promise<{ from: string; to: string }> {
  return page.evaluate(() => {
    const now = new Date();
    return { from: new Date(now.getFullYear(), now.getMonth(), 1).toISOString(), to: new Date(now.getFullYear(), now.getMonth() + 1, 1).toISOString() };
  });
}

/** A money cell of the page is main's amount, in its currency. */
async function expectMoney(cell: Locator, money: Money, what: string): Promise<void> {
  await expect(cell, what).toContainText(money.currencyCode);
  expect(digitsOf((await cell.textContent()) ?? ''), what).toBe(money.amount);
}

/** Polls the journal (history:query) until every payout is final and each stands as `want` says. */
async function waitForStatuses(handlers: Parameters<typeof call>[0], want: Record<string, string>): Promise<void> {
  await expect
    .poll(
      async () => {
        const rows = (await call<ResultPage<HistoryRow>>(handlers, 'history:query', { offset: 0, limit: 100 })).items;
        return Object.fromEntries(rows.filter((r) => r.final).map((r) => [r.id, r.status]));
      },
      // A return comes about 5 s after SUCCESS, by callback; without one the desk reads it again a minute later.
      { timeout: 100_000, intervals: [1000] },
    )
    .toEqual(want);
}

/** Exports the statement shown through the Export menu and catches the download: its name, path and bytes. */
async function exportAs(page: Page, format: 'csv' | 'pdf' | 'camt053'): Promise<{ name: string; path: string; bytes: Buffer }> {
  const download = page.waitForEvent('download');
  await page.getByTestId('statement-export').click();
  await page.getByTestId(`statement-export-${format}`).click();
  const file = await download;
  const path = await file.path();
  return { name: file.suggestedFilename(), path, bytes: await readFile(path) };
}

async function screenViolations(page: Page): Promise<string[]> {
  await expect(page.locator('.v-progress-circular')).toHaveCount(0);
  await settled(page);
  return seriousViolations(page);
}

test('this month\'s statement reconciles each currency and shows the paid, fees, failed and returned payouts as main counts them; Export saves it as CSV, PDF and camt.053', async ({ page, desk }) => {
  test.setTimeout(240_000);
  await page.setViewportSize({ width: 1280, height: 800 });
  await call(desk.handlers, 'profiles:createDemo');
  // Callbacks on, so the sandbox's return reaches the desk in seconds rather than at the minute's recheck.
  await call(desk.handlers, 'settings:update', { callback: { enabled: true, port: 0 } });
  const profileId = desk.runtime.ctx.profiles.currentId();
  if (!profileId) throw new Error('no current profile');
  await desk.runtime.engineFor(profileId);

  // The opening balance: the desk reads the balances first (as Balances does on its first open).
  await call(desk.handlers, 'balances:refresh');
  // Paid twice, failed once (account ending 0000), paid then returned (ending 9999); one USD payout.
  const sent: [PaymentDetail, string][] = [
    [await sendPayout(desk, '10.00', 'EUR', 'Alice Alpha', '370400440532011111'), 'SUCCESS'],
    [await sendPayout(desk, '20.00', 'EUR', 'Bob Bravo', '370400440532012222'), 'SUCCESS'],
    [await sendPayout(desk, '40.00', 'EUR', 'Dave Delta', '370400440532010000'), 'FAILED'],
    [await sendPayout(desk, '30.00', 'EUR', 'Erin Echo', '370400440532019999'), 'RETURNED'],
    [await sendPayout(desk, '30.00', 'USD', 'Carol Charlie', '370400440532013333'), 'SUCCESS'],
  ];
  await waitForStatuses(desk.handlers, Object.fromEntries(sent.map(([p, status]) => [p.id, status])));

  // The screen makes this month's statement as it opens.
  await page.goto(`${APP_URL}#/statements`);
  await expect(page.locator('h1')).toHaveText('Statements');
  await expect(page.getByTestId('statements-note')).toContainText('in the period in which the gateway processed it');
  await expect(page.getByTestId('statements-note')).toContainText('not the one in which it was entered');
  const eur = page.getByTestId('statement-currency-EUR');
  await expect(eur).toBeVisible({ timeout: 15_000 });

  // Main's own answer for the same period: what the page must show.
  const ipc = await call<StatementView>(desk.handlers, 'statements:get', await thisMonth(page));
  const e = ipc.currencies.find((c) => c.currencyCode === 'EUR');
  if (!e) throw new Error(`no EUR in ${JSON.stringify(ipc)}`);
  // The scenario as main counts it: three paid (the returned one was paid first), one failed, one returned.
  expect({ paid: e.paid.count, failed: e.failed.count, returned: e.returned.count, payins: e.payins.count, reconciled: e.reconciled }).toEqual({
    paid: 3, failed: 1, returned: 1, payins: 0, reconciled: true,
  });

  const verdict = eur.getByTestId('statement-verdict');
  await expect(verdict).toHaveText('Reconciles');
  await expect(verdict).toHaveAttribute('data-state', 'reconciled');
  const row = (key: string) => eur.getByTestId(`row-${key}`);
  await expect(row('paid').getByTestId('count')).toHaveText(String(e.paid.count));
  await expectMoney(row('paid').getByTestId('amount'), e.paid.amount, 'paid');
  await expectMoney(row('fees').getByTestId('amount'), e.fees, 'fees');
  await expect(row('failed').getByTestId('count')).toHaveText(String(e.failed.count));
  await expect(row('failed')).toContainText('no fee, nothing left the balance');
  await expectMoney(row('failed').getByTestId('hint'), e.failed.amount, 'failed');
  await expect(row('returned').getByTestId('count')).toHaveText(String(e.returned.count));
  await expectMoney(row('returned').getByTestId('amount'), e.returned.amount, 'returned');
  await expect(row('payins').getByTestId('count')).toHaveText('0');
  if (!e.opening || !e.closing || !e.expectedClosing || !e.difference) throw new Error(`EUR is not complete: ${JSON.stringify(e)}`);
  await expectMoney(row('opening').getByTestId('amount'), e.opening.total, 'opening total');
  await expectMoney(row('expected').getByTestId('amount'), e.expectedClosing, 'expected closing');
  await expectMoney(row('closing').getByTestId('amount'), e.closing.total, 'closing total');
  await expectMoney(row('difference').getByTestId('amount'), e.difference, 'difference');
  // The closing balance of a month not over yet is the gateway's, read for this statement.
  await expect(row('closing').getByTestId('hint')).toHaveText('read from the gateway now');
  await expect(eur.getByTestId('statement-closing')).toContainText('Read from the gateway now');
  await expect(eur.getByTestId('statement-opening')).toContainText('Read ');
  // Every line with an amount is a row of the sum; every line without one is a remark.
  const sumLines = e.lines.filter((l) => l.amount !== null && l.kind !== 'unexplained');
  await expect(eur.locator('[data-testid^="row-line-"]')).toHaveCount(sumLines.length);
  const remarks = e.lines.filter((l) => l.amount === null);
  await expect(eur.getByTestId('statement-remarks').locator('li')).toHaveCount(remarks.length);
  for (const l of remarks) await expect(eur.getByTestId('statement-remarks')).toContainText(l.text);

  // USD reconciles too; a currency nothing moved in shows its balance unchanged.
  await expect(page.getByTestId('statement-currency-USD').getByTestId('statement-verdict')).toHaveText('Reconciles');
  const gbp = ipc.currencies.find((c) => c.currencyCode === 'GBP');
  expect(gbp?.reconciled).toBe(true);
  await expect(page.getByTestId('statement-currency-GBP').getByTestId('row-paid').getByTestId('count')).toHaveText('0');

  // Light and dark at 1280×800: nothing serious or critical for axe.
  const found: string[] = [];
  for (const v of await screenViolations(page)) found.push(`light: ${v}`);
  await page.getByTestId('theme-toggle').click();
  for (const v of await screenViolations(page)) found.push(`dark: ${v}`);
  await page.getByTestId('theme-toggle').click();
  expect(found, found.join('\n')).toEqual([]);

  // One currency: only its card.
  await chooseCurrency(page, 'EUR');
  await page.getByTestId('statement-make').click();
  await expect(page.getByTestId('statement-currency-USD')).toHaveCount(0, MADE);
  await expect(eur.getByTestId('statement-verdict')).toHaveText('Reconciles');
  await expect(page.locator('[data-testid^="statement-currency-"]')).toHaveCount(1);
  for (const v of await screenViolations(page)) found.push(`EUR only: ${v}`);
  // The guide's picture: the whole statement of one currency (the window as tall as the page, 1280 wide).
  const height = await page.evaluate(() => document.documentElement.scrollHeight);
  await page.setViewportSize({ width: 1280, height: Math.max(800, Math.min(height, 1400)) });
  await shot(page, 'statements');
  await page.setViewportSize({ width: 1280, height: 800 });

  // Export files the statement shown (this month, EUR), not what the picker was changed to without making it.
  await chooseCurrency(page, 'All currencies');
  await page.getByTestId('statement-export').click();
  await expect(page.getByTestId('statement-export-camt053')).toHaveText('camt.053 for an ERP (ISO 20022 bank statement)');
  for (const v of await screenViolations(page)) found.push(`export menu: ${v}`);
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('statement-export-camt053')).toBeHidden();
  const paidId = sent[0]?.[0].id;
  if (!paidId) throw new Error('no paid payout');
  const csv = await exportAs(page, 'csv');
  expect(csv.name).toMatch(/-EUR\.csv$/);
  const csvLines = csv.bytes.toString('utf8').split(/\r?\n/);
  expect(csvLines[0]).toBe('currencyCode,section,description,count,debit,credit,balance,at,paymentId');
  expect(csvLines.filter((l) => l.startsWith('USD,')), 'only the EUR statement shown').toEqual([]);
  expect(csvLines.find((l) => l.startsWith('EUR,movement,') && l.endsWith(`,${paidId}`)), `a movement row for ${paidId}`).toBeDefined();
  const pdf = await exportAs(page, 'pdf');
  expect(pdf.name).toMatch(/-EUR\.pdf$/);
  expect(pdf.bytes.subarray(0, 5).toString('latin1')).toBe('%PDF-');
  const { stdout: pdfText } = await promisify(execFile)('pdftotext', ['-layout', pdf.path, '-']);
  expect(pdfText).toContain('EUR - Reconciles');
  expect(pdfText).toContain(e.expectedClosing.amount);
  const xml = await exportAs(page, 'camt053');
  expect(xml.name).toMatch(/-EUR\.camt053\.xml$/);
  const xmlText = xml.bytes.toString('utf8');
  expect(xmlText).toContain('urn:iso:std:iso:20022:tech:xsd:camt.053.001.08');
  expect(xmlText).toContain(paidId);
  // Main audited each file with its SHA-256: the bytes saved are the bytes main issued (the PDF decoded exactly).
  const audit = (await call<ResultPage<AuditEntryView>>(desk.handlers, 'audit:list', { limit: 20 })).items.filter((a) => a.action === 'statement.exported');
  const period = await thisMonth(page);
  const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
  expect(audit).toHaveLength(3);
  for (const [format, file] of [['csv', csv], ['pdf', pdf], ['camt053', xml]] as const) {
    const entry = audit.find((a) => (a.details as { format?: string }).format === format);
    expect(entry?.subject, format).toBe(`${period.from}/${period.to}`);
    expect(entry?.details, format).toMatchObject({ currencyCode: 'EUR', fileName: file.name, sha256: sha256(file.bytes) });
  }
  await chooseCurrency(page, 'EUR');

  // Money the desk did not move (a top-up by the gateway): the statement no longer reconciles, and says by how much.
  const merchant = Object.keys(desk.sandbox().state().balances)[0];
  if (!merchant) throw new Error('the sandbox has no merchant');
  desk.sandbox().fund(merchant, 'EUR', 123_45);
  await page.getByTestId('statement-make').click();
  await expect(verdict).toHaveAttribute('data-state', 'difference', MADE);
  const after = (await call<StatementView>(desk.handlers, 'statements:get', { ...(await thisMonth(page)), currencyCode: 'EUR' })).currencies[0];
  if (!after?.difference || after.reconciled) throw new Error(`EUR should not reconcile after a top-up: ${JSON.stringify(after)}`);
  expect(after.difference.amount).toBe('123.45');
  await expect(verdict).toContainText('Difference of');
  expect(digitsOf((await verdict.textContent()) ?? '')).toBe(after.difference.amount);
  await expectMoney(row('difference').getByTestId('amount'), after.difference, 'difference after the top-up');
  await expect(row('difference').getByTestId('amount')).toHaveClass(/text-error/);
  // Main names what it cannot explain; the page says it under the difference.
  const unexplained = after.lines.find((l) => l.kind === 'unexplained');
  expect(unexplained?.amount).toEqual(after.difference);
  await expect(row('difference').getByTestId('hint')).toHaveText(unexplained?.text ?? '');
  // The expected closing is the same as before: the top-up is not one of the desk's movements.
  await expectMoney(row('expected').getByTestId('amount'), e.expectedClosing, 'expected closing after the top-up');
  for (const v of await screenViolations(page)) found.push(`difference: ${v}`);

  // A custom period with nothing in it (no balance read by its end, nothing processed): what to do.
  await page.getByTestId('preset-custom').click();
  await page.getByTestId('statement-first-day').locator('input').fill('2020-01-01');
  await page.getByTestId('statement-last-day').locator('input').fill('2020-01-31');
  await chooseCurrency(page, 'All currencies');
  await page.getByTestId('statement-make').click();
  const empty = page.getByTestId('state-empty');
  await expect(empty).toContainText('Nothing to reconcile in this period', MADE);
  await expect(empty).toContainText('read the balances on Balances first');
  await expect(page.getByTestId('statement-period')).toHaveText(/2020/);
  await expect(page.getByTestId('statement-export'), 'nothing to export').toBeDisabled();
  for (const v of await screenViolations(page)) found.push(`empty: ${v}`);
  expect(found, found.join('\n')).toEqual([]);
  // The last day before the first: said, and nothing is asked.
  await page.getByTestId('statement-last-day').locator('input').fill('2019-12-31');
  await expect(page.getByTestId('statement-problem')).toHaveText('The first day must not be after the last day.');
  await expect(page.getByTestId('statement-make')).toBeDisabled();
  await page.getByTestId('statements-empty-balances').click();
  await expect(page).toHaveURL(/#\/balances$/);
});
