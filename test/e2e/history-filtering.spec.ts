import type { BatchValidation, BatchView } from '../../contract/api';
import { payoutCsv } from './support/csv-fixtures';
import { call, expect, openWithDemo, sendPayout, shot, test } from './support/journey';


/** A local calendar day as the date inputs take it (yyyy-mm-dd), `offset` days from today. */
function localDay(offset: number): string {
  const d = new Date();
  d.setDate(d.getDate() + offset);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

test('History filters by status, currency, kind, batch and date range, searches by name, and the detail shows fee, processed time, test flag and raw answer', async ({ page, desk }) => {
  test.setTimeout(90_000);
  await openWithDemo(page, desk, 'balances');
  await sendPayout(desk, '10.00', 'EUR', 'Alice Alpha', '370400440532011111');
  await sendPayout(desk, '20.00', 'EUR', 'Bob Bravo', '370400440532012222');
  await sendPayout(desk, '30.00', 'USD', 'Carol Charlie', '370400440532013333');
  const failed = await sendPayout(desk, '40.00', 'EUR', 'Dave Delta', '370400440532010000');

  await page.goto(page.url().replace(/#.*$/, '#/history'));
  await expect(page.getByTestId('history-total')).toContainText('4 payments');
  const rows = page.getByTestId('history-row');
  await expect(rows).toHaveCount(4);
  // Wait for the sandbox to finish the failing one, so the status filter has something to find.
  await expect(rows.filter({ hasText: 'Dave Delta' }).getByTestId('history-status')).toHaveText('FAILED', { timeout: 30_000 });
  await shot(page, 'history');

  await page.getByTestId('filter-status').click();
  await page.getByRole('option', { name: 'FAILED' }).click();
  await page.keyboard.press('Escape');
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toContainText(failed.id);

  await page.getByTestId('filter-clear').click();
  await expect(rows).toHaveCount(4);
  await page.getByTestId('filter-currency').click();
  await page.getByRole('option', { name: 'USD' }).click();
  await page.keyboard.press('Escape');
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toContainText('Carol Charlie');

  await page.getByTestId('filter-clear').click();
  await expect(rows).toHaveCount(4);
  // Two characters do not search (the trigram indexes need three): the field says so and the table stays whole.
  await page.getByTestId('history-search').locator('input').fill('Br');
  await expect(page.getByTestId('history-search')).toContainText('Type at least 3 characters to search');
  await page.waitForTimeout(400); // past the search box's 100 ms debounce: a search would have narrowed the table by now
  await expect(page.getByTestId('history-total')).toContainText('4 payments');
  await expect(rows).toHaveCount(4);
  await shot(page, 'history-short-search');
  await page.getByTestId('history-search').locator('input').fill('Bravo');
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toContainText('Bob Bravo');

  await page.getByTestId('filter-clear').click();
  await page.getByTestId('filter-kind').click();
  await page.getByRole('option', { name: 'Payins' }).click();
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('state-empty')).toBeVisible();

  // Export of the filtered rows: only what the table shows.
  await page.getByTestId('filter-clear').click();
  await page.getByTestId('filter-currency').click();
  await page.getByRole('option', { name: 'EUR' }).click();
  await page.keyboard.press('Escape');
  await expect(rows).toHaveCount(3);
  const download = page.waitForEvent('download');
  await page.getByTestId('history-export').click();
  const text = await (await download).createReadStream().then(async (s) => {
    const chunks: Buffer[] = [];
    for await (const c of s) chunks.push(c as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  });
  expect(text).toContain('Alice Alpha');
  expect(text).not.toContain('Carol Charlie');

  // A batch of two next to the four single payouts: the batch filter shows exactly its rows.
  const validation = await call<BatchValidation>(desk.handlers, 'batches:validateFile', {
    source: { kind: 'bytes', fileName: 'history-batch.csv', bytes: Buffer.from(payoutCsv(2)) },
  });
  const batch = await call<BatchView>(desk.handlers, 'batches:submit', { validationId: validation.validationId, confirmedWarningRows: [] });
  await page.reload();
  await expect(page.getByTestId('history-total')).toContainText('6 payments');
  await page.getByTestId('filter-batch').click();
  await page.getByRole('option', { name: `history-batch.csv (${batch.id.slice(0, 8)})` }).click();
  await expect(rows).toHaveCount(2);
  await expect(rows.filter({ hasText: 'Supplier 01 GmbH' })).toHaveCount(1);
  await expect(rows.filter({ hasText: 'Supplier 02 GmbH' })).toHaveCount(1);
  await expect(page.getByTestId('history-total')).toContainText('2 payments');

  // Date range (whole local days), together with the batch filter, then alone.
  const from = page.getByTestId('filter-from').locator('input');
  const to = page.getByTestId('filter-to').locator('input');
  await from.fill(localDay(0));
  await to.fill(localDay(0));
  await expect(page.getByTestId('history-total')).toContainText('2 payments');
  await from.fill(localDay(1));
  await to.fill(localDay(1));
  await expect(page.getByTestId('state-empty')).toBeVisible();
  await page.getByTestId('filter-clear').click();
  await expect(rows).toHaveCount(6);
  await to.fill(localDay(-1));
  await expect(page.getByTestId('state-empty')).toBeVisible();
  await from.fill(localDay(-1));
  await to.fill(localDay(0));
  await expect(page.getByTestId('history-total')).toContainText('6 payments');
  await expect(rows).toHaveCount(6);
  await shot(page, 'history-filtered');

  // The detail drawer of a paid payout: fee (EUR 0.25 + 0.5 % of 10.00), processed time, test flag, raw gateway answer.
  await page.getByTestId('filter-clear').click();
  await page.getByTestId('history-search').locator('input').fill('Alice Alpha');
  await expect(rows).toHaveCount(1);
  await expect(rows.first().getByTestId('history-status')).toHaveText('SUCCESS', { timeout: 30_000 });
  await rows.first().click();
  const drawer = page.getByTestId('history-drawer');
  await expect(drawer.getByTestId('detail-status')).toHaveText('SUCCESS');
  await expect(drawer.getByTestId('detail-fee')).toHaveText('EUR 0.30');
  await expect(drawer.getByTestId('detail-processed')).not.toHaveText('—');
  await expect(drawer.getByTestId('detail-processed')).toContainText(String(new Date().getFullYear()));
  await expect(drawer.getByTestId('detail-test')).toHaveText('yes (test)');
  await expect(drawer.getByTestId('detail-test-chip')).toBeVisible();
  await drawer.getByTestId('detail-raw-panel').getByRole('button', { name: 'Raw gateway response' }).click();
  const raw = drawer.getByTestId('detail-raw');
  await expect(raw).toBeVisible();
  const rawJson = JSON.parse((await raw.textContent()) ?? 'null') as unknown;
  const rawText = JSON.stringify(rawJson);
  expect(rawText).toContain('SUCCESS');
  expect(rawText).toContain('"isTest":true');
  expect(rawText).toMatch(/"processedAt":"[^"]+"/);
  await shot(page, 'history-detail-success');
});
