// The calendar's rows as both journals read them (main/schedules/schedule.ts): the mapping and the texts the two
// adapters (store/sqlite/journal.ts, store/postgres/journal.ts) write with a schedule's changes.
import { describeExecution, lateText } from '../schedules/execution';
import { scheduledHoldText, type ScheduleRecord, type ScheduleState, type ScheduledKind } from '../schedules/schedule';

export interface ScheduleRow {
  subject_kind: ScheduledKind;
  subject_id: string;
  execute_at: number | string;
  zone: string;
  local_time: string;
  state: ScheduleState;
  created_at: number | string;
  updated_at: number | string;
  released_at: number | string | null;
  released_by: string | null;
  late_by_ms: number | string | null;
}

const num = (v: number | string): number => (typeof v === 'number' ? v : Number(v));
const numOrNull = (v: number | string | null): number | null => (v === null ? null : num(v));

export function toSchedule(r: ScheduleRow): ScheduleRecord {
  return {
    kind: r.subject_kind, id: r.subject_id, at: num(r.execute_at), zone: r.zone, local: r.local_time, state: r.state,
    createdAt: num(r.created_at), updatedAt: num(r.updated_at), releasedAt: numOrNull(r.released_at), releasedBy: r.released_by, lateByMs: numOrNull(r.late_by_ms),
  };
}

/** What a scheduled subject says while it waits (a held payout's last error, a scheduled batch's reason). */
export const waitingText = (s: { at: number; zone: string; local: string }): string => scheduledHoldText(describeExecution(s));

/** The status event of a scheduled payout released: said with how late, if it was. */
export const releasedText = (lateByMs: number, actor: string): string =>
  `released at its time${lateByMs >= 60_000 ? `, late by ${lateText(lateByMs)}` : ''} (${actor})`;

export const SCHEDULE_COLUMNS = 'subject_kind, subject_id, execute_at, zone, local_time, state, created_at, updated_at, released_at, released_by, late_by_ms';
