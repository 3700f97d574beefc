// The contract every adapter of DeskJournal keeps on top of JournalPort (port-contract.ts): what the desk's
// screens and CLI read and write, with the same answers for the same rows on the SQLite journal
// (port-contract-sqlite.test.ts) and the team journal on PostgreSQL (test/integration/postgres/journal.test.ts).
// Rows are made to tie on times and to sort otherwise by id, so an order the SQLite journal does not give
// (ties by insertion order, oldest or newest first) fails here. Every call is awaited, as the desk awaits it.
import { describe, expect, it } from 'vitest';
import type { Awaitable, DeskJournal, SendClaim } from '../../../main/journal/port';
import type { PaymentKind, PaymentRecord, StatusObservation } from '../../../main/journal/types';
import { payout } from './helpers';
import { T0, testClock, type TestClock } from './port-contract';

const MAX = Number.MAX_SAFE_INTEGER;

/** The call as the desk makes it (await): a synchronous adapter's throw becomes a rejection. */
const call = async <T>(fn: () => T | Promise<T>): Promise<T> => fn();

async function collect(rows: Iterable<PaymentRecord> | AsyncIterable<PaymentRecord>): Promise<string[]> {
  const ids: string[] = [];
  for await (const p of rows) ids.push(p.id);
  return ids;
}

async function claimed(j: DeskJournal, id: string, kind: PaymentKind = 'payout'): Promise<SendClaim> {
  const claim = await j.claimSend(kind, id);
  expect(claim).not.toBeNull();
  expect(claim!.confirm()).toBe(true);
  return claim!;
}

/** Claim, confirm, record the create's answer, give the claim back. */
async function send(j: DeskJournal, id: string, answer: StatusObservation): Promise<void> {
  const claim = await claimed(j, id);
  await j.recordObservationSoon('payout', id, answer);
  await claim.release();
}

const failed: StatusObservation = { status: 'FAILED', source: 'create', isFinal: true, failureReason: 'closed account' };

export function deskJournalContract(name: string, open: (clock: TestClock) => Promise<DeskJournal>): void {
  describe(`the ${name} journal (DeskJournal contract)`, () => {
    it('pages, filters and exports history, ties in insertion order, and gives a payment its timeline', async () => {
      const clock = testClock();
      const j = await open(clock);
      expect(await j.history()).toEqual({ rows: [], total: 0, page: 0, pageSize: 50 });
      expect(await collect(j.iterateHistory())).toEqual([]);
      await j.insertPayment('payout', payout('a', { amountMinor: 300 }));
      clock.set(T0 + 10);
      await j.insertPayment('payout', payout('b', { amountMinor: 100, currencyCode: 'USD', reference: 'Invoice 42' }));
      clock.set(T0 + 20);
      await j.createBatch({ id: 'B1', fileName: 'x.csv', sha256: 'h', rows: [payout('d', { amountMinor: 200 }), payout('c', { amountMinor: 200 })] });
      clock.set(T0 + 30);
      await j.insertPayment('payin', payout('e', { amountMinor: 50 }));

      const page = await j.history();
      expect(page).toMatchObject({ total: 5, page: 0, pageSize: 50 });
      expect(page.rows.map((p) => p.id)).toEqual(['e', 'c', 'd', 'b', 'a']);
      const byAmount = await j.history({ kind: 'payout', sortBy: 'amountMinor', sortDir: 'asc', pageSize: 2, page: 1 });
      expect(byAmount).toMatchObject({ total: 4, page: 1, pageSize: 2 });
      expect(byAmount.rows.map((p) => p.id)).toEqual(['c', 'a']);
      expect((await j.history({ currencyCode: 'usd' })).rows.map((p) => p.id)).toEqual(['b']);
      expect((await j.history({ text: 'voice 4' })).rows.map((p) => p.id)).toEqual(['b']);
      expect((await j.history({ batchId: 'B1', sortBy: 'id', sortDir: 'asc' })).rows.map((p) => p.id)).toEqual(['c', 'd']);
      expect(await j.history({ statuses: ['SUCCESS'] })).toMatchObject({ rows: [], total: 0 });

      expect(await collect(j.iterateHistory())).toEqual(['a', 'b', 'd', 'c', 'e']);
      expect(await collect(j.iterateHistory({ kind: 'payout', from: T0 + 10, to: T0 + 30 }))).toEqual(['b', 'd', 'c']);
      expect(await collect(j.iterateHistory({ kinds: ['payin'] }))).toEqual(['e']);

      clock.set(T0 + 40);
      await send(j, 'a', { status: 'pending', source: 'create', isFinal: false, raw: { id: 'a', n: 1 } });
      expect(await j.timeline('payout', 'a')).toEqual([
        { seq: expect.any(Number), kind: 'payout', id: 'a', status: 'QUEUED', source: 'local', observedAt: T0, raw: null },
        { seq: expect.any(Number), kind: 'payout', id: 'a', status: 'PENDING', source: 'create', observedAt: T0 + 40, raw: { id: 'a', n: 1 } },
      ]);
      const [first, second] = await j.timeline('payout', 'a');
      expect(second!.seq).toBeGreaterThan(first!.seq);
      expect(await j.timeline('payin', 'a')).toEqual([]);
      expect(await j.timeline('payout', 'nope')).toEqual([]);
    });

    it('links the attempts of an intent oldest first, and each attempt to the one that retried it', async () => {
      const j = await open(testClock());
      await j.createBatch({ id: 'B1', fileName: 'x.csv', sha256: 'h1', rows: [payout('p-9'), payout('p-8')] });
      await send(j, 'p-9', failed);
      await send(j, 'p-8', { status: 'SUCCESS', source: 'create', isFinal: true });
      const notPaid = ['FAILED'];
      const retry1 = await j.retryBatch({ batchId: 'B1', reviewedIds: ['p-9'], notPaid, fileName: 'r1.csv', newId: () => 'p-1', actor: 'alice' });
      await send(j, 'p-1', failed);
      await j.retryBatch({ batchId: retry1.id, reviewedIds: ['p-1'], notPaid, fileName: 'r2.csv', newId: () => 'p-5', actor: 'alice' });

      // Two attempts stored as retries of one (the port does not forbid it): the first stored is the one named.
      const other = (await j.getPayment('payout', 'p-8'))!.intentId!;
      await j.insertPayment('payout', payout('p-7', { intentId: other, retryOf: 'p-8' }));
      await j.insertPayment('payout', payout('p-6', { intentId: other, retryOf: 'p-8' }));

      const intent = (await j.getPayment('payout', 'p-9'))!.intentId!;
      const attempts = await j.intentAttempts(intent);
      expect(attempts.map((p) => [p.id, p.retryOf, p.status])).toEqual([['p-9', null, 'FAILED'], ['p-1', 'p-9', 'FAILED'], ['p-5', 'p-1', 'QUEUED']]);
      expect((await j.intentAttempts(other)).map((p) => p.id)).toEqual(['p-8', 'p-7', 'p-6']);
      expect(await j.intentAttempts('no-such-intent')).toEqual([]);
      expect(await j.retriedAs('p-9')).toBe('p-1');
      expect(await j.retriedAs('p-1')).toBe('p-5');
      expect(await j.retriedAs('p-5')).toBeNull();
      expect(await j.retriedAs('p-8')).toBe('p-7');
      expect(await j.retriedAs('p-7')).toBeNull();
      expect(await j.retriedAs('nope')).toBeNull();
      // A batch's results read them all at once, the same answers.
      expect(Object.fromEntries(await j.batchRetries('B1'))).toEqual({ 'p-9': 'p-1', 'p-8': 'p-7' });
      expect(Object.fromEntries(await j.batchRetries(retry1.id))).toEqual({ 'p-1': 'p-5' });
      expect((await j.batchRetries('no-such-batch')).size).toBe(0);
    });

    it('lists batches newest first (ties: the later stored first), and a batch its payments in row order', async () => {
      const clock = testClock();
      const j = await open(clock);
      expect(await j.listBatches()).toEqual([]);
      await j.createBatch({ id: 'B-0', fileName: 'zero.csv', sha256: 'h0', rows: [payout('z')] });
      clock.set(T0 + 5);
      for (const id of ['B-2', 'B-3', 'B-1']) await j.createBatch({ id, fileName: `${id}.csv`, sha256: `h-${id}`, rows: [payout(`${id}-x`)] });
      const all = await j.listBatches();
      expect(all.map((b) => b.id)).toEqual(['B-1', 'B-3', 'B-2', 'B-0']);
      expect(all[3]).toMatchObject({ fileName: 'zero.csv', sha256: 'h0', rowCount: 1, state: 'RUNNING', createdAt: T0, totals: [{ currencyCode: 'EUR', amountMinor: 12_550, count: 1 }] });
      expect((await j.listBatches(2)).map((b) => b.id)).toEqual(['B-1', 'B-3']);
      expect(await j.listBatches(0)).toEqual([]);
      // A negative limit is no limit (SQLite's LIMIT).
      expect(await j.listBatches(-1)).toHaveLength(4);

      await j.createBatch({ id: 'R', fileName: 'r.csv', sha256: 'hr', rows: [payout('k', { rowNumber: 2 }), payout('m', { rowNumber: 1 }), payout('j', { rowNumber: 2 })] });
      expect((await j.batchPayments('R')).map((p) => [p.id, p.rowNumber, p.batchId])).toEqual([['m', 1, 'R'], ['k', 2, 'R'], ['j', 2, 'R']]);
      expect(await j.batchPayments('nope')).toEqual([]);
    });

    it('lists at most 100 batches unless asked for another number', async () => {
      const j = await open(testClock());
      for (let i = 0; i < 101; i++) await j.createBatch({ id: `B${i}`, fileName: 'x.csv', sha256: `h${i}`, rows: [payout(`p${i}`)] });
      const listed = await j.listBatches();
      expect(listed).toHaveLength(100);
      expect(listed[0]!.id).toBe('B100');
      expect(listed[99]!.id).toBe('B1');
      expect(await j.listBatches(200)).toHaveLength(101);
    });

    it('answers the CSV checks: payout ids taken, files submitted, accounts each payee was paid to', async () => {
      const j = await open(testClock());
      expect(await j.existingPayoutIds(['a'])).toEqual(new Set());
      expect(await j.knownBeneficiaryAccounts([{ accountName: 'Ada Lovelace', emailAddress: 'ada@example.com' }])).toEqual([]);
      await j.createBatch({
        id: 'B1', fileName: 'x.csv', sha256: 'sha-1',
        rows: [
          payout('a', { accountNumber: 'acc-1' }),
          payout('b', { accountName: ' ada LOVELACE ', emailAddress: 'other@example.com', accountNumber: 'ACC-2' }),
          payout('c', { accountName: 'Bob', accountNumber: 'ACC-3' }),
          payout('d', { accountName: 'Émile Zola', emailAddress: 'emile@example.com', accountNumber: 'FR-1' }),
          payout('e', { accountNumber: 'acc-1' }),
        ],
      });
      // A payin is money in, not a payee paid: its id and account are not counted.
      await j.insertPayment('payin', payout('f', { accountNumber: 'PAYIN-9' }));

      expect(await j.existingPayoutIds(['f', 'a', 'nope', 'e'])).toEqual(new Set(['a', 'e']));
      expect(await j.existingPayoutIds([])).toEqual(new Set());
      expect(await j.batchFileSubmitted('sha-1')).toBe(true);
      expect(await j.batchFileSubmitted('SHA-1')).toBe(false);

      // Per key in order: its name's accounts, then its e-mail's, each sorted by bytes; a name or e-mail seen before is not repeated.
      expect(await j.knownBeneficiaryAccounts([
        { accountName: 'BOB', emailAddress: ' ADA@example.com' },
        { accountName: 'Ada Lovelace', emailAddress: 'nobody@example.com' },
        { accountName: '', emailAddress: '' },
        { accountName: 'bob', emailAddress: 'ada@EXAMPLE.com' },
        { accountName: 'ÉMILE ZOLA', emailAddress: 'emile@example.com' },
      ])).toEqual([
        { accountName: 'BOB', emailAddress: '', accountNumber: 'ACC-3' },
        { accountName: '', emailAddress: ' ADA@example.com', accountNumber: 'ACC-3' },
        { accountName: '', emailAddress: ' ADA@example.com', accountNumber: 'acc-1' },
        { accountName: 'Ada Lovelace', emailAddress: '', accountNumber: 'ACC-2' },
        { accountName: 'Ada Lovelace', emailAddress: '', accountNumber: 'acc-1' },
        { accountName: 'ÉMILE ZOLA', emailAddress: '', accountNumber: 'FR-1' },
        { accountName: '', emailAddress: 'emile@example.com', accountNumber: 'FR-1' },
      ]);
    });

    it('finds, per key (account, amount, currency), the earliest recent payout that paid or may still pay, with its file', async () => {
      const clock = testClock();
      const j = await open(clock);
      expect(await j.earliestLikePayouts([], 0)).toEqual([]);
      await j.createBatch({ id: 'B1', fileName: 'june.csv', sha256: 'sha-like', rows: [payout('l1', { accountNumber: 'ACC-1', amountMinor: 5_000 }), payout('l2', { accountNumber: 'ACC-2', amountMinor: 5_000 })] });
      clock.set(T0 + 1_000);
      await j.insertPayment('payout', payout('l3', { accountNumber: 'ACC-1', amountMinor: 5_000 }));
      await j.insertPayment('payout', payout('l4', { accountNumber: 'ACC-1', amountMinor: 5_001 }));
      await j.insertPayment('payout', payout('l5', { accountNumber: 'ACC-1', amountMinor: 5_000, currencyCode: 'USD' }));
      await j.insertPayment('payin', payout('l6', { accountNumber: 'ACC-1', amountMinor: 5_000 }));
      // A payout that failed for good paid nothing: paying it again is no duplicate.
      await send(j, 'l2', failed);
      const key = { accountNumber: 'ACC-1', amountMinor: 5_000, currencyCode: 'EUR' };
      expect(await j.earliestLikePayouts([key, { ...key, accountNumber: 'ACC-2' }], T0)).toEqual([
        { id: 'l1', accountNumber: 'ACC-1', amountMinor: 5_000, currencyCode: 'EUR', createdAt: T0, batchId: 'B1', fileName: 'june.csv', fileSha256: 'sha-like' },
      ]);
      // Only those created since the given time.
      expect((await j.earliestLikePayouts([key], T0 + 1)).map((p) => p.id)).toEqual(['l3']);
      // Never the rows themselves, their own batch or an earlier submission of their file; a payout outside any batch stays in.
      expect((await j.earliestLikePayouts([key], T0, { ids: ['l1'] })).map((p) => p.id)).toEqual(['l3']);
      expect((await j.earliestLikePayouts([key], T0, { batchId: 'B1' })).map((p) => p.id)).toEqual(['l3']);
      expect((await j.earliestLikePayouts([key], T0, { fileSha256: 'sha-like' })).map((p) => p.id)).toEqual(['l3']);
      expect((await j.earliestLikePayouts([key], T0, { batchId: 'B2', fileSha256: 'sha-other', ids: ['l9'] })).map((p) => p.id)).toEqual(['l1']);
      expect(await j.earliestLikePayouts([key], T0, { ids: ['l1', 'l3'] })).toEqual([]);
      // Paid (final SUCCESS) still counts.
      await send(j, 'l3', { status: 'SUCCESS', source: 'create', isFinal: true });
      expect((await j.earliestLikePayouts([key], T0 + 1)).map((p) => p.id)).toEqual(['l3']);
    });

    it('names the earliest of many like payouts to one key, the smaller id of a batch entered at once', async () => {
      const clock = testClock();
      const j = await open(clock);
      const key = { accountNumber: 'ACC-9', amountMinor: 1_000, currencyCode: 'EUR' };
      await j.createBatch({ id: 'B1', fileName: 'payroll.csv', sha256: 'sha-1', rows: [payout('m2', key), payout('m1', key), payout('m3', key)] });
      for (let i = 0; i < 30; i++) {
        clock.set(T0 + 1_000 * (i + 1));
        await j.insertPayment('payout', payout(`n${i}`, key));
      }
      expect((await j.earliestLikePayouts([key], T0)).map((p) => p.id)).toEqual(['m1']);
      expect((await j.earliestLikePayouts([key], T0, { ids: ['m1'] })).map((p) => p.id)).toEqual(['m2']);
      expect((await j.earliestLikePayouts([key], T0, { batchId: 'B1' })).map((p) => p.id)).toEqual(['n0']);
      expect((await j.earliestLikePayouts([key], T0 + 1_500)).map((p) => p.id)).toEqual(['n1']);
      await send(j, 'n1', failed);
      expect((await j.earliestLikePayouts([key], T0 + 1_500)).map((p) => p.id)).toEqual(['n2']);
    });

    it('stores a payin status read at once, leaving a status event, folding a repeat from the same source', async () => {
      const clock = testClock();
      const j = await open(clock);
      await j.insertPayment('payin', payout('in-1'));
      clock.set(T0 + 10);
      expect(await j.recordObservation('payin', 'in-1', { status: 'pending', source: 'create', isFinal: false, raw: { id: 'in-1' }, nextPollAt: T0 + 1_000 })).toEqual({ changed: true });
      expect(await j.getPayment('payin', 'in-1')).toMatchObject({ state: 'ACCEPTED', status: 'PENDING', gatewayStatus: 'PENDING', acceptedAt: T0 + 10, nextPollAt: T0 + 1_000, isFinal: false });
      clock.set(T0 + 20);
      expect(await j.recordObservation('payin', 'in-1', { status: 'PENDING', source: 'create', isFinal: false, nextPollAt: T0 + 2_000 })).toEqual({ changed: false });
      expect(await j.getPayment('payin', 'in-1')).toMatchObject({ updatedAt: T0 + 20, nextPollAt: T0 + 2_000 });
      clock.set(T0 + 30);
      expect(await j.recordObservation('payin', 'in-1', { status: 'SUCCESS', source: 'callback', isFinal: true, feeMinor: 25, feeCurrencyCode: 'EUR' })).toEqual({ changed: true });
      expect(await j.getPayment('payin', 'in-1')).toMatchObject({ status: 'SUCCESS', isFinal: true, finalAt: T0 + 30, feeMinor: 25, nextPollAt: null });
      expect((await j.timeline('payin', 'in-1')).map((e) => [e.status, e.source, e.observedAt, e.raw])).toEqual([
        ['QUEUED', 'local', T0, null], ['PENDING', 'create', T0 + 10, { id: 'in-1' }], ['SUCCESS', 'callback', T0 + 30, null],
      ]);
      await expect(call(() => j.recordObservation('payout', 'in-1', { status: 'PENDING', source: 'poll', isFinal: false }))).rejects.toMatchObject({ code: 'NOT_FOUND' });
      expect(await j.timeline('payout', 'in-1')).toEqual([]);
    });

    it('keeps a payin whose create had no definitive answer SENDING, with why, to be read with GET', async () => {
      const clock = testClock();
      const j = await open(clock);
      await j.insertPayment('payin', payout('in-1'));
      await j.insertPayment('payin', payout('in-2'));
      const claim = await claimed(j, 'in-1', 'payin');
      clock.set(T0 + 10);
      await j.markUncertain('payin', 'in-1', 'time-out');
      expect(await j.getPayment('payin', 'in-1')).toMatchObject({ state: 'SENDING', status: 'SENDING', lastError: 'time-out', updatedAt: T0 + 10, attempts: 1, unknownSince: null });
      // Only a payin being sent: a queued one is left as it is.
      await j.markUncertain('payin', 'in-2', 'time-out');
      expect(await j.getPayment('payin', 'in-2')).toMatchObject({ state: 'QUEUED', lastError: null, updatedAt: T0 });
      await claim.release();
      expect((await j.timeline('payin', 'in-1')).map((e) => e.status)).toEqual(['QUEUED']);

      // Right after confirm(), with nothing awaited in between: still after its SENDING.
      const ids = Array.from({ length: 20 }, (_, i) => `many-${i}`);
      for (const id of ids) await j.insertPayment('payin', payout(id));
      const claims = await Promise.all(ids.map((id) => j.claimSend('payin', id)));
      await Promise.all(ids.map((id, i) => {
        expect(claims[i]!.confirm()).toBe(true);
        return j.markUncertain('payin', id, 'reset');
      }));
      await Promise.all(claims.map((c) => c!.release()));
      expect((await j.history({ kind: 'payin', text: 'many-' })).rows.map((p) => [p.state, p.lastError])).toEqual(ids.map(() => ['SENDING', 'reset']));
    });

    it('keeps balance snapshots exactly: a currency\'s series in time order, the latest stored of each currency', async () => {
      const j = await open(testClock());
      expect(await j.latestBalances()).toEqual([]);
      await j.insertBalanceSnapshots([{ currencyCode: 'USD', availableMinor: 7, reservedMinor: 0 }, { currencyCode: 'EUR', availableMinor: 100, reservedMinor: 5 }], T0);
      await j.insertBalanceSnapshots([{ currencyCode: 'EUR', availableMinor: MAX, reservedMinor: -3 }], T0 + 10);
      await j.insertBalanceSnapshots([{ currencyCode: 'EUR', availableMinor: MAX - 1, reservedMinor: MAX }], T0 + 10);
      // Stored last with an earlier time: the latest is the one stored last, the series is in time order.
      await j.insertBalanceSnapshots([{ currencyCode: 'EUR', availableMinor: 42, reservedMinor: 1 }], T0 + 5);

      const series = (await j.balanceSeries('EUR')).map((s) => [s.observedAt, s.availableMinor, s.reservedMinor]);
      expect(series).toEqual([[T0, 100, 5], [T0 + 5, 42, 1], [T0 + 10, MAX, -3], [T0 + 10, MAX - 1, MAX]]);
      expect(await j.balanceSeries('EUR', T0 + 5, T0 + 10)).toEqual([{ currencyCode: 'EUR', availableMinor: 42, reservedMinor: 1, observedAt: T0 + 5 }]);
      expect((await j.balanceSeries('EUR', T0 + 6)).map((s) => s.availableMinor)).toEqual([MAX, MAX - 1]);
      expect((await j.balanceSeries('EUR', undefined, T0 + 5)).map((s) => s.availableMinor)).toEqual([100]);
      // Bounds as SQLite compares them with integers: a fraction rounds up, NaN (a date that did not parse) matches nothing.
      expect((await j.balanceSeries('EUR', T0 + 4.5, T0 + 5.5)).map((s) => s.observedAt)).toEqual([T0 + 5]);
      expect(await j.balanceSeries('EUR', Number.NaN)).toEqual([]);
      expect(await j.balanceSeries('GBP')).toEqual([]);
      expect(await j.latestBalances()).toEqual([
        { currencyCode: 'EUR', availableMinor: 42, reservedMinor: 1, observedAt: T0 + 5 },
        { currencyCode: 'USD', availableMinor: 7, reservedMinor: 0, observedAt: T0 },
      ]);
    });

    it('totals the payouts not final yet per currency, exactly, leaving out final, cancelled, discarded, rejected, missing, mismatched ones and payins', async () => {
      const j = await open(testClock());
      expect(await j.pendingPayoutTotals()).toEqual([]);
      const rows = [
        payout('queued', { amountMinor: MAX - 20 }), payout('sending', { amountMinor: 3 }), payout('unknown', { amountMinor: 5 }),
        payout('held', { amountMinor: 4 }), payout('moving', { amountMinor: 8 }), payout('usd', { amountMinor: 70, currencyCode: 'USD' }),
        // Each of these alone would push the EUR total past what a number keeps exactly.
        payout('paid', { amountMinor: MAX }), payout('cancelled', { amountMinor: MAX }), payout('discarded', { amountMinor: MAX }),
        payout('rejected', { amountMinor: MAX }), payout('failed', { amountMinor: MAX }),
        // Not final, but a person must look at them: not counted either.
        payout('missing', { amountMinor: MAX }), payout('mismatch', { amountMinor: MAX }),
      ];
      for (const row of rows) await j.insertPayment('payout', row);
      await j.insertPayment('payin', payout('payin', { amountMinor: MAX }));
      const sending = await claimed(j, 'sending');
      await claimed(j, 'unknown').then(async (c) => {
        await j.markUnknown('payout', 'unknown', 'time-out', T0 + 1_000);
        await c.release();
      });
      expect(await j.markHeld('payout', 'held', 'no key')).toBe(true);
      await send(j, 'moving', { status: 'PROCESSING', source: 'create', isFinal: false, nextPollAt: T0 + 1_000 });
      await send(j, 'usd', { status: 'PENDING', source: 'create', isFinal: false, nextPollAt: T0 + 1_000 });
      await send(j, 'paid', { status: 'SUCCESS', source: 'create', isFinal: true });
      await send(j, 'failed', failed);
      expect(await j.cancelUnsent('payout', ['cancelled'])).toBe(1);
      expect(await j.markHeld('payout', 'discarded', 'no key')).toBe(true);
      expect(await j.discardHeld('payout', 'discarded', 'alice', 'not needed')).toBe(true);
      await claimed(j, 'rejected').then(async (c) => {
        expect(await j.markLocalFinal('payout', 'rejected', 'REJECTED', 'bad IBAN')).toBe(true);
        await c.release();
      });
      await send(j, 'missing', { status: 'PENDING', source: 'create', isFinal: false, nextPollAt: T0 });
      expect(await j.recordNotFound('payout', 'missing', T0 + 1_000, { reads: 1, spanMs: 0 })).toBe(true);
      await claimed(j, 'mismatch').then(async (c) => {
        expect(await j.markLocalFinal('payout', 'mismatch', 'MISMATCH', 'amount differs')).toBe(true);
        await c.release();
      });
      expect((await j.getPayment('payout', 'missing'))!.isFinal).toBe(false);
      expect((await j.getPayment('payout', 'mismatch'))!.isFinal).toBe(false);
      expect(await j.pendingPayoutTotals()).toEqual([
        { currencyCode: 'EUR', amountMinor: MAX, count: 5 },
        { currencyCode: 'USD', amountMinor: 70, count: 1 },
      ]);
      await sending.release();
    });

    it('counts the payouts the gateway accepted per day, outcome and fee currency, leaving out earlier ones, refusals at create and payins', async () => {
      const HOUR = 3_600_000;
      const DAY = 24 * HOUR;
      const starts = [T0 - 2 * DAY, T0 - DAY, T0];
      const clock = testClock(T0 - 3 * DAY);
      const j = await open(clock);
      expect(await j.payoutActivity(starts)).toEqual([]);
      const rows = [
        payout('before', { amountMinor: 9 }), payout('a', { amountMinor: 1_000 }), payout('b', { amountMinor: 500 }), payout('c', { amountMinor: 700 }),
        payout('d', { amountMinor: 300, currencyCode: 'USD' }), payout('e', { amountMinor: MAX - 1_000 }), payout('f', { amountMinor: 1 }), payout('refused', { amountMinor: 40 }),
      ];
      for (const row of rows) await j.insertPayment('payout', row);
      await j.insertPayment('payin', payout('payin', { amountMinor: 60 }));
      await send(j, 'before', { status: 'SUCCESS', source: 'create', isFinal: true });
      // The day's first millisecond belongs to it.
      clock.set(starts[0]!);
      await send(j, 'a', { status: 'SUCCESS', source: 'create', isFinal: true, feeMinor: 10, feeCurrencyCode: 'EUR' });
      await send(j, 'b', failed);
      clock.set(starts[1]! + HOUR);
      // Paid, and came back the next day: it counts on the day it was accepted, as returned.
      await send(j, 'c', { status: 'SUCCESS', source: 'create', isFinal: true, feeMinor: 5, feeCurrencyCode: 'EUR' });
      await send(j, 'd', { status: 'PROCESSING', source: 'create', isFinal: false, nextPollAt: T0 + DAY });
      await claimed(j, 'refused').then(async (c) => {
        expect(await j.markLocalFinal('payout', 'refused', 'REJECTED', 'bad IBAN')).toBe(true);
        await c.release();
      });
      clock.set(starts[2]! + HOUR);
      await j.recordObservation('payout', 'c', { status: 'RETURNED', source: 'poll', isFinal: true, feeMinor: 5, feeCurrencyCode: 'EUR' });
      await send(j, 'e', { status: 'success', source: 'create', isFinal: true, feeMinor: 3, feeCurrencyCode: 'USD' });
      await send(j, 'f', { status: 'SUCCESS', source: 'create', isFinal: true, feeMinor: 2, feeCurrencyCode: 'USD' });
      await j.insertPayment('payin', payout('payin-2', { amountMinor: 60 }));
      const sorted = (await j.payoutActivity(starts)).sort((x, y) => x.day - y.day || x.currencyCode.localeCompare(y.currencyCode) || x.outcome.localeCompare(y.outcome) || String(x.feeCurrencyCode).localeCompare(String(y.feeCurrencyCode)));
      expect(sorted).toEqual([
        { currencyCode: 'EUR', day: 0, outcome: 'failed', count: 1, amountMinor: 500, feeCurrencyCode: null, feeMinor: 0 },
        { currencyCode: 'EUR', day: 0, outcome: 'succeeded', count: 1, amountMinor: 1_000, feeCurrencyCode: 'EUR', feeMinor: 10 },
        { currencyCode: 'EUR', day: 1, outcome: 'returned', count: 1, amountMinor: 700, feeCurrencyCode: 'EUR', feeMinor: 5 },
        { currencyCode: 'USD', day: 1, outcome: 'inFlight', count: 1, amountMinor: 300, feeCurrencyCode: null, feeMinor: 0 },
        // Exact near the edge of what a number keeps: MAX − 1,000 and 1 in one sum; "success" read as SUCCESS.
        { currencyCode: 'EUR', day: 2, outcome: 'succeeded', count: 2, amountMinor: MAX - 999, feeCurrencyCode: 'USD', feeMinor: 5 },
      ]);
      // One day asked for: only today's.
      expect(await j.payoutActivity([starts[2]!])).toEqual([{ currencyCode: 'EUR', day: 0, outcome: 'succeeded', count: 2, amountMinor: MAX - 999, feeCurrencyCode: 'USD', feeMinor: 5 }]);
    });

    it('gives a statement the payments that moved money since a moment, a returned payout with its SUCCESS bodies, and a balance as read at a moment', async () => {
      const HOUR = 3_600_000;
      const clock = testClock(T0);
      const j = await open(clock);
      expect(await j.statementPayments(T0, T0)).toEqual([]);
      expect(await j.balanceAt('EUR', T0)).toBeNull();
      for (const id of ['old', 'paid', 'returned', 'in-flight', 'late', 'never-sent']) await j.insertPayment('payout', payout(id, { amountMinor: 1_000 }));
      await j.insertPayment('payin', payout('payin', { amountMinor: 60 }));
      // Final before the window: left out.
      await send(j, 'old', { status: 'SUCCESS', source: 'create', isFinal: true, processedAt: '2026-01-01T00:00:00.000Z' });
      clock.set(T0 + HOUR);
      const paidBody = { process: { status: 'SUCCESS', processedAt: '2026-01-01T01:00:00.000Z' } };
      await send(j, 'paid', { status: 'SUCCESS', source: 'create', isFinal: true, feeMinor: 10, feeCurrencyCode: 'EUR', processedAt: '2026-01-01T01:00:00.000Z', raw: paidBody });
      await send(j, 'returned', { status: 'PROCESSING', source: 'create', isFinal: false, nextPollAt: T0 + 2 * HOUR });
      await j.recordObservation('payout', 'returned', { status: 'SUCCESS', source: 'poll', isFinal: true, feeMinor: 5, feeCurrencyCode: 'EUR', processedAt: '2026-01-01T01:30:00.000Z', raw: paidBody });
      await j.recordObservation('payout', 'returned', { status: 'RETURNED', source: 'callback', isFinal: true, feeMinor: 5, feeCurrencyCode: 'EUR', processedAt: '2026-01-01T02:00:00.000Z', raw: { process: { status: 'RETURNED' } } });
      await send(j, 'in-flight', { status: 'PROCESSING', source: 'create', isFinal: false, nextPollAt: T0 + 3 * HOUR });
      await j.recordObservation('payin', 'payin', { status: 'SUCCESS', source: 'poll', isFinal: true, processedAt: '2026-01-01T01:10:00.000Z' });
      clock.set(T0 + 5 * HOUR);
      // Accepted after `acceptedBy` and not final: left out.
      await send(j, 'late', { status: 'PROCESSING', source: 'create', isFinal: false, nextPollAt: T0 + 6 * HOUR });

      const rows = await j.statementPayments(T0 + HOUR, T0 + 4 * HOUR);
      expect(rows.map((r) => r.id).sort()).toEqual(['in-flight', 'paid', 'payin', 'returned']);
      const byId = new Map(rows.map((r) => [r.id, r]));
      expect(byId.get('paid')).toEqual({
        kind: 'payout', id: 'paid', currencyCode: 'EUR', amountMinor: 1_000, feeCurrencyCode: 'EUR', feeMinor: 10, status: 'SUCCESS', isFinal: true,
        processedAt: '2026-01-01T01:00:00.000Z', acceptedAt: T0 + HOUR, successRaw: [],
      });
      expect(byId.get('returned')).toMatchObject({ status: 'RETURNED', processedAt: '2026-01-01T02:00:00.000Z', feeMinor: 5 });
      expect(byId.get('returned')!.successRaw.map((text) => JSON.parse(text) as unknown)).toEqual([paidBody]);
      expect(byId.get('in-flight')).toMatchObject({ isFinal: false, processedAt: null, acceptedAt: T0 + HOUR });
      expect(byId.get('payin')).toMatchObject({ kind: 'payin', status: 'SUCCESS', processedAt: '2026-01-01T01:10:00.000Z' });

      await j.insertBalanceSnapshots([{ currencyCode: 'EUR', availableMinor: 100, reservedMinor: 0 }, { currencyCode: 'USD', availableMinor: 7, reservedMinor: 0 }], T0 + HOUR);
      await j.insertBalanceSnapshots([{ currencyCode: 'EUR', availableMinor: 200, reservedMinor: 20 }], T0 + 2 * HOUR);
      // Two reads at one moment: the one stored last.
      await j.insertBalanceSnapshots([{ currencyCode: 'EUR', availableMinor: 300, reservedMinor: 30 }], T0 + 2 * HOUR);
      expect(await j.balanceAt('EUR', T0 + HOUR - 1)).toBeNull();
      expect(await j.balanceAt('EUR', T0 + HOUR)).toEqual({ currencyCode: 'EUR', availableMinor: 100, reservedMinor: 0, observedAt: T0 + HOUR });
      expect(await j.balanceAt('EUR', T0 + 3 * HOUR)).toEqual({ currencyCode: 'EUR', availableMinor: 300, reservedMinor: 30, observedAt: T0 + 2 * HOUR });
      expect(await j.balanceAt('GBP', T0 + 3 * HOUR)).toBeNull();
    });

    it('lists the audit log newest first, before a given entry when asked, at most 200 by default', async () => {
      const j = await open(testClock());
      expect(await j.listAudit()).toEqual([]);
      const written = [];
      for (let i = 1; i <= 5; i++) written.push(await j.audit({ actor: 'alice', action: `thing.${i}`, subject: i % 2 ? `s-${i}` : null, details: { i } }));
      const all = await j.listAudit();
      expect(all).toEqual([...written].reverse());
      expect(all[0]).toMatchObject({ seq: 5, at: T0, actor: 'alice', action: 'thing.5', subject: 's-5', details: { i: 5 }, prevHash: written[3]!.hash });
      expect((await j.listAudit(2)).map((e) => e.seq)).toEqual([5, 4]);
      expect((await j.listAudit(2, 4)).map((e) => e.seq)).toEqual([3, 2]);
      expect((await j.listAudit(undefined, 3)).map((e) => e.seq)).toEqual([2, 1]);
      expect((await j.listAudit(undefined, 2.5)).map((e) => e.seq)).toEqual([2, 1]);
      expect(await j.listAudit(10, 1)).toEqual([]);
      expect(await j.listAudit(0)).toEqual([]);
      expect((await j.listAudit(-1)).map((e) => e.seq)).toEqual([5, 4, 3, 2, 1]);
      for (let i = 6; i <= 201; i++) await j.audit({ action: 'bulk', details: {} });
      const page = await j.listAudit();
      expect(page).toHaveLength(200);
      expect([page[0]!.seq, page[199]!.seq]).toEqual([201, 2]);
    });

    it("reads back this desk's own writes, even ones it has not awaited", async () => {
      const j = await open(testClock());
      const ids = ['p-1', 'p-2', 'p-3', 'p-4', 'p-5', 'p-6'];
      await j.createBatch({ id: 'B1', fileName: 'x.csv', sha256: 'h', rows: ids.map((id) => payout(id)) });
      const intent = (await j.getPayment('payout', 'p-5'))!.intentId!;
      const statuses = (rows: PaymentRecord[]) => Object.fromEntries(rows.map((p) => [p.id, p.status]));
      // Each read follows a write started and not awaited: it must see it, as it would on a single desk.
      const claim = await j.claimSend('payout', 'p-1');
      expect(claim!.confirm()).toBe(true);
      const writes: Awaitable<boolean>[] = [j.markHeld('payout', 'p-2', 'no key')];
      expect(statuses(await j.batchPayments('B1'))).toMatchObject({ 'p-1': 'SENDING', 'p-2': 'HELD' });
      writes.push(j.markLocalFinal('payout', 'p-3', 'REJECTED', 'bad IBAN'));
      expect(statuses((await j.history({ batchId: 'B1' })).rows)).toMatchObject({ 'p-3': 'REJECTED' });
      writes.push(j.releaseHeld('payout', 'p-2', 'alice'));
      const exported: PaymentRecord[] = [];
      for await (const p of j.iterateHistory({ batchId: 'B1' })) exported.push(p);
      expect(statuses(exported)).toMatchObject({ 'p-2': 'QUEUED' });
      writes.push(j.markHeld('payout', 'p-4', 'no key'));
      expect((await j.timeline('payout', 'p-4')).map((e) => e.status)).toEqual(['QUEUED', 'HELD']);
      writes.push(j.discardHeld('payout', 'p-4', 'alice', 'not needed'));
      expect((await j.listAudit(1))[0]).toMatchObject({ action: 'payout.discarded', subject: 'p-4' });
      writes.push(j.markHeld('payout', 'p-5', 'no key'));
      expect((await j.intentAttempts(intent)).map((p) => p.status)).toEqual(['HELD']);
      writes.push(j.markLocalFinal('payout', 'p-6', 'REJECTED', 'bad IBAN'));
      // Left: p-1 (SENDING), p-2 (QUEUED again), p-5 (HELD).
      expect(await j.pendingPayoutTotals()).toEqual([{ currencyCode: 'EUR', amountMinor: 3 * 12_550, count: 3 }]);
      expect(await Promise.all(writes)).toEqual([true, true, true, true, true, true, true]);
      await claim!.release();
    });
  });
}
