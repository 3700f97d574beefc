// The callback listener faces whoever can reach its port: only a JSON POST on the secret path is taken,
// a flood of callbacks costs a bounded number of gateway reads and audit rows, and a listener that
// cannot listen stops neither sending nor polling.
import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { draft, engineFixture, until, type EngineFixture } from './engine-helpers';

let f: EngineFixture | undefined;
let blocker: Server | undefined;
afterEach(async () => {
  await f?.dispose();
  f = undefined;
  await new Promise<void>((resolve) => (blocker ? blocker.close(() => resolve()) : resolve()));
  blocker = undefined;
});

const json = { 'content-type': 'application/json' };
const changed = (id: string) => JSON.stringify({ eventType: 'PAYOUT_STATUS_CHANGED', idPayout: id, sentAt: new Date().toISOString() });

async function startedWithListener(extra: Parameters<typeof engineFixture>[0] = {}): Promise<{ url: string; origin: string }> {
  f = engineFixture({ callbackListen: { host: '127.0.0.1', port: 0 }, pollIntervalMs: 60_000, callbackReadIntervalMs: 1_000, ...extra });
  await f.engine.start();
  const url = f.engine.callbackUrl!;
  return { url, origin: new URL(url).origin };
}

describe('callback listener hardening', () => {
  it('150 callbacks for one payout within the interval cause at most two reads (one now, one at its end), not 150', async () => {
    const { url } = await startedWithListener();
    await f!.engine.submitPayout(draft('flood'));
    const before = f!.gateway.getCalls;
    const answers = await Promise.all(Array.from({ length: 150 }, () => fetch(url, { method: 'POST', headers: json, body: changed('flood') }).then((r) => r.status)));
    expect(answers.every((s) => s === 200)).toBe(true);
    await until(() => f!.gateway.getCalls > before);
    // Past the 1 s interval the one kept read has happened, and nothing more.
    await new Promise((r) => setTimeout(r, 1_500));
    const reads = f!.gateway.getCalls - before;
    expect(reads).toBeGreaterThanOrEqual(1);
    expect(reads).toBeLessThanOrEqual(2);
    expect(f!.t.journal.listAudit().filter((e) => e.action.startsWith('callback.'))).toEqual([]);
  });

  it('refuses a wrong path (404), a wrong method (405) and a non-JSON body (415) without reading or auditing', async () => {
    const { url, origin } = await startedWithListener();
    await f!.engine.submitPayout(draft('known'));
    const before = f!.gateway.getCalls;
    const secret = new URL(url).pathname.split('/').pop()!;
    const wrongSecret = `${origin}/callbacks/${secret.slice(0, -1)}${secret.endsWith('A') ? 'B' : 'A'}`;

    const tries: [string, RequestInit, number][] = [
      [`${origin}/callbacks`, { method: 'POST', headers: json, body: changed('known') }, 404],
      [wrongSecret, { method: 'POST', headers: json, body: changed('known') }, 404],
      [`${origin}/`, { method: 'GET' }, 404],
      [url, { method: 'GET' }, 405],
      [url, { method: 'PUT', headers: json, body: changed('known') }, 405],
      [url, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: changed('known') }, 415],
      [url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'idPayout=known' }, 415],
      [url, { method: 'POST', headers: json, body: 'x'.repeat(70 * 1024) }, 413],
    ];
    for (const [target, init, expected] of tries) {
      const res = await fetch(target, init);
      expect({ target: target.replace(secret, '<secret>'), method: init.method, status: res.status }).toEqual({ target: target.replace(secret, '<secret>'), method: init.method, status: expected });
    }
    expect((await fetch(url, { method: 'GET' })).headers.get('allow')).toBe('POST');
    // Forged callbacks in quantity: still nothing read, nothing written.
    await Promise.all(Array.from({ length: 150 }, () => fetch(`${origin}/callbacks`, { method: 'POST', headers: json, body: changed('known') })));
    await new Promise((r) => setTimeout(r, 200));
    expect(f!.gateway.getCalls).toBe(before);
    expect(f!.t.journal.listAudit().filter((e) => e.action.startsWith('callback.'))).toEqual([]);
  });

  it('audits a callback for a payment it does not know once per id, however often it comes', async () => {
    const { url } = await startedWithListener();
    await Promise.all(Array.from({ length: 150 }, () => fetch(url, { method: 'POST', headers: json, body: changed('stranger') })));
    await fetch(url, { method: 'POST', headers: json, body: changed('other-stranger') });
    await until(() => f!.t.journal.listAudit().length >= 2);
    await new Promise((r) => setTimeout(r, 100));
    const rows = f!.t.journal.listAudit().filter((e) => e.action === 'callback.unknown-payment');
    expect(rows.map((e) => e.subject).sort()).toEqual(['other-stranger', 'stranger']);
    expect(f!.gateway.getCalls).toBe(0);
  });

  it('listens on loopback when no public URL is set, whatever host was asked for, and never announces 0.0.0.0', async () => {
    f = engineFixture({ callbackListen: { host: '0.0.0.0', port: 0 }, pollIntervalMs: 60_000 });
    await f.engine.start();
    const state = f.engine.callbackListener;
    expect(state.state).toBe('listening');
    expect(state.boundTo).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(state.announcedUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callbacks\/[A-Za-z0-9_-]{43}$/);
    expect(state.message).toMatch(/needs a public callback URL/);
  });

  it('with a public URL it listens where asked and announces the public URL with its path secret', async () => {
    const secret = 'S'.repeat(43);
    f = engineFixture({ callbackListen: { host: '0.0.0.0', port: 0, pathSecret: secret, publicBaseUrl: 'https://desk.example.com/hooks/' }, pollIntervalMs: 60_000 });
    await f.engine.start();
    const state = f.engine.callbackListener;
    expect(state.boundTo).toMatch(/^0\.0\.0\.0:\d+$/);
    expect(state.announcedUrl).toBe(`https://desk.example.com/hooks/callbacks/${secret}`);
    await f.engine.submitPayout(draft('pub'));
    expect(f.t.journal.getPayment('payout', 'pub')?.callbackUrl).toBe(`https://desk.example.com/hooks/callbacks/${secret}`);
    // A reverse proxy that keeps its path prefix is served as well as one that strips it.
    const port = Number(state.boundTo!.split(':').pop());
    for (const path of [`/callbacks/${secret}`, `/hooks/callbacks/${secret}`]) {
      expect((await fetch(`http://127.0.0.1:${port}${path}`, { method: 'POST', headers: json, body: changed('pub') })).status).toBe(200);
    }
  });

  it('a busy port leaves sending and polling running and says why the listener is not there', async () => {
    blocker = createServer();
    await new Promise<void>((resolve) => blocker!.listen(0, '127.0.0.1', () => resolve()));
    const port = (blocker.address() as AddressInfo).port;
    f = engineFixture({ callbackListen: { host: '127.0.0.1', port }, pollIntervalMs: 60_000 });
    const errors: string[] = [];
    f.engine.on('background-error', (e) => errors.push(e.message));
    await f.engine.start();
    expect(f.engine.callbackListener).toMatchObject({ state: 'failed', boundTo: null, announcedUrl: null });
    expect(f.engine.callbackListener.message).toMatch(new RegExp(`could not listen on 127\\.0\\.0\\.1:${port} \\(.*EADDRINUSE.*\\); payouts are still sent`));
    expect(errors.join()).toMatch(/EADDRINUSE/);
    await f.engine.submitPayout(draft('still-sent'), { waitMs: 2_000 });
    expect(f.gateway.createCalls.get('still-sent')).toBe(1);
    expect(f.t.journal.getPayment('payout', 'still-sent')?.state).toBe('ACCEPTED');
    expect(f.t.journal.getPayment('payout', 'still-sent')?.callbackUrl).toBeNull();
  });
});
