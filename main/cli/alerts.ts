// CLI: `people alerts` — the kinds of alert --as gets at this desk, and `--mute`/`--unmute` a kind (people:alerts,
// people:muteAlert, as the People screen's switches).
import type { Command } from 'commander';
import { ALERT_KINDS, type AlertKind, type AlertKindView } from '../../contract/api';
import type { ActingOptions } from './acting';
import type { ActingPerson } from './dual-control';
import { CliUsageError, type CliDeps } from './deps';

type ActingAs = <T>(o: ActingOptions, work: (who: ActingPerson) => Promise<T>) => Promise<T>;

const kindOf = (value: string): AlertKind => {
  if ((ALERT_KINDS as readonly string[]).includes(value)) return value as AlertKind;
  throw new CliUsageError(`"${value}" is not a kind of alert: ${ALERT_KINDS.join(', ')}`);
};

export function registerAlertCommands(people: Command, deps: CliDeps, actingAs: ActingAs): void {
  people
    .command('alerts')
    .description('the alerts --as gets at this desk (desktop notifications of the app); mute or unmute a kind')
    .option('--as <person>', 'whose alerts: person id or name')
    .option('--passphrase-env <name>', 'environment variable holding the passphrase of --as')
    .option('--passphrase-file <file>', 'file whose first line is the passphrase of --as')
    .option('--mute <kind>', `stop this kind of alert (${ALERT_KINDS.join(', ')})`)
    .option('--unmute <kind>', 'get this kind of alert again')
    .action(async (o: ActingOptions & { mute?: string; unmute?: string }) => {
      if (o.mute && o.unmute) throw new CliUsageError('Give --mute or --unmute, not both');
      const change = o.mute ? { kind: kindOf(o.mute), muted: true } : o.unmute ? { kind: kindOf(o.unmute), muted: false } : null;
      const { who, views } = await actingAs({ as: o.as, passphraseEnv: o.passphraseEnv, passphraseFile: o.passphraseFile }, async (who) => ({
        who,
        views: change ? await deps.desk().call('people', 'muteAlert', change) : await deps.desk().call('people', 'alerts', undefined),
      }));
      deps.print([`Alerts for ${who.name} at this desk:`, ...views.map((v: AlertKindView) => `  ${v.muted ? 'muted' : 'on   '}  ${v.kind.padEnd(16)} ${v.label}`)], views);
    });
}
