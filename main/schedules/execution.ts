// When a scheduled payout or batch may leave: a wall-clock time in a named time zone (what the person chose, what
// the ERP asked for), and the instant it stands for. The instant is what the gate compares with the clock; the
// wall time and zone are kept beside it so a screen shows what was asked, and both are signed in the manifest.
// Daylight saving: a wall time the clocks skip (02:30 on a spring-forward night) is refused with the first valid
// time; one the clocks pass twice (02:30 on a fall-back night) is the first of the two, and the description says so.
import { DateTime, IANAZone } from 'luxon';

/** A release time: the instant, and the wall time in the zone it was given in. */
export interface Execution {
  /** Epoch ms of the release instant. */
  at: number;
  /** IANA zone name, e.g. Europe/Berlin. */
  zone: string;
  /** Wall time in the zone, minutes precision: 2026-12-24T09:00. */
  local: string;
}

/** A date alone (a pain.001 ReqdExctnDt, a CSV date) releases at this wall time of that day. */
export const DEFAULT_RELEASE_TIME = '08:00';

export class ExecutionError extends Error {
  constructor(readonly code: 'BAD_ZONE' | 'BAD_TIME' | 'SKIPPED_TIME', message: string) {
    super(message);
  }
}

const LOCAL_RE = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}))?$/;

/** The zone this machine runs in, the default of a profile that names none. */
export function systemZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

export function isValidZone(zone: string): boolean {
  return IANAZone.isValidZone(zone);
}

/**
 * The release instant of a wall time ("2026-12-24T09:00", or a date alone at DEFAULT_RELEASE_TIME) in `zone`.
 * Throws ExecutionError for an unknown zone, a malformed or impossible date, or a time the clocks skip.
 */
export function executionOf(text: string, zone: string): Execution {
  if (!isValidZone(zone)) throw new ExecutionError('BAD_ZONE', `"${zone}" is not a time zone name (e.g. Europe/Berlin, America/New_York, UTC)`);
  const m = LOCAL_RE.exec(text.trim());
  if (!m) throw new ExecutionError('BAD_TIME', `"${text}" is not a date and time: write 2026-12-24 or 2026-12-24T09:00`);
  const local = `${m[1]}T${m[2] ?? DEFAULT_RELEASE_TIME}`;
  const dt = DateTime.fromISO(local, { zone });
  if (!dt.isValid) throw new ExecutionError('BAD_TIME', `"${text}" is not a date and time that exists (${dt.invalidExplanation ?? dt.invalidReason ?? 'invalid'})`);
  // Luxon moves a skipped wall time forward; a release at a time that never shows on the clock is not what was asked.
  if (dt.toFormat("yyyy-MM-dd'T'HH:mm") !== local) {
    // Luxon moved it past the gap by the gap's length: the gap ends at the start of that hour (whole-hour gaps).
    const first = dt.startOf('hour');
    throw new ExecutionError('SKIPPED_TIME', `${local.replace('T', ' ')} does not exist in ${zone}: the clocks go forward that night; choose ${first.toFormat('HH:mm')} or later`);
  }
  // Of a wall time shown twice (clocks go back), the first.
  const offsets = dt.getPossibleOffsets();
  const first = offsets.reduce((a, b) => (a.toMillis() <= b.toMillis() ? a : b));
  return { at: first.toMillis(), zone, local };
}

/** Whether the wall time happens twice in its zone (a fall-back night): the earlier is the one meant. */
export function isRepeatedTime(e: Execution): boolean {
  return DateTime.fromISO(e.local, { zone: e.zone }).getPossibleOffsets().length > 1;
}

/** "2026-12-24 09:00 Europe/Berlin" (with "(the first 02:30, before the clocks go back)" when it happens twice). */
export function describeExecution(e: Pick<Execution, 'zone' | 'local'> & { at?: number }): string {
  const text = `${e.local.replace('T', ' ')} ${e.zone}`;
  return e.at !== undefined && isRepeatedTime({ at: e.at, zone: e.zone, local: e.local }) ? `${text} (the first ${e.local.slice(11)}, before the clocks go back)` : text;
}

/** "2 h 5 min", "3 days 4 h", "45 s": how late a release was, for a person. */
export function lateText(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  const min = Math.floor(s / 60);
  if (min < 60) return `${min} min`;
  const h = Math.floor(min / 60);
  if (h < 48) return min % 60 === 0 ? `${h} h` : `${h} h ${min % 60} min`;
  const days = Math.floor(h / 24);
  return h % 24 === 0 ? `${days} days` : `${days} days ${h % 24} h`;
}

/** The wall-clock date (yyyy-MM-dd) of an instant in a zone: the day a forecast or a calendar puts it on. */
export function localDate(at: number, zone: string): string {
  return DateTime.fromMillis(at, { zone }).toFormat('yyyy-MM-dd');
}
