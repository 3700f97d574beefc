// CLI: `profiles add|list|use|show|edit|remove` (and `profiles team …`, main/cli/team.ts; `profiles smtp …`, main/cli/smtp.ts). Profiles hold no secrets; keys and the deprecated
// secret are handled by `keys …`. `edit` passes the named fields through the profile store's update
// (the same validation as the app's settings; the environment is fixed at creation); `remove` keeps the
// journal unless --delete-journal, and needs an admin (--as) once dual control is on.
import { type Command, InvalidArgumentError } from 'commander';
import { CliUsageError, startsLight, type CliDeps } from './deps';
import { DeskError } from '../desk/services';
import type { Profile, ProfilePatch } from '../profiles/profile-schema';
import { askYesNo, intOption } from './shared';
import { assertKeychainReachable } from '../keys/key-store';
import { registerTeamCommands } from './team';
import { registerSmtpCommands } from './smtp';
import { registerIso20022Commands } from './iso20022';
import { actAs, actingOptions, type ActingOptions } from './acting';

function choice<T extends string>(allowed: readonly T[]) {
  return (value: string): T => {
    const v = value.trim();
    const match = allowed.find((a) => a.toLowerCase() === v.toLowerCase());
    if (!match) throw new InvalidArgumentError(`must be one of ${allowed.join(', ')}`);
    return match;
  };
}

/** A profile as shown to people and scripts: no secrets exist here, the deprecated-secret opt-in is flagged. */
export function profileView(p: Profile, currentId: string | null): Record<string, unknown> {
  // The callback path secret is shown only inside the URL the gateway is given (`callbacks show`).
  const { callbackSecret: _secret, ...shown } = p;
  return { current: p.id === currentId, ...shown, useDeprecatedSecret: p.useDeprecatedSecret ? 'yes (DEPRECATED authentication)' : false };
}

function profileLines(p: Profile, currentId: string | null): string[] {
  return [
    `${p.id === currentId ? '* ' : '  '}${p.id}  "${p.name}"  [${p.environment}]${p.isDemo ? ' (demo)' : ''}`,
    `    gateway ${p.baseUrl}  merchant ${p.merchantCode}  API v${p.apiMajorVersion}  ${p.rateLimitPerSec} req/s  timestamps in ${p.timestampUnit}`,
    `    active key ${p.activeKeyId ?? '(none: run "keys generate")'}${p.useDeprecatedSecret ? '  auth: merchant secret (DEPRECATED)' : ''}`,
  ];
}

/** "none" removes a value (a ceiling, a callback URL). Kept as the word here: commander turns a null from a parser into "". */
const NONE = 'none';
const isNone = (value: string) => value.trim().toLowerCase() === NONE;
function intOrNone(label: string) {
  const int = intOption(label);
  return (value: string): number | typeof NONE => (isNone(value) ? NONE : int(value));
}

interface EditOptions {
  name?: string;
  baseUrl?: string;
  merchantCode?: string;
  environment?: 'TEST' | 'LIVE';
  apiVersion?: number;
  timestampUnit?: 'ms' | 's';
  rateLimit?: number;
  tokenValidity?: number;
  pollInterval?: number;
  idleLock?: number;
  maxAmountMinor?: number | typeof NONE;
  repeatWindow?: number;
  timeZone?: string;
  lateWindow?: number;
  callbacks?: 'on' | 'off';
  callbackHost?: string;
  callbackPort?: number;
  callbackUrl?: string;
}

/** Only the fields given on the command line: the others keep their values. */
function patchOf(o: EditOptions): ProfilePatch {
  const patch: ProfilePatch = {};
  if (o.name !== undefined) patch.name = o.name;
  if (o.baseUrl !== undefined) patch.baseUrl = o.baseUrl;
  if (o.merchantCode !== undefined) patch.merchantCode = o.merchantCode;
  if (o.environment !== undefined) patch.environment = o.environment;
  if (o.apiVersion !== undefined) patch.apiMajorVersion = o.apiVersion;
  if (o.timestampUnit !== undefined) patch.timestampUnit = o.timestampUnit;
  if (o.rateLimit !== undefined) patch.rateLimitPerSec = o.rateLimit;
  if (o.tokenValidity !== undefined) patch.tokenValiditySecs = o.tokenValidity;
  if (o.pollInterval !== undefined) patch.pollIntervalSecs = o.pollInterval;
  if (o.idleLock !== undefined) patch.idleLockMinutes = o.idleLock;
  if (o.maxAmountMinor !== undefined) patch.maxAmountMinor = o.maxAmountMinor === NONE ? null : o.maxAmountMinor;
  if (o.repeatWindow !== undefined) patch.repeatWindowDays = o.repeatWindow;
  // "machine": the computer's own zone, whichever it is then (stored as '').
  if (o.timeZone !== undefined) patch.timeZone = o.timeZone.trim().toLowerCase() === 'machine' ? '' : o.timeZone.trim();
  if (o.lateWindow !== undefined) patch.lateReleaseWindowMinutes = o.lateWindow;
  if (o.callbacks !== undefined) patch.callbackEnabled = o.callbacks === 'on';
  if (o.callbackHost !== undefined) patch.callbackHost = o.callbackHost;
  if (o.callbackPort !== undefined) patch.callbackPort = o.callbackPort;
  if (o.callbackUrl !== undefined) patch.callbackUrl = isNone(o.callbackUrl) ? null : o.callbackUrl;
  return patch;
}

export function registerProfileCommands(program: Command, deps: CliDeps): void {
  const profiles = program.command('profiles').description('gateway profiles (one merchant on one gateway each)');

  startsLight(profiles
    .command('add')
    .description('add a profile; the first one becomes current')
    .requiredOption('--name <name>', 'display name, e.g. "Shop EU (live)"')
    .requiredOption('--base-url <url>', 'gateway base address, e.g. https://gateway.example.com')
    .requiredOption('--merchant-code <code>', 'merchant code from enrollment')
    .option('--id <id>', 'profile id (default: derived from the name)')
    .option('--environment <env>', 'TEST or LIVE', choice(['TEST', 'LIVE'] as const), 'TEST')
    .option('--api-version <major>', 'API major version sent as X-API-Version', intOption('API version'), 2)
    .option('--timestamp-unit <unit>', 'token request timestamp unit: ms or s', choice(['ms', 's'] as const), 'ms')
    .option('--rate-limit <perSec>', 'requests per second the gateway allows', intOption('rate limit'), 10)
    .option('--token-validity <secs>', 'validity of general tokens in seconds', intOption('token validity'), 900)
    .option('--max-amount-minor <minor>', 'largest amount of one payout, in minor units', intOption('maximum amount'))
    .option('--use', 'make it the current profile')
    .action(async (o: { name: string; baseUrl: string; merchantCode: string; id?: string; environment: 'TEST' | 'LIVE'; apiVersion: number; timestampUnit: 'ms' | 's'; rateLimit: number; tokenValidity: number; maxAmountMinor?: number; use?: boolean }) => {
      // Adding a profile is audited in its journal, sealed with a key from the keychain: check it first.
      await assertKeychainReachable(deps.profileContext().keyStore);
      const store = deps.profileContext().profiles;
      const p = store.add({
        ...(o.id ? { id: o.id } : {}),
        name: o.name,
        baseUrl: o.baseUrl,
        merchantCode: o.merchantCode,
        environment: o.environment,
        apiMajorVersion: o.apiVersion,
        timestampUnit: o.timestampUnit,
        rateLimitPerSec: o.rateLimit,
        tokenValiditySecs: o.tokenValidity,
        maxAmountMinor: o.maxAmountMinor ?? null,
      });
      if (o.use) store.setCurrent(p.id);
      const current = store.currentId();
      deps.print([`Added profile ${p.id}${current === p.id ? ' (current)' : ''}`, ...profileLines(p, current), 'Next: keys generate, then give the key letter (keys letter) to the platform.'], profileView(p, current));
    }));

  startsLight(profiles
    .command('list')
    .description('list profiles; * marks the current one')
    .action(() => {
      const store = deps.profileContext().profiles;
      const current = store.currentId();
      const all = store.list();
      deps.print(all.length === 0 ? ['No profiles yet: profiles add --name … --base-url … --merchant-code …'] : all.flatMap((p) => profileLines(p, current)), all.map((p) => profileView(p, current)));
    }));

  startsLight(profiles
    .command('use <profile>')
    .description('make a profile (id or name) the current one')
    .action((idOrName: string) => {
      const store = deps.profileContext().profiles;
      const p = store.resolve(idOrName);
      store.setCurrent(p.id);
      deps.print(`Current profile: ${p.id} "${p.name}" [${p.environment}]`, profileView(p, p.id));
    }));

  startsLight(profiles
    .command('show')
    .description('show the current (or --profile) profile with all settings')
    .action(() => {
      const p = deps.profile();
      const current = deps.profileContext().profiles.currentId();
      const view = profileView(p, current);
      deps.print(Object.entries(view).map(([k, v]) => `${k}: ${Array.isArray(v) ? v.join(', ') : v && typeof v === 'object' ? JSON.stringify(v) : String(v)}`), view);
    }));

  profiles
    .command('edit [profile]')
    .description('change settings of a profile (default: --profile or the current one); only the options given change')
    .option('--name <name>', 'display name')
    .option('--base-url <url>', 'gateway base address')
    .option('--merchant-code <code>', 'merchant code')
    .option('--environment <env>', 'TEST or LIVE: fixed when the profile is created, so only its own value is accepted (create a new profile for the other)', choice(['TEST', 'LIVE'] as const))
    .option('--api-version <major>', 'API major version sent as X-API-Version', intOption('API version'))
    .option('--timestamp-unit <unit>', 'token request timestamp unit: ms or s', choice(['ms', 's'] as const))
    .option('--rate-limit <perSec>', 'requests per second the gateway allows', intOption('rate limit'))
    .option('--token-validity <secs>', 'validity of general tokens in seconds', intOption('token validity'))
    .option('--poll-interval <secs>', 'status polling interval in seconds', intOption('poll interval'))
    .option('--idle-lock <minutes>', 'dual control: lock an unlocked person after this many idle minutes (default 10)', intOption('idle lock'))
    .option('--max-amount-minor <minor>', 'largest amount of one payout in minor units of its currency, or "none"', intOrNone('maximum amount'))
    .option('--repeat-window <days>', 'a payout like one of the last this many days (same account, amount and currency) is a possible duplicate to confirm; 0 turns the check off (default 30)', intOption('repeat window'))
    .option('--time-zone <zone>', 'the calendar\'s zone for release times given without one, e.g. Europe/Berlin, or "machine" for this computer\'s')
    .option('--late-window <minutes>', 'a scheduled run found more than this many minutes past its time waits for a person to confirm it (default 360; dual control: an admin)', intOption('late window'))
    .option('--callbacks <onOff>', 'listen for status callbacks: on or off', choice(['on', 'off'] as const))
    .option('--callback-host <host>', 'address the callback listener binds')
    .option('--callback-port <port>', 'port of the callback listener (0 = any free port)', intOption('callback port'))
    .option('--callback-url <url>', 'public callback URL the gateway calls, or "none"')
    .option('--as <person>', 'who acts, once dual control is on (an admin, for the gateway address, merchant, signing, largest payout, repeat window and late window): person id or name')
    .option('--passphrase-env <name>', 'environment variable holding the passphrase of --as')
    .option('--passphrase-file <file>', 'file whose first line is the passphrase of --as')
    .action(async (idOrName: string | undefined, o: EditOptions & ActingOptions) => {
      const store = deps.context().profiles;
      const before = idOrName ? store.resolve(idOrName) : deps.profile();
      const patch = patchOf(o);
      if (Object.keys(patch).length === 0) throw new CliUsageError('Nothing to change: give at least one option (see profiles edit --help)');
      await actAs(deps, before.id, { named: o.as, file: o.passphraseFile, env: o.passphraseEnv }, '--passphrase-env <VAR> or --passphrase-file <file>');
      const { updateProfile } = await import('../desk/profiles');
      const after = await updateProfile(deps.runtime(), before.id, patch);
      const changed = (Object.keys(after) as (keyof Profile)[]).filter((k) => k !== 'updatedAt' && JSON.stringify(after[k]) !== JSON.stringify(before[k]));
      const current = store.currentId();
      deps.print(
        [
          changed.length > 0 ? `Updated profile ${after.id}:` : `Profile ${after.id} already had these settings.`,
          ...changed.map((k) => `  ${k}: ${String(before[k])} -> ${String(after[k])}`),
          ...profileLines(after, current),
        ],
        { ...profileView(after, current), changed },
      );
    });

  actingOptions(profiles
    .command('remove <profile>')
    .description('remove a profile from this desk; its journal (payment records) is kept unless --delete-journal (with dual control on: an admin, --as)')
    .option('--delete-journal', 'also delete the journal file of the profile (its record of every payment)')
    .option('--yes', 'with --delete-journal: delete without asking'))
    .action(async (idOrName: string, o: ActingOptions & { deleteJournal?: boolean; yes?: boolean }) => {
      const ctx = deps.context();
      const p = ctx.profiles.resolve(idOrName);
      await actAs(deps, p.id, { named: o.as, file: o.passphraseFile, env: o.passphraseEnv }, '--passphrase-env <VAR> or --passphrase-file <file>');
      if (o.deleteJournal && !o.yes) {
        const yes = await askYesNo(deps, `Delete the journal of ${p.id} "${p.name}" (its record of every payment)? It cannot be undone.`);
        if (yes === null) throw new CliUsageError(`Not confirmed: no terminal to ask on. Run again with --yes to delete the journal of ${p.id}; nothing was removed`);
        if (!yes) throw new DeskError('NOT_CONFIRMED', 'Not confirmed; nothing was removed');
      }
      const { removeProfile } = await import('../desk/profiles');
      const removal = await removeProfile(deps.runtime(), p.id, { deleteJournal: o.deleteJournal === true });
      deps.print(
        [
          `Removed profile ${p.id} "${p.name}".`,
          removal.journalDeleted ? '  Its journal was deleted.' : `  Its journal is kept: ${removal.journalPath}`,
          removal.activeProfileId ? `  Current profile: ${removal.activeProfileId}` : '  No profile is left: profiles add … or sandbox-setup',
        ],
        { removed: p.id, ...removal },
      );
    });

  registerTeamCommands(profiles, deps);
  registerSmtpCommands(profiles, deps);
  registerIso20022Commands(profiles, deps);
}
