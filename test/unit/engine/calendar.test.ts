// The calendar in the engine: a scheduled payout or batch leaves only once a sender desk released it at its time,
// through the approval gate; a desk down at that time releases it at its next start ("late by"); past the late window
// a person confirms; moving it (its preparer signs the new time) voids the approvals given for the old one; a time
// moved in the journal by hand is refused by the gate. The clock is the test's: the journal, the engine and the gate
// read it, an hour passing is one assignment.
import { afterEach, describe, expect, it } from 'vitest';
import { journalApprovalGate, manifestFromJournal } from '../../../main/approvals/gate';
import { EngineError, type PayoutEngineOptions } from '../../../main/engine';
import { executionOf, type Execution } from '../../../main/schedules/execution';
import { SqliteDualControlRepository } from '../../../main/store/sqlite/dual-control';
import { member, readerOf } from '../approvals/helpers';
import { dualControlDesk as dualControlDeskOf, DESK_PROFILE as PROFILE } from './dual-control-desk';
import { tempJournal, type TempJournal } from '../journal/helpers';
import { draft, engineFixture, until, type EngineFixture } from './engine-helpers';
import { FakeGateway } from './fake-gateway';

const HOUR = 3_600_000;
let offset = 0;
const clock = () => Date.now() + offset;
let f: EngineFixture;
afterEach(async () => {
  offset = 0;
  await f?.dispose();
});

const T = Date.now() - 60_000;
const admin = member('ada', ['admin'], T);
const paula = member('paula', ['preparer'], T);
const alice = member('alice', ['approver'], T);

/** In `ms` from now, on the test's clock, as a person would write it (UTC). */
const inMs = (ms: number): Execution => {
  const at = Math.ceil((clock() + ms) / 60_000) * 60_000;
  return executionOf(new Date(at).toISOString().slice(0, 16), 'UTC');
};
const creates = () => [...f.gateway.createCalls.values()].reduce((a, b) => a + b, 0);
const audit = (action: string) => f.t.journal.listAudit(500).filter((e) => e.action === action);

function plainDesk(options: Partial<PayoutEngineOptions> = {}, t: TempJournal = tempJournal({ now: clock }), gateway = new FakeGateway()): EngineFixture {
  // The gate with dual control off still holds the calendar's rule.
  const repo = new SqliteDualControlRepository(t.journal);
  const reader = readerOf(repo, { profileId: PROFILE, environment: 'TEST' });
  f = engineFixture({ now: clock, approvalGate: journalApprovalGate({ journal: t.journal, repository: repo, control: () => reader.read(), now: clock }), ...options }, gateway, t);
  return f;
}

async function dualControlDesk() {
  const desk = await dualControlDeskOf({ members: [admin, paula, alice], preparers: [paula], environment: 'LIVE', chainAt: T, clock });
  f = desk.f;
  return { approveAs: desk.approveAs };
}

describe('the calendar in the engine', () => {
  it('sends a scheduled payout at its time, not before, once; it waits HELD meanwhile', async () => {
    plainDesk();
    await f.engine.start();
    const when = inMs(HOUR);
    const stored = await f.engine.submitPayout(draft('p1'), { executeOn: when });
    expect(stored).toMatchObject({ state: 'HELD', lastError: expect.stringContaining('scheduled: released on') });
    await f.engine.releaseDue();
    expect(creates()).toBe(0);
    // A person cannot send it early by hand.
    await expect(f.engine.releasePayout('p1')).rejects.toMatchObject({ code: 'BAD_STATE', message: expect.stringMatching(/is scheduled for .* UTC and cannot be released by hand before then/) });
    offset = when.at - Date.now();
    await f.engine.releaseDue();
    await until(() => f.t.journal.getPayment('payout', 'p1')?.state === 'ACCEPTED');
    expect(f.gateway.createCalls.get('p1')).toBe(1);
    expect(f.t.journal.schedule('payout', 'p1')).toMatchObject({ state: 'RELEASED', releasedBy: 'engine' });
    await f.engine.releaseDue();
    expect(creates()).toBe(1);
    expect(audit('payout.released-at-time')).toHaveLength(1);
  });

  it('runs a scheduled batch at its time; resume before it is refused, cancel before it cancels its rows', async () => {
    plainDesk();
    await f.engine.start();
    const when = inMs(2 * HOUR);
    const batch = await f.engine.submitBatch({ fileName: 'december.csv', sha256: 'aa', rows: [draft('r1'), draft('r2')], executeOn: when });
    const other = await f.engine.submitBatch({ fileName: 'spare.csv', sha256: 'bb', rows: [draft('s1')], executeOn: when });
    expect(batch.state).toBe('SCHEDULED');
    await expect(f.engine.resumeBatch(batch.id)).rejects.toBeInstanceOf(EngineError);
    expect((await f.engine.cancelBatch(other.id)).state).toBe('CANCELLED');
    offset = when.at + 1_000 - Date.now();
    await f.engine.releaseDue();
    expect((await f.engine.waitForBatch(batch.id)).state).toBe('COMPLETED');
    expect([...f.gateway.createCalls.keys()].sort()).toEqual(['r1', 'r2']);
    expect(f.t.journal.getPayment('payout', 's1')).toMatchObject({ state: 'CANCELLED', isFinal: true });
  });

  it('releases at its next start what fell due while the desk was down, and records how late', async () => {
    plainDesk();
    await f.engine.start();
    const when = inMs(HOUR);
    await f.engine.submitPayout(draft('p1'), { executeOn: when });
    await f.engine.stop();
    offset = when.at + 2 * HOUR - Date.now();
    plainDesk({}, f.t, f.gateway);
    await f.engine.start();
    await f.engine.releaseDue();
    await until(() => f.gateway.createCalls.get('p1') === 1);
    const s = f.t.journal.schedule('payout', 'p1')!;
    expect(s.state).toBe('RELEASED');
    expect(s.lateByMs).toBeGreaterThanOrEqual(2 * HOUR);
    expect(f.t.journal.timeline('payout', 'p1').map((e) => e.status)).toEqual(['QUEUED', 'HELD', 'QUEUED', 'ACCEPTED']);
  });

  it('holds a release past the late window for a person, who confirms it', async () => {
    plainDesk({ lateReleaseWindowMs: HOUR });
    await f.engine.start();
    const when = inMs(HOUR);
    await f.engine.submitBatch({ id: 'B1', fileName: 'run.csv', sha256: 'aa', rows: [draft('r1')], executeOn: when });
    const late: string[] = [];
    f.engine.on('schedule-late', (s) => late.push(s.id));
    offset = when.at + 3 * HOUR - Date.now();
    await f.engine.releaseDue();
    expect(late).toEqual(['B1']);
    expect(f.t.journal.schedule('batch', 'B1')).toMatchObject({ state: 'LATE' });
    expect(creates()).toBe(0);
    await expect(f.engine.resumeBatch('B1')).rejects.toMatchObject({ message: expect.stringMatching(/past its late window: confirm its late release/) });
    await f.engine.confirmLateRelease('batch', 'B1', 'person:sam');
    expect((await f.engine.waitForBatch('B1')).state).toBe('COMPLETED');
    expect(f.t.journal.schedule('batch', 'B1')).toMatchObject({ state: 'RELEASED', releasedBy: 'person:sam' });
  });

  it('under dual control: approved before its date, it leaves at its time without a person', async () => {
    const { approveAs } = await dualControlDesk();
    await f.engine.start();
    const when = inMs(HOUR);
    await f.engine.submitPayout(draft('p1', { amountMinor: 250_000 }), { preparedBy: 'paula', executeOn: when });
    const manifest = (await manifestFromJournal(f.t.journal, PROFILE, { kind: 'payout', id: 'p1' }, 0))!;
    expect(manifest).toMatchObject({ version: 3, execution: { at: new Date(when.at).toISOString(), zone: 'UTC', local: when.local } });
    await approveAs(alice, { kind: 'payout', id: 'p1' });
    offset = when.at - Date.now();
    await f.engine.releaseDue();
    await until(() => f.t.journal.getPayment('payout', 'p1')?.state === 'ACCEPTED');
    expect(creates()).toBe(1);
  });

  it('under dual control: a move signed by its preparer voids the approvals for the old time', async () => {
    const { approveAs } = await dualControlDesk();
    await f.engine.start();
    await f.engine.submitPayout(draft('p1', { amountMinor: 250_000 }), { preparedBy: 'paula', executeOn: inMs(HOUR) });
    await approveAs(alice, { kind: 'payout', id: 'p1' });
    const later = inMs(3 * HOUR);
    await f.engine.moveScheduled('payout', 'p1', later, { preparedBy: 'paula' });
    offset = later.at - Date.now();
    await f.engine.releaseDue();
    await until(() => f.t.journal.getPayment('payout', 'p1')?.state === 'HELD' && f.t.journal.schedule('payout', 'p1')?.state === 'RELEASED');
    expect(creates()).toBe(0);
    // Alice signed the manifest with the old time: it is not the manifest now.
    expect(audit('approval.refused').at(-1)?.details).toMatchObject({ code: 'MANIFEST_CHANGED' });
    // Approved again for the new time, a sender releases it.
    await approveAs(alice, { kind: 'payout', id: 'p1' });
    expect((await f.engine.releasePayout('p1')).state).toBe('ACCEPTED');
  });

  it("under dual control: a move never signs a row rewritten in the journal since its preparer signed it", async () => {
    const { approveAs } = await dualControlDesk();
    await f.engine.start();
    const when = inMs(HOUR);
    await f.engine.submitPayout(draft('p1', { amountMinor: 250_000 }), { preparedBy: 'paula', executeOn: when });
    await approveAs(alice, { kind: 'payout', id: 'p1' });
    // A database writer sends it elsewhere; then the preparer moves it, which signs it again.
    f.t.journal.db.prepare(`UPDATE payments SET account_number = 'GB33BUKB20201555555555' WHERE id = 'p1'`).run();
    await expect(f.engine.moveScheduled('payout', 'p1', inMs(2 * HOUR), { preparedBy: 'paula' })).rejects.toMatchObject({
      code: 'NOT_SIGNED', message: expect.stringMatching(/^Nothing was moved: payout p1 is not what Paula prepared .*; cancel it and prepare it again$/),
    });
    expect(f.t.journal.schedule('payout', 'p1')).toMatchObject({ at: when.at, state: 'SCHEDULED' });
    offset = when.at - Date.now();
    await f.engine.releaseDue();
    await until(() => f.t.journal.getPayment('payout', 'p1')?.state === 'HELD' && f.t.journal.schedule('payout', 'p1')?.state === 'RELEASED');
    expect(creates()).toBe(0);
  });

  it('under dual control: a move that loses the race with its release leaves it to be sent at its signed time', async () => {
    const { approveAs } = await dualControlDesk();
    await f.engine.start();
    const when = inMs(HOUR);
    await f.engine.submitPayout(draft('p1', { amountMinor: 250_000 }), { preparedBy: 'paula', executeOn: when });
    await approveAs(alice, { kind: 'payout', id: 'p1' });
    // The release loop releases it just after the preparer signed the new time, before the journal's move.
    const journal = f.t.journal;
    journal.moveSchedule = () => {
      offset = when.at - Date.now();
      return journal.releaseSchedule('payout', 'p1', { actor: 'engine', from: 'SCHEDULED' }) === null;
    };
    await expect(f.engine.moveScheduled('payout', 'p1', inMs(3 * HOUR), { preparedBy: 'paula' })).rejects.toMatchObject({ code: 'BAD_STATE' });
    await f.engine.takeUp('payout', 'p1');
    await until(() => f.t.journal.getPayment('payout', 'p1')?.state === 'ACCEPTED');
    expect(creates()).toBe(1);
  });

  it('under dual control: a time moved earlier in the journal by hand, and marked released, sends nothing', async () => {
    const { approveAs } = await dualControlDesk();
    await f.engine.start();
    await f.engine.submitPayout(draft('p1', { amountMinor: 250_000 }), { preparedBy: 'paula', executeOn: inMs(24 * HOUR) });
    await approveAs(alice, { kind: 'payout', id: 'p1' });
    // A database writer: the time a minute ago, released, the payout queued.
    f.t.journal.db.prepare(`UPDATE schedules SET execute_at = ?, state = 'RELEASED' WHERE subject_id = 'p1'`).run(clock() - 60_000);
    f.t.journal.db.prepare(`UPDATE payments SET state = 'QUEUED', status = 'QUEUED' WHERE id = 'p1'`).run();
    await f.engine.takeUp('payout', 'p1');
    await until(() => f.t.journal.getPayment('payout', 'p1')?.state === 'HELD');
    expect(creates()).toBe(0);
    // The preparer signed another time than the journal holds now: refused before the approvals are even weighed.
    expect(audit('approval.refused').at(-1)?.details).toMatchObject({ code: 'NOT_PREPARED', message: expect.stringMatching(/is not what Paula prepared/) });
  });

  it('on a fall-back night, releases at the first of the two 02:30s', async () => {
    plainDesk();
    await f.engine.start();
    // Stored for a fixed date: the journal takes any time; the gate compares with the test's clock.
    const when = executionOf('2030-10-27T02:30', 'Europe/Berlin');
    expect(new Date(when.at).toISOString()).toBe('2030-10-27T00:30:00.000Z');
    await f.engine.submitPayout(draft('p1'), { executeOn: when });
    offset = when.at - 60_000 - Date.now();
    await f.engine.releaseDue();
    expect(creates()).toBe(0);
    offset = when.at - Date.now();
    await f.engine.releaseDue();
    await until(() => f.gateway.createCalls.get('p1') === 1);
  });
});
