// Duplicates across history for ERP payment runs, on every adapter of DeskJournal: the SQLite journal
// (port-contract-sqlite.test.ts) and the team journal (test/integration/postgres/journal.test.ts). createBatch keeps
// a pain.001 run's MsgId and its EndToEndIds with the first batch that carried them, and refuses in its own
// transaction a batch repeating one (whatever payout id it has), storing nothing of it; a retry's attempts, a CSV
// batch and "NOTPROVIDED" add none.
import { describe, expect, it } from 'vitest';
import type { DeskJournal } from '../../../main/journal/port';
import type { NewPayment } from '../../../main/journal/types';
import { JournalError } from '../../../main/journal/shared';
import { payout } from './helpers';
import { T0, testClock, type TestClock } from './port-contract';

const call = async <T>(fn: () => T | Promise<T>): Promise<T> => fn();

/** A row of a pain.001 run as the desk submits it: the run's ids in its details' extra. */
function tx(id: string, msgId: string, endToEndId: string, pmtInfId = 'PI-1'): NewPayment {
  return payout(id, { details: { extra: { EndToEndId: endToEndId, PmtInfId: pmtInfId, MsgId: msgId, MsgNmId: 'pain.001.001.09', CreDtTm: '2026-03-02T09:00:00' } } });
}

async function refused(j: DeskJournal, input: Parameters<DeskJournal['createBatch']>[0]): Promise<JournalError> {
  const error = await call(() => j.createBatch(input)).then(() => null, (e: unknown) => e);
  expect(error).toBeInstanceOf(JournalError);
  expect(error).toMatchObject({ code: 'DUPLICATE_PAYMENT_RUN_REF' });
  return error as JournalError;
}

export function paymentRunRefsContract(name: string, open: (clock: TestClock) => Promise<DeskJournal>): void {
  describe(`the ${name} journal (pain.001 MsgIds and EndToEndIds across history)`, () => {
    it('keeps each with the first batch, and refuses a run or a transaction imported again, storing nothing of it', async () => {
      const clock = testClock();
      const j = await open(clock);
      // "E2E/2" did not fit the gateway's id rule: its payout has another id; NOTPROVIDED is no reference at all.
      await j.createBatch({ id: 'B1', fileName: 'run-1.xml', sha256: 'h1', rows: [tx('E2E-1', 'RUN-1', 'E2E-1'), tx('p-2', 'RUN-1', 'E2E/2', 'PI-2'), tx('p-3', 'RUN-1', 'NOTPROVIDED')] });
      expect(await j.paymentRunRefs('MsgId', ['RUN-1', 'RUN-2'])).toEqual([
        { kind: 'MsgId', ref: 'RUN-1', batchId: 'B1', fileName: 'run-1.xml', payoutId: null, pmtInfId: null, recordedAt: T0 },
      ]);
      const seen = await j.paymentRunRefs('EndToEndId', ['E2E/2', 'E2E-1', 'E2E-1', 'NOTPROVIDED', 'E2E-9']);
      expect(seen.sort((a, b) => a.ref.localeCompare(b.ref))).toEqual([
        { kind: 'EndToEndId', ref: 'E2E-1', batchId: 'B1', fileName: 'run-1.xml', payoutId: 'E2E-1', pmtInfId: 'PI-1', recordedAt: T0 },
        { kind: 'EndToEndId', ref: 'E2E/2', batchId: 'B1', fileName: 'run-1.xml', payoutId: 'p-2', pmtInfId: 'PI-2', recordedAt: T0 },
      ]);
      // Kinds are apart: a MsgId is not an EndToEndId.
      expect(await j.paymentRunRefs('EndToEndId', ['RUN-1'])).toEqual([]);
      expect(await j.paymentRunRefs('MsgId', [])).toEqual([]);

      clock.set(T0 + 86_400_000);
      // The same run again under new payout ids: its MsgId refuses it, naming the earlier batch and its date.
      const again = await refused(j, { id: 'B2', fileName: 'run-1-again.xml', sha256: 'h2', rows: [tx('q-1', 'RUN-1', 'E2E-NEW')] });
      expect(again.message).toContain('MsgId "RUN-1" was imported before, as batch B1 (file run-1.xml) on 2025-06-15 15:06 UTC');
      // A new run repeating a transaction whose EndToEndId was not its payout's id: refused, naming the payout.
      const repeat = await refused(j, { id: 'B3', fileName: 'run-2.xml', sha256: 'h3', rows: [tx('q-2', 'RUN-2', 'E2E-OK'), tx('q-3', 'RUN-2', 'E2E/2')] });
      expect(repeat.message).toContain('EndToEndId imported before: "E2E/2" (PmtInf "PI-2") as payout p-2 of batch B1 (file run-1.xml) on 2025-06-15 15:06 UTC');
      expect(repeat.message).not.toContain('MsgId');
      // Nothing of either was stored: no batch, no payout, no reference.
      expect(await j.getBatch('B2')).toBeUndefined();
      expect(await j.getBatch('B3')).toBeUndefined();
      expect(await j.getPayment('payout', 'q-2')).toBeUndefined();
      expect(await j.paymentRunRefs('MsgId', ['RUN-2'])).toEqual([]);
      expect(await j.paymentRunRefs('EndToEndId', ['E2E-OK', 'E2E-NEW'])).toEqual([]);

      // A batch repeating an EndToEndId within itself is refused too.
      await refused(j, { id: 'B4', fileName: 'run-3.xml', sha256: 'h4', rows: [tx('s-1', 'RUN-3', 'E2E-X'), tx('s-2', 'RUN-3', 'E2E-X')] });
      expect(await j.getBatch('B4')).toBeUndefined();

      // NOTPROVIDED may repeat; a new run with new ids is stored and kept.
      const next = await j.createBatch({ id: 'B5', fileName: 'run-4.xml', sha256: 'h5', rows: [tx('t-1', 'RUN-4', 'NOTPROVIDED'), tx('t-2', 'RUN-4', 'E2E-OK')] });
      expect(next.id).toBe('B5');
      expect((await j.paymentRunRefs('EndToEndId', ['E2E-OK']))[0]).toMatchObject({ batchId: 'B5', payoutId: 't-2', recordedAt: T0 + 86_400_000 });
    });

    it('adds none for a retry of a run (its attempts carry the same ids), nor for a CSV batch', async () => {
      const j = await open(testClock());
      await j.createBatch({ id: 'B1', fileName: 'run.xml', sha256: 'h', rows: [tx('p-1', 'RUN-1', 'E2E-1'), tx('p-2', 'RUN-1', 'E2E-2')] });
      expect(await j.cancelUnsent('payout', ['p-2'])).toBe(1);
      const retry = await j.retryBatch({ batchId: 'B1', reviewedIds: ['p-2'], notPaid: ['FAILED'], fileName: 'retry.xml', newId: () => 'r-2', actor: 'alice' });
      expect((await j.getPayment('payout', 'r-2'))?.details).toMatchObject({ extra: { EndToEndId: 'E2E-2', MsgId: 'RUN-1' } });
      expect(await j.paymentRunRefs('EndToEndId', ['E2E-2'])).toEqual([expect.objectContaining({ batchId: 'B1', payoutId: 'p-2' })]);
      expect(await j.paymentRunRefs('MsgId', ['RUN-1'])).toEqual([expect.objectContaining({ batchId: 'B1' })]);
      expect(retry.id).not.toBe('B1');

      await j.createBatch({ id: 'C1', fileName: 'x.csv', sha256: 'c', rows: [payout('c-1', { details: { extra: { EndToEndId: 'E2E-2', MsgId: 'RUN-1' } } })] });
      expect(await j.getBatch('C1')).toBeDefined();
    });
  });
}

/** A journal whose payment_run_refs can be taken back to before the migration that made it. */
export interface BackfillHarness {
  journal: DeskJournal;
  clock: TestClock;
  /** Replaces payment_run_refs by a table without key or triggers: batches are stored as before the migration. */
  forget(): Promise<void>;
  /** Empties that stand-in table (after each batch: what a journal of then did not keep). */
  clear(): Promise<void>;
  /** Drops the stand-in and runs the migration again; the journal as it is after it. */
  migrateAgain(): Promise<DeskJournal>;
}

export function paymentRunRefsBackfillContract(name: string, open: () => Promise<BackfillHarness>): void {
  describe(`the ${name} journal's migration to payment run references`, () => {
    it('finds the runs and transactions stored before it: the earliest batch of each, no retry, no CSV, no NOTPROVIDED', async () => {
      const h = await open();
      const j = h.journal;
      await h.forget();
      await j.createBatch({ id: 'B1', fileName: 'run-1.xml', sha256: 'h1', rows: [tx('p-1', 'RUN-1', 'E/1'), tx('E2E-2', 'RUN-1', 'E2E-2', 'PI-2'), tx('p-3', 'RUN-1', 'NOTPROVIDED')] });
      await h.clear();
      // Before the migration nothing stopped the same transaction coming again in another run.
      h.clock.set(T0 + 60_000);
      await j.createBatch({ id: 'B2', fileName: 'run-2.xml', sha256: 'h2', rows: [tx('q-1', 'RUN-2', 'E/1')] });
      await h.clear();
      expect(await j.cancelUnsent('payout', ['p-3'])).toBe(1);
      await j.retryBatch({ batchId: 'B1', reviewedIds: ['p-3'], notPaid: ['FAILED'], fileName: 'retry.xml', id: 'R1', newId: () => 'r-3', actor: 'alice' });
      await j.createBatch({ id: 'C1', fileName: 'x.csv', sha256: 'c', rows: [payout('c-1')] });
      await h.clear();

      const after = await h.migrateAgain();
      const byRef = (refs: { ref: string }[]) => [...refs].sort((a, b) => a.ref.localeCompare(b.ref));
      expect(byRef(await after.paymentRunRefs('MsgId', ['RUN-1', 'RUN-2']))).toEqual([
        { kind: 'MsgId', ref: 'RUN-1', batchId: 'B1', fileName: 'run-1.xml', payoutId: null, pmtInfId: null, recordedAt: T0 },
        { kind: 'MsgId', ref: 'RUN-2', batchId: 'B2', fileName: 'run-2.xml', payoutId: null, pmtInfId: null, recordedAt: T0 + 60_000 },
      ]);
      expect(byRef(await after.paymentRunRefs('EndToEndId', ['E/1', 'E2E-2', 'NOTPROVIDED']))).toEqual([
        { kind: 'EndToEndId', ref: 'E/1', batchId: 'B1', fileName: 'run-1.xml', payoutId: 'p-1', pmtInfId: 'PI-1', recordedAt: T0 },
        { kind: 'EndToEndId', ref: 'E2E-2', batchId: 'B1', fileName: 'run-1.xml', payoutId: 'E2E-2', pmtInfId: 'PI-2', recordedAt: T0 },
      ]);
      // And from now on a repeat is refused.
      await refused(after, { id: 'B3', fileName: 'run-3.xml', sha256: 'h3', rows: [tx('s-1', 'RUN-3', 'E/1')] });
    });
  });
}
