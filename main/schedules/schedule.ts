// A scheduled payout or batch: approved before its date, released by a sender desk at its time through the approval
// gate (approvals/gate.ts refuses any create of a subject whose schedule is not released or whose time has not come).
// The schedule lives in the journal beside the subject, written in the same transaction: a crash between the two
// can never leave a subject sendable without its time.
//   SCHEDULED → RELEASED  at its time (engine/schedule-releases.ts), by exactly one desk (a conditional update)
//   SCHEDULED → LATE      found more than the profile's late window after its time: a person confirms (→ RELEASED)
//   SCHEDULED | LATE → CANCELLED  cancelled by a person before release (the batch is cancelled, the payout discarded)
//   SCHEDULED | LATE → SCHEDULED  moved by its preparer before release (the date is signed: approvals again)
import type { Execution } from './execution';

export const SCHEDULE_STATES = ['SCHEDULED', 'LATE', 'RELEASED', 'CANCELLED'] as const;
export type ScheduleState = (typeof SCHEDULE_STATES)[number];

export type ScheduledKind = 'payout' | 'batch';

export interface ScheduleRecord extends Execution {
  kind: ScheduledKind;
  id: string;
  state: ScheduleState;
  createdAt: number;
  updatedAt: number;
  /** When a desk released it, and who (a desk actor, or the person who confirmed a late release). */
  releasedAt: number | null;
  releasedBy: string | null;
  /** How long after its time it was released (0 or more), or found late. */
  lateByMs: number | null;
}

/** What creating a subject with a schedule gives the journal. */
export type NewSchedule = Execution;

export interface ScheduleQuery {
  states?: readonly ScheduleState[];
  /** Release instants from (inclusive) … to (inclusive), epoch ms. */
  from?: number;
  to?: number;
  limit?: number;
}

/** What a payout held by its schedule says of itself (its last_error, which screens show with HELD). */
export const scheduledHoldText = (when: string): string => `scheduled: released on ${when}`;
