// CLI: `payees list|show|add|edit|approve|reject|withdraw|import|export`: the payee book over the same services
// the screens will use (main/desk/payees.ts). Whoever acts names themselves with --as and gives their
// passphrase from a file or an environment variable, as the dual-control commands do; each command
// unlocks for itself and locks again when it ends. Without --as nothing is unlocked, which is enough until
// the profile has people.
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import type { Command } from 'commander';
import { dualControlService } from '../desk/dual-control';
import { payeeService, type PayeeInput, type PayeeService, type PayeeView } from '../desk/payees';
import type { UnlockedSession } from '../people/key-vault';
import { maskAccount } from '../payees/match';
import { actingOptions, unlockAs, type ActingOptions } from './dual-control';
import { CliUsageError, type CliDeps } from './deps';
import { writeOut } from './shared';

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

const inputOf = (o: DetailOptions): PayeeInput => ({
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

  /** With --as, unlocks that person for this command; without, nobody (enough before the profile has people). */
  const maybeAs = async <T>(o: ActingOptions, work: (s: UnlockedSession | null) => Promise<T>): Promise<T> => {
    if (!o.as) return work(null);
    const session = await unlockAs(deps, dualControlService(deps.runtime()), o);
    try {
      return await work(session);
    } finally {
      session.lock();
    }
  };

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
      const result = await maybeAs(o, (s) => (o.fromPayout ? svc().addFromPayout(profileId(), o.fromPayout, s) : svc().add(profileId(), input, s)));
      deps.print([`Added ${payeeLine(result.payee)}`, result.message], result);
      if (!result.inForce) deps.setExitCode(3);
    });

  actingOptions(detailOptions(payees.command('edit <payee>').description('change a payee (id or name); a change of account or operator waits for approval once dual control is on')))
    .action(async (named: string, o: ActingOptions & DetailOptions) => {
      const input = inputOf(o);
      if (Object.keys(input).length === 0) throw new CliUsageError('Say what changes: --name, --account, --operator, --email or --reference');
      const target = await svc().find(profileId(), named);
      const result = await maybeAs(o, (s) => svc().edit(profileId(), target.id, input, s));
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
      const result = await maybeAs(o, (s) => svc().decide(profileId(), target.id, decision, o.reason ?? null, s!));
      deps.print([result.message, payeeLine(result.payee), ...waitingLines(result.payee)], result);
    });
  }

  actingOptions(payees.command('withdraw <payee>').description('take back the change of a payee awaiting approval (a preparer, --as); the details in force stay'))
    .action(async (named: string, o: ActingOptions) => {
      const target = await svc().find(profileId(), named);
      const result = await maybeAs(o, (s) => svc().withdraw(profileId(), target.id, s));
      deps.print([result.message, payeeLine(result.payee)], result);
    });

  actingOptions(payees.command('import <file>').description('payees from a CSV file (the payout CSV columns: accountName, accountNumber, paymentOperatorCode, emailAddress, reference); nothing is imported when any row is bad'))
    .action(async (file: string, o: ActingOptions) => {
      let bytes: Buffer;
      try {
        bytes = await readFile(file);
      } catch (e) {
        throw new CliUsageError(`Cannot read ${file}: ${e instanceof Error ? e.message : String(e)}`);
      }
      const result = await maybeAs(o, (s) => svc().importCsv(profileId(), bytes, basename(file), s));
      if (!result.imported) {
        deps.print([`Nothing was imported: ${result.errors.length} problem(s)`, ...result.errors.map((e) => `  row ${e.rowNumber}${e.column ? ` (${e.column})` : ''}: ${e.message}`)], result);
        deps.setExitCode(1);
        return;
      }
      deps.print(
        `Imported: ${result.added} added, ${result.changed} changed, ${result.awaitingApproval} awaiting approval, ${result.unchanged} unchanged${result.repeated ? `, ${result.repeated} repeated row(s) skipped` : ''}`,
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
      const file = await svc().exportCsv(profileId());
      await writeOut(deps, o.out, o.force, file, { fileName: file.fileName, rows: file.rows });
    });
}
