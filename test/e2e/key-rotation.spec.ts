import { generateKeyPairSync } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, openWithDemo, shot, test } from './support/journey';

test('the signing key is rotated, the old key kept on standby then retired, and the audit log verifies with each key action in it', async ({ page, desk }) => {
  // The renderer's test origin is not a secure context, so it has no clipboard: record what is copied.
  await page.addInitScript(() => {
    const copied: string[] = [];
    Object.assign(window, { __copied: copied });
    Object.defineProperty(navigator, 'clipboard', { configurable: true, value: { writeText: async (text: string) => void copied.push(text) } });
  });
  await openWithDemo(page, desk, 'settings');
  await page.getByTestId('tab-keys').click();
  // Let the tab's slide finish (the window has a fixed height meanwhile): clicking during it scrolls
  // the page, and the guide's screenshot would start under the app bar.
  await expect(page.locator('.v-window__container').first()).not.toHaveAttribute('style', /height/);
  const activeBefore = await page.getByTestId('key-active').getByTestId('key-fingerprint').textContent();
  await page.getByTestId('rotate-key').click();
  await page.getByTestId('rotate-confirm').click();

  // A new RSA key is generated in main: seconds on a busy machine (a fresh-clone CI missed the default 5 s once).
  await expect(page.getByTestId('key-standby')).toHaveCount(1, { timeout: 30_000 });
  await expect(page.getByTestId('key-standby').getByTestId('key-fingerprint')).toHaveText(activeBefore ?? '');
  const activeAfter = page.getByTestId('key-active').getByTestId('key-fingerprint');
  await expect(activeAfter).not.toHaveText(activeBefore ?? '');
  await shot(page, 'settings-keys');

  // The key letter can be copied as well as saved: the text main makes for the new key.
  await page.getByTestId('key-active').getByTestId('copy-key-letter').click();
  await expect.poll(() => page.evaluate(() => (window as unknown as { __copied: string[] }).__copied.length)).toBe(1);
  const letter = await page.evaluate(() => (window as unknown as { __copied: string[] }).__copied[0] ?? '');
  expect(letter).toContain((await activeAfter.textContent()) ?? '-');
  expect(letter).toContain('BEGIN PUBLIC KEY');

  // The desk now signs with the new key; the demo gateway has it registered (a real merchant sends
  // the key letter first), so the connection still works.
  await page.getByTestId('tab-profiles').click();
  await page.getByTestId('settings-test-connection').click();
  // Notices queue, 4 s each: the rotation's and the copy's may still be shown first on a busy machine.
  await expect(page.getByTestId('snackbar')).toContainText('Connection works', { timeout: 15_000 });

  await page.getByTestId('tab-keys').click();
  await page.getByTestId('key-standby').getByRole('button', { name: 'Retire' }).click();
  await expect(page.getByTestId('key-retired')).toHaveCount(1);
  await expect(page.getByTestId('key-standby')).toHaveCount(0);

  await page.getByTestId('tab-audit').click();
  await expect(page.getByTestId('audit-verification')).toContainText(/intact|verified|ok/i);
  // The key actions are in the log, each with the person at this desk as actor.
  for (const action of ['key.generated', 'key.rotated', 'key.retired']) await expect(page.getByTestId('settings-audit').getByText(action, { exact: true }).first()).toBeVisible();
  await expect(page.getByTestId('settings-audit')).toContainText(/"actor":"[^"@]+@[^"]+"/);
  await shot(page, 'settings-audit');
  expect(desk.home).toBeTruthy();
});

test('a key backup goes where the person says in main\'s save dialog, and a key file is imported without its PEM passing through the page', async ({ page, desk }) => {
  await openWithDemo(page, desk, 'settings');
  await page.getByTestId('tab-keys').click();
  const active = page.getByTestId('key-active');
  await expect(active).toHaveCount(1);

  // Backup: the passphrase and the confirmation first, then main's own save dialog. Cancel writes nothing and says so.
  await active.getByRole('button', { name: 'Backup' }).click();
  await page.getByLabel('Passphrase (at least 12 characters)').fill('a long backup passphrase');
  await page.getByLabel(/whoever has this file/).check();
  desk.answerNextDialog(null);
  await page.getByRole('button', { name: 'Save backup…' }).click();
  await expect(page.getByTestId('backup-cancelled')).toContainText('no backup was written');
  const target = join(desk.home, 'acme-key.backup.pem');
  desk.answerNextDialog(target);
  await page.getByRole('button', { name: 'Save backup…' }).click();
  await expect(page.getByText(`Saved to ${target}`)).toBeVisible();
  expect(await readFile(target, 'utf8')).toMatch(/^-----BEGIN ENCRYPTED PRIVATE KEY-----/);
  await page.getByRole('button', { name: 'Close' }).click();

  // Import: main's open dialog chooses the file; the page sees its name, main reads the key.
  const pem = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const keyFile = join(desk.home, 'registered-key.pem');
  await writeFile(keyFile, pem, { mode: 0o600 });
  const pageSaw: string[] = [];
  page.on('console', (m) => pageSaw.push(m.text()));
  await page.getByRole('button', { name: 'Import key' }).click();
  desk.answerNextDialog(keyFile);
  await page.getByTestId('key-choose').click();
  await expect(page.getByTestId('key-chosen')).toContainText('registered-key.pem');
  await page.getByTestId('key-import-confirm').click();
  await expect(page.getByTestId('snackbar')).toContainText('Key imported');
  await expect(page.getByTestId('key-standby')).toHaveCount(1);
  // The private key was never in the page: not in its text, nor in anything it logged.
  const body = pem.split('\n')[1] ?? 'no key body';
  expect(await page.content()).not.toContain(body);
  expect(pageSaw.join('\n')).not.toContain(body);
});
