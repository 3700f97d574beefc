// The contract every adapter of JournalPort keeps, run against each of them with the same expectations:
// the SQLite journal (port-contract-sqlite.test.ts) and the team journal on PostgreSQL
// (test/integration/postgres/journal.test.ts). What the engine and the approval gate rely on: the state
// transitions and their guards, the status events and audit entries they leave, batch counts and orders.
// Every call is awaited, as the engine awaits the port.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../../main/audit/chain';
import { JournalError } from '../../../main/journal/shared';
import type { JournalPort, SendClaim } from '../../../main/journal/port';
import type { PaymentKind, StatusObservation } from '../../../main/journal/types';
import { payout } from './helpers';

/** One adapter under test, on an empty journal whose clock is `clock.now`. */
export interface PortUnderTest {
  journal: JournalPort;
  /** The payment's status events, oldest first (not part of the port: read straight from the store). */
  timeline(kind: PaymentKind, id: string): Promise<{ status: string; source: string }[]>;
  /** The audit log, oldest first. */
  auditLog(): Promise<{ seq: number; action: string; subject: string | null; prevHash: string; hash: string }[]>;
}

export interface TestClock {
  now: () => number;
  set(t: number): void;
}

export const T0 = 1_750_000_000_000;

export function testClock(start = T0): TestClock {
  let t = start;
  return { now: () => t, set: (next) => void (t = next) };
}

/** The call as the engine makes it (await): a synchronous adapter's throw becomes a rejection. */
const call = async <T>(fn: () => T | Promise<T>): Promise<T> => fn();

const accepted = (status: string, extra: Partial<StatusObservation> = {}): StatusObservation => ({ status, source: 'create', isFinal: false, ...extra });

/** Claim, confirm and (when asked) record the create's answer, then give the claim back. */
async function send(j: JournalPort, id: string, answer?: StatusObservation, kind: PaymentKind = 'payout'): Promise<void> {
  const claim = await j.claimSend(kind, id);
  expect(claim).not.toBeNull();
  expect(claim!.confirm()).toBe(true);
  if (answer) await j.recordObservationSoon(kind, id, answer);
  await claim!.release();
}

/** A claim that lets nothing leave: none at all (team), or one whose confirm() is false (single desk). */
async function expectNoSend(claim: SendClaim | null): Promise<void> {
  if (claim === null) return;
  expect(claim.confirm()).toBe(false);
  await claim.release();
}

export function journalPortContract(name: string, open: (clock: TestClock) => Promise<PortUnderTest>): void {
  describe(`the ${name} journal (JournalPort contract)`, () => {
    it('stores a new payment as QUEUED with its event and audit entry, and refuses an id it already has', async () => {
      const clock = testClock();
      const { journal: j, timeline, auditLog } = await open(clock);
      const p = await j.insertPayment('payout', payout('p-1', { amountMinor: 9_007_199_254_740_991, reference: 'inv 7', details: { b: 1, a: 'x' } }), 'alice');
      expect(p).toMatchObject({
        kind: 'payout', id: 'p-1', state: 'QUEUED', status: 'QUEUED', isFinal: false, attempts: 0, amountMinor: 9_007_199_254_740_991,
        reference: 'inv 7', details: { a: 'x', b: 1 }, createdAt: T0, updatedAt: T0, batchId: null, retryOf: null, unknownSince: null,
      });
      expect(p.intentId).toEqual(expect.any(String));
      await expect(call(() => j.insertPayment('payout', payout('p-1')))).rejects.toMatchObject({ code: 'DUPLICATE_ID', ids: ['p-1'] });
      // Payins are another kind: the same id is another payment, and has no intent.
      expect(await j.insertPayment('payin', payout('p-1'))).toMatchObject({ kind: 'payin', intentId: null });
      expect(await j.getPayment('payout', 'nope')).toBeUndefined();
      expect(await j.paymentState('payout', 'p-1')).toEqual({ state: 'QUEUED', isFinal: false });
      expect(await timeline('payout', 'p-1')).toEqual([{ status: 'QUEUED', source: 'local' }]);
      expect((await auditLog()).map((e) => [e.action, e.subject])).toEqual([['payout.queued', 'p-1'], ['payin.queued', 'p-1']]);
      expect(await j.knownCurrencies()).toEqual(['EUR']);
    });

    it('creates a batch all or nothing, with its totals, counts and rows in row order', async () => {
      const clock = testClock();
      const { journal: j, timeline } = await open(clock);
      await j.insertPayment('payout', payout('taken'));
      const rows = [payout('b-3', { amountMinor: 300 }), payout('b-1', { amountMinor: 100, currencyCode: 'USD' }), payout('b-2', { amountMinor: 200 })];
      await expect(call(() => j.createBatch({ id: 'B0', fileName: 'x.csv', sha256: 'h0', rows: [...rows, payout('taken')] }))).rejects.toMatchObject({ code: 'DUPLICATE_ID', ids: ['taken'] });
      await expect(call(() => j.createBatch({ fileName: 'x.csv', sha256: 'h0', rows: [payout('r'), payout('r')] }))).rejects.toMatchObject({ code: 'DUPLICATE_ID' });
      await expect(call(() => j.createBatch({ fileName: 'x.csv', sha256: 'h0', rows: [] }))).rejects.toMatchObject({ code: 'EMPTY_BATCH' });
      expect(await j.getBatch('B0')).toBeUndefined();
      expect(await j.getPayment('payout', 'b-1')).toBeUndefined();

      const b = await j.createBatch({ id: 'B1', fileName: 'x.csv', sha256: 'h1', rows, preparedBy: 'pat' });
      expect(b).toMatchObject({ id: 'B1', fileName: 'x.csv', sha256: 'h1', rowCount: 3, state: 'RUNNING', pauseReason: null, createdAt: T0 });
      expect(b.totals).toEqual([{ currencyCode: 'EUR', amountMinor: 500, count: 2 }, { currencyCode: 'USD', amountMinor: 100, count: 1 }]);
      expect((await j.unsentPayments('payout', 'B1')).map((p) => [p.id, p.rowNumber, p.batchId])).toEqual([['b-3', 1, 'B1'], ['b-1', 2, 'B1'], ['b-2', 3, 'B1']]);
      expect((await j.unsentPayments('payout')).map((p) => p.id)).toEqual(['taken', 'b-3', 'b-1', 'b-2']);
      const counts = await j.batchCounts('B1');
      expect(counts).toMatchObject({ total: 3, sent: 0, final: 0, failed: 0, pending: 3, byStatus: { QUEUED: 3 } });
      expect(counts.byState.QUEUED).toBe(3);
      expect(await j.sendableCount('B1')).toBe(3);
      expect(await timeline('payout', 'b-2')).toEqual([{ status: 'QUEUED', source: 'local' }]);
      expect(await j.preparation('batch', 'B1')).toEqual({ preparedBy: 'pat', preparedAt: T0 });
      expect(await j.preparation('payout', 'b-1')).toEqual({ preparedBy: 'pat', preparedAt: T0 });
      expect(await j.preparation('batch', 'nope')).toBeUndefined();
      expect(await j.manifestRows('batch', 'B1')).toEqual([
        { id: 'b-3', amountMinor: 300, currencyCode: 'EUR', accountName: 'Ada Lovelace', accountNumber: 'DE89370400440532013000', paymentOperatorCode: 'EU_SEPA', paymentMethodCode: 'BANK_TRANSFER', emailAddress: 'ada@example.com', callbackUrl: null },
        expect.objectContaining({ id: 'b-1', amountMinor: 100, currencyCode: 'USD' }),
        expect.objectContaining({ id: 'b-2', amountMinor: 200 }),
      ]);
      expect(await j.manifestRows('payout', 'taken')).toEqual([expect.objectContaining({ id: 'taken', amountMinor: 12_550 })]);
      expect(await j.knownCurrencies()).toEqual(['EUR', 'USD']);
    });

    it('sends once: claim, confirm (SENDING, one more attempt), the answer makes it ACCEPTED, and it is not claimable again', async () => {
      const clock = testClock();
      const { journal: j, timeline } = await open(clock);
      await j.insertPayment('payout', payout('p-1'));
      const claim = await j.claimSend('payout', 'p-1');
      expect(claim).not.toBeNull();
      clock.set(T0 + 10);
      expect(claim!.confirm()).toBe(true);
      expect(await j.getPayment('payout', 'p-1')).toMatchObject({ state: 'SENDING', status: 'SENDING', attempts: 1, updatedAt: T0 + 10 });
      clock.set(T0 + 20);
      expect(await j.recordObservationSoon('payout', 'p-1', accepted('PENDING', { nextPollAt: T0 + 5_000, raw: { id: 'p-1' } }))).toEqual({ changed: true });
      await claim!.release();
      expect(await j.getPayment('payout', 'p-1')).toMatchObject({ state: 'ACCEPTED', status: 'PENDING', gatewayStatus: 'PENDING', acceptedAt: T0 + 20, nextPollAt: T0 + 5_000, isFinal: false });
      // The same status from the same source again changes nothing and adds no event; a poll's does add one.
      expect(await j.recordObservationSoon('payout', 'p-1', accepted('PENDING', { nextPollAt: T0 + 5_000 }))).toEqual({ changed: false });
      expect(await j.recordObservationSoon('payout', 'p-1', { status: 'success', source: 'poll', isFinal: true, feeMinor: 15, feeCurrencyCode: 'EUR', isTest: true })).toEqual({ changed: true });
      expect(await j.getPayment('payout', 'p-1')).toMatchObject({ status: 'SUCCESS', isFinal: true, finalAt: T0 + 20, feeMinor: 15, isTest: true, nextPollAt: null });
      expect(await timeline('payout', 'p-1')).toEqual([
        { status: 'QUEUED', source: 'local' }, { status: 'PENDING', source: 'create' }, { status: 'SUCCESS', source: 'poll' },
      ]);
      await expectNoSend(await j.claimSend('payout', 'p-1'));
      await expect(call(() => j.recordObservationSoon('payout', 'nope', accepted('PENDING')))).rejects.toMatchObject({ code: 'NOT_FOUND' });
    });

    it('orders the writes that follow confirm() after its SENDING, even when nothing awaits in between', async () => {
      const { journal: j } = await open(testClock());
      const ids = Array.from({ length: 20 }, (_, i) => `p-${i}`);
      await j.createBatch({ id: 'B1', fileName: 'x.csv', sha256: 'h', rows: ids.map((id) => payout(id)) });
      const claims = await Promise.all(ids.map((id) => j.claimSend('payout', id)));
      await Promise.all(ids.map((id, i) => {
        expect(claims[i]!.confirm()).toBe(true);
        return i % 2 ? j.markRetrying('payout', id, '429') : j.recordObservationSoon('payout', id, accepted('PENDING', { nextPollAt: T0 + 1 }));
      }));
      await Promise.all(claims.map((c) => c!.release()));
      const rows = await j.unsentPayments('payout', 'B1');
      expect(rows.map((p) => [p.id, p.state, p.attempts])).toEqual(ids.filter((_, i) => i % 2).map((id) => [id, 'QUEUED', 1]));
      expect((await j.batchCounts('B1')).byState).toMatchObject({ ACCEPTED: 10, QUEUED: 10, SENDING: 0 });
    });

    it('retries a send the gateway surely did not take, and keeps one of unknown outcome UNKNOWN until the gateway settles it', async () => {
      const clock = testClock();
      const { journal: j, timeline } = await open(clock);
      await j.createBatch({ id: 'B1', fileName: 'x.csv', sha256: 'h', rows: [payout('p-1'), payout('p-2')] });
      await send(j, 'p-1');
      await j.markRetrying('payout', 'p-1', '429');
      expect(await j.getPayment('payout', 'p-1')).toMatchObject({ state: 'QUEUED', status: 'QUEUED', lastError: '429', nextPollAt: null, attempts: 1 });

      await send(j, 'p-1');
      await j.markUnknown('payout', 'p-1', 'time-out', T0 + 1_000);
      expect(await j.getPayment('payout', 'p-1')).toMatchObject({ state: 'UNKNOWN', status: 'UNKNOWN', unknownSince: T0, lastError: 'time-out', nextPollAt: T0 + 1_000 });
      expect(await j.resendAllowed('payout', 'p-1')).toBe(true);
      // A later try of an id whose earlier try is unknown stays UNKNOWN, whatever it met.
      await send(j, 'p-1');
      await j.markRetrying('payout', 'p-1', '429 again');
      expect(await j.getPayment('payout', 'p-1')).toMatchObject({ state: 'UNKNOWN', attempts: 3, lastError: '429 again' });
      // Never held, never REJECTED: the earlier send may still land.
      expect(await j.markHeld('payout', 'p-1', 'no key')).toBe(false);
      expect(await j.markLocalFinal('payout', 'p-1', 'REJECTED', 'invalid')).toBe(false);
      expect(await j.sendableCount('B1')).toBe(2);
      await j.markUnknown('payout', 'p-1', 'resend refused', T0 + 2_000, true);
      expect(await j.resendAllowed('payout', 'p-1')).toBe(false);
      expect(await j.sendableCount('B1')).toBe(1);
      // Unknown ones are still unsent (the engine reads them with GET first).
      expect((await j.unsentPayments('payout', 'B1')).map((p) => [p.id, p.state])).toEqual([['p-1', 'UNKNOWN'], ['p-2', 'QUEUED']]);
      expect(await timeline('payout', 'p-1')).toEqual([{ status: 'QUEUED', source: 'local' }, { status: 'UNKNOWN', source: 'local' }]);
      // A GET finds it: ACCEPTED, and the unknown marks are cleared.
      await j.recordObservationSoon('payout', 'p-1', { status: 'PROCESSING', source: 'poll', isFinal: false, nextPollAt: T0 + 9_000 });
      expect(await j.getPayment('payout', 'p-1')).toMatchObject({ state: 'ACCEPTED', unknownSince: null, lastError: null });
      expect(await j.resendAllowed('payout', 'p-1')).toBe(true);
      // Guards: nothing of this moves an accepted payment back.
      await j.markRetrying('payout', 'p-1', 'late');
      await j.markUnknown('payout', 'p-1', 'late', T0);
      expect(await j.getPayment('payout', 'p-1')).toMatchObject({ state: 'ACCEPTED', status: 'PROCESSING' });
      expect(await j.resendAllowed('payout', 'nope')).toBe(false);
      // MISMATCH is allowed even over an unknown send.
      await send(j, 'p-2');
      await j.markUnknown('payout', 'p-2', 'reset', T0);
      expect(await j.markLocalFinal('payout', 'p-2', 'MISMATCH', 'amount differs', { amount: 1 })).toBe(true);
      expect(await j.getPayment('payout', 'p-2')).toMatchObject({ state: 'MISMATCH', isFinal: false, nextPollAt: null });
    });

    it('rejects only a payment with no unknown send, and records why', async () => {
      const { journal: j, timeline, auditLog } = await open(testClock());
      await j.insertPayment('payout', payout('p-1'));
      await send(j, 'p-1');
      expect(await j.markLocalFinal('payout', 'p-1', 'REJECTED', 'bad IBAN', { errors: ['iban'] }, 'engine')).toBe(true);
      expect(await j.getPayment('payout', 'p-1')).toMatchObject({ state: 'REJECTED', status: 'REJECTED', isFinal: true, finalAt: T0, lastError: 'bad IBAN' });
      expect((await timeline('payout', 'p-1')).at(-1)).toEqual({ status: 'REJECTED', source: 'local' });
      expect((await auditLog()).at(-1)).toMatchObject({ action: 'payout.rejected', subject: 'p-1' });
    });

    it('holds a payout for a person, who releases it to be sent or discards it', async () => {
      const { journal: j, timeline, auditLog } = await open(testClock());
      await j.createBatch({ id: 'B1', fileName: 'x.csv', sha256: 'h', rows: [payout('p-1'), payout('p-2')] });
      expect(await j.markHeld('payout', 'p-1', 'credentials refused')).toBe(true);
      expect(await j.getPayment('payout', 'p-1')).toMatchObject({ state: 'HELD', status: 'HELD', lastError: 'credentials refused' });
      expect(await j.markHeld('payout', 'p-1', 'again')).toBe(false);
      expect((await j.unsentPayments('payout', 'B1')).map((p) => p.id)).toEqual(['p-2']);
      await expectNoSend(await j.claimSend('payout', 'p-1'));
      expect((await j.batchCounts('B1')).pending).toBe(2);
      expect(await j.releaseHeld('payout', 'p-1', 'alice')).toBe(true);
      expect(await j.releaseHeld('payout', 'p-1', 'alice')).toBe(false);
      expect(await j.getPayment('payout', 'p-1')).toMatchObject({ state: 'QUEUED', status: 'QUEUED' });
      expect(await j.markHeld('payout', 'p-2', 'no key')).toBe(true);
      expect(await j.discardHeld('payout', 'p-2', 'alice', 'not needed')).toBe(true);
      expect(await j.discardHeld('payout', 'p-2', 'alice', 'not needed')).toBe(false);
      expect(await j.discardHeld('payout', 'p-1', 'alice', 'not held')).toBe(false);
      expect(await j.getPayment('payout', 'p-2')).toMatchObject({ state: 'DISCARDED', isFinal: true, lastError: 'not needed' });
      expect((await j.batchCounts('B1')).failed).toBe(1);
      expect(await timeline('payout', 'p-1')).toEqual([
        { status: 'QUEUED', source: 'local' }, { status: 'HELD', source: 'local' }, { status: 'QUEUED', source: 'local' },
      ]);
      expect((await auditLog()).map((e) => e.action)).toEqual(['batch.submitted', 'payout.held', 'payout.released', 'payout.held', 'payout.discarded']);
    });

    it('makes an accepted payout MISSING only after enough "not found" answers over enough time', async () => {
      const clock = testClock();
      const { journal: j, timeline } = await open(clock);
      await j.insertPayment('payout', payout('p-1'));
      await send(j, 'p-1', accepted('PENDING', { nextPollAt: T0 }));
      const rule = { reads: 2, spanMs: 1_000 };
      expect(await j.recordNotFound('payout', 'p-1', T0 + 100, rule)).toBe(false);
      expect(await j.recordNotFound('payout', 'p-1', T0 + 200, rule)).toBe(false);
      expect(await j.getPayment('payout', 'p-1')).toMatchObject({ state: 'ACCEPTED', notFoundSince: T0, nextPollAt: T0 + 200 });
      clock.set(T0 + 1_000);
      expect(await j.recordNotFound('payout', 'p-1', T0 + 2_000, rule)).toBe(true);
      expect(await j.getPayment('payout', 'p-1')).toMatchObject({ state: 'MISSING', status: 'MISSING', isFinal: false });
      expect(await j.recordNotFound('payout', 'p-1', T0 + 3_000, rule)).toBe(false);
      expect((await timeline('payout', 'p-1')).at(-1)).toEqual({ status: 'MISSING', source: 'local' });
      await j.insertPayment('payout', payout('q'));
      expect(await j.recordNotFound('payout', 'q', T0, rule)).toBe(false);
      expect(await j.getPayment('payout', 'q')).toMatchObject({ state: 'QUEUED', nextPollAt: null });
    });

    it('cancels only QUEUED payments (a SENDING one may be at the gateway)', async () => {
      const { journal: j, timeline } = await open(testClock());
      await j.createBatch({ id: 'B1', fileName: 'x.csv', sha256: 'h', rows: [payout('p-1'), payout('p-2'), payout('p-3')] });
      const claim = await j.claimSend('payout', 'p-2');
      expect(claim!.confirm()).toBe(true);
      expect(await j.cancelUnsent('payout', ['p-1', 'p-2', 'p-3', 'nope'])).toBe(2);
      await claim!.release();
      expect((await j.batchCounts('B1')).byState).toMatchObject({ CANCELLED: 2, SENDING: 1 });
      expect(await j.getPayment('payout', 'p-1')).toMatchObject({ state: 'CANCELLED', isFinal: true, finalAt: T0 });
      expect((await timeline('payout', 'p-3')).at(-1)).toEqual({ status: 'CANCELLED', source: 'local' });
      expect(await j.cancelUnsent('payout', ['p-1'])).toBe(0);
    });

    it('lets nothing leave for a payment cancelled while its claim waited for the rate slot', async () => {
      const { journal: j } = await open(testClock());
      await j.insertPayment('payout', payout('p-1'));
      const claim = await j.claimSend('payout', 'p-1');
      expect(await j.cancelUnsent('payout', ['p-1'])).toBe(1);
      expect(claim!.confirm()).toBe(false);
      await claim!.release();
      expect(await j.getPayment('payout', 'p-1')).toMatchObject({ state: 'CANCELLED', attempts: 0 });
    });

    it('turns sends interrupted by a stop into UNKNOWN, read from now on, never new', async () => {
      const clock = testClock();
      const { journal: j, timeline } = await open(clock);
      await j.createBatch({ id: 'B1', fileName: 'x.csv', sha256: 'h', rows: [payout('p-1'), payout('p-2')] });
      const claim = await j.claimSend('payout', 'p-1');
      expect(claim!.confirm()).toBe(true);
      // The desk stops here: no answer, no release.
      expect((await j.getPayment('payout', 'p-1'))!.state).toBe('SENDING');
      clock.set(T0 + 50);
      expect(await j.markInterruptedSendsUnknown('payout', 'the desk stopped')).toBe(1);
      expect(await j.getPayment('payout', 'p-1')).toMatchObject({ state: 'UNKNOWN', lastError: 'the desk stopped', unknownSince: T0 + 50, nextPollAt: T0 + 50 });
      expect(await j.getPayment('payout', 'p-2')).toMatchObject({ state: 'QUEUED' });
      expect((await timeline('payout', 'p-1')).at(-1)).toEqual({ status: 'UNKNOWN', source: 'local' });
      expect(await j.markInterruptedSendsUnknown('payout', 'again')).toBe(0);
      expect((await j.duePolls(T0 + 50, 10)).map((p) => p.id)).toEqual(['p-1']);
    });

    it('pauses and resumes a batch, with the reason, auditing changes only', async () => {
      const { journal: j, auditLog } = await open(testClock());
      await j.createBatch({ id: 'B1', fileName: 'x.csv', sha256: 'h', rows: [payout('p-1')] });
      await j.createBatch({ id: 'B2', fileName: 'y.csv', sha256: 'h2', rows: [payout('p-2')] });
      expect(await j.setBatchState('B1', 'PAUSED', 'gate refused', 'engine')).toMatchObject({ state: 'PAUSED', pauseReason: 'gate refused' });
      await j.setBatchState('B1', 'PAUSED', 'gate refused');
      expect((await j.batchesIn(['PAUSED'])).map((b) => b.id)).toEqual(['B1']);
      expect((await j.batchesIn(['RUNNING', 'PAUSED'])).map((b) => b.id).sort()).toEqual(['B1', 'B2']);
      expect(await j.batchesIn([])).toEqual([]);
      expect(await j.setBatchState('B1', 'RUNNING')).toMatchObject({ state: 'RUNNING', pauseReason: null });
      expect((await auditLog()).map((e) => e.action)).toEqual(['batch.submitted', 'batch.submitted', 'batch.paused', 'batch.running']);
      await expect(call(() => j.setBatchState('nope', 'PAUSED'))).rejects.toBeInstanceOf(JournalError);
    });

    it('retries exactly the reviewed failed attempts as a new batch of the same intents, once', async () => {
      const { journal: j } = await open(testClock());
      await j.createBatch({ id: 'B1', fileName: 'x.csv', sha256: 'h', rows: [payout('p-1'), payout('p-2'), payout('p-3')] });
      await send(j, 'p-1', { status: 'FAILED', source: 'create', isFinal: true, failureReason: 'closed account' });
      await send(j, 'p-2', { status: 'SUCCESS', source: 'create', isFinal: true });
      expect(await j.cancelUnsent('payout', ['p-3'])).toBe(1);
      const notPaid = ['FAILED', 'EXPIRED'];
      const retryable = await j.retryableAttempts('B1', notPaid);
      expect(retryable.map((p) => p.id)).toEqual(['p-1', 'p-3']);
      const ids = ['r-1', 'r-3'];
      const newId = () => ids.shift()!;
      await expect(call(() => j.retryBatch({ batchId: 'B1', reviewedIds: ['p-1'], notPaid, fileName: 'retry.csv', newId, actor: 'alice' }))).rejects.toMatchObject({ code: 'RETRY_ROWS_CHANGED' });
      const b = await j.retryBatch({ batchId: 'B1', reviewedIds: ['p-3', 'p-1'], notPaid, fileName: 'retry.csv', newId, actor: 'alice', preparedBy: 'pat' });
      expect(b).toMatchObject({ fileName: 'retry.csv', rowCount: 2, state: 'RUNNING' });
      const rows = await j.unsentPayments('payout', b.id);
      expect(rows.map((p) => [p.id, p.retryOf, p.rowNumber])).toEqual([['r-1', 'p-1', 1], ['r-3', 'p-3', 3]]);
      expect(rows[0]!.intentId).toBe(retryable[0]!.intentId);
      expect(await j.preparation('batch', b.id)).toMatchObject({ preparedBy: 'pat' });
      expect(await j.retryableAttempts('B1', notPaid)).toEqual([]);
      await expect(call(() => j.retryBatch({ batchId: 'B1', reviewedIds: [], notPaid, fileName: 'retry.csv', newId: () => 'r-x', actor: 'alice' }))).rejects.toMatchObject({ code: 'NOTHING_TO_RETRY' });
    });

    it('finds due status reads soonest first, and when the next one falls due', async () => {
      const { journal: j } = await open(testClock());
      expect(await j.nextPollTime()).toBeNull();
      await j.createBatch({ id: 'B1', fileName: 'x.csv', sha256: 'h', rows: ['a', 'b', 'c', 'd'].map((id) => payout(id)) });
      await send(j, 'a', accepted('PENDING', { nextPollAt: T0 + 300 }));
      await send(j, 'b', accepted('PENDING', { nextPollAt: T0 + 100 }));
      await send(j, 'c', accepted('PENDING', { nextPollAt: T0 + 900 }));
      await send(j, 'd', { status: 'SUCCESS', source: 'create', isFinal: true });
      expect(await j.nextPollTime()).toBe(T0 + 100);
      // A read in flight is left out: the next one due after it, or none when every planned read is in flight.
      expect(await j.nextPollTime(new Set(['payout:b']))).toBe(T0 + 300);
      expect(await j.nextPollTime(new Set(['payout:b', 'payout:a', 'payin:c']))).toBe(T0 + 900);
      expect(await j.nextPollTime(new Set(['payout:a', 'payout:b', 'payout:c']))).toBeNull();
      expect((await j.duePolls(T0 + 300, 10)).map((p) => p.id)).toEqual(['b', 'a']);
      await j.setNextPoll('payout', 'c', null);
      await j.setNextPoll('payout', 'd', T0 + 50);
      expect((await j.duePolls(T0 + 60, 10)).map((p) => [p.id, p.nextPollAt])).toEqual([['d', T0 + 50]]);
      expect((await j.batchCounts('B1'))).toMatchObject({ sent: 4, final: 1, pending: 3 });
    });

    it('gives due reads up to the limit, leaving out the ones this desk already has in flight', async () => {
      const { journal: j } = await open(testClock());
      await j.createBatch({ id: 'B1', fileName: 'x.csv', sha256: 'h', rows: ['a', 'b', 'c'].map((id) => payout(id)) });
      await send(j, 'a', accepted('PENDING', { nextPollAt: T0 + 10 }));
      await send(j, 'b', accepted('PENDING', { nextPollAt: T0 + 20 }));
      await send(j, 'c', accepted('PENDING', { nextPollAt: T0 + 30 }));
      // 'a' is being read: the one read asked for is the next due, not 'a' again.
      expect((await j.duePolls(T0 + 100, 1, new Set(['payout:a']))).map((p) => p.id)).toEqual(['b']);
    });

    it('keeps its audit entries in one hash chain', async () => {
      const { journal: j, auditLog } = await open(testClock());
      const first = await j.audit({ actor: 'alice', action: 'profile.changed', subject: 'prof-1', details: { b: 2, a: 1, token: 'never stored' } });
      const second = await j.audit({ actor: 'bob', action: 'export', details: {} });
      expect(first).toMatchObject({ seq: 1, at: T0, actor: 'alice', action: 'profile.changed', subject: 'prof-1', details: { a: 1, b: 2 }, prevHash: '0'.repeat(64) });
      expect(second).toMatchObject({ seq: 2, prevHash: first.hash, subject: null });
      const fields = { seq: 1, at: T0, actor: 'alice', action: 'profile.changed', subject: 'prof-1', details: { a: 1, b: 2 } };
      expect(first.hash).toBe(createHash('sha256').update('0'.repeat(64) + canonicalJson(fields)).digest('hex'));
      expect((await auditLog()).map((e) => [e.seq, e.hash])).toEqual([[1, first.hash], [2, second.hash]]);
      await j.insertBalanceSnapshots([{ currencyCode: 'EUR', availableMinor: 9_007_199_254_740_991, reservedMinor: 0 }]);
    });
  });
}
