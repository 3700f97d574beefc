import { afterEach, describe, expect, it } from 'vitest';
import { backoffDelay, pollInterval } from '../../../main/engine';
import { tempJournal } from '../journal/helpers';
import { draft, engineFixture, until, type EngineFixture } from './engine-helpers';

let f: EngineFixture | undefined;
afterEach(async () => {
  await f?.dispose();
  f = undefined;
});

describe('timing rules', () => {
  it('backs off exponentially with jitter, capped, and never sooner than Retry-After', () => {
    const opts = { baseMs: 100, capMs: 1_000 };
    expect(backoffDelay(1, opts, 0, () => 0)).toBe(50);
    expect(backoffDelay(1, opts, 0, () => 1)).toBe(100);
    expect(backoffDelay(4, opts, 0, () => 1)).toBe(800);
    expect(backoffDelay(30, opts, 0, () => 1)).toBe(1_000);
    expect(backoffDelay(1, opts, 5_000, () => 1)).toBe(5_000);
  });

  it('polls young payments often and old ones rarely', () => {
    expect(pollInterval(10_000, 5_000)).toBe(5_000);
    expect(pollInterval(5 * 60_000, 5_000)).toBe(15_000);
    expect(pollInterval(30 * 60_000, 5_000)).toBe(60_000);
    expect(pollInterval(5 * 3_600_000, 5_000)).toBe(300_000);
    expect(pollInterval(5 * 3_600_000, 600_000)).toBe(3_600_000);
  });
});

describe('status poller', () => {
  it('leaves the budget to creates: no GET while a create waits for a slot', async () => {
    f = engineFixture();
    await f.engine.submitPayout(draft('wait'));
    f.gateway.usage = { inWindow: 3, limit: 10, queued: { token: 0, create: 1, status: 0, list: 0 } };
    const before = f.gateway.getCalls;
    await f.engine.start();
    await new Promise((r) => setTimeout(r, 120));
    expect(f.gateway.getCalls).toBe(before);
    f.gateway.usage = { inWindow: 0, limit: 10, queued: { token: 0, create: 0, status: 0, list: 0 } };
    await until(() => f!.gateway.getCalls > before);
  });

  it('leaves a fast batch the rate budget too: no GET while creates are flowing, polls as soon as they stop', async () => {
    f = engineFixture();
    await f.engine.submitPayout(draft('flowing'));
    // Nothing waits for a slot (the limit is high), but a create left 200 ms ago: the batch is still sending.
    f.gateway.usage = { inWindow: 40, limit: 1000, queued: { token: 0, create: 0, status: 0, list: 0 }, msSinceRelease: { token: null, create: 200, status: null, list: null } };
    const before = f.gateway.getCalls;
    await f.engine.start();
    await new Promise((r) => setTimeout(r, 120));
    expect(f.gateway.getCalls).toBe(before);
    // No create for over a second (one rate window): the batch paused or ended, statuses are read.
    f.gateway.usage = { ...f.gateway.usage, msSinceRelease: { token: null, create: 1_200, status: null, list: null } };
    await until(() => f!.gateway.getCalls > before);
  });

  it('keeps 1.5 × limit reads outstanding even while the window is full: the limiter paces them, no slot goes unused between ticks', async () => {
    f = engineFixture();
    for (let i = 0; i < 30; i++) await f.engine.submitPayout(draft(`out-${i}`));
    f.gateway.getDelayMs = 4_000; // long round trips: the reads stay outstanding
    f.gateway.usage = { inWindow: 10, limit: 10, queued: { token: 0, create: 0, status: 0, list: 0 } };
    const before = f.gateway.getCalls;
    await f.engine.start();
    await until(() => f!.gateway.getCalls - before >= 15);
    await new Promise((r) => setTimeout(r, 100));
    expect(f.gateway.getCalls - before).toBe(15);
  });

  it('lets a waiting list call (the UI) go before more reads are queued', async () => {
    f = engineFixture();
    await f.engine.submitPayout(draft('ui-first'));
    f.gateway.usage = { inWindow: 0, limit: 10, queued: { token: 0, create: 0, status: 0, list: 1 } };
    const before = f.gateway.getCalls;
    await f.engine.start();
    await new Promise((r) => setTimeout(r, 120));
    expect(f.gateway.getCalls).toBe(before);
    f.gateway.usage = { inWindow: 0, limit: 10, queued: { token: 0, create: 0, status: 0, list: 0 } };
    await until(() => f!.gateway.getCalls > before);
  });

  it('stops polling at a final status, also an unknown-yet-configured one', async () => {
    f = engineFixture({ finalStatuses: ['PAID_OUT'] });
    await f.engine.start();
    await f.engine.submitPayout(draft('custom'));
    f.gateway.setStatus('SUCCESS'); // not final for this profile: keeps polling
    await until(() => f!.t.journal.getPayment('payout', 'custom')?.status === 'SUCCESS');
    expect(f.t.journal.getPayment('payout', 'custom')?.isFinal).toBe(false);
    f.gateway.setStatus('PAID_OUT');
    await until(() => f!.t.journal.getPayment('payout', 'custom')?.isFinal === true);
    const calls = f.gateway.getCalls;
    await new Promise((r) => setTimeout(r, 100));
    expect(f.gateway.getCalls).toBe(calls);
  });

  it('polls an old payment at the longer interval: next poll = now + pollInterval(age), on success and when offline', async () => {
    const T0 = Date.UTC(2026, 2, 1, 9, 0, 0);
    let clock = T0;
    const now = () => clock;
    f = engineFixture({ now, pollIntervalMs: 10_000, pollTickMs: 5 }, undefined, tempJournal({ now }));
    const j = f.t.journal;
    await f.engine.submitPayout(draft('old'));
    expect(j.getPayment('payout', 'old')).toMatchObject({ state: 'ACCEPTED', acceptedAt: T0, nextPollAt: T0 + 10_000 });
    clock = T0 + 30 * 60_000 - 20_000;
    await f.engine.submitPayout(draft('young'));

    // Half an hour later: 'old' is 30 min old (12 × the base), 'young' 20 s old (the base); both are due.
    clock = T0 + 30 * 60_000;
    f.gateway.setStatus('PROCESSING');
    await f.engine.start();
    await until(() => j.getPayment('payout', 'old')?.status === 'PROCESSING' && j.getPayment('payout', 'young')?.status === 'PROCESSING');
    expect(j.getPayment('payout', 'old')?.nextPollAt).toBe(clock + 120_000);
    expect(j.getPayment('payout', 'young')?.nextPollAt).toBe(clock + 10_000);

    // The clock stands still: nothing is due, nothing is read.
    const reads = f.gateway.getCalls;
    await new Promise((r) => setTimeout(r, 60));
    expect(f.gateway.getCalls).toBe(reads);

    // 10 s on, only the young one is read again.
    clock += 10_000;
    await until(() => f!.gateway.getCalls === reads + 1);
    await new Promise((r) => setTimeout(r, 60));
    expect(f.gateway.getCalls).toBe(reads + 1);
    expect(j.getPayment('payout', 'young')?.nextPollAt).toBe(clock + 10_000);
    expect(j.getPayment('payout', 'old')?.nextPollAt).toBe(T0 + 30 * 60_000 + 120_000);

    // When the old one is due but the gateway cannot be reached, it is retried at the long interval too, never failed.
    f.gateway.offline = true;
    clock = T0 + 32 * 60_000;
    const dueAt = clock;
    await until(() => (j.getPayment('payout', 'old')?.nextPollAt ?? 0) > dueAt);
    expect(j.getPayment('payout', 'old')).toMatchObject({ state: 'ACCEPTED', status: 'PROCESSING', isFinal: false, nextPollAt: dueAt + 120_000 });
  });

  it('announces each status change once', async () => {
    f = engineFixture();
    const seen: string[] = [];
    f.engine.on('status-changed', (e) => seen.push(`${e.previousStatus}>${e.status}:${e.source}`));
    await f.engine.start();
    await f.engine.submitPayout(draft('ev'));
    f.gateway.setStatus('PROCESSING');
    await until(() => seen.length >= 2);
    f.gateway.setStatus('FAILED');
    await until(() => f!.t.journal.getPayment('payout', 'ev')?.isFinal === true);
    expect(seen).toEqual(['QUEUED>ACCEPTED:create', 'ACCEPTED>PROCESSING:poll', 'PROCESSING>FAILED:poll']);
  });
});

describe('callback listener', () => {
  it('answers a JSON POST on its secret path with 200 at once, then reads the named payout and records it as a callback', async () => {
    f = engineFixture({ callbackListen: { host: '127.0.0.1', port: 0 }, pollIntervalMs: 60_000 });
    await f.engine.start();
    const url = f.engine.callbackUrl!;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callbacks\/[A-Za-z0-9_-]{43}$/);
    await f.engine.submitPayout(draft('cb'));
    expect(f.t.journal.getPayment('payout', 'cb')?.callbackUrl).toBe(url);
    f.gateway.setStatus('SUCCESS');
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ eventType: 'PAYOUT_STATUS_CHANGED', idPayout: 'cb', sentAt: 'x' }) });
    expect(res.status).toBe(200);
    await until(() => f!.t.journal.getPayment('payout', 'cb')?.status === 'SUCCESS');
    expect(f.t.journal.timeline('payout', 'cb').at(-1)).toMatchObject({ status: 'SUCCESS', source: 'callback' });
  });

  it('answers 200 before the slow GET it triggers has finished, for a non-final and for a final payment', async () => {
    f = engineFixture({ callbackListen: { host: '127.0.0.1', port: 0 }, pollIntervalMs: 60_000 });
    await f.engine.start();
    const url = f.engine.callbackUrl!;
    await f.engine.submitPayout(draft('slow-cb'));
    await f.engine.submitPayout(draft('final-cb'));
    const j = f.t.journal;
    f.gateway.setStatus('SUCCESS');
    await f.engine.refreshPayment('payout', 'final-cb'); // final: a later callback is read at once, inside the handler
    expect(j.getPayment('payout', 'final-cb')?.isFinal).toBe(true);
    f.gateway.getDelayMs = 400;
    const callback = (body: object) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

    for (const id of ['slow-cb', 'final-cb']) {
      f.gateway.stored.get(id)!.status = 'RETURNED';
      const started = f.gateway.getCalls;
      const done = f.gateway.getsDone;
      const sentAt = Date.now();
      const res = await callback({ eventType: 'PAYOUT_STATUS_CHANGED', idPayout: id, sentAt: new Date().toISOString() });
      const answeredAfter = Date.now() - sentAt;
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ received: true });
      // The answer came while the GET was still waiting on the gateway (or had not started yet).
      expect(f.gateway.getsDone).toBe(done);
      expect(answeredAfter).toBeLessThan(400);
      await until(() => f!.gateway.getCalls > started);
      await until(() => j.getPayment('payout', id)?.status === 'RETURNED', 3_000);
      expect(f.gateway.getsDone).toBeGreaterThan(done);
      expect(j.timeline('payout', id).at(-1)).toMatchObject({ status: 'RETURNED', source: 'callback' });
    }
  });

  it('records unknown event types, unknown payments and unreadable bodies without failing', async () => {
    f = engineFixture({ callbackListen: { host: '127.0.0.1', port: 0 } });
    await f.engine.start();
    const url = f.engine.callbackUrl!;
    const post = (body: string) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json; charset=utf-8' }, body }).then((r) => r.status);
    expect(await post(JSON.stringify({ eventType: 'REFUND_CREATED', idRefund: 'z' }))).toBe(200);
    expect(await post(JSON.stringify({ eventType: 'PAYOUT_STATUS_CHANGED', idPayout: 'not-ours' }))).toBe(200);
    expect(await post('{not json')).toBe(200);
    await until(() => f!.t.journal.listAudit().length >= 3);
    expect(f.t.journal.listAudit().map((e) => e.action).sort()).toEqual(['callback.unknown-event', 'callback.unknown-payment', 'callback.unreadable']);
    expect(f.gateway.getCalls).toBe(0);
  });
});

describe('balances', () => {
  it('stores each fetch as a snapshot, for the configured and the seen currencies', async () => {
    f = engineFixture({ balanceCurrencies: ['USD'] });
    f.gateway.balancesResult = [
      { currencyCode: 'EUR', availableMinor: 500_00, reservedMinor: 20_00 },
      { currencyCode: 'USD', availableMinor: 7_00 },
    ];
    f.t.journal.insertPayment('payout', { ...draft('bal'), id: 'bal' });
    const snaps = await f.engine.refreshBalances();
    expect(snaps.map((s) => [s.currencyCode, s.availableMinor, s.reservedMinor])).toEqual([['EUR', 50_000, 2_000], ['USD', 700, 0]]);
    await f.engine.refreshBalances();
    expect(f.t.journal.balanceSeries('EUR')).toHaveLength(2);
  });
});

describe('connection state', () => {
  it('is unknown until the first answer, then follows what status reads and balance reads meet', async () => {
    f = engineFixture();
    const seen: string[] = [];
    f.engine.on('connection', (e) => seen.push(e.state));
    expect(f.engine.connectionState.state).toBe('unknown');
    await f.engine.submitPayout(draft('conn'));
    await f.engine.start();
    // The create said online; a poll that cannot reach the gateway says offline, a later one online again.
    f.gateway.offline = true;
    await until(() => seen.includes('offline'));
    expect(f.t.journal.getPayment('payout', 'conn')?.isFinal).toBe(false);
    f.gateway.offline = false;
    await until(() => seen.at(-1) === 'online');
    expect(seen).toEqual(['online', 'offline', 'online']);
  });

  it('a balance read that reaches the gateway says online; one that cannot says offline', async () => {
    f = engineFixture({ balanceCurrencies: ['EUR'] });
    const seen: string[] = [];
    f.engine.on('connection', (e) => seen.push(e.state));
    f.gateway.balancesResult = [{ currencyCode: 'EUR', availableMinor: 100, reservedMinor: 0 }];
    await f.engine.refreshBalances();
    f.gateway.offline = true;
    await expect(f.engine.refreshBalances()).rejects.toMatchObject({ kind: 'network' });
    expect(seen).toEqual(['online', 'offline']);
  });
});
