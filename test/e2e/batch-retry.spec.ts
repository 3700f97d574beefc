// "Retry failed rows" offers exactly the rows main marks retryable (main decides, per intent), the
// results link each retried row to its retry and back, and a payout's detail lists every attempt.
import type { Page } from '@playwright/test';
import type { BatchResultRow, BatchView, Page as ResultPage } from '../../contract/api';
import { germanIban, payoutCsv } from './support/csv-fixtures';
import { call, expect, openWithDemo, shot, test } from './support/journey';
import type { DeskHarness } from './support/desk-bridge';

async function batchNamed(desk: DeskHarness, fileName: string): Promise<BatchView> {
  const list = await call<ResultPage<BatchView>>(desk.handlers, 'batches:list', { limit: 50 });
  const batch = list.items.find((b) => b.fileName === fileName);
  if (!batch) throw new Error(`no batch ${fileName}`);
  return batch;
}

async function waitFinished(page: Page): Promise<void> {
  await expect(page.getByTestId('batch-state')).toHaveText('COMPLETED', { timeout: 60_000 });
  await expect(page.getByTestId('progress-pending')).toHaveText('0', { timeout: 30_000 });
  await expect(page.getByTestId('batch-results')).toBeVisible();
}

test('retry offers only the rows main marks retryable, links them both ways, and the detail lists the attempts', async ({ page, desk }) => {
  test.setTimeout(150_000);
  await openWithDemo(page, desk, 'batches');
  // Rows 2 and 4 pay accounts the gateway fails (ending 0000); the other three succeed.
  const closed = (n: number) => ({ accountNumber: germanIban(`3704004405329${n}0000`), accountName: `Closed Account ${n}` });
  const csv = payoutCsv(5, { 2: closed(2), 4: closed(4) });
  await page.getByTestId('batch-file-input').setInputFiles({ name: 'april.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
  await expect(page.getByTestId('count-valid')).toContainText('5');
  for (const box of await page.locator('[data-testid^="confirm-warning-"]').all()) await box.locator('input').check();
  await page.getByTestId('batch-review-open').click();
  await page.getByTestId('batch-review').getByTestId('confirm-batch').locator('input').check();
  await page.getByTestId('batch-review').getByTestId('submit-batch').click();
  await waitFinished(page);

  const results = page.getByTestId('batch-results');
  await expect(results.getByTestId('results-count-FAILED')).toHaveText('FAILED: 2');
  const original = await batchNamed(desk, 'april.csv');
  const firstRows = await call<BatchResultRow[]>(desk.handlers, 'batches:results', { batchId: original.id });
  const retryable = firstRows.filter((r) => r.retryable).map((r) => r.idPayout).sort();
  expect(retryable).toHaveLength(2);

  // The dialog lists exactly main's retryable rows.
  await expect(results.getByTestId('batch-retry-failed')).toContainText('Retry 2 failed rows');
  await results.getByTestId('batch-retry-failed').click();
  const retry = page.getByTestId('batch-retry-review');
  await expect(retry).toContainText('Send 2 failed rows again?');
  expect((await retry.getByTestId('batch-retry-row-id').allTextContents()).sort()).toEqual(retryable);
  await retry.getByTestId('confirm-retry').locator('input').check();
  await retry.getByTestId('batch-retry-confirm').dblclick();
  await expect(page.getByTestId('batch-progress')).toContainText('april-retry.csv');
  await waitFinished(page);

  // The retry batch: each row says which payout it retries; the accounts are still closed, so they
  // failed again, and main offers them once more (their earlier attempts moved no money).
  const retryBatch = await batchNamed(desk, 'april-retry.csv');
  const retryRows = await call<BatchResultRow[]>(desk.handlers, 'batches:results', { batchId: retryBatch.id });
  expect(retryRows).toHaveLength(2);
  for (const row of retryRows) {
    expect(retryable).toContain(row.retryOf);
    const link = results.getByTestId(`retry-of-${row.idPayout}`);
    await expect(link).toContainText(`retry of ${(row.retryOf ?? '').slice(0, 8)}`);
    await expect(link).toHaveAttribute('title', row.retryOf ?? '');
  }
  await expect(results.getByTestId('batch-retry-failed')).toContainText(new RegExp(`Retry ${retryRows.filter((r) => r.retryable).length} failed rows? as`));
  await shot(page, 'batch-retried');

  // The first batch again: its failed rows are retried already, so main offers none, though they are FAILED.
  await expect.poll(async () => (await call<BatchResultRow[]>(desk.handlers, 'batches:results', { batchId: original.id })).filter((r) => r.retryable).length).toBe(0);
  // Each row counted once in the list of past batches (a failure is final, not final twice).
  await expect(page.getByTestId('past-batches').getByRole('row', { name: /^april\.csv / })).toContainText('5/5 final, 2 failed');
  await page.getByTestId('past-batches').getByRole('button', { name: 'Open batch april.csv' }).click();
  await expect(page.getByTestId('batch-progress')).toContainText('april.csv');
  await expect(results.getByTestId('results-count-FAILED')).toHaveText('FAILED: 2');
  await expect(results.getByTestId('batch-retry-failed')).toHaveCount(0);
  const failedFirst = retryRows.find((r) => r.retryOf === retryable[0]);
  const retriedAs = results.getByTestId(`retried-as-${retryable[0]}`);
  await expect(retriedAs).toContainText(`retried as ${(failedFirst?.idPayout ?? '').slice(0, 8)}`);
  await shot(page, 'batch-results-retried');

  // The retry link opens the retry: its detail lists both attempts of the intent, this one marked.
  await retriedAs.getByRole('link').click();
  await expect(page).toHaveURL(new RegExp(`#/payouts/${failedFirst?.idPayout}$`));
  await expect(page.getByTestId('detail-status')).toHaveText('FAILED');
  const attempts = page.getByTestId('detail-attempt');
  await expect(attempts).toHaveCount(2);
  await expect(attempts.nth(0)).toContainText(retryable[0]?.slice(0, 8) ?? '-');
  await expect(attempts.nth(1).getByTestId('detail-attempt-current')).toBeVisible();
  await expect(attempts.nth(0).getByTestId('detail-attempt-current')).toHaveCount(0);
  await expect(page.getByTestId('detail-retry-of')).toContainText(retryable[0]?.slice(0, 8) ?? '-');
  await expect(page.getByTestId('detail-desk-state')).toHaveText('Sent — the gateway reports FAILED');
  await page.getByTestId('detail-attempts').scrollIntoViewIfNeeded();
  await shot(page, 'payout-attempts');

  // And back: the first attempt says what it was retried as, and marks itself.
  await attempts.nth(0).getByRole('link').click();
  await expect(page.getByTestId('detail-retried-as')).toContainText(failedFirst?.idPayout.slice(0, 8) ?? '-');
  await expect(attempts.nth(0).getByTestId('detail-attempt-current')).toBeVisible();
  // Five rows and two retries: seven payouts at the gateway, each sent once.
  const state = await desk.sandboxState();
  expect(state.payoutCount).toBe(7);
  expect(Object.values(state.createAttempts).every((n) => n === 1)).toBe(true);
});
