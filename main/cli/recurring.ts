// CLI: `recurring list|add|pause|resume|skip|end|run`: recurring payouts (the Payees screen's twin) through the handlers
// the screens call (recurring:*, cli/desk.ts). Under dual control each occurrence is prepared by the person who added
// the template while they are unlocked at a desk: `recurring add --as <preparer>` makes the dates already within the
// lead days at once, and `recurring run --as <them>` makes those that came within it since (the app does so on
// unlock and every few minutes). A payee is named by id or name, as `payees` takes it.
import type { Command } from 'commander';
import type { RecurringInput, RecurringRunResult, RecurringState, RecurringView } from '../../contract/api';
import { payeeService, type PayeeService } from '../desk/payees';
import { actingOptions, type ActingOptions } from './acting';
import { actingAs } from './dual-control';
import { CliUsageError, type CliDeps } from './deps';

function templateLine(t: RecurringView): string {
  const end = t.end ? `, ${t.end}` : '';
  const next = t.next ? `  next ${t.next.date} (made from ${t.next.madeFrom.slice(0, 16).replace('T', ' ')} UTC)` : '  no next date';
  const ref = t.referencePattern ? `  ref "${t.referencePattern}"` : '';
  return `${t.id}  ${t.payeeName ?? `(payee ${t.payeeId} has no details in force)`}  ${t.money.amount} ${t.money.currencyCode}  ${t.ruleText} at ${t.timeOfDay} ${t.zone}${end}, made ${t.leadDays} day${t.leadDays === 1 ? '' : 's'} ahead${ref}  [${t.state}]${next}`;
}

function occurrenceLines(t: RecurringView): string[] {
  return t.occurrences.map((o) => `    ${o.date}  ${o.state.padEnd(8)} ${o.payoutId ?? ''}${o.reason ? `  ${o.reason}` : ''}`);
}

function runLines(r: RecurringRunResult): string[] {
  return [
    ...r.created.map((c) => `Made ${c.payoutId} for ${c.date} (recurring ${c.templateId}): scheduled, it waits for its approvals and its release`),
    ...r.missed.map((m) => `MISSED ${m.date} of recurring ${m.templateId}: its release passed before anyone could prepare it; pay it by hand if it is owed`),
    ...r.failed.map((f) => `FAILED ${f.date} of recurring ${f.templateId}: ${f.reason}`),
    ...(r.waiting ? [`Nothing could be made here now: ${r.waiting}`] : []),
    ...(r.created.length + r.missed.length + r.failed.length === 0 && !r.waiting ? ['Nothing is due within its lead days'] : []),
  ];
}

const positiveInt = (what: string) => (text: string): number => {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) throw new CliUsageError(`${what} must be a whole number of 1 or more`);
  return n;
};

export function registerRecurringCommands(program: Command, deps: CliDeps): void {
  let payees: PayeeService | undefined;
  const payeeSvc = (): PayeeService => (payees ??= payeeService(deps.runtime()));
  const profileId = () => deps.profile().id;
  const desk = () => deps.desk();
  /** With --as, that person unlocked at the desk for this command; without, nobody (enough before the profile has people). */
  const maybeAs = <T>(o: ActingOptions, work: () => Promise<T>): Promise<T> => (o.as ? actingAs(deps, o, work) : work());

  const recurring = program.command('recurring').description('recurring payouts: a payee paid an amount on the dates of a rule, each date its own scheduled payout made days ahead');

  recurring
    .command('list')
    .description('recurring payouts, oldest first, with the dates made, skipped or missed')
    .option('--payee <payee>', 'only those of this payee (id or name)')
    .option('--state <state>', 'only ACTIVE, PAUSED or ENDED ones')
    .action(async (o: { payee?: string; state?: string }) => {
      const state = o.state?.toUpperCase();
      if (state !== undefined && !['ACTIVE', 'PAUSED', 'ENDED'].includes(state)) throw new CliUsageError('--state is ACTIVE, PAUSED or ENDED');
      const payeeId = o.payee ? (await payeeSvc().find(profileId(), o.payee)).id : undefined;
      const { items } = await desk().call('recurring', 'list', { ...(payeeId ? { payeeId } : {}), ...(state ? { states: [state as RecurringState] } : {}) });
      deps.print(items.length === 0 ? ['No recurring payouts (recurring add)'] : items.flatMap((t) => [templateLine(t), ...occurrenceLines(t)]), items);
    });

  actingOptions(
    recurring
      .command('add')
      .description('pay a payee of the book an amount on the dates of a rule; each date becomes a scheduled payout --lead-days before it')
      .requiredOption('--payee <payee>', 'the payee (id or name): its details in force when each date is made')
      .requiredOption('--amount <decimal>', 'amount in the currency, e.g. 1250.00')
      .requiredOption('--currency <code>', 'currency code, e.g. EUR')
      .requiredOption('--rule <rule>', '"monthly 25" (the last day of a shorter month), "monthly last-business-day" (Mon–Fri) or "weekly fri"')
      .option('--reference <pattern>', 'the reference, the date filling braces: "Rent {yyyy-MM}" (the payee\'s default when absent)')
      .option('--start <date>', 'first date it may pay on (yyyy-MM-dd; today by default)')
      .option('--count <n>', 'ends after this many payments (skipped ones count)', positiveInt('--count'))
      .option('--until <date>', 'ends after this date (yyyy-MM-dd)')
      .option('--time <HH:mm>', 'when each payment releases, in the zone (08:00 by default)')
      .option('--zone <zone>', "IANA time zone (the profile's by default)")
      .option('--lead-days <n>', 'days before its release each payment is made, to be approved in time (5 by default)', positiveInt('--lead-days')),
  ).action(async (o: ActingOptions & { payee: string; amount: string; currency: string; rule: string; reference?: string; start?: string; count?: number; until?: string; time?: string; zone?: string; leadDays?: number }) => {
    if (o.count !== undefined && o.until !== undefined) throw new CliUsageError('Give --count or --until, not both');
    const payee = await payeeSvc().find(profileId(), o.payee);
    const input: RecurringInput = {
      payeeId: payee.id, amount: o.amount, currencyCode: o.currency.toUpperCase(), rule: o.rule,
      ...(o.reference !== undefined ? { reference: o.reference } : {}), ...(o.start ? { start: o.start } : {}), ...(o.count !== undefined ? { endCount: o.count } : {}),
      ...(o.until ? { endUntil: o.until } : {}), ...(o.time ? { timeOfDay: o.time } : {}), ...(o.zone ? { zone: o.zone } : {}), ...(o.leadDays !== undefined ? { leadDays: o.leadDays } : {}),
    };
    const t = await maybeAs(o, () => desk().call('recurring', 'add', input));
    deps.print([`Added ${templateLine(t)}`, ...occurrenceLines(t)], t);
  });

  const change = (verb: 'pause' | 'resume' | 'end', description: string) =>
    actingOptions(recurring.command(`${verb} <id>`).description(description)).action(async (id: string, o: ActingOptions) => {
      const t = await maybeAs(o, () => desk().call('recurring', verb, { id }));
      deps.print([templateLine(t)], t);
    });
  change('pause', 'make no new dates until resumed (those made already stay scheduled: cancel them with schedule cancel)');
  change('resume', 'make dates again (those whose release passed while paused are not made)');
  change('end', 'end it for good: no new dates (those made already stay scheduled)');

  actingOptions(recurring.command('skip <id> <date>').description('do not pay one date (yyyy-MM-dd) of it; a date whose payout is made is cancelled with schedule cancel').option('--reason <text>', 'why'))
    .action(async (id: string, date: string, o: ActingOptions & { reason?: string }) => {
      const t = await maybeAs(o, () => desk().call('recurring', 'skip', { id, date, ...(o.reason ? { reason: o.reason } : {}) }));
      deps.print([`Skipped ${date}: ${templateLine(t)}`], t);
    });

  actingOptions(recurring.command('run [id]').description("make the dates now within their lead days (under dual control: the template's maker, with --as)"))
    .action(async (id: string | undefined, o: ActingOptions) => {
      const result = await maybeAs(o, () => desk().call('recurring', 'run', id ? { id } : {}));
      deps.print(runLines(result), result);
      if (result.waiting) deps.setExitCode(3);
    });
}
