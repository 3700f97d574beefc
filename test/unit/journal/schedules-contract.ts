// The calendar on every adapter of JournalPort: the SQLite journal (port-contract-sqlite.test.ts) and the team journal
// (test/integration/postgres/journal.test.ts). A subject created with a schedule waits (a payout HELD, a batch
// SCHEDULED) in the same transaction; it is released once, never before its time, with its subject; a schedule past
// its window waits for a person; moving and cancelling work only before release.
import { describe, expect, it } from 'vitest';
import type { DeskJournal } from '../../../main/journal/port';
import { executionOf } from '../../../main/schedules/execution';
import { payout } from './helpers';
import { T0, testClock, type TestClock } from './port-contract';

const HOUR = 3_600_000;
const at = (ms: number) => ({ at: ms, zone: 'UTC', local: new Date(ms).toISOString().slice(0, 16) });

export function schedulesContract(name: string, open: (clock: TestClock) => Promise<DeskJournal>): void {
  describe(`the ${name} journal (the calendar)`, () => {
    it('stores a scheduled payout HELD with its schedule, and releases it once, at or after its time, as QUEUED', async () => {
      const clock = testClock();
      const j = await open(clock);
      await j.insertPayment('payout', { ...payout('p-1'), schedule: at(T0 + HOUR) }, 'alice');
      expect(await j.getPayment('payout', 'p-1')).toMatchObject({ state: 'HELD', status: 'HELD', lastError: expect.stringContaining('scheduled: released on') });
      expect(await j.schedule('payout', 'p-1')).toMatchObject({ kind: 'payout', id: 'p-1', state: 'SCHEDULED', at: T0 + HOUR, zone: 'UTC', releasedAt: null });
      expect(await j.unsentPayments('payout')).toEqual([]);
      // Not before its time.
      expect(await j.releaseSchedule('payout', 'p-1', { actor: 'engine', from: 'SCHEDULED' })).toBeNull();
      expect((await j.getPayment('payout', 'p-1'))?.state).toBe('HELD');
      clock.set(T0 + HOUR + 5_000);
      expect(await j.listSchedules({ states: ['SCHEDULED'], to: clock.now() })).toHaveLength(1);
      const released = await j.releaseSchedule('payout', 'p-1', { actor: 'desk-a', from: 'SCHEDULED' });
      expect(released).toMatchObject({ state: 'RELEASED', releasedAt: T0 + HOUR + 5_000, releasedBy: 'desk-a', lateByMs: 5_000 });
      expect(await j.getPayment('payout', 'p-1')).toMatchObject({ state: 'QUEUED', status: 'QUEUED', lastError: null });
      // Once.
      expect(await j.releaseSchedule('payout', 'p-1', { actor: 'desk-b', from: 'SCHEDULED' })).toBeNull();
      expect(await j.listSchedules({ states: ['SCHEDULED'], to: clock.now() })).toEqual([]);
    });

    it('stores a scheduled batch SCHEDULED with its rows QUEUED, and releases it RUNNING', async () => {
      const clock = testClock();
      const j = await open(clock);
      const batch = await j.createBatch({ id: 'B1', fileName: 'run.csv', sha256: 'h', rows: [payout('r-1'), payout('r-2')], schedule: executionOf('2025-06-16T09:00', 'Europe/Berlin') });
      expect(batch).toMatchObject({ state: 'SCHEDULED', pauseReason: 'scheduled: released on 2025-06-16 09:00 Europe/Berlin' });
      expect(await j.batchesIn(['RUNNING'])).toEqual([]);
      const s = (await j.schedule('batch', 'B1'))!;
      // 09:00 in Berlin in June is 07:00 UTC.
      expect(new Date(s.at).toISOString()).toBe('2025-06-16T07:00:00.000Z');
      clock.set(s.at);
      expect(await j.releaseSchedule('batch', 'B1', { actor: 'engine', from: 'SCHEDULED' })).toMatchObject({ state: 'RELEASED', lateByMs: 0 });
      expect(await j.getBatch('B1')).toMatchObject({ state: 'RUNNING', pauseReason: null });
      expect((await j.unsentPayments('payout', 'B1')).map((p) => p.id)).toEqual(['r-1', 'r-2']);
    });

    it('marks a schedule past its window LATE; a person releases it from LATE, saying how late', async () => {
      const clock = testClock();
      const j = await open(clock);
      await j.insertPayment('payout', { ...payout('p-1'), schedule: at(T0 + HOUR) });
      expect(await j.markScheduleLate('payout', 'p-1', 'engine')).toBe(false);
      clock.set(T0 + 9 * HOUR);
      expect(await j.markScheduleLate('payout', 'p-1', 'engine')).toBe(true);
      expect(await j.schedule('payout', 'p-1')).toMatchObject({ state: 'LATE', lateByMs: 8 * HOUR });
      expect(await j.releaseSchedule('payout', 'p-1', { actor: 'engine', from: 'SCHEDULED' })).toBeNull();
      expect((await j.getPayment('payout', 'p-1'))?.state).toBe('HELD');
      clock.set(T0 + 10 * HOUR);
      expect(await j.releaseSchedule('payout', 'p-1', { actor: 'person:ann', from: 'LATE' })).toMatchObject({ state: 'RELEASED', releasedBy: 'person:ann', lateByMs: 9 * HOUR });
      expect((await j.getPayment('payout', 'p-1'))?.state).toBe('QUEUED');
    });

    it('moves a schedule before release, and not after', async () => {
      const clock = testClock();
      const j = await open(clock);
      await j.createBatch({ id: 'B1', fileName: 'run.csv', sha256: 'h', rows: [payout('r-1')], schedule: at(T0 + HOUR) });
      expect(await j.moveSchedule('batch', 'B1', at(T0 + 2 * HOUR), 'alice')).toBe(true);
      expect(await j.schedule('batch', 'B1')).toMatchObject({ state: 'SCHEDULED', at: T0 + 2 * HOUR });
      expect((await j.getBatch('B1'))?.pauseReason).toContain(new Date(T0 + 2 * HOUR).toISOString().slice(0, 10));
      clock.set(T0 + 90 * 60_000);
      expect(await j.releaseSchedule('batch', 'B1', { actor: 'engine', from: 'SCHEDULED' })).toBeNull();
      clock.set(T0 + 2 * HOUR);
      expect(await j.releaseSchedule('batch', 'B1', { actor: 'engine', from: 'SCHEDULED' })).not.toBeNull();
      expect(await j.moveSchedule('batch', 'B1', at(T0 + 3 * HOUR), 'alice')).toBe(false);
      expect(await j.schedule('batch', 'B1')).toMatchObject({ state: 'RELEASED', at: T0 + 2 * HOUR });
    });

    it('cancels before release: a batch CANCELLED with its rows, a payout DISCARDED; never after release', async () => {
      const clock = testClock();
      const j = await open(clock);
      await j.createBatch({ id: 'B1', fileName: 'run.csv', sha256: 'h', rows: [payout('r-1'), payout('r-2')], schedule: at(T0 + HOUR) });
      await j.insertPayment('payout', { ...payout('p-1'), schedule: at(T0 + HOUR) });
      await j.insertPayment('payout', { ...payout('p-2'), schedule: at(T0 + HOUR) });
      expect(await j.cancelSchedule('batch', 'B1', 'alice', 'the supplier was paid by hand')).toBe(true);
      expect(await j.getBatch('B1')).toMatchObject({ state: 'CANCELLED' });
      expect((await j.batchPayments('B1')).map((p) => [p.id, p.state, p.isFinal])).toEqual([['r-1', 'CANCELLED', true], ['r-2', 'CANCELLED', true]]);
      expect(await j.cancelSchedule('payout', 'p-1', 'alice', 'not needed')).toBe(true);
      expect(await j.getPayment('payout', 'p-1')).toMatchObject({ state: 'DISCARDED', isFinal: true, lastError: 'not needed' });
      clock.set(T0 + HOUR);
      expect(await j.releaseSchedule('batch', 'B1', { actor: 'engine', from: 'SCHEDULED' })).toBeNull();
      expect(await j.releaseSchedule('payout', 'p-1', { actor: 'engine', from: 'SCHEDULED' })).toBeNull();
      expect(await j.releaseSchedule('payout', 'p-2', { actor: 'engine', from: 'SCHEDULED' })).not.toBeNull();
      expect(await j.cancelSchedule('payout', 'p-2', 'alice', 'too late')).toBe(false);
      expect((await j.getPayment('payout', 'p-2'))?.state).toBe('QUEUED');
      expect((await j.listSchedules()).map((s) => [s.kind, s.id, s.state])).toEqual([['batch', 'B1', 'CANCELLED'], ['payout', 'p-1', 'CANCELLED'], ['payout', 'p-2', 'RELEASED']]);
    });
  });
}
