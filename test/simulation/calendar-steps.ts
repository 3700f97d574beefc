// The calendar's steps (issue 27): a person schedules a payout or a batch a few simulated minutes ahead (in one of
// several zones, one of them on the night its clocks went back), or on a daylight-saving night next year; the
// desk is down while release times pass (released late, or past the profile's late window: LATE, then a person
// confirms); a schedule is moved or cancelled, also at the very moment its release is in flight; two release loops
// (two sender desks) meet at one release moment; someone with the journal file releases a schedule early.
// Drawn from a stream of their own (steps.ts), so every other step of a seed stays what it was.
import type { Prng } from './prng';
import type { Outcome, StepKind } from './steps';

/** The simulated profile's zone (sim-desk.ts): a time written without a zone is read in it. */
export const SIM_PROFILE_ZONE = 'Europe/Berlin';
/** The simulated profile's late window (sim-desk.ts): a desk down for longer finds its releases LATE. */
export const SIM_LATE_WINDOW_MINUTES = 20;

/** Zones a time is written in: undefined is the profile's (Europe/Berlin in the simulation). */
export const SCHEDULE_ZONES = [
  undefined,
  'UTC',
  // Its clocks went back on 2026-11-01 at 02:00; the simulated clock starts at 23:00 that same local day.
  'America/Adak',
  'Asia/Kathmandu',
  'America/St_Johns',
  'Australia/Lord_Howe',
] as const;

/**
 * Wall times on a daylight-saving night next year: one the clocks skip (refused, nothing stored) and one they pass
 * twice (stored, released at the first), with the instant the first stands for, written here by hand.
 */
export const DST_NIGHTS = [
  { zone: 'Europe/Berlin', local: '2027-03-28T02:30', skipped: true, firstAt: null },
  { zone: 'Europe/Berlin', local: '2027-10-31T02:30', skipped: false, firstAt: Date.UTC(2027, 9, 31, 0, 30) },
  { zone: 'America/New_York', local: '2027-03-14T02:30', skipped: true, firstAt: null },
  { zone: 'America/New_York', local: '2027-11-07T01:30', skipped: false, firstAt: Date.UTC(2027, 10, 7, 5, 30) },
] as const;

export type CalendarStep =
  /** `inMin` minutes ahead, written in zone SCHEDULE_ZONES[zone]. */
  | { kind: 'schedule-single'; outcome: Outcome; inMin: number; zone: number; after: number }
  | { kind: 'schedule-batch'; outcomes: Outcome[]; inMin: number; zone: number; after: number }
  /** A payout or batch for DST_NIGHTS[night]. */
  | { kind: 'schedule-dst'; night: number; batch: boolean; after: number }
  /** The desk is stopped (crash or quit) and started `ms` later. */
  | { kind: 'desk-down'; ms: number; crash: boolean; after: number }
  | { kind: 'confirm-late'; pick: number; after: number }
  | { kind: 'move-schedule'; pick: number; inMin: number; after: number }
  | { kind: 'cancel-schedule'; pick: number; after: number }
  /** The clock reaches a schedule's time and the person moves or cancels it while the desk releases it. */
  | { kind: 'race-release'; act: 'move' | 'cancel'; pick: number; inMin: number; after: number }
  /** The clock reaches a schedule's time with two release loops (two sender desks) looking at once. */
  | { kind: 'two-desks'; pick: number; after: number }
  /** Someone with the journal file marks a schedule released before its time (dual control only). */
  | { kind: 'tamper-release'; pick: number; after: number }
  /** Someone with the journal file puts a moved schedule back to its first time (dual control only). */
  | { kind: 'tamper-revert'; pick: number; after: number };

export type CalendarKind = CalendarStep['kind'];

/** About one step in twelve is the calendar's. */
export const CALENDAR_SHARE = 0.08;

const WEIGHTS: readonly [CalendarKind, number][] = [
  ['schedule-single', 6],
  ['schedule-batch', 5],
  ['schedule-dst', 1],
  ['desk-down', 2],
  ['confirm-late', 3],
  ['move-schedule', 3],
  ['cancel-schedule', 2],
  ['race-release', 3],
  ['two-desks', 2],
  ['tamper-release', 1],
  // Weight 0: only in written histories (a weight here would change every seed's calendar steps).
  ['tamper-revert', 0],
];
export const CALENDAR_KINDS: readonly CalendarKind[] = WEIGHTS.map(([k]) => k);

function outcome(rng: Prng): Outcome {
  const r = rng.next();
  return r < 0.25 ? 'fails' : r < 0.4 ? 'returns' : 'pays';
}

/** A calendar step, or null when every calendar kind is left out. */
export function drawCalendarStep(rng: Prng, without: readonly StepKind[]): CalendarStep | null {
  const allowed = WEIGHTS.filter(([k]) => !without.includes(k));
  if (allowed.length === 0) return null;
  const total = allowed.reduce((sum, [, w]) => sum + w, 0);
  let r = rng.next() * total;
  let kind = allowed[0]![0];
  for (const [k, w] of allowed) {
    r -= w;
    if (r < 0) {
      kind = k;
      break;
    }
  }
  const after = rng.chance(0.15) ? rng.int(5_000, 60_000) : rng.int(0, 1_500);
  switch (kind) {
    case 'schedule-single':
      return { kind, outcome: outcome(rng), inMin: rng.int(1, 12), zone: rng.int(0, SCHEDULE_ZONES.length - 1), after };
    case 'schedule-batch':
      return { kind, outcomes: Array.from({ length: rng.int(1, 5) }, () => outcome(rng)), inMin: rng.int(1, 12), zone: rng.int(0, SCHEDULE_ZONES.length - 1), after };
    case 'schedule-dst':
      return { kind, night: rng.int(0, DST_NIGHTS.length - 1), batch: rng.chance(0.4), after };
    case 'desk-down':
      // Mostly within the late window (20 min in the simulation), sometimes well past it.
      return { kind, ms: rng.chance(0.35) ? rng.int(25, 60) * 60_000 : rng.int(1, 15) * 60_000, crash: rng.chance(0.5), after };
    case 'move-schedule':
      return { kind, pick: rng.next(), inMin: rng.int(1, 10), after };
    case 'race-release':
      return { kind, act: rng.chance(0.5) ? 'move' : 'cancel', pick: rng.next(), inMin: rng.int(1, 10), after };
    default:
      return { kind, pick: rng.next(), after };
  }
}
