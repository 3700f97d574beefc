// Recurring payouts: a template (a payee of the book, an amount, a reference pattern, a rule and an end) whose each
// occurrence becomes its own scheduled payout some days ahead, so it can be approved in time (main/desk/recurring.ts).
// Each occurrence is recorded once per template and date: the store's key (template, date) is what makes "never two
// for one date" true across the desks of a team and across restarts. An occurrence's payout id is derived from the
// template and the date too, so even a creation retried after a crash lands on the same journal row.
//   template: ACTIVE ⇄ PAUSED, ACTIVE | PAUSED → ENDED (final)
//   occurrence: CREATING (claimed by one desk) → CREATED (its payout is in the journal) | FAILED (refused: why);
//               SKIPPED (a person chose not to pay that date); MISSED (its release passed before anyone could
//               prepare it: a person pays it by hand or not at all)
import { DateTime } from 'luxon';
import type { RecurrenceEnd } from './recurrence';

export const TEMPLATE_STATES = ['ACTIVE', 'PAUSED', 'ENDED'] as const;
export type TemplateState = (typeof TEMPLATE_STATES)[number];

export const OCCURRENCE_STATES = ['CREATING', 'CREATED', 'SKIPPED', 'MISSED', 'FAILED'] as const;
export type OccurrenceState = (typeof OCCURRENCE_STATES)[number];

export interface RecurringTemplate {
  id: string;
  /** The payee of the book paid: its version in force when each occurrence is made (a bank change waits for approval first). */
  payeeId: string;
  amountMinor: number;
  currencyCode: string;
  /** "Rent {yyyy-MM}": the occurrence's date fills the braces (referenceFor); null for no reference. */
  referencePattern: string | null;
  /** ruleText of the rule: "monthly 25", "monthly last-business-day", "weekly fri". */
  rule: string;
  /** yyyy-MM-dd: the first date an occurrence may fall on. */
  start: string;
  endCount: number | null;
  endUntil: string | null;
  /** HH:mm in `zone`: when each occurrence releases. */
  timeOfDay: string;
  zone: string;
  /** How many days before its release an occurrence is made (and can be approved). */
  leadDays: number;
  state: TemplateState;
  /** Since when it is active (made or resumed): occurrences that released before are neither made nor missed. */
  activeSince: number;
  /** The person who made it (under dual control the only one who prepares its occurrences); null before people. */
  createdBy: string | null;
  createdAt: number;
  updatedAt: number;
  /** Who last paused, resumed or ended it. */
  changedBy: string | null;
}

export interface RecurringOccurrence {
  templateId: string;
  /** yyyy-MM-dd in the template's zone. */
  date: string;
  payoutId: string | null;
  state: OccurrenceState;
  /** Why it failed, was skipped or missed. */
  reason: string | null;
  /** Who recorded it: a desk (creating), a person (skipping). */
  actor: string;
  createdAt: number;
  updatedAt: number;
}

export class RecurringError extends Error {
  constructor(readonly code: 'NOT_FOUND' | 'BAD_STATE' | 'BAD_PATTERN', message: string) {
    super(message);
  }
}

export interface RecurringStore {
  addTemplate(t: RecurringTemplate): Promise<void>;
  template(id: string): Promise<RecurringTemplate | null>;
  /** By creation, oldest first; only those of a payee, or in these states, when asked. */
  templates(filter?: { payeeId?: string; states?: readonly TemplateState[] }): Promise<RecurringTemplate[]>;
  /**
   * Moves a template from one of `from` to `to` (a conditional update: of two desks one wins); ACTIVE sets
   * activeSince to `at`. Null when it was in none of `from` (or does not exist).
   */
  setTemplateState(id: string, change: { from: readonly TemplateState[]; to: TemplateState; at: number; by: string | null }): Promise<RecurringTemplate | null>;
  /** The occurrences recorded for these templates, by template then date. */
  occurrences(templateIds: readonly string[]): Promise<RecurringOccurrence[]>;
  /**
   * Records an occurrence unless its (template, date) has one: true when this call recorded it. A CREATING row is a
   * desk's claim on making its payout; SKIPPED, MISSED are recorded as they are.
   */
  recordOccurrence(o: Omit<RecurringOccurrence, 'updatedAt'>): Promise<boolean>;
  /**
   * Takes over a CREATING claim last touched before `staleBefore` (its desk stopped between claim and payout): true
   * for the one caller that did.
   */
  reclaimOccurrence(templateId: string, date: string, change: { actor: string; at: number; staleBefore: number }): Promise<boolean>;
  /** Settles a CREATING occurrence as CREATED or FAILED; false when it was not CREATING. */
  settleOccurrence(templateId: string, date: string, change: { state: 'CREATED' | 'FAILED'; reason: string | null; at: number }): Promise<boolean>;
}

/** The template's end as the rule reads it. */
export const endOf = (t: Pick<RecurringTemplate, 'endCount' | 'endUntil'>): RecurrenceEnd =>
  t.endCount !== null ? { count: t.endCount } : t.endUntil !== null ? { until: t.endUntil } : null;

const PATTERN_TOKEN = /\{([^{}]*)\}/g;
/** The date parts a reference pattern may use inside braces, alone or joined by - . / or a space. */
const TOKEN_RE = /^(yyyy|yy|MMMM|MMM|MM|M|dd|d)([-./ ](yyyy|yy|MMMM|MMM|MM|M|dd|d))*$/;
export const REFERENCE_MAX = 140;

/** Why a reference pattern cannot be used, or null: braces hold only date parts ({yyyy-MM}, {MMMM yyyy}, {dd.MM.yyyy}). */
export function patternProblem(pattern: string): string | null {
  if (pattern.length > REFERENCE_MAX) return `the reference is longer than ${REFERENCE_MAX} characters`;
  for (const m of pattern.matchAll(PATTERN_TOKEN)) {
    if (!TOKEN_RE.test(m[1] ?? '')) return `{${m[1]}} is not a date part: use {yyyy}, {MM}, {dd}, {MMMM} or joined ones such as {yyyy-MM}`;
  }
  if (/[{}]/.test(pattern.replace(PATTERN_TOKEN, ''))) return 'a brace is not closed';
  return null;
}

/** The reference of the occurrence on `date` (yyyy-MM-dd): "Rent {yyyy-MM}" → "Rent 2027-03"; month names in English. */
export function referenceFor(pattern: string | null, date: string): string | null {
  if (pattern === null) return null;
  const d = DateTime.fromISO(date, { zone: 'UTC', locale: 'en' });
  return pattern.replace(PATTERN_TOKEN, (_, token: string) => d.toFormat(token));
}

/**
 * The payout id of the template's occurrence on `date`: the same every time it is worked out, so a desk that
 * retries a claim its predecessor left (a crash between claim and payout) finds the payout already in the journal.
 */
export function occurrencePayoutId(templateId: string, date: string): string {
  return `rec-${templateId}-${date.replaceAll('-', '')}`;
}
