// Desktop notifications: one when a batch finishes, one when a payment (not in a batch) fails, none
// for anything else. The pure policy first, then the policy fed with what the real engine emits.
import { afterEach, describe, expect, it } from 'vitest';
import type { BatchProgress, DeskNotification, PaymentStatusChanged } from '../../../contract/api';
import { createNotificationPolicy, notificationForBatch, notificationForPayment } from '../../../main/shell/notifications';
import { draft, engineFixture, until, type EngineFixture } from '../engine/engine-helpers';

const progress = (overrides: Partial<BatchProgress> = {}): BatchProgress => ({
  batchId: 'b-1', state: 'RUNNING', total: 3, done: 0, failed: 0, pending: 3, sent: 0, ratePerSec: 0, etaSeconds: null, stateWord: 'RUNNING', stateReason: null, ...overrides,
});

const change = (overrides: Partial<PaymentStatusChanged> = {}): PaymentStatusChanged => ({
  kind: 'payout', id: 'p-1', status: 'FAILED', previousStatus: 'PROCESSING', final: true, source: 'poll',
  observedAt: '2026-04-01T08:00:00.000Z', batchId: null, ...overrides,
});

describe('notificationForPayment', () => {
  it.each(['FAILED', 'REJECTED', 'CANCELLED', 'EXPIRED', 'RETURNED'])('a final %s payout gives an error notification naming it', (status) => {
    expect(notificationForPayment(change({ status }))).toEqual({ level: 'error', title: `Payout ${status.toLowerCase()}`, body: 'Payment p-1' });
  });

  it('a MISMATCH (the gateway holds our id with other money) warns, also inside a batch', () => {
    const note = { level: 'warning', title: 'Payout needs attention', body: 'The gateway holds payment p-1 with a different amount or currency' };
    expect(notificationForPayment(change({ status: 'MISMATCH', final: false }))).toEqual(note);
    expect(createNotificationPolicy().onPaymentStatus(change({ status: 'MISMATCH', final: false, batchId: 'b-1' }))).toEqual(note);
  });

  it.each([
    ['MISSING', 'Payout missing at the gateway'],
    ['HELD', 'Payout held'],
  ])('a %s payout warns, also inside a batch (a person must act)', (status, title) => {
    expect(notificationForPayment(change({ status, final: false }))).toMatchObject({ level: 'warning', title });
    expect(createNotificationPolicy().onPaymentStatus(change({ status, final: false, batchId: 'b-1' }))).toMatchObject({ level: 'warning', title });
  });

  it('a paid payout returned later is told even inside a finished batch; a batch row failing is left to the batch', () => {
    const policy = createNotificationPolicy();
    expect(policy.onPaymentStatus(change({ status: 'RETURNED', previousStatus: 'SUCCESS', batchId: 'b-1' }))).toMatchObject({ level: 'error', title: 'Payout returned' });
    expect(policy.onPaymentStatus(change({ status: 'RETURNED', previousStatus: 'PROCESSING', batchId: 'b-1' }))).toBeNull();
  });

  it('a failed payin says payin', () => {
    expect(notificationForPayment(change({ kind: 'payin', id: 'in-9' }))).toEqual({ level: 'error', title: 'Payin failed', body: 'Payment in-9' });
  });

  it('reads the status whatever its case', () => {
    expect(notificationForPayment(change({ status: 'failed' }))?.title).toBe('Payout failed');
  });

  it.each([
    ['a success', { status: 'SUCCESS' }],
    ['an accepted payout', { status: 'ACCEPTED', final: false }],
    ['a pending payout', { status: 'PENDING', final: false }],
    ['a payout in processing', { status: 'PROCESSING', final: false }],
    ['an unknown status, kept and polled', { status: 'ON_HOLD', final: false }],
    ['a failure word the profile does not count as final', { status: 'FAILED', final: false }],
    ['an outcome not known yet (checked with GET)', { status: 'UNKNOWN', final: false }],
  ])('no notification for %s', (_name, overrides) => {
    expect(notificationForPayment(change(overrides))).toBeNull();
  });
});

describe('notificationForBatch', () => {
  it.each(['QUEUED', 'RUNNING', 'PAUSED', 'CANCELLING'] as const)('no notification while the batch is %s', (state) => {
    expect(notificationForBatch(progress({ state }), undefined)).toBeNull();
  });

  it('a batch whose payouts all ended well: success, with the counts', () => {
    expect(notificationForBatch(progress({ state: 'COMPLETED', done: 3, pending: 0, sent: 3 }), 'RUNNING')).toEqual({
      level: 'success', title: 'Batch finished', body: '3 of 3 final, 0 failed',
    });
  });

  it('a batch with failures: a warning that says how many', () => {
    expect(notificationForBatch(progress({ state: 'COMPLETED', done: 3, failed: 1, pending: 0, sent: 3 }), 'RUNNING')).toEqual({
      level: 'warning', title: 'Batch finished', body: '3 of 3 final, 1 failed',
    });
  });

  it('a batch that is sent (COMPLETED) but still has payouts pending at the gateway has not finished', () => {
    expect(notificationForBatch(progress({ state: 'COMPLETED', sent: 3, done: 2, pending: 1 }), 'RUNNING')).toBeNull();
  });

  it('a cancelled batch: a warning', () => {
    expect(notificationForBatch(progress({ state: 'CANCELLED', done: 1, pending: 0, sent: 1 }), 'RUNNING')).toMatchObject({ level: 'warning', title: 'Batch cancelled' });
  });

  it('a failed batch: a warning that it stopped', () => {
    expect(notificationForBatch(progress({ state: 'FAILED' }), 'RUNNING')).toMatchObject({ level: 'warning', title: 'Batch stopped' });
  });
});

describe('createNotificationPolicy', () => {
  it('gives one notification per batch end, however many progress events repeat it', () => {
    const policy = createNotificationPolicy();
    const notes = [
      policy.onBatchProgress(progress()),
      policy.onBatchProgress(progress({ sent: 2, pending: 3 })),
      policy.onBatchProgress(progress({ state: 'COMPLETED', sent: 3, done: 3, pending: 0 })),
      policy.onBatchProgress(progress({ state: 'COMPLETED', sent: 3, done: 3, pending: 0 })),
    ];
    expect(notes.filter(Boolean)).toEqual([{ level: 'success', title: 'Batch finished', body: '3 of 3 final, 0 failed' }]);
  });

  it('a batch resumed after it ended notifies again at its next end', () => {
    const policy = createNotificationPolicy();
    const ended = progress({ state: 'COMPLETED', sent: 3, done: 3, pending: 0 });
    expect(policy.onBatchProgress(ended)).not.toBeNull();
    expect(policy.onBatchProgress(progress({ state: 'RUNNING', sent: 3, done: 3, pending: 0 }))).toBeNull();
    expect(policy.onBatchProgress(ended)).not.toBeNull();
  });

  it('keeps batches apart', () => {
    const policy = createNotificationPolicy();
    expect(policy.onBatchProgress(progress({ batchId: 'a', state: 'COMPLETED', sent: 3, done: 3, pending: 0 }))).not.toBeNull();
    expect(policy.onBatchProgress(progress({ batchId: 'b', state: 'COMPLETED', sent: 3, done: 3, pending: 0 }))).not.toBeNull();
  });

  it('a batch that is sent but whose payouts are not final yet has not finished: it says so when they are', () => {
    const policy = createNotificationPolicy();
    expect(policy.onBatchProgress(progress({ state: 'COMPLETED', sent: 3, done: 0, pending: 3 }))).toBeNull();
    expect(policy.onBatchProgress(progress({ state: 'COMPLETED', sent: 3, done: 2, pending: 1 }))).toBeNull();
    expect(policy.onBatchProgress(progress({ state: 'COMPLETED', sent: 3, done: 3, failed: 1, pending: 0 }))).toEqual({
      level: 'warning', title: 'Batch finished', body: '3 of 3 final, 1 failed',
    });
  });

  it('a failing payment outside a batch notifies; one inside a batch is left to the batch notification', () => {
    const policy = createNotificationPolicy();
    expect(policy.onPaymentStatus(change())).toMatchObject({ level: 'error', title: 'Payout failed' });
    expect(policy.onPaymentStatus(change({ batchId: 'b-1' }))).toBeNull();
    expect(policy.onPaymentStatus(change({ status: 'SUCCESS' }))).toBeNull();
  });
});

describe('the policy fed with what the engine emits', () => {
  let f: EngineFixture | undefined;
  afterEach(async () => {
    await f?.dispose();
    f = undefined;
  });

  function wire(fixture: EngineFixture): DeskNotification[] {
    const policy = createNotificationPolicy();
    const notes: DeskNotification[] = [];
    const push = (note: DeskNotification | null) => void (note && notes.push(note));
    // The same conversion main/desk/runtime.ts applies before main/index.ts hands events to the policy.
    fixture.engine.on('status-changed', (e) => push(policy.onPaymentStatus({ ...e, observedAt: new Date(e.observedAt).toISOString() })));
    fixture.engine.on('batch-progress', ({ counts: _counts, ...p }) => push(policy.onBatchProgress(p)));
    return notes;
  }

  it('a payout that ends in SUCCESS gives no notification', async () => {
    f = engineFixture();
    const notes = wire(f);
    await f.engine.start();
    await f.engine.submitPayout(draft('ok'));
    f.gateway.setStatus('SUCCESS');
    await until(() => f?.t.journal.getPayment('payout', 'ok')?.isFinal === true);
    expect(notes).toEqual([]);
  });

  it('a payout the gateway later reports FAILED gives one error notification', async () => {
    f = engineFixture();
    const notes = wire(f);
    await f.engine.start();
    await f.engine.submitPayout(draft('bad'));
    f.gateway.setStatus('PROCESSING');
    await until(() => f?.t.journal.getPayment('payout', 'bad')?.status === 'PROCESSING');
    expect(notes).toEqual([]);
    f.gateway.setStatus('FAILED');
    await until(() => f?.t.journal.getPayment('payout', 'bad')?.isFinal === true);
    expect(notes).toEqual([{ level: 'error', title: 'Payout failed', body: 'Payment bad' }]);
  });

  it('a payout the gateway refuses (400, marked REJECTED and final in the journal) gives one error notification', async () => {
    f = engineFixture();
    const notes = wire(f);
    f.gateway.failCreates(1, 'validation');
    const record = await f.engine.submitPayout(draft('nope'));
    expect(record).toMatchObject({ state: 'REJECTED', isFinal: true });
    expect(notes).toEqual([{ level: 'error', title: 'Payout rejected', body: 'Payment nope' }]);
  });

  it('a batch notifies once, when all its payouts are final, with the failures counted; its payouts do not notify one by one', async () => {
    f = engineFixture();
    const notes = wire(f);
    await f.engine.start();
    const batch = await f.engine.submitBatch({ fileName: 'june.csv', sha256: 'aa', rows: [draft('b-1'), draft('b-2'), draft('b-3')] });
    expect((await f.engine.waitForBatch(batch.id)).state).toBe('COMPLETED');
    // Everything is at the gateway, nothing is final yet: the batch has not finished for the user.
    expect(notes).toEqual([]);
    const stored = (id: string) => {
      const p = f?.gateway.stored.get(id);
      if (!p) throw new Error(`${id} not at the gateway`);
      return p;
    };
    stored('b-1').status = 'SUCCESS';
    stored('b-2').status = 'FAILED';
    await until(() => f?.t.journal.getPayment('payout', 'b-2')?.isFinal === true);
    expect(notes).toEqual([]);
    stored('b-3').status = 'SUCCESS';
    await until(() => notes.length > 0);
    expect(notes).toEqual([{ level: 'warning', title: 'Batch finished', body: '3 of 3 final, 1 failed' }]);
    // Nothing more comes later.
    await new Promise((r) => setTimeout(r, 100));
    expect(notes).toHaveLength(1);
  });

  it('a cancelled batch notifies once', async () => {
    f = engineFixture({ backoff: { baseMs: 60_000, capMs: 60_000 } });
    const notes = wire(f);
    f.gateway.offline = true;
    const batch = await f.engine.submitBatch({ fileName: 'july.csv', sha256: 'bb', rows: [draft('c-1'), draft('c-2')] });
    await until(() => (f?.gateway.createCalls.size ?? 0) > 0);
    await f.engine.cancelBatch(batch.id);
    expect(notes).toEqual([expect.objectContaining({ level: 'warning', title: 'Batch cancelled' })]);
  });
});
