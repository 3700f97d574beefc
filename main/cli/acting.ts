// Who acts in a command, once dual control is on: --as names a person of the profile and --passphrase-*
// (or --as-passphrase-*) says where their passphrase is. Kept apart from main/cli/dual-control.ts: the
// profile and team commands take these options too, and registering them must not load the dual-control
// service (issue 26: a light command starts without the desk). actAs loads it when someone acts.
import type { Command } from 'commander';
import type { PersonView } from '../desk/dual-control';
import { CliUsageError, type CliDeps } from './deps';
import { readSecretInput } from './shared';

export interface ActingOptions {
  as?: string;
  passphraseEnv?: string;
  passphraseFile?: string;
  /** Where a code of --as's second factor is (approvals and admin changes may ask for one). */
  codeEnv?: string;
  codeFile?: string;
}

export const actingOptions = (command: Command): Command => secondFactorOptions(
  command
    .option('--as <person>', 'who acts: person id or name')
    .option('--passphrase-env <name>', 'environment variable holding the passphrase of --as')
    .option('--passphrase-file <file>', 'file whose first line is the passphrase of --as'),
);

/** A code of the person's authenticator app (or a recovery code): from the environment or a file, never argv. */
export const secondFactorOptions = (command: Command): Command =>
  command
    .option('--code-env <name>', "environment variable holding a code of --as's second factor (the authenticator app's, or a recovery code)")
    .option('--code-file <file>', "file whose first line is a code of --as's second factor");

/** The code the options point at, if any. */
export async function secondFactorCode(deps: CliDeps, o: ActingOptions): Promise<string | undefined> {
  const code = await readSecretInput(deps, { file: o.codeFile, env: o.codeEnv }, 'second-factor code');
  return code?.trim();
}

/** A person of the profile by id or by name (ignoring case); a clear error for none or several. */
export async function personNamed(deps: CliDeps, profileId: string, named: string): Promise<PersonView> {
  const { dualControlService } = await import('../desk/dual-control');
  const people = await dualControlService(deps.runtime()).listPeople(profileId);
  const byName = people.filter((p) => p.name.toLowerCase() === named.trim().toLowerCase());
  const found = people.find((p) => p.id === named) ?? (byName.length === 1 ? byName[0] : undefined);
  if (found) return found;
  throw new CliUsageError(byName.length > 1 ? `Several people are named "${named}"; give the id (people list)` : `No person "${named}" on this profile (people list)`);
}

/** Who --as names and their passphrase, from where the options say (the option names differ where --passphrase-* means a key's own). */
export interface PersonSource {
  named?: string;
  file?: string;
  env?: string;
}

/**
 * Unlocks the person named for this command on `profileId`, as the one working at the desk (the runtime locks
 * them when the command ends). Nothing without a name: enough while the profile has no dual control.
 */
export async function actAs(deps: CliDeps, profileId: string, who: PersonSource, options: string): Promise<void> {
  if (!who.named) return;
  const passphrase = await readSecretInput(deps, { file: who.file, env: who.env }, 'passphrase of --as');
  if (passphrase === undefined) throw new CliUsageError(`Give the passphrase of --as with ${options}`);
  const person = await personNamed(deps, profileId, who.named);
  const { dualControlService } = await import('../desk/dual-control');
  deps.runtime().setSession(profileId, await dualControlService(deps.runtime()).unlock(profileId, person.id, passphrase));
}
