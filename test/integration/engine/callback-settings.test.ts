// Callbacks as the profile sets them, through the app's own runtime and settings service, against the
// sandbox: its callbacks come in through the profile's secret path; a busy port is shown on the
// settings screen while payouts still go out.
import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { settingsService } from '../../../main/desk/settings';
import { createDesk, payoutRows, sandboxConfig, startSandbox, until, type Desk } from './setup';
import type { SandboxHandle } from '../../../sandbox/index';

let desk: Desk | undefined;
let sandbox: SandboxHandle | undefined;
let blocker: Server | undefined;
afterEach(async () => {
  await desk?.dispose();
  await sandbox?.close();
  await new Promise<void>((resolve) => (blocker ? blocker.close(() => resolve()) : resolve()));
  desk = undefined;
  sandbox = undefined;
  blocker = undefined;
});

describe('callback settings of a profile', () => {
  it("the sandbox's callbacks reach the listener through the profile's own path secret", async () => {
    sandbox = await startSandbox(sandboxConfig());
    desk = await createDesk({ baseUrl: sandbox.url, sandbox, engine: { pollIntervalMs: 60_000 } });
    const settings = settingsService(desk.runtime);
    const profile = desk.ctx.profiles.get(desk.profileId);
    await desk.engine(); // running, as in the app: a change restarts it at once
    const view = await settings.update(profile, { callback: { enabled: true, host: '127.0.0.1', port: 0 } });
    const secret = desk.ctx.profiles.get(desk.profileId).callbackSecret!;
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(view.callbackListener).toMatchObject({ state: 'listening', message: null });
    expect(view.callbackListener.announcedUrl).toBe(`http://${view.callbackListener.boundTo}/callbacks/${secret}`);

    const engine = await desk.engine();
    const [row] = payoutRows(1, 'via-secret');
    await engine.submitPayout(row!, { waitMs: 5_000 });
    await until(() => engine.journal.getPayment('payout', row!.idPayout)?.isFinal === true, 10_000, 'the payout to settle');
    expect(engine.journal.timeline('payout', row!.idPayout).some((e) => e.source === 'callback')).toBe(true);
  });

  it('a busy port: settings show the listener failed and why, and a payout is still sent', async () => {
    blocker = createServer();
    await new Promise<void>((resolve) => blocker!.listen(0, '127.0.0.1', () => resolve()));
    const port = (blocker.address() as AddressInfo).port;
    sandbox = await startSandbox(sandboxConfig());
    desk = await createDesk({ baseUrl: sandbox.url, sandbox });
    const settings = settingsService(desk.runtime);
    await desk.engine();
    const view = await settings.update(desk.ctx.profiles.get(desk.profileId), { callback: { enabled: true, host: '127.0.0.1', port } });
    expect(view.callbackListener.state).toBe('failed');
    expect(view.callbackListener.message).toContain(`could not listen on 127.0.0.1:${port}`);
    expect(view.callbackListener.message).toContain('EADDRINUSE');
    expect((await settings.get(desk.ctx.profiles.get(desk.profileId), {})).callbackListener.state).toBe('failed');

    const engine = await desk.engine();
    const [row] = payoutRows(1, 'busy-port');
    const sent = await engine.submitPayout(row!, { waitMs: 5_000 });
    expect(sent.state).toBe('ACCEPTED');
  });
});
