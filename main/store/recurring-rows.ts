// Recurring payouts' rows as both back ends read them (store/sqlite/recurring.ts, store/postgres/recurring.ts).
import type { OccurrenceState, RecurringOccurrence, RecurringTemplate, TemplateState } from '../schedules/recurring';

type Num = number | string;

export interface TemplateRow {
  id: string;
  payee_id: string;
  amount_minor: Num;
  currency_code: string;
  reference_pattern: string | null;
  rule: string;
  start_date: string;
  end_count: Num | null;
  end_until: string | null;
  time_of_day: string;
  zone: string;
  lead_days: Num;
  state: TemplateState;
  active_since: Num;
  created_by: string | null;
  created_at: Num;
  updated_at: Num;
  changed_by: string | null;
}

export interface OccurrenceRow {
  template_id: string;
  occurrence_date: string;
  payout_id: string | null;
  state: OccurrenceState;
  reason: string | null;
  actor: string;
  created_at: Num;
  updated_at: Num;
}

/** In the order of the adapters' INSERT values. */
export const TEMPLATE_COLUMNS =
  'id, payee_id, amount_minor, currency_code, reference_pattern, rule, start_date, end_count, end_until, time_of_day, zone, lead_days, state, active_since, created_by, created_at, updated_at, changed_by';
export const OCCURRENCE_COLUMNS = 'template_id, occurrence_date, payout_id, state, reason, actor, created_at, updated_at';

const num = (v: Num): number => (typeof v === 'number' ? v : Number(v));

export function toTemplate(r: TemplateRow): RecurringTemplate {
  return {
    id: r.id, payeeId: r.payee_id, amountMinor: num(r.amount_minor), currencyCode: r.currency_code, referencePattern: r.reference_pattern, rule: r.rule,
    start: r.start_date, endCount: r.end_count === null ? null : num(r.end_count), endUntil: r.end_until, timeOfDay: r.time_of_day, zone: r.zone,
    leadDays: num(r.lead_days), state: r.state, activeSince: num(r.active_since), createdBy: r.created_by, createdAt: num(r.created_at),
    updatedAt: num(r.updated_at), changedBy: r.changed_by,
  };
}

export function toOccurrence(r: OccurrenceRow): RecurringOccurrence {
  return {
    templateId: r.template_id, date: r.occurrence_date, payoutId: r.payout_id, state: r.state, reason: r.reason, actor: r.actor,
    createdAt: num(r.created_at), updatedAt: num(r.updated_at),
  };
}
