// Settings → Gateway & polling → Callback listener: a port another program holds is reported on the
// screen that set it (the desk keeps sending and polling), and a free one shows where it listens and
// the URL the gateway is given, with its path secret.
import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { expect, openWithDemo, test } from './support/journey';

let blocker: Server | undefined;
test.afterEach(async () => {
  await new Promise<void>((resolve) => (blocker ? blocker.close(() => resolve()) : resolve()));
  blocker = undefined;
});

test('a busy callback port is shown in settings, and a free one shows the URL the gateway is given', async ({ page, desk }) => {
  blocker = createServer();
  await new Promise<void>((resolve) => blocker!.listen(0, '127.0.0.1', () => resolve()));
  const busyPort = (blocker.address() as AddressInfo).port;

  await openWithDemo(page, desk, 'settings');
  const profileId = desk.runtime.ctx.profiles.currentId()!;
  await desk.runtime.engineFor(profileId); // running, as the app runs the current profile's engine

  await page.getByTestId('tab-gateway').click();
  const panel = page.getByTestId('settings-gateway');
  await panel.getByLabel('Listen for callbacks').check();
  await panel.getByLabel('Port').fill(String(busyPort));
  await page.getByTestId('settings-save').click();

  const status = page.getByTestId('settings-callback-status');
  await expect(status).toContainText('Not listening for callbacks');
  await expect(status).toContainText(`could not listen on 127.0.0.1:${busyPort}`);
  await expect(status).toContainText('EADDRINUSE');
  await expect(status).toContainText('payouts are still sent and their status polled');

  await panel.getByLabel('Port').fill('0');
  await page.getByTestId('settings-save').click();
  await expect(status).toContainText(/Listening on 127\.0\.0\.1:\d+/);
  await expect(status).toContainText(/Gateway is given: http:\/\/127\.0\.0\.1:\d+\/callbacks\/[A-Za-z0-9_-]{43}/);

  // The repeat window of the possible-duplicate check: 30 days until changed, kept with the profile.
  const window = panel.getByTestId('settings-repeat-window').locator('input');
  await expect(window).toHaveValue('30');
  await window.fill('7');
  await page.getByTestId('settings-save').click();
  await expect.poll(() => desk.runtime.ctx.profiles.get(profileId).repeatWindowDays).toBe(7);
});
