// The calendar's rule at the approval gate (gate.ts releaseTimeProblem), with dual control on or off: a scheduled
// payout or batch leaves only once a desk released its schedule, and never before its time; and, under dual control,
// only the preparer's newest signature counts once the date was moved (preparationProblem).
import { describe, expect, it } from 'vitest';
import { preparationProblem, releaseTimeProblem } from '../../../main/approvals/gate';
import { buildManifest, type Manifest } from '../../../main/approvals/manifest';
import { signPreparation } from '../../../main/approvals/preparation';
import type { ScheduleRecord, ScheduleState } from '../../../main/schedules/schedule';
import { member, row, T0 } from './helpers';

const AT = Date.UTC(2026, 11, 24, 8, 0); // 2026-12-24 09:00 in Berlin
const subject = { kind: 'batch', id: 'batch-1' } as const;

function schedule(state: ScheduleState, at = AT): ScheduleRecord {
  return {
    kind: 'batch', id: 'batch-1', state, at, zone: 'Europe/Berlin', local: '2026-12-24T09:00',
    createdAt: T0, updatedAt: T0, releasedAt: state === 'RELEASED' ? at : null, releasedBy: state === 'RELEASED' ? 'desk' : null, lateByMs: null,
  };
}

describe('what the gate says of a scheduled subject', () => {
  it('lets a subject with no schedule through, whatever the time', () => {
    expect(releaseTimeProblem(undefined, subject, 0)).toBeNull();
  });

  it('lets a released subject leave from its time on, not a millisecond before', () => {
    expect(releaseTimeProblem(schedule('RELEASED'), subject, AT)).toBeNull();
    expect(releaseTimeProblem(schedule('RELEASED'), subject, AT + 60_000)).toBeNull();
    // Released, but the journal's time says later (moved there by hand): it waits for that time.
    expect(releaseTimeProblem(schedule('RELEASED'), subject, AT - 1)).toEqual({
      code: 'NOT_DUE',
      message: 'Nothing was sent: batch batch-1 is scheduled for 2026-12-24 09:00 Europe/Berlin and does not leave before then',
    });
  });

  it('holds a subject whose time came until a sender desk releases it', () => {
    expect(releaseTimeProblem(schedule('SCHEDULED'), subject, AT)).toEqual({
      code: 'NOT_RELEASED',
      message: 'Nothing was sent: batch batch-1 was scheduled for 2026-12-24 09:00 Europe/Berlin and no sender desk has released it yet',
    });
  });

  it('holds a late subject until a person confirms its release', () => {
    expect(releaseTimeProblem(schedule('LATE'), subject, AT + 7 * 3_600_000)).toEqual({
      code: 'NOT_RELEASED',
      message: 'Nothing was sent: batch batch-1 was scheduled for 2026-12-24 09:00 Europe/Berlin and it is past its late window and waits for a person to confirm its release',
    });
  });

  it('never lets a cancelled subject leave, before or after its time', () => {
    const cancelled = { code: 'SCHEDULE_CANCELLED', message: 'Nothing was sent: the schedule of batch batch-1 was cancelled' };
    expect(releaseTimeProblem(schedule('CANCELLED'), subject, AT - 1)).toEqual(cancelled);
    expect(releaseTimeProblem(schedule('CANCELLED'), subject, AT + 1)).toEqual(cancelled);
  });

  it('names a subject scheduled early with its own time, even when it is not due yet and not released', () => {
    const early = releaseTimeProblem(schedule('SCHEDULED', AT + 3_600_000), subject, AT);
    expect(early?.code).toBe('NOT_DUE');
  });
});

describe('a moved date under dual control', () => {
  const paula = member('paula', ['preparer']);
  const scheduledFor = (at: number, local: string): Manifest =>
    buildManifest({
      profileId: 'prof-1', subject, preparedBy: 'paula', preparedAt: T0, fileSha256: 'a'.repeat(64), rows: [row('p-1', 10_000)],
      decimalsOf: () => 2, policyVersion: 0, execution: { at, zone: 'Europe/Berlin', local },
    });
  const first = scheduledFor(AT, '2026-12-24T09:00');
  const moved = scheduledFor(AT + 86_400_000, '2026-12-25T09:00');
  const signedFirst = signPreparation(paula.session, { id: 'prep-1', manifest: first, signedAt: T0 + 10 });
  const signedMoved = signPreparation(paula.session, { id: 'prep-2', manifest: moved, signedAt: T0 + 20 });

  it('counts the preparer\'s newest signature: the subject at its new time', () => {
    expect(preparationProblem(moved, [signedFirst, signedMoved], [paula.person])).toBeNull();
  });

  it('refuses the subject put back at the time the preparer first signed, and says the date was moved', () => {
    expect(preparationProblem(first, [signedFirst, signedMoved], [paula.person])).toBe(
      'Nothing was sent: batch batch-1 is as Paula first prepared it, not as they signed it since (its date was moved)',
    );
  });

  it('counts a single signature at the time it names, and refuses another time as a change', () => {
    expect(preparationProblem(first, [signedFirst], [paula.person])).toBeNull();
    expect(preparationProblem(moved, [signedFirst], [paula.person])).toBe(
      'Nothing was sent: batch batch-1 is not what Paula prepared (a row, its callback address or the preparer changed since)',
    );
  });
});
