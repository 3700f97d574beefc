// Recurring payouts' steps (issue 27): a person adds a recurring template for a payee of the book, runs the generator,
// skips a date, pauses and resumes the template; the desk is down until just before (or past) the next release and
// runs the generator as it starts again; someone with the journal file deletes the generator's occurrence rows.
// Weight 0 in drawn seeds (never drawn: no seed's history changes); they are used in written histories.
export type RecurringStep =
  /** A template paying `amount` EUR on `rule` ("weekly fri") at 08:00 in the profile's zone, made `leadDays` ahead. */
  | { kind: 'recurring-add'; rule: string; amount: string; leadDays: number; after: number }
  /** The person asks the desk to make the occurrences due now (recurring:run). */
  | { kind: 'recurring-run'; after: number }
  /** The newest template's next date (neither made, skipped nor passed) is skipped. */
  | { kind: 'recurring-skip'; after: number }
  | { kind: 'recurring-pause' | 'recurring-resume'; after: number }
  /**
   * The desk stops (crash or quit) and starts again `beforeMin` minutes before the next occurrence's release (negative:
   * after it), and the generator runs at its start, as the app's does; `looks: 2`: two looks at once (the app's
   * look at unlock meeting its timer's, or two desks of a team).
   */
  | { kind: 'recurring-pass'; beforeMin: number; crash: boolean; looks?: 1 | 2; after: number }
  /**
   * As recurring-pass, but the desk crashes `turns` microtask turns into the generator's look at its start, and starts
   * again `downMs` later (past the generator's stale-claim time, or not) and looks again.
   */
  | { kind: 'recurring-crash-mid-run'; beforeMin: number; turns: number; downMs: number; after: number }
  /** Someone with the journal file deletes every occurrence row the generator recorded (SQLite journal only). */
  | { kind: 'recurring-forget'; after: number };

export type RecurringKind = RecurringStep['kind'];
export const RECURRING_KINDS: readonly RecurringKind[] = [
  'recurring-add', 'recurring-run', 'recurring-skip', 'recurring-pause', 'recurring-resume', 'recurring-pass', 'recurring-crash-mid-run', 'recurring-forget',
];
export const isRecurringStep = (step: { kind: string }): step is RecurringStep => (RECURRING_KINDS as readonly string[]).includes(step.kind);
