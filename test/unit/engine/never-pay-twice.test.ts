// Regression tests for the four ways a payout could be paid twice or shown wrongly (issue "Never pay
// twice, proved"). Each failed on the code before the fix; the simulation found each of them too.
import { afterEach, describe, expect, it } from 'vitest';
import { PayoutEngine } from '../../../main/engine';
import { SendCancelledError } from '../../../main/gateway/errors';
import { draft, engineFixture, until, type EngineFixture } from './engine-helpers';

let f: EngineFixture;
afterEach(async () => f?.dispose());

/** A two-row batch: A goes to an account the (fake) gateway fails, B is paid. */
async function batchOfTwo(fx: EngineFixture) {
  await fx.engine.start();
  const batch = await fx.engine.submitBatch({ fileName: 'two.csv', sha256: 'x'.repeat(64), rows: [draft('A', { accountName: 'Ada' }), draft('B', { accountName: 'Bea' })] });
  await fx.engine.waitForBatch(batch.id);
  return batch.id;
}

/** The gateway moves a payout to `status`; the desk reads it (as on a callback or a refresh). */
async function finalAs(fx: EngineFixture, id: string, status: string) {
  const stored = fx.gateway.stored.get(id);
  if (!stored) throw new Error(`${id} is not stored`);
  stored.status = status;
  await fx.engine.refreshPayment('payout', id);
  expect(fx.t.journal.getPayment('payout', id)?.status).toBe(status);
}

describe('retry failed rows', () => {
  it('retries an intent once per failure: a row that turns RETURNED later opens only its own retry, never the one already retried', async () => {
    f = engineFixture();
    const batchId = await batchOfTwo(f);
    await finalAs(f, 'A', 'FAILED');
    await finalAs(f, 'B', 'SUCCESS');
    expect([...(await f.engine.retryableIds(batchId))]).toEqual(['A']);
    const first = await f.engine.retryFailed(batchId, ['A']);
    await f.engine.waitForBatch(first.id);
    const [aRetry] = f.t.journal.batchPayments(first.id);
    expect(aRetry).toMatchObject({ retryOf: 'A', intentId: f.t.journal.getPayment('payout', 'A')?.intentId });

    // B is returned after it was paid: now B, and only B, may be sent again.
    await finalAs(f, 'B', 'RETURNED');
    expect([...(await f.engine.retryableIds(batchId))]).toEqual(['B']);
    await expect(f.engine.retryFailed(batchId, ['A', 'B'])).rejects.toThrow(expect.objectContaining({ code: 'RETRY_ROWS_CHANGED' }));
    await expect(f.engine.retryFailed(batchId, ['A'])).rejects.toThrow(expect.objectContaining({ code: 'RETRY_ROWS_CHANGED' }));
    const second = await f.engine.retryFailed(batchId, ['B']);
    await f.engine.waitForBatch(second.id);
    expect(f.t.journal.batchPayments(second.id).map((p) => p.retryOf)).toEqual(['B']);
    await expect(f.engine.retryFailed(batchId, [])).rejects.toThrow(expect.objectContaining({ code: 'NOTHING_TO_RETRY' }));
    // A's intent: exactly two attempts, the first failed.
    expect(f.t.journal.intentAttempts(aRetry!.intentId!).map((p) => p.id)).toEqual(['A', aRetry!.id]);
    expect(f.gateway.createCalls.get('A')).toBe(1);
  });

  it('never offers a row still moving, even when a profile lists its status as final', async () => {
    f = engineFixture({ finalStatuses: ['SUCCESS', 'FAILED', 'PROCESSING'] });
    const batchId = await batchOfTwo(f);
    await finalAs(f, 'A', 'PROCESSING');
    expect(f.t.journal.getPayment('payout', 'A')?.isFinal).toBe(true);
    expect((await f.engine.retryableIds(batchId)).size).toBe(0);
  });
});

describe('unknown outcomes', () => {
  it('a timed-out create found nowhere by GET stays UNKNOWN through pause and cancel, and is recorded when it lands late', async () => {
    f = engineFixture({ backoff: { baseMs: 60_000, capMs: 60_000 } });
    await f.engine.start();
    f.gateway.failCreates(1, 'timeout');
    const batch = await f.engine.submitBatch({ fileName: 'late.csv', sha256: 'y'.repeat(64), rows: [draft('late')] });
    await until(() => f.t.journal.getPayment('payout', 'late')?.state === 'UNKNOWN', 5_000);
    await f.engine.pauseBatch(batch.id);
    expect(f.t.journal.getPayment('payout', 'late')?.state).toBe('UNKNOWN');
    await f.engine.cancelBatch(batch.id);
    expect(f.t.journal.getPayment('payout', 'late')).toMatchObject({ state: 'UNKNOWN', isFinal: false });
    expect((await f.engine.retryableIds(batch.id)).size).toBe(0);
    // The first POST reaches the gateway after all: the desk reads it and follows it.
    f.gateway.stored.set('late', { request: { ...draft('late') }, status: 'SUCCESS' });
    await until(() => f.t.journal.getPayment('payout', 'late')?.status === 'SUCCESS', 5_000);
    expect(f.gateway.createCalls.get('late')).toBe(1);
  });

  it('a 4xx answering a later try of an id whose first try timed out is not final: the payout stays UNKNOWN until a GET finds it', async () => {
    f = engineFixture();
    await f.engine.start();
    f.gateway.failCreates(1, 'timeout');
    f.gateway.failCreates(1, 'validation');
    const record = await f.engine.submitPayout(draft('twice'), { waitMs: 5_000 });
    expect(record).toMatchObject({ state: 'UNKNOWN', isFinal: false });
    expect(f.t.journal.timeline('payout', 'twice').map((e) => e.status)).not.toContain('REJECTED');
    f.gateway.stored.set('twice', { request: { ...draft('twice') }, status: 'PENDING' });
    await until(() => f.t.journal.getPayment('payout', 'twice')?.state === 'ACCEPTED', 5_000);
    expect(f.gateway.createCalls.get('twice')).toBe(2);
  });

  it('a payout on the wire when the desk stopped is read back before anything, and never sent under a new id', async () => {
    f = engineFixture();
    f.t.journal.insertPayment('payout', { ...draft('wire'), id: 'wire' });
    f.t.journal.markSending('payout', 'wire');
    f.gateway.stored.set('wire', { request: { ...draft('wire') }, status: 'PENDING' });
    await f.engine.start();
    await until(() => f.t.journal.getPayment('payout', 'wire')?.state === 'ACCEPTED', 5_000);
    expect(f.gateway.createCalls.has('wire')).toBe(false);
  });
});

describe('held payouts', () => {
  it('a payout the gateway refuses our credentials for is HELD with that reason, is not sent on the next start, and leaves only when released', async () => {
    f = engineFixture();
    const events: string[] = [];
    f.engine.on('status-changed', (e) => events.push(`${e.id}:${e.status}`));
    await f.engine.start();
    f.gateway.failCreates(1, 'unauthorized');
    await expect(f.engine.submitPayout(draft('key'))).rejects.toMatchObject({ code: 'PAYOUT_HELD' });
    expect(events).toContain('key:HELD');
    expect(f.t.journal.getPayment('payout', 'key')).toMatchObject({ state: 'HELD', lastError: 'fake unauthorized' });
    // The key is fixed and the desk starts again: nothing leaves by itself.
    await f.engine.stop();
    const again = new PayoutEngine({ journal: f.t.journal, gateway: f.gateway, pollIntervalMs: 20, pollTickMs: 5 });
    await again.start();
    await new Promise((r) => setTimeout(r, 100));
    expect(f.gateway.stored.has('key')).toBe(false);
    const released = await again.releasePayout('key', { actor: 'ada' });
    expect(released.state).toBe('ACCEPTED');
    expect(f.gateway.createCalls.get('key')).toBe(2);
    expect(f.t.journal.listAudit().map((a) => a.action)).toEqual(expect.arrayContaining(['payout.held', 'payout.released']));
    await again.stop();
  });

  it('a held payout can be discarded: final, nothing sent, and it cannot be released after', async () => {
    f = engineFixture();
    f.gateway.failCreates(1, 'forbidden');
    await expect(f.engine.submitPayout(draft('nokey'))).rejects.toMatchObject({ code: 'PAYOUT_HELD' });
    expect(await f.engine.discardPayout('nokey', { actor: 'ada' })).toMatchObject({ state: 'DISCARDED', isFinal: true });
    await expect(f.engine.releasePayout('nokey')).rejects.toMatchObject({ code: 'BAD_STATE' });
    expect(f.gateway.stored.size).toBe(0);
  });

  it('a batch whose credentials are refused pauses with the reason, and its rows do not leave on the next start', async () => {
    f = engineFixture();
    await f.engine.start();
    f.gateway.failCreates(1, 'unauthorized');
    const batch = await f.engine.submitBatch({ fileName: 'auth.csv', sha256: 'z'.repeat(64), rows: [draft('r1'), draft('r2')] });
    const ended = await f.engine.waitForBatch(batch.id);
    expect(ended).toMatchObject({ state: 'PAUSED', pauseReason: expect.stringContaining('fake unauthorized') });
    expect(f.t.journal.getPayment('payout', 'r1')?.state).toBe('QUEUED');
    const sentBefore = [...f.gateway.createCalls.entries()];
    await f.engine.stop();
    const again = new PayoutEngine({ journal: f.t.journal, gateway: f.gateway, pollIntervalMs: 20, pollTickMs: 5 });
    await again.start();
    await new Promise((r) => setTimeout(r, 100));
    expect([...f.gateway.createCalls.entries()]).toEqual(sentBefore);
    expect(f.gateway.stored.has('r1')).toBe(false);
    await again.stop();
  });
});

describe('a cancel during a refused send', () => {
  it('stays a cancel: the run ending on the refusal does not turn the batch back to PAUSED, and its rows never leave', async () => {
    f = engineFixture();
    await f.engine.start();
    f.gateway.createDelayMs = 50; // the create waits for its slot while the person cancels
    f.gateway.preSendFaults.push('unauthorized');
    const batch = await f.engine.submitBatch({ fileName: 'race.csv', sha256: 'r'.repeat(64), rows: [draft('race')] });
    const cancelled = await f.engine.cancelBatch(batch.id);
    expect(cancelled.state).toBe('CANCELLED');
    await new Promise((r) => setTimeout(r, 100));
    expect(f.t.journal.getBatch(batch.id)?.state).toBe('CANCELLED');
    expect(f.t.journal.getPayment('payout', 'race')?.state).toBe('CANCELLED');
    await expect(f.engine.resumeBatch(batch.id)).rejects.toThrow(expect.objectContaining({ code: 'BAD_STATE' }));
    expect(f.gateway.createCalls.has('race')).toBe(false);
  });
});

describe('a pause while a create waits out a 429', () => {
  it('leaves the row QUEUED (its refused try stored nothing), not SENDING with nothing to settle it', async () => {
    f = engineFixture();
    await f.engine.start();
    // As the transport does: a 429 (not stored), then a second try that asks beforeSend again after Retry-After.
    const gateway = f.gateway;
    const original = gateway.createPayout.bind(gateway);
    gateway.createPayout = async (id, request, options = {}) => {
      if (!options.beforeSend?.()) throw new SendCancelledError('createPayout');
      await new Promise((r) => setTimeout(r, 100));
      if (!options.beforeSend()) throw new SendCancelledError('createPayout');
      return original(id, request, {});
    };
    const batch = await f.engine.submitBatch({ fileName: 'wait.csv', sha256: 'w'.repeat(64), rows: [draft('waits')] });
    await until(() => f.t.journal.getPayment('payout', 'waits')?.state === 'SENDING');
    await f.engine.pauseBatch(batch.id);
    expect(f.t.journal.getPayment('payout', 'waits')?.state).toBe('QUEUED');
    expect(f.gateway.stored.has('waits')).toBe(false);
  });
});

describe('missing payouts', () => {
  it('an accepted payout the gateway stops knowing becomes MISSING with an event, and is followed again if it reappears', async () => {
    f = engineFixture({ missingRule: { reads: 3, spanMs: 50 } });
    const events: string[] = [];
    f.engine.on('status-changed', (e) => events.push(`${e.id}:${e.status}`));
    await f.engine.start();
    await f.engine.submitPayout(draft('gone'));
    const kept = f.gateway.stored.get('gone')!;
    f.gateway.stored.delete('gone');
    await until(() => f.t.journal.getPayment('payout', 'gone')?.state === 'MISSING', 5_000);
    expect(events).toContain('gone:MISSING');
    expect(f.t.journal.getPayment('payout', 'gone')?.isFinal).toBe(false);
    f.gateway.stored.set('gone', { ...kept, status: 'SUCCESS' });
    await until(() => f.t.journal.getPayment('payout', 'gone')?.status === 'SUCCESS', 5_000);
    expect(f.t.journal.getPayment('payout', 'gone')?.state).toBe('ACCEPTED');
  });
});
