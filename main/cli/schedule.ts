// CLI: `schedule list|show|move|cancel|confirm-late`, the calendar's twin (issue 27) over the schedules service the
// screen calls (main/desk/schedules.ts): payouts and batches that wait for their release time, the funding
// forecast per currency and day with a "short by" warning, and the acts before release. Times are wall times
// in a named zone: "2026-12-24" (released at 08:00 that day) or "2026-12-24T09:00", in the profile's zone unless
// --zone names another.
// Exit codes: 0 done (a shortfall in the forecast is a warning, not a failure); 1 an error or a refusal (NOT_FOUND,
// BAD_EXECUTE_ON for a time that has passed or does not exist, NOT_ALLOWED, BAD_STATE); 2 a usage error.
import { type Command, InvalidArgumentError } from 'commander';
import { DateTime } from 'luxon';
import type { ScheduleList, ScheduleState, ScheduleView } from '../../contract/api';
import { profileZone, shortfallsOf } from '../desk/schedules';
import { actingOptions, type ActingOptions } from './acting';
import { nextStepsOf } from './approval-hints';
import { workAs } from './dual-control';
import { typedCommand } from './invocation';
import { wallTimeOption } from './execute-on';
import { CliUsageError, type CliDeps } from './deps';
import { plural, table } from './shared';

const STATES: readonly ScheduleState[] = ['SCHEDULED', 'LATE', 'RELEASED', 'CANCELLED'];
const WALL_TIME = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2})?$/;

/** `<kind>`: payout or batch (a usage error otherwise, exit 2). */
export function kindArgument(value: string): 'payout' | 'batch' {
  const kind = value.trim().toLowerCase();
  if (kind !== 'payout' && kind !== 'batch') throw new CliUsageError(`"${value}" is not a kind of schedule: write payout or batch`);
  return kind;
}

function statesOption(value: string): ScheduleState[] {
  const states = value.split(',').map((s) => s.trim().toUpperCase()).filter(Boolean);
  const bad = states.filter((s) => !(STATES as readonly string[]).includes(s));
  if (bad.length > 0 || states.length === 0) throw new InvalidArgumentError(`must be some of ${STATES.join(', ')} (comma-separated)`);
  return states as ScheduleState[];
}

/** A --from/--to bound: an ISO time with its offset as it is, else a date or wall time in `zone`. */
function boundOption(label: string) {
  return (value: string): string => {
    const text = value.trim();
    if (!WALL_TIME.test(text) && Number.isNaN(Date.parse(text))) throw new InvalidArgumentError(`${label} must be a date (2026-12-24), a date and time (2026-12-24T09:00) or an ISO time`);
    return text;
  };
}

/** The instant a bound stands for: --to of a date alone takes in that whole day (the service's bounds are inclusive). */
export function boundInstant(text: string, zone: string, end: boolean): string {
  if (!WALL_TIME.test(text)) return new Date(Date.parse(text)).toISOString();
  const at = DateTime.fromISO(text.replace(' ', 'T'), { zone });
  if (!at.isValid) throw new CliUsageError(`"${text}" is not a date or time that exists in ${zone}`);
  const dateOnly = text.length === 10;
  return (end && dateOnly ? at.plus({ days: 1 }).minus({ milliseconds: 1 }) : at).toUTC().toISO()!;
}

const totalsText = (v: ScheduleView) => v.totals.map((t) => `${t.money.amount} ${t.money.currencyCode}${v.kind === 'batch' ? ` (${t.count})` : ''}`).join(', ') || '-';
const stateText = (v: ScheduleView) => (v.state === 'RELEASED' ? `RELEASED (${v.kind} ${v.subjectState})` : v.state);
const lateText = (v: ScheduleView) => v.lateBy?.replace(/^late by /, '') ?? '-';

export function listLines(list: ScheduleList): string[] {
  const lines = list.items.length === 0
    ? ['Nothing scheduled matches.']
    : table([['WHEN (ZONE)', 'KIND', 'ID', 'TITLE', 'TOTALS', 'STATE', 'LATE BY'], ...list.items.map((v) => [v.when, v.kind, v.id, v.title, totalsText(v), stateText(v), lateText(v)])]);
  if (list.forecast.length > 0) {
    lines.push('', `Funding forecast of the runs still to be released (days in ${list.zone}, against the balances last read):`);
    lines.push(...table([
      ['DATE', 'CUR', 'DUE', 'RUNS', 'DUE BY THEN', 'AVAILABLE', 'SHORT BY'],
      ...list.forecast.map((l) => [l.date, l.currencyCode, l.due.amount, String(l.count), l.cumulative.amount, l.available?.amount ?? 'unknown', l.shortBy?.amount ?? '-']),
    ]).map((l) => `  ${l}`));
  }
  for (const short of shortfallsOf(list.forecast)) lines.push(`warning: ${short}: top up before then, or move or cancel a run`);
  return lines;
}

export function showLines(v: ScheduleView): string[] {
  return [
    `Scheduled ${v.kind} ${v.id}  ${v.title}`,
    `  When:        ${v.when}  (${v.executeAt})`,
    `  State:       ${v.state}; the ${v.kind} is ${v.subjectState}`,
    `  Totals:      ${totalsText(v)}${v.kind === 'batch' ? `, ${plural(v.rows, 'row')}` : ''}`,
    ...(v.preparedBy ? [`  Prepared by: ${v.preparedBy} (only they move it)`] : []),
    ...(v.releasedAt ? [`  Released:    ${v.releasedAt} by ${v.releasedBy ?? 'a desk'}${v.lateBy ? `, ${v.lateBy}` : ''}`] : v.lateBy ? [`  Late:        ${v.lateBy}`] : []),
  ];
}

/** What a person can still do with it, as commands to paste. */
function hintLines(deps: CliDeps, v: ScheduleView): string[] {
  const ref = `${v.kind} ${v.id}`;
  if (v.state === 'LATE') return [`It is past its late window: it leaves only when a sender confirms it (${typedCommand(`schedule confirm-late ${ref}`, deps.env)}), or cancel it (${typedCommand(`schedule cancel ${ref}`, deps.env)}).`];
  if (v.state === 'SCHEDULED') return [`Released at its time by a sender desk; move it with ${typedCommand(`schedule move ${ref} --on <date[Ttime]>`, deps.env)}, or cancel it with ${typedCommand(`schedule cancel ${ref}`, deps.env)}.`];
  return [];
}

export function registerScheduleCommands(program: Command, deps: CliDeps): void {
  const schedule = program.command('schedule').description('the calendar: payouts and batches released at their date, the funding forecast, and moving, cancelling or confirming a late release');

  schedule
    .command('list')
    .description('scheduled payouts and batches by release time, then the funding forecast per currency and day')
    .option('--from <date>', 'released at or after this date or time (in the profile\'s zone), or an ISO time', boundOption('--from'))
    .option('--to <date>', 'released on or before this date (the whole day) or time', boundOption('--to'))
    .option('--state <states>', `only these states, comma-separated: ${STATES.join(', ')}`, statesOption)
    .action(async (o: { from?: string; to?: string; state?: ScheduleState[] }) => {
      const desk = deps.desk();
      const zone = profileZone(desk.profile);
      const list = await desk.call('schedules', 'list', {
        ...(o.from ? { from: boundInstant(o.from, zone, false) } : {}),
        ...(o.to ? { to: boundInstant(o.to, zone, true) } : {}),
        ...(o.state ? { states: o.state } : {}),
      });
      deps.print(listLines(list), { ...list, shortfalls: shortfallsOf(list.forecast) });
    });

  schedule
    .command('show <kind> <id>')
    .description('one scheduled payout or batch: its time, state, totals, who prepared it, when it was released')
    .action(async (kind: string, id: string) => {
      const view = await deps.desk().call('schedules', 'get', { kind: kindArgument(kind), id });
      deps.print([...showLines(view), ...hintLines(deps, view)], view);
    });

  // Dual control: --as names its preparer (they sign the new time; its approvals are asked again).
  actingOptions(schedule
    .command('move <kind> <id>')
    .description('release it at another time, before it has left (under dual control only its preparer moves it, and it is approved again)')
    .requiredOption('--on <date[Ttime]>', 'the new release time: 2026-12-24 (at 08:00) or 2026-12-24T09:00', wallTimeOption)
    .option('--zone <zone>', "the time zone of --on, e.g. Europe/Berlin (default: the profile's)"))
    .action(async (kind: string, id: string, o: ActingOptions & { on: string; zone?: string }) => {
      const desk = deps.desk();
      await workAs(deps, o);
      const ref = { kind: kindArgument(kind), id };
      const view = await desk.call('schedules', 'move', { ...ref, executeOn: { local: o.on, ...(o.zone ? { zone: o.zone } : {}) } });
      deps.print([`Moved ${ref.kind} ${id}: released on ${view.when}.`, ...showLines(view).slice(1), ...(await nextStepsOf(deps, ref, { unlessApproved: true }))], view);
    });

  schedule
    .command('cancel <kind> <id>')
    .description('cancel it before its release: a batch is cancelled with its rows, a payout discarded (never sent)')
    .option('--reason <text>', 'why (kept in the journal and the audit log)')
    .action(async (kind: string, id: string, o: { reason?: string }) => {
      const reason = o.reason?.trim();
      const view = await deps.desk().call('schedules', 'cancel', { kind: kindArgument(kind), id, ...(reason ? { reason } : {}) });
      deps.print([`Cancelled ${view.kind} ${id}: it was never sent.`, ...showLines(view).slice(1)], view);
    });

  // Dual control: --as names the sender (releasing sends).
  actingOptions(schedule
    .command('confirm-late <kind> <id>')
    .description('release now a run found past its late window (a desk was down at its time): a sender confirms it still should leave'))
    .action(async (kind: string, id: string, o: ActingOptions) => {
      const desk = deps.desk();
      await workAs(deps, o);
      const view = await desk.call('schedules', 'confirmLate', { kind: kindArgument(kind), id });
      const follow = view.kind === 'batch' ? `follow it with ${typedCommand(`batch status ${id}`, deps.env)}` : `follow it with ${typedCommand(`payouts get ${id}`, deps.env)}`;
      deps.print([`Released ${view.kind} ${id}${view.lateBy ? `, ${view.lateBy}` : ''}: it is being sent; ${follow}.`, ...showLines(view).slice(1)], view);
    });
}
