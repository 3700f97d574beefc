// The simulated history: a list of steps drawn from a seed. A step names what a person or the gateway
// does; where it acts on something that exists only at run time (a batch, a payout), it carries a
// number in [0, 1) that picks among what exists then. So any sub-list of a history is itself a valid
// history, which is what lets a failure be shortened to the few steps that still make it fail.
import { CALENDAR_SHARE, drawCalendarStep, type CalendarStep } from './calendar-steps';
import type { CreateFault } from './gateway-model';
import { Prng } from './prng';
import type { RecurringStep } from './recurring-steps';

export type Outcome = 'pays' | 'fails' | 'returns';

export type Step =
  | { kind: 'single'; outcome: Outcome; after: number }
  | { kind: 'batch'; outcomes: Outcome[]; after: number }
  | { kind: 'pause' | 'resume' | 'cancel' | 'retry'; pick: number; after: number }
  | { kind: 'release' | 'discard'; pick: number; after: number }
  | { kind: 'wrong-key' | 'fix-key' | 'crash' | 'quit' | 'crash-on-next-create' | 'reenter'; after: number }
  | { kind: 'create-faults'; faults: CreateFault[]; after: number }
  | { kind: 'rate-burst'; ms: number; after: number }
  | { kind: 'hide' | 'forget' | 'return'; pick: number; ms: number; after: number }
  | { kind: 'wait'; ms: number; after: number }
  // Dual control (no-ops on a desk without it): `pick` chooses the subject, `who` the person.
  | { kind: 'approve' | 'reject' | 'revoke' | 'edit-row'; pick: number; who: number; after: number }
  | { kind: 'policy'; after: number }
  // The adversary (no-ops on a desk without dual control): someone with the journal file or the team database's
  // password changes rows (`tamper`), or someone at the desk with nobody unlocked tries what needs an admin.
  | { kind: 'tamper'; act: TamperAct; pick: number; after: number }
  | { kind: 'desk-user'; act: DeskUserAct; after: number }
  | CalendarStep
  | RecurringStep;

/** What a holder of the journal file or of the team database's password does (adversary.ts). */
export const TAMPER_ACTS = [
  'flip-unknown', 'flip-unknown-elsewhere', 'edit-account', 'forge-approval', 'forge-grant', 'swap-key', 'cut-chain', 'drop-chain',
  'truncate-approvals', 'legacy-person', 'payee-version', 'junk-notify', 'restore',
] as const;
export type TamperAct = (typeof TAMPER_ACTS)[number];
/** What a desk user with nobody unlocked tries: each must be refused. */
export const DESK_USER_ACTS = ['flip-environment', 'export-key', 'replace-secret', 'repoint-database', 'remove-profile'] as const;
export type DeskUserAct = (typeof DESK_USER_ACTS)[number];

export type StepKind = Step['kind'];
/** The steps drawn from the seed's main stream (the calendar's come from their own: calendar-steps.ts). */
type BaseKind = Exclude<StepKind, CalendarStep['kind'] | RecurringStep['kind']>;

const FAULTS: readonly CreateFault[] = ['store-no-answer', 'fail-before-store', 'server-error-after-store', 'reset-after-store', 'land-late'];

/** How often each step is drawn (relative weights). */
const WEIGHTS: readonly [BaseKind, number][] = [
  ['single', 10],
  ['batch', 8],
  ['pause', 4],
  ['resume', 4],
  ['cancel', 3],
  ['retry', 6],
  ['release', 3],
  ['discard', 1],
  ['wrong-key', 2],
  ['fix-key', 3],
  ['crash', 3],
  ['crash-on-next-create', 2],
  ['quit', 1],
  ['reenter', 3],
  ['create-faults', 8],
  ['rate-burst', 2],
  ['hide', 2],
  ['forget', 1],
  ['return', 3],
  ['wait', 10],
  ['approve', 8],
  ['reject', 1],
  ['revoke', 1],
  ['edit-row', 2],
  ['policy', 1],
  ['tamper', 6],
  ['desk-user', 1],
];
const TOTAL_WEIGHT = WEIGHTS.reduce((sum, [, w]) => sum + w, 0);

function outcome(rng: Prng): Outcome {
  const r = rng.next();
  return r < 0.25 ? 'fails' : r < 0.4 ? 'returns' : 'pays';
}

function drawKind(rng: Prng): BaseKind {
  let r = rng.next() * TOTAL_WEIGHT;
  for (const [kind, weight] of WEIGHTS) {
    r -= weight;
    if (r < 0) return kind;
  }
  return 'wait';
}

export function drawStep(rng: Prng): Step {
  const kind = drawKind(rng);
  // Mostly a short pause between two actions, sometimes a long one (statuses settle meanwhile).
  const after = rng.chance(0.15) ? rng.int(5_000, 60_000) : rng.int(0, 1_500);
  switch (kind) {
    case 'single':
      return { kind, outcome: outcome(rng), after };
    case 'batch':
      return { kind, outcomes: Array.from({ length: rng.int(1, 6) }, () => outcome(rng)), after };
    case 'pause':
    case 'resume':
    case 'cancel':
    case 'retry':
    case 'release':
    case 'discard':
      return { kind, pick: rng.next(), after };
    case 'create-faults':
      return { kind, faults: Array.from({ length: rng.int(1, 3) }, () => rng.pick(FAULTS)), after };
    case 'rate-burst':
      return { kind, ms: rng.int(500, 5_000), after };
    case 'hide':
    case 'forget':
    case 'return':
      return { kind, pick: rng.next(), ms: rng.int(1_000, 120_000), after };
    case 'wait':
      return { kind, ms: rng.int(1_000, 120_000), after };
    case 'approve':
    case 'reject':
    case 'revoke':
    case 'edit-row':
      return { kind, pick: rng.next(), who: rng.next(), after };
    case 'tamper':
      // Put back about as often as taken away, so a history goes on after the desk refused what it found.
      return { kind, act: rng.chance(0.35) ? 'restore' : rng.pick(TAMPER_ACTS.filter((a) => a !== 'restore')), pick: rng.next(), after };
    case 'desk-user':
      return { kind, act: rng.pick(DESK_USER_ACTS), after };
    default:
      return { kind, after };
  }
}

/**
 * `without`: step kinds left out (drawn again), to look for one kind of failure without the others.
 * The calendar's steps come from a stream of their own, slotted in between the others: the other steps are drawn
 * exactly as before the calendar existed, so `--without` every calendar kind replays a seed's old history.
 */
export function drawHistory(seed: number, steps: number, without: readonly StepKind[] = []): Step[] {
  const rng = new Prng(seed);
  const calendar = new Prng(seed).fork(5);
  return Array.from({ length: steps }, (): Step => {
    if (calendar.chance(CALENDAR_SHARE)) {
      const step = drawCalendarStep(calendar, without);
      if (step) return step;
    }
    for (;;) {
      const step = drawStep(rng);
      if (!without.includes(step.kind)) return step;
    }
  });
}

export function describeStep(step: Step): string {
  const { kind, after, ...rest } = step;
  const detail = Object.entries(rest)
    .map(([k, v]) => `${k}=${Array.isArray(v) ? v.join('+') : typeof v === 'number' && !Number.isInteger(v) ? v.toFixed(3) : String(v)}`)
    .join(' ');
  return `${kind}${detail ? ` ${detail}` : ''}${after ? ` (then ${after} ms)` : ''}`;
}
