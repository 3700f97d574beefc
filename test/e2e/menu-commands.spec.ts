// The application menu only emits `menuCommand`; here the event is emitted through the same desk events
// the app forwards to its window, and the renderer must act on it.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FileChoice, PaymentDetail, PayoutValidation } from '../../contract/api';
import { payoutCsv } from './support/csv-fixtures';
import { call, expect, openWithDemo, test } from './support/journey';

test('menu commands: About, Import CSV, Export per screen and Open data folder', async ({ page, desk }) => {
  await openWithDemo(page, desk, 'balances');
  const snackbar = page.getByTestId('snackbar');

  desk.events.emit('menuCommand', { command: 'about' });
  const about = page.getByTestId('about-dialog');
  await expect(about.getByTestId('about-name')).toHaveText('Payout Desk');
  await expect(about.getByTestId('about-version')).toHaveText('e2e');
  await expect(about.getByTestId('about-platform')).toHaveText(process.platform);
  await expect(about.getByTestId('about-data-folder')).toHaveText(desk.home);
  await about.getByTestId('about-close').click();
  await expect(about).toHaveCount(0);

  // Nothing to export on Balances: said so, nothing saved.
  desk.events.emit('menuCommand', { command: 'export' });
  await expect(snackbar).toContainText('nothing to export on this screen');
  await snackbar.getByRole('button', { name: 'Close' }).click();

  desk.events.emit('menuCommand', { command: 'open-data-folder' });
  await expect(snackbar).toContainText(desk.home);
  await snackbar.getByRole('button', { name: 'Close' }).click();

  // Import CSV: the Batches screen, with its file picker open.
  const chooser = page.waitForEvent('filechooser');
  desk.events.emit('menuCommand', { command: 'import-csv' });
  await expect(page).toHaveURL(/#\/batches$/);
  await (await chooser).setFiles({ name: 'from-menu.csv', mimeType: 'text/csv', buffer: Buffer.from(payoutCsv(3)) });
  await expect(page.getByTestId('count-rows')).toContainText('3');
  await expect(page.getByTestId('count-valid')).toContainText('3');

  // Batches without an open batch: nothing to export yet.
  desk.events.emit('menuCommand', { command: 'export' });
  await expect(snackbar).toContainText('Open a batch');
  await snackbar.getByRole('button', { name: 'Close' }).click();

  // History: the menu exports the filtered rows, like the screen's own button.
  const input = {
    amount: '42.00',
    currencyCode: 'EUR',
    accountName: 'Menu Export GmbH',
    accountNumber: 'DE89370400440532013000',
    paymentOperatorCode: await desk.operatorFor('EUR'),
    emailAddress: 'menu@example.com',
  };
  const v = await call<PayoutValidation>(desk.handlers, 'payouts:validate', input);
  await call<PaymentDetail>(desk.handlers, 'payouts:create', { ...input, idPayout: v.preview?.idPayout });
  await page.getByRole('link', { name: 'History' }).click();
  await expect(page.getByTestId('history-total')).toContainText('1 payment');
  const download = page.waitForEvent('download');
  desk.events.emit('menuCommand', { command: 'export' });
  const text = await readFile(await (await download).path(), 'utf8');
  expect(text).toContain('Menu Export GmbH');
});

test('Import CSV from the menu without a user gesture focuses "Choose file…" instead of a picker that cannot open', async ({ page, desk }) => {
  await openWithDemo(page, desk, 'balances');
  // A menu click reaches Electron's page as an IPC message, outside any user gesture, and Chromium then
  // refuses to show a file chooser. Playwright's evaluate counts as a gesture (and headless Chromium
  // keeps it), so the page is made to report what Electron's page reports: no transient activation.
  await page.evaluate(
    ([channel]) => {
      Object.defineProperty(navigator, 'userActivation', { value: { isActive: false, hasBeenActive: true }, configurable: true });
      const emit = (window as unknown as Record<string, (c: string, p: unknown) => void>)['__deskEmit'];
      emit?.(channel, { command: 'import-csv' });
    },
    ['app:menuCommand'] as const,
  );
  await expect(page).toHaveURL(/#\/batches$/);
  await expect(page.getByTestId('snackbar')).toContainText('Choose the payout CSV');
  await expect(page.getByTestId('batch-pick')).toBeFocused();
});

test('Import CSV with the file main chose in its own dialog validates that file on the Batches screen', async ({ page, desk }) => {
  await openWithDemo(page, desk, 'history');
  const path = join(desk.home, 'from-dialog.csv');
  await writeFile(path, payoutCsv(4));
  // What main does on File › Import CSV: its own dialog (answered here), then only the file's token to the page.
  desk.answerNextDialog(path);
  const choice = await call<FileChoice>(desk.handlers, 'app:chooseFile', { purpose: 'csv' });
  if (!choice.chosen) throw new Error('the dialog was answered with a file');
  expect(JSON.stringify(choice)).not.toContain(desk.home);
  desk.events.emit('menuCommand', { command: 'import-csv', file: choice.file });
  await expect(page).toHaveURL(/#\/batches$/);
  await expect(page.getByTestId('count-rows')).toContainText('4');
  await expect(page.getByTestId('count-valid')).toContainText('4');
});
