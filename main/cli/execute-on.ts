// `--execute-on <date[Ttime]> [--zone Z]` of `payouts create` and `batch submit` (the calendar, issue 27), and the
// scheduled view of a subject. Kept apart from main/cli/schedule.ts so these commands do not load its module.
import { type Command, InvalidArgumentError } from 'commander';
import type { ExecuteOn, ScheduleView } from '../../contract/api';
import { DeskError } from '../desk/services';
import { CliUsageError, type CliDesk } from './deps';

const WALL_TIME = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2})?$/;

/** A date, or a date and time (minutes), checked for its shape; the desk checks that it exists and is ahead. */
export function wallTimeOption(value: string): string {
  const text = value.trim();
  if (!WALL_TIME.test(text)) throw new InvalidArgumentError('must be a date (2026-12-24, released at 08:00) or a date and time (2026-12-24T09:00)');
  return text.replace(' ', 'T');
}

export interface ExecuteOnOptions {
  executeOn?: string;
  zone?: string;
}

export function executeOnOptions(command: Command, what: string): Command {
  return command
    .option('--execute-on <date[Ttime]>', `store ${what} now and release it at this time (the calendar): 2026-12-24 (at 08:00) or 2026-12-24T09:00, in the profile's zone`, wallTimeOption)
    .option('--zone <zone>', "with --execute-on: its time zone, e.g. Europe/Berlin (default: the profile's)");
}

/** The release time the options ask for, or undefined for "now". */
export function executeOnOf(o: ExecuteOnOptions): ExecuteOn | undefined {
  if (o.zone !== undefined && o.executeOn === undefined) throw new CliUsageError('--zone goes with --execute-on (the time zone of that time)');
  return o.executeOn === undefined ? undefined : { local: o.executeOn, ...(o.zone ? { zone: o.zone.trim() } : {}) };
}

/** The subject's schedule, or null when it has none. */
export async function scheduleOf(desk: CliDesk, kind: 'payout' | 'batch', id: string): Promise<ScheduleView | null> {
  return desk.call('schedules', 'get', { kind, id }).catch((error: unknown) => {
    if (error instanceof DeskError && error.code === 'NOT_FOUND') return null;
    throw error;
  });
}
