import { afterEach, describe, expect, it } from 'vitest';
import type { BatchProgressEvent } from '../../../main/engine';
import { draft, engineFixture, until, type EngineFixture } from './engine-helpers';

let f: EngineFixture;
afterEach(async () => f?.dispose());

const rows = (n: number, prefix = 'r') => Array.from({ length: n }, (_, i) => draft(`${prefix}-${i + 1}`, { amountMinor: 100 + i }));

describe('batch runner', () => {
  it('sends every row once, reports progress with counts and rate, and completes', async () => {
    f = engineFixture();
    const events: BatchProgressEvent[] = [];
    f.engine.on('batch-progress', (e) => events.push(e));
    const batch = f.engine.submitBatch({ fileName: 'june.csv', sha256: 'aa', rows: rows(40) });
    const done = await f.engine.waitForBatch(batch.id);
    expect(done.state).toBe('COMPLETED');
    expect(f.gateway.stored.size).toBe(40);
    expect([...f.gateway.createCalls.values()].every((n) => n === 1)).toBe(true);
    const last = events.at(-1)!;
    expect(last).toMatchObject({ batchId: batch.id, state: 'COMPLETED', total: 40, sent: 40, pending: 40, etaSeconds: 0 });
    expect(events.some((e) => e.ratePerSec > 0)).toBe(true);
  });

  it('refuses the whole batch when a row is invalid, naming the row, and stores nothing', async () => {
    f = engineFixture();
    const bad = [...rows(3), draft('x-4', { emailAddress: 'not-an-email' })];
    expect(() => f.engine.submitBatch({ fileName: 'bad.csv', sha256: 'bb', rows: bad })).toThrow(/1 row/);
    try {
      f.engine.submitBatch({ fileName: 'bad.csv', sha256: 'bb', rows: bad });
    } catch (e) {
      expect((e as { problems: { rowNumber: number }[] }).problems.map((p) => p.rowNumber)).toEqual([4]);
    }
    expect(f.t.journal.listBatches()).toEqual([]);
  });

  it('pauses without losing rows and resumes with the same ids', async () => {
    f = engineFixture({ concurrency: 2 });
    f.gateway.offline = true; // nothing gets through until resumed
    const batch = f.engine.submitBatch({ fileName: 'p.csv', sha256: 'cc', rows: rows(10) });
    await until(() => f.gateway.createCalls.size >= 2);
    const paused = await f.engine.pauseBatch(batch.id);
    expect(paused.state).toBe('PAUSED');
    expect(f.t.journal.batchCounts(batch.id).byState.QUEUED).toBe(10);
    f.gateway.offline = false;
    f.engine.resumeBatch(batch.id);
    expect((await f.engine.waitForBatch(batch.id)).state).toBe('COMPLETED');
    expect([...f.gateway.stored.keys()].sort()).toEqual(rows(10).map((r) => r.idPayout).sort());
  });

  it('cancel never cancels a payout the gateway stored before answering 5xx: it is read back and tracked', async () => {
    // A long backoff keeps the runner waiting after the 5xx, so the cancel lands while the outcome is unknown.
    f = engineFixture({ concurrency: 1, backoff: { baseMs: 60_000, capMs: 60_000 } });
    f.gateway.failCreates(1, 'server', true);
    const batch = f.engine.submitBatch({ fileName: 'u.csv', sha256: 'ee', rows: rows(3, 'u') });
    await until(() => f.t.journal.getPayment('payout', 'u-1')?.lastError === 'fake server');
    await f.engine.cancelBatch(batch.id);
    expect(f.gateway.stored.has('u-1')).toBe(true);
    expect(f.t.journal.getPayment('payout', 'u-1')).toMatchObject({ state: 'ACCEPTED' });
    expect(f.t.journal.batchCounts(batch.id).byState).toMatchObject({ ACCEPTED: 1, CANCELLED: 2, QUEUED: 0, SENDING: 0 });
  });

  it('cancel stops sending; accepted payouts stay tracked, unsent ones are cancelled', async () => {
    f = engineFixture({ concurrency: 1 });
    f.gateway.createDelayMs = 3;
    const batch = f.engine.submitBatch({ fileName: 'c.csv', sha256: 'dd', rows: rows(200) });
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
    expect(() => f.engine.resumeBatch(batch.id)).toThrow(/cancelled/);
  });

  it('pauses the batch with the reason when the gateway refuses the credentials', async () => {
    f = engineFixture({ concurrency: 1 });
    f.gateway.failCreates(1, 'unauthorized');
    const batch = f.engine.submitBatch({ fileName: 'a.csv', sha256: 'ee', rows: rows(5) });
    const after = await f.engine.waitForBatch(batch.id);
    expect(after).toMatchObject({ state: 'PAUSED', pauseReason: expect.stringMatching(/unauthorized/) });
    expect(f.gateway.stored.size).toBe(0);
    f.engine.resumeBatch(batch.id);
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
