// CLI: `payees list|show|add|edit|approve|reject|withdraw|import|export`: the payee book through the handlers the
// screens call (payees:*, with the same guard, schema and error mapping: cli/desk.ts). Whoever acts names themselves
// with --as and gives their passphrase from a file or an environment variable, as the dual-control commands do; each
// command unlocks them at its desk (people:unlock) and locks again when it ends. Without --as nothing is unlocked,
// which is enough until the profile has people.
// The contract's answers mask account numbers (the screen needs only the ending); this command line prints them
// whole, so what it shows (`payees list|show`, and a payee after a change) it reads from the payee service that the
// handlers use, as it does to find a payee by name. An approval with a note stays on that service too
// (payees:approve takes none).
import { open } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import type { PayeeChangeOutcome, PayeeInputView } from '../../contract/api';
import { payeeService, type PayeeChangeResult, type PayeeService, type PayeeView } from '../desk/payees';
import { maskAccount } from '../payees/match';
import { actingAs, type ActingPerson } from './dual-control';
import { actingOptions, type ActingOptions } from './acting';
import { CliUsageError, type CliDeps } from './deps';
import { plural, writeOut } from './shared';

function payeeLine(p: PayeeView): string {
  const waiting = p.waiting ? `  CHANGE AWAITING APPROVAL (version ${p.waiting.version}: ${p.waiting.verdict.message})` : '';
  const ref = p.referenceDefault ? `  ref "${p.referenceDefault}"` : '';
  const problem = p.problem ? `  DOES NOT COUNT: ${p.problem}` : '';
  return `${p.id}  ${p.name}  ${p.accountNumber} (${p.operatorCode})  <${p.emailAddress}>${ref}  [${p.state}, version ${p.version}]${waiting}${problem}`;
}

function waitingLines(p: PayeeView): string[] {
  const w = p.waiting;
  if (!w) return [];
  const b = w.before;
  return [
    `  change awaiting approval: version ${w.version}${w.bankChange ? ' (bank details)' : ''}, change SHA-256 ${w.changeDigest}`,
    b ? `    from ${b.name}  ${maskAccount(b.accountNumber)} (${b.operatorCode})  <${b.emailAddress}>` : '    a new payee',
    `    to   ${w.after.name}  ${w.after.accountNumber} (${w.after.operatorCode})  <${w.after.emailAddress}>`,
    `    ${w.verdict.message}`,
    ...w.verdict.checks.map((c) => `      ${c.status.padEnd(20)} ${c.message}`),
  ];
}

type DetailOptions = { name?: string; account?: string; operator?: string; email?: string; reference?: string };

const detailOptions = (command: Command): Command =>
  command
    .option('--name <name>', "the payee's name (account name)")
    .option('--account <number>', 'account number or IBAN')
    .option('--operator <code>', 'payment operator code (e.g. EU_SEPA)')
    .option('--email <address>', "the payee's e-mail address")
    .option('--reference <text>', 'the reference new payouts to this payee start with ("" for none)');

const inputOf = (o: DetailOptions): PayeeInputView => ({
  ...(o.name !== undefined ? { name: o.name } : {}),
  ...(o.account !== undefined ? { accountNumber: o.account } : {}),
  ...(o.operator !== undefined ? { operatorCode: o.operator } : {}),
  ...(o.email !== undefined ? { emailAddress: o.email } : {}),
  ...(o.reference !== undefined ? { referenceDefault: o.reference } : {}),
});

export function registerPayeeCommands(program: Command, deps: CliDeps): void {
  let service: PayeeService | undefined;
  const svc = (): PayeeService => (service ??= payeeService(deps.runtime()));
  const profileId = () => deps.profile().id;
  const desk = () => deps.desk();

  /** With --as, that person unlocked at the desk for this command (people:unlock); without, nobody (enough before the profile has people). */
  const maybeAs = <T>(o: ActingOptions, work: (who: ActingPerson | null) => Promise<T>): Promise<T> => (o.as ? actingAs(deps, o, work) : work(null));

  /** A change's outcome with the payee as this command line shows it (account numbers whole). */
  const shown = async (outcome: PayeeChangeOutcome): Promise<PayeeChangeResult> => ({ payee: await svc().find(profileId(), outcome.payee.id), inForce: outcome.inForce, message: outcome.message });

  const payees = program.command('payees').description('the payee book: saved payees, changes of bank details under dual control, CSV import and export');

  payees
    .command('list')
    .description('payees in the book (in force, or awaiting approval), by name')
    .option('--all', 'also payees whose every version was closed (a rejected new payee)')
    .action(async (o: { all?: boolean }) => {
      const all = await svc().list(profileId(), { all: o.all });
      deps.print(all.length === 0 ? ['No payees yet (payees add, payees import)'] : all.map(payeeLine), all);
    });

  payees
    .command('show <payee>')
    .description('one payee (id or name): its details in force, every version, and a change awaiting approval')
    .action(async (named: string) => {
      const p = await svc().find(profileId(), named);
      const versions = await svc().versions(profileId(), p.id);
      deps.print(
        [
          payeeLine(p),
          ...waitingLines(p),
          '  versions:',
          ...versions.map((v) => `    ${v.version}  ${v.name}  ${v.accountNumber} (${v.operatorCode})  <${v.emailAddress}>  ${v.effectiveAt !== null ? `in force from ${new Date(v.effectiveAt).toISOString()}` : 'never in force'}${v.closedAt !== null ? `, ${v.closeReason} ${new Date(v.closedAt).toISOString()}` : ''}  (${v.source}${v.sourceRef ? ` ${v.sourceRef}` : ''})`),
        ],
        { payee: p, versions },
      );
    });

  actingOptions(detailOptions(payees.command('add').description('save a payee by hand, or from a payout of the journal (--from-payout; a batch row is a payout too)')).option('--from-payout <id>', 'take the details from this payout'))
    .action(async (o: ActingOptions & DetailOptions & { fromPayout?: string }) => {
      const input = inputOf(o);
      if (o.fromPayout && Object.keys(input).length > 0) throw new CliUsageError('--from-payout takes every detail from the payout: give no --name, --account, --operator, --email or --reference with it');
      const fromPayout = o.fromPayout;
      const outcome = await maybeAs(o, () =>
        fromPayout
          ? desk().call('payees', 'addFromPayout', { idPayout: fromPayout })
          // A detail not given goes as an empty field, as the screen's form sends it: the payee book says it is required.
          : desk().call('payees', 'add', { ...input, name: input.name ?? '', accountNumber: input.accountNumber ?? '', operatorCode: input.operatorCode ?? '', emailAddress: input.emailAddress ?? '' }),
      );
      const result = await shown(outcome);
      deps.print([`Added ${payeeLine(result.payee)}`, result.message], result);
      if (!result.inForce) deps.setExitCode(3);
    });

  actingOptions(detailOptions(payees.command('edit <payee>').description('change a payee (id or name); a change of account or operator waits for approval once dual control is on')))
    .action(async (named: string, o: ActingOptions & DetailOptions) => {
      const input = inputOf(o);
      if (Object.keys(input).length === 0) throw new CliUsageError('Say what changes: --name, --account, --operator, --email or --reference');
      const target = await svc().find(profileId(), named);
      const result = await shown(await maybeAs(o, () => desk().call('payees', 'edit', { payeeId: target.id, ...input })));
      deps.print([`Changed ${payeeLine(result.payee)}`, ...waitingLines(result.payee), result.message], result);
      if (!result.inForce) deps.setExitCode(3);
    });

  for (const decision of ['approve', 'reject'] as const) {
    const command = actingOptions(payees.command(`${decision} <payee>`).description(`${decision} the change of a payee's details awaiting approval, as an approver (--as), signing its digest`));
    if (decision === 'reject') command.requiredOption('--reason <text>', 'why it is rejected');
    else command.option('--reason <text>', 'a note');
    command.action(async (named: string, o: ActingOptions & { reason?: string }) => {
      if (!o.as) throw new CliUsageError('Say who decides: --as <person> with --passphrase-env or --passphrase-file');
      const target = await svc().find(profileId(), named);
      const result = await actingAs(deps, o, async (who) => {
        if (decision === 'approve' && o.reason !== undefined) {
          // payees:approve takes no note: an approval with one is signed by the payee service itself.
          const session = desk().runtime.sessionFor(profileId());
          if (!session) throw new Error(`${who.name} is not unlocked at this desk`);
          return svc().decide(profileId(), target.id, decision, o.reason, session);
        }
        // payees:approve asks for the passphrase again, as the screen does: a desk left unlocked does not approve on its own.
        return shown(decision === 'approve'
          ? await desk().call('payees', 'approve', { payeeId: target.id, passphrase: who.passphrase })
          : await desk().call('payees', 'reject', { payeeId: target.id, reason: o.reason ?? '' }));
      });
      deps.print([result.message, payeeLine(result.payee), ...waitingLines(result.payee)], result);
    });
  }

  actingOptions(payees.command('withdraw <payee>').description('take back the change of a payee awaiting approval (a preparer, --as); the details in force stay'))
    .action(async (named: string, o: ActingOptions) => {
      const target = await svc().find(profileId(), named);
      const result = await shown(await maybeAs(o, () => desk().call('payees', 'withdraw', { payeeId: target.id })));
      deps.print([result.message, payeeLine(result.payee)], result);
    });

  actingOptions(payees.command('import <file>').description('payees from a CSV file (the payout CSV columns: accountName, accountNumber, paymentOperatorCode, emailAddress, reference); nothing is imported when any row is bad'))
    .action(async (file: string, o: ActingOptions) => {
      try {
        await (await open(file, 'r')).close();
      } catch (e) {
        throw new CliUsageError(`Cannot read ${file}: ${e instanceof Error ? e.message : String(e)}`);
      }
      // Handed over like a dropped file: payees:import reads only files main granted.
      const granted = await desk().call('app', 'fileDropped', { purpose: 'csv', path: resolve(file) });
      const { fileName: _fileName, ...result } = await maybeAs(o, () => desk().call('payees', 'import', { source: { kind: 'granted', token: granted.token } }));
      if (!result.imported) {
        deps.print([`Nothing was imported: ${plural(result.errors.length, 'problem')}`, ...result.errors.map((e) => `  row ${e.rowNumber}${e.column ? ` (${e.column})` : ''}: ${e.message}`)], result);
        deps.setExitCode(1);
        return;
      }
      deps.print(
        `Imported: ${result.added} added, ${result.changed} changed, ${result.awaitingApproval} awaiting approval, ${result.unchanged} unchanged${result.repeated ? `, ${plural(result.repeated, 'repeated row')} skipped` : ''}`,
        result,
      );
      if (result.awaitingApproval > 0) deps.setExitCode(3);
    });

  payees
    .command('export')
    .description('the payees in force as CSV (cells a spreadsheet would run as formulas are neutralised; imports back as is)')
    .option('--out <file>', 'write to this file instead of standard output')
    .option('--force', 'overwrite the --out file if it exists')
    .action(async (o: { out?: string; force?: boolean }) => {
      const file = await desk().call('payees', 'export', undefined);
      await writeOut(deps, o.out, o.force, file, { fileName: file.fileName, rows: file.rows });
    });
}
