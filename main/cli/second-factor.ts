// CLI: `people second-factor status|enrol|confirm|remove` — a person sets up their second factor at their own
// desk, through the same people:* verbs as the People screen. `enrol` prints the otpauth URI, its secret and a
// QR code for the terminal; `confirm` takes the first code the app shows and prints the ten recovery codes, once.
// Codes come from --code-env or --code-file, never from the command line (a shell's history keeps argv).
import type { Command } from 'commander';
import type { SecondFactorView } from '../../contract/api';
import { secondFactorCode, secondFactorOptions, type ActingOptions } from './acting';
import type { ActingPerson } from './dual-control';
import { CliUsageError, type CliDeps } from './deps';

type ActingAs = <T>(o: ActingOptions, work: (who: ActingPerson) => Promise<T>) => Promise<T>;

const personOptions = (command: Command): Command =>
  command
    .option('--as <person>', 'whose second factor: person id or name (at their own desk)')
    .option('--passphrase-env <name>', 'environment variable holding the passphrase of --as')
    .option('--passphrase-file <file>', 'file whose first line is the passphrase of --as');

function viewLines(name: string, v: SecondFactorView): string[] {
  const asked = [v.onApprove ? 'approvals' : null, v.onAdmin ? 'admin changes' : null].filter(Boolean).join(' and ');
  return [
    v.enrolled ? `${name} has a second factor on this desk (${v.recoveryCodesLeft ?? 0} recovery codes left)` : `${name} has no second factor on this desk`,
    asked ? `  asked on ${asked}` : '  asked on nothing on this profile now',
  ];
}

export function registerSecondFactorCommands(people: Command, deps: CliDeps, actingAs: ActingAs): void {
  const desk = () => deps.desk();
  // The code given to these verbs is theirs to use: it is not checked at unlock (the person may have none yet).
  const withoutCode = (o: ActingOptions): ActingOptions => ({ as: o.as, passphraseEnv: o.passphraseEnv, passphraseFile: o.passphraseFile });
  const factor = people.command('second-factor').description('your second factor (an authenticator app\'s codes) on approvals and admin changes');

  personOptions(factor.command('status').description('whether --as has a second factor here, and which actions ask for it'))
    .action(async (o: ActingOptions) => {
      const { who, view } = await actingAs(withoutCode(o), async (who) => ({ who, view: await desk().call('people', 'secondFactor', undefined) }));
      deps.print(viewLines(who.name, view), view);
    });

  personOptions(factor.command('enrol').alias('enroll').description('start setting up: prints a QR code and secret for your authenticator app; then "people second-factor confirm"'))
    .action(async (o: ActingOptions) => {
      const { who, start } = await actingAs(withoutCode(o), async (who) => ({ who, start: await desk().call('people', 'beginSecondFactor', undefined) }));
      // Loaded here: the QR encoder is needed by this one command.
      const { toString } = await import('qrcode');
      const qr = deps.json() ? '' : await toString(start.uri, { type: 'terminal', small: true });
      deps.print([
        `Scan this with ${who.name}'s authenticator app (or type the secret ${start.secret}):`,
        qr.trimEnd(),
        `  ${start.uri}`,
        `Then, before ${start.expiresAt}, confirm with the code the app shows:`,
        `  people second-factor confirm --as ${who.name} --passphrase-env <VAR> --code-env <VAR>`,
      ], { uri: start.uri, secret: start.secret, expiresAt: start.expiresAt });
    });

  secondFactorOptions(personOptions(factor.command('confirm').description('finish setting up with the code the app shows; prints the ten recovery codes, once')))
    .action(async (o: ActingOptions) => {
      const code = await secondFactorCode(deps, o);
      if (code === undefined) throw new CliUsageError('Give the code your authenticator app shows with --code-env or --code-file');
      const { who, done } = await actingAs(withoutCode(o), async (who) => ({ who, done: await desk().call('people', 'confirmSecondFactor', { code }) }));
      deps.print([
        ...viewLines(who.name, done.view),
        'Recovery codes (each works once in place of the app; they are shown only now: store them where you keep passwords):',
        ...done.recoveryCodes.map((c) => `  ${c}`),
      ], done);
    });

  secondFactorOptions(personOptions(factor.command('remove').description('remove your second factor (needs one of its codes; refused while the policy requires one)')))
    .action(async (o: ActingOptions) => {
      const code = await secondFactorCode(deps, o);
      if (code === undefined) throw new CliUsageError('Give a code of the second factor with --code-env or --code-file');
      const { who, view } = await actingAs(withoutCode(o), async (who) => ({ who, view: await desk().call('people', 'removeSecondFactor', { code }) }));
      deps.print([`Removed ${who.name}'s second factor`, ...viewLines(who.name, view)], view);
    });
}
