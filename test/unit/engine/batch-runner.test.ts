import { afterEach, describe, expect, it } from 'vitest';
import type { BatchProgressEvent } from '../../../main/engine';
import type { PayoutRequest } from '../../../main/engine/ports';
import { draft, engineFixture, until, type EngineFixture } from './engine-helpers';
import { FakeGateway } from './fake-gateway';

let f: EngineFixture;
afterEach(async () => f?.dispose());

const rows = (n: number, prefix = 'r') => Array.from({ length: n }, (_, i) => draft(`${prefix}-${i + 1}`, { amountMinor: 100 + i }));

describe('batch runner', () => {
  it('sends every row once, reports progress with counts and rate, and completes', async () => {
    f = engineFixture();
    const events: BatchProgressEvent[] = [];
    f.engine.on('batch-progress', (e) => events.push(e));
    const batch = await f.engine.submitBatch({ fileName: 'june.csv', sha256: 'aa', rows: rows(40) });
    const done = await f.engine.waitForBatch(batch.id);
    expect(done.state).toBe('COMPLETED');
    expect(f.gateway.stored.size).toBe(40);
    expect([...f.gateway.createCalls.values()].every((n) => n === 1)).toBe(true);
    const last = events.at(-1)!;
    expect(last).toMatchObject({ batchId: batch.id, state: 'COMPLETED', total: 40, sent: 40, pending: 40, etaSeconds: 0 });
    expect(events.some((e) => e.ratePerSec > 0)).toBe(true);
  });

  it('progress asked for outside the run (a screen opening, a status settling) carries the run\'s rate, not 0/s', async () => {
    // 10 creates a second of the injected clock; the 30th waits until the test has asked.
    let clock = Date.UTC(2026, 3, 1, 8, 0, 0);
    let creates = 0;
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    class HoldsThe30th extends FakeGateway {
      override async createPayout(idPayout: string, request: PayoutRequest, options?: { beforeSend?: () => boolean }): Promise<{ raw: unknown }> {
        clock += 100;
        if (++creates === 30) await held;
        return super.createPayout(idPayout, request, options);
      }
    }
    f = engineFixture({ concurrency: 1, now: () => clock }, new HoldsThe30th());
    const batch = await f.engine.submitBatch({ fileName: 'asked.csv', sha256: 'a1', rows: rows(60) });
    await until(() => creates === 30);
    const asked = await f.engine.batchProgress(batch.id);
    expect(asked).toMatchObject({ state: 'RUNNING', sent: 29 });
    expect(asked.ratePerSec).toBeGreaterThanOrEqual(9.5);
    expect(asked.ratePerSec).toBeLessThanOrEqual(10.5);
    expect(asked.etaSeconds).toBe(Math.ceil(31 / asked.ratePerSec));
    release();
    expect((await f.engine.waitForBatch(batch.id)).state).toBe('COMPLETED');
    // With no run going, nothing is being sent: 0/s.
    expect((await f.engine.batchProgress(batch.id)).ratePerSec).toBe(0);
  });

  it('mid-run progress carries counts per state, the rate and a time left that fits it (injected clock)', async () => {
    // Each create takes 100 ms of the injected clock: 10 per second, one at a time.
    let clock = Date.UTC(2026, 3, 1, 8, 0, 0);
    class TenPerSecond extends FakeGateway {
      override async createPayout(idPayout: string, request: PayoutRequest, options?: { beforeSend?: () => boolean }): Promise<{ raw: unknown }> {
        clock += 100;
        return super.createPayout(idPayout, request, options);
      }
    }
    f = engineFixture({ concurrency: 1, now: () => clock }, new TenPerSecond());
    const events: (BatchProgressEvent & { at: number })[] = [];
    let startedAt = 0;
    f.engine.on('batch-progress', (e) => events.push({ ...e, at: clock }));
    startedAt = clock;
    const batch = await f.engine.submitBatch({ fileName: 'eta.csv', sha256: 'e1', rows: rows(60) });
    expect((await f.engine.waitForBatch(batch.id)).state).toBe('COMPLETED');

    expect(events[0]).toMatchObject({ state: 'RUNNING', total: 60, sent: 0, ratePerSec: 0, etaSeconds: null });
    const mid = events.filter((e) => e.state === 'RUNNING' && e.sent > 0 && e.sent < 60);
    // One event per 200 ms of run time at most: 60 creates over 6 s give about 30.
    expect(mid.length).toBeGreaterThanOrEqual(25);
    expect(mid.length).toBeLessThanOrEqual(31);
    for (const e of mid) {
      const unsent = 60 - e.sent;
      const { byState } = e.counts;
      expect(Object.values(byState).reduce((a, b) => a + b, 0)).toBe(60);
      expect(byState).toMatchObject({ ACCEPTED: e.sent, QUEUED: unsent, SENDING: 0, REJECTED: 0, CANCELLED: 0 });
      expect(e).toMatchObject({ total: 60, pending: 60, done: 0, failed: 0 });
      expect(e.ratePerSec).toBeGreaterThan(0);
      expect(e.etaSeconds).not.toBeNull();
      expect(e.etaSeconds!).toBeGreaterThan(0);
      expect(e.etaSeconds).toBe(Math.ceil(unsent / e.ratePerSec));
      if (e.at - startedAt >= 1_000) {
        // Past the first second the figures are the real ones: 10 per second, and the time the rest needs at that pace.
        expect(e.ratePerSec).toBeGreaterThanOrEqual(9.5);
        expect(e.ratePerSec).toBeLessThanOrEqual(10.5);
        expect(e.etaSeconds!).toBeGreaterThanOrEqual(Math.floor(unsent / 10.5));
        expect(e.etaSeconds!).toBeLessThanOrEqual(Math.ceil(unsent / 9.5));
      } else {
        // In the first second the rate is taken over a full second, so time left is over- never under-estimated.
        expect(e.etaSeconds!).toBeGreaterThanOrEqual(unsent / 10);
      }
    }
    // Time left only shrinks while the pace holds.
    const afterFirstSecond = mid.filter((e) => e.at - startedAt >= 1_000).map((e) => e.etaSeconds!);
    expect(afterFirstSecond).toEqual([...afterFirstSecond].sort((a, b) => b - a));
    expect(events.at(-1)).toMatchObject({ state: 'COMPLETED', sent: 60, etaSeconds: 0 });
  });

  it('counts every row that is final, refused ones too, and calls a sent batch SENT until its statuses are final', async () => {
    f = engineFixture();
    f.gateway.failCreates(1, 'validation');
    const events: BatchProgressEvent[] = [];
    f.engine.on('batch-progress', (e) => events.push(e));
    const batch = await f.engine.submitBatch({ fileName: 'mixed.csv', sha256: 'm1', rows: rows(3) });
    expect((await f.engine.waitForBatch(batch.id)).state).toBe('COMPLETED');
    // One row refused by the gateway (final, failed), two at the gateway without a final status yet.
    expect(events.at(-1)).toMatchObject({ state: 'COMPLETED', stateWord: 'SENT', total: 3, done: 1, failed: 1, pending: 2 });
    expect(events.at(-1)!.stateReason).toBe('every row sent; 2 of 3 still wait for a final status');
  });

  it('says why a running batch waits when the gateway cannot be reached, and is RUNNING again once it can', async () => {
    f = engineFixture();
    f.gateway.offline = true;
    const events: BatchProgressEvent[] = [];
    f.engine.on('batch-progress', (e) => events.push(e));
    const batch = await f.engine.submitBatch({ fileName: 'gone.csv', sha256: 'g1', rows: rows(2) });
    await until(() => events.some((e) => e.stateWord === 'WAITING'));
    expect(events.find((e) => e.stateWord === 'WAITING')!.stateReason).toMatch(/^gateway unreachable since \d\d:\d\d \(fake network\)$/);
    expect(await f.engine.batchProgress(batch.id)).toMatchObject({ state: 'RUNNING', stateWord: 'WAITING' });
    f.gateway.offline = false;
    expect((await f.engine.waitForBatch(batch.id)).state).toBe('COMPLETED');
  });

  it('refuses the whole batch when a row is invalid, naming the row, and stores nothing', async () => {
    f = engineFixture();
    const bad = [...rows(3), draft('x-4', { emailAddress: 'not-an-email' })];
    await expect(f.engine.submitBatch({ fileName: 'bad.csv', sha256: 'bb', rows: bad })).rejects.toThrow(/1 row/);
    try {
      await f.engine.submitBatch({ fileName: 'bad.csv', sha256: 'bb', rows: bad });
    } catch (e) {
      expect((e as { problems: { rowNumber: number }[] }).problems.map((p) => p.rowNumber)).toEqual([4]);
    }
    expect(f.t.journal.listBatches()).toEqual([]);
  });

  it('pauses without losing rows and resumes with the same ids', async () => {
    f = engineFixture({ concurrency: 2 });
    f.gateway.offline = true; // nothing gets through until resumed
    const batch = await f.engine.submitBatch({ fileName: 'p.csv', sha256: 'cc', rows: rows(10) });
    await until(() => f.gateway.createCalls.size >= 2);
    const paused = await f.engine.pauseBatch(batch.id);
    expect(paused.state).toBe('PAUSED');
    expect(f.t.journal.batchCounts(batch.id).byState.QUEUED).toBe(10);
    f.gateway.offline = false;
    await f.engine.resumeBatch(batch.id);
    expect((await f.engine.waitForBatch(batch.id)).state).toBe('COMPLETED');
    expect([...f.gateway.stored.keys()].sort()).toEqual(rows(10).map((r) => r.idPayout).sort());
  });

  it('pause while creates are on the wire: they end ACCEPTED, and resume never sends them again', async () => {
    f = engineFixture({ concurrency: 4 });
    f.gateway.wireDelayMs = 150;
    const batch = await f.engine.submitBatch({ fileName: 'w.csv', sha256: 'ww', rows: rows(20, 'w') });
    // Four rows committed SENDING, their creates not answered yet.
    await until(() => f.t.journal.batchCounts(batch.id).byState.SENDING === 4);
    const onTheWire = f.t.journal.batchPayments(batch.id).filter((p) => p.state === 'SENDING').map((p) => p.id);
    expect(f.gateway.createCalls.size).toBe(0);
    const paused = await f.engine.pauseBatch(batch.id);
    expect(paused.state).toBe('PAUSED');
    // The pause waited for those answers: each is ACCEPTED, nothing else was sent.
    for (const id of onTheWire) expect(f.t.journal.getPayment('payout', id)).toMatchObject({ state: 'ACCEPTED', status: 'ACCEPTED', attempts: 1 });
    expect([...f.gateway.stored.keys()].sort()).toEqual([...onTheWire].sort());
    expect(f.t.journal.batchCounts(batch.id).byState).toMatchObject({ ACCEPTED: 4, SENDING: 0, QUEUED: 16 });
    await new Promise((r) => setTimeout(r, 200));
    expect(f.gateway.createCalls.size).toBe(4);

    f.gateway.wireDelayMs = 0;
    await f.engine.resumeBatch(batch.id);
    expect((await f.engine.waitForBatch(batch.id)).state).toBe('COMPLETED');
    expect(f.gateway.stored.size).toBe(20);
    expect([...f.gateway.createCalls.entries()].filter(([, n]) => n !== 1)).toEqual([]);
    expect(f.gateway.createCalls.size).toBe(20);
    for (const id of onTheWire) expect(f.t.journal.timeline('payout', id).map((e) => `${e.status}/${e.source}`)).toEqual(['QUEUED/local', 'ACCEPTED/create']);
  });

  it('pause or cancel while creates wait for a rate slot sends none of them: they stay QUEUED (SENDING is claimed only with the slot)', async () => {
    f = engineFixture({ concurrency: 4 });
    f.gateway.createDelayMs = 150; // every create waits this long for its slot
    const batch = await f.engine.submitBatch({ fileName: 's.csv', sha256: 'ss', rows: rows(12, 's') });
    await until(() => f.t.journal.batchCounts(batch.id).byState.QUEUED === 12 && f.t.journal.getBatch(batch.id)?.state === 'RUNNING');
    await new Promise((r) => setTimeout(r, 30)); // four are waiting for a slot now
    const paused = await f.engine.pauseBatch(batch.id);
    expect(paused.state).toBe('PAUSED');
    expect(f.gateway.stored.size).toBe(0);
    expect(f.t.journal.batchCounts(batch.id).byState).toMatchObject({ QUEUED: 12, SENDING: 0 });

    await f.engine.resumeBatch(batch.id);
    await until(() => f.gateway.stored.size >= 1, 3_000);
    const cancelled = await f.engine.cancelBatch(batch.id);
    const counts = f.t.journal.batchCounts(batch.id).byState;
    // Only what had its slot (and was on its way) reached the gateway; the rest is cancelled, nothing in between.
    expect(counts.ACCEPTED).toBe(f.gateway.stored.size);
    expect(counts.CANCELLED).toBe(12 - f.gateway.stored.size);
    expect(counts.QUEUED + counts.SENDING).toBe(0);
    expect(cancelled.state).toBe('CANCELLED');
  });

  it('cancel never cancels a payout the gateway stored before answering 5xx: it is read back and tracked', async () => {
    // A long backoff keeps the runner waiting after the 5xx, so the cancel lands while the outcome is unknown.
    f = engineFixture({ concurrency: 1, backoff: { baseMs: 60_000, capMs: 60_000 } });
    f.gateway.failCreates(1, 'server', true);
    const batch = await f.engine.submitBatch({ fileName: 'u.csv', sha256: 'ee', rows: rows(3, 'u') });
    await until(() => f.t.journal.getPayment('payout', 'u-1')?.lastError === 'fake server');
    await f.engine.cancelBatch(batch.id);
    expect(f.gateway.stored.has('u-1')).toBe(true);
    expect(f.t.journal.getPayment('payout', 'u-1')).toMatchObject({ state: 'ACCEPTED' });
    expect(f.t.journal.batchCounts(batch.id).byState).toMatchObject({ ACCEPTED: 1, CANCELLED: 2, QUEUED: 0, SENDING: 0 });
  });

  it('cancel stops sending; accepted payouts stay tracked, unsent ones are cancelled', async () => {
    f = engineFixture({ concurrency: 1 });
    f.gateway.createDelayMs = 3;
    const batch = await f.engine.submitBatch({ fileName: 'c.csv', sha256: 'dd', rows: rows(200) });
    await until(() => f.gateway.stored.size >= 5);
    const cancelled = await f.engine.cancelBatch(batch.id);
    expect(cancelled.state).toBe('CANCELLED');
    const counts = f.t.journal.batchCounts(batch.id);
    expect(counts.byState.ACCEPTED).toBe(f.gateway.stored.size);
    expect(counts.byState.CANCELLED).toBe(200 - f.gateway.stored.size);
    expect(counts.byState.QUEUED + counts.byState.SENDING).toBe(0);
    // Accepted ones are still polled to their final status.
    f.gateway.setStatus('SUCCESS');
    await f.engine.start();
    await until(() => f.t.journal.batchCounts(batch.id).final === f.gateway.stored.size);
    await expect(f.engine.resumeBatch(batch.id)).rejects.toThrow(/cancelled/);
  });

  it('pauses the batch with the reason when the gateway refuses the credentials', async () => {
    f = engineFixture({ concurrency: 1 });
    f.gateway.failCreates(1, 'unauthorized');
    const batch = await f.engine.submitBatch({ fileName: 'a.csv', sha256: 'ee', rows: rows(5) });
    const after = await f.engine.waitForBatch(batch.id);
    expect(after).toMatchObject({ state: 'PAUSED', pauseReason: expect.stringMatching(/unauthorized/) });
    expect(f.gateway.stored.size).toBe(0);
    await f.engine.resumeBatch(batch.id);
    expect((await f.engine.waitForBatch(batch.id)).state).toBe('COMPLETED');
  });

  it('resumes a batch left RUNNING by a crash when the engine starts', async () => {
    f = engineFixture();
    const journal = f.t.journal;
    const batch = journal.createBatch({ fileName: 'crash.csv', sha256: 'ff', rows: rows(6).map((r) => ({ ...r, id: r.idPayout })) });
    journal.markSending('payout', 'r-1');
    f.gateway.stored.set('r-1', { request: draft('r-1', { amountMinor: 100 }), status: 'PENDING' });
    journal.markSending('payout', 'r-2'); // never reached the gateway
    await f.engine.start();
    await until(() => journal.getBatch(batch.id)?.state === 'COMPLETED');
    expect(f.gateway.createCalls.get('r-1')).toBeUndefined();
    expect(f.gateway.createCalls.get('r-2')).toBe(1);
    expect(f.gateway.stored.size).toBe(6);
  });
});
