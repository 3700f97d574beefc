// CLI: `profiles team set|show|check|clear <profile>`: point a profile at a team database (issue 15,
// "Team desk"). The URL, TLS mode and CA file go in the profile; the password goes in this desk's
// keychain, read only from standard input (--password-stdin), never from argv, and never printed.
import { type Command, InvalidArgumentError } from 'commander';
import { CliUsageError, type CliDeps } from './deps';
import { assertKeychainReachable } from '../keys/key-store';
import { teamWhere } from '../store/postgres/team-names';
import { TEAM_TLS_MODES, type Profile, type TeamDatabase, type TeamTlsMode } from '../profiles/profile-schema';
import { TeamPasswords } from '../keys/team-password';
import { registerTeamInitCommand } from './team-init';
import { actingOptions, type ActingOptions } from './acting';
import { actAs } from './acting';
import { typedCommand } from './invocation';

function tlsMode(value: string): TeamTlsMode {
  const v = value.trim().toLowerCase();
  const match = TEAM_TLS_MODES.find((m) => m === v);
  if (!match) throw new InvalidArgumentError(`must be one of ${TEAM_TLS_MODES.join(', ')}`);
  return match;
}

/** The first line of standard input (a trailing newline is not part of the password). */
export async function readPasswordFromStdin(deps: CliDeps, example = { variable: 'PGPASSWORD', command: 'profiles team set …' }): Promise<string> {
  if (deps.io.readStdin) return firstLine(await deps.io.readStdin());
  if (process.stdin.isTTY) throw new CliUsageError(`--password-stdin reads the password from a pipe, e.g.: printf "%s" "$${example.variable}" | ${typedCommand(example.command)}`);
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return firstLine(Buffer.concat(chunks).toString('utf8'));
}
const firstLine = (text: string) => text.split(/\r?\n/)[0] ?? '';

function passwords(deps: CliDeps): TeamPasswords {
  const ctx = deps.context();
  return new TeamPasswords({ keyStore: ctx.keyStore, profiles: ctx.profiles, audit: ctx.trail });
}

/** What `team show` prints: never the password, only whether this desk's keychain holds one. */
export function teamView(p: Profile, passwordStored: boolean): Record<string, unknown> {
  const team = p.teamDatabase;
  if (!team) return { profile: p.id, teamDatabase: null, passwordStored };
  return { profile: p.id, teamDatabase: { url: team.url, tls: team.tls, caFile: team.caFile }, passwordStored };
}

function teamLines(p: Profile, passwordStored: boolean): string[] {
  const team = p.teamDatabase;
  if (!team) {
    return [`Profile ${p.id} uses its own journal on this desk (no team database).${passwordStored ? ' A team database password is still in the keychain: profiles team clear removes it.' : ''}`];
  }
  return [
    `Profile ${p.id} uses the team database ${teamWhere(team)}`,
    `  url       ${team.url}`,
    `  tls       ${team.tls}${team.tls === 'require' ? ' (encrypted, certificate NOT checked)' : team.tls === 'disable' ? ' (NOT encrypted)' : ''}`,
    `  CA file   ${team.caFile ?? '(system trusted CAs)'}`,
    `  password  ${passwordStored ? 'in this desk\'s keychain' : 'none in this desk\'s keychain'}`,
  ];
}

export function registerTeamCommands(profiles: Command, deps: CliDeps): void {
  const team = profiles.command('team').description('the team database a profile shares with other desks (PostgreSQL); password in the keychain');
  registerTeamInitCommand(team, deps);

  actingOptions(team
    .command('set <profile>')
    .description('point a profile at a team database; only the options given change (the password comes from standard input; with dual control on: an admin, --as)')
    .option('--url <url>', 'postgres://user@host:5432/database (no password, no query parameters)')
    .option('--tls <mode>', `TLS: ${TEAM_TLS_MODES.join(', ')} (default verify-full; a LIVE profile needs verify-full unless the database is on this machine)`, tlsMode)
    .option('--ca <file>', 'PEM file of the CA that signed the server certificate (absolute path), or "none"')
    .option('--password-stdin', "read the password from standard input and keep it in this desk's keychain"))
    .action(async (idOrName: string, o: ActingOptions & { url?: string; tls?: TeamTlsMode; ca?: string; passwordStdin?: boolean }) => {
      const ctx = deps.context();
      const before = ctx.profiles.resolve(idOrName);
      const current = before.teamDatabase;
      if (!current && o.url === undefined) throw new CliUsageError(`Profile ${before.id} has no team database yet: give --url postgres://user@host:5432/database`);
      const password = o.passwordStdin ? await readPasswordFromStdin(deps) : undefined;
      if (password === '') throw new CliUsageError('--password-stdin read an empty password; nothing was changed');
      // Once dual control is on, where the profile's records are is an admin's decision.
      await actAs(deps, before.id, { named: o.as, file: o.passphraseFile, env: o.passphraseEnv }, '--passphrase-env <VAR> or --passphrase-file <file>');
      // The desk's key and dual-control code loads when a command changes something, not to register it.
      const { actedBy, changeAdmin } = await import('../desk/keys');
      const admin = await changeAdmin(deps.runtime(), before.id, 'changing the team database');
      // Audited (profile change, password set) in a journal sealed with a key from the keychain: check it first.
      await assertKeychainReachable(ctx.keyStore);
      const next: TeamDatabase = {
        url: o.url ?? current!.url,
        tls: o.tls ?? current?.tls ?? 'verify-full',
        caFile: o.ca === undefined ? (current?.caFile ?? null) : o.ca.trim().toLowerCase() === 'none' ? null : o.ca,
      };
      const after = ctx.profiles.update(before.id, { teamDatabase: next }, actedBy(admin));
      const store = passwords(deps);
      if (password !== undefined) await store.set(after.id, password);
      const stored = await store.has(after.id);
      // Joining a team database never switches dual control off: say so, and what happens to the records.
      const { readControlPin } = await import('../trust/control-pin');
      const pin = await readControlPin(ctx.keyStore, after.id);
      const control = pin
        ? [`Dual control is on for ${after.id} at this desk${pin.fingerprint ? ` (root ${pin.fingerprint})` : ''}: its control records go with it to a team database that has none, at its first open (profiles team check); one whose records start at another root is refused, and nothing is sent there.`]
        : [];
      deps.print(
        [
          `Team database of ${after.id} set${password !== undefined ? '; the password is in the keychain' : ''}.`,
          ...teamLines(after, stored),
          ...control,
          stored ? 'Next: profiles team check ' + after.id : 'Next: give the password (… | profiles team set ' + after.id + ' --password-stdin), then profiles team check ' + after.id,
        ],
        teamView(after, stored),
      );
    });

  team
    .command('show <profile>')
    .description('the team database of a profile and whether a password is in the keychain (never the password)')
    .action(async (idOrName: string) => {
      const p = deps.context().profiles.resolve(idOrName);
      const stored = await passwords(deps).has(p.id);
      deps.print(teamLines(p, stored), teamView(p, stored));
    });

  team
    .command('check <profile>')
    .description('connect to the team database, bring its schema up to date, and print the server and schema versions')
    .action(async (idOrName: string) => {
      const p = deps.context().profiles.resolve(idOrName);
      if (!p.teamDatabase) throw new CliUsageError(`Profile ${p.id} has no team database: profiles team set ${p.id} --url …`);
      const password = await passwords(deps).reveal(p.id);
      const { openTeamPool } = await import('../store/postgres/connect');
      const opened = await openTeamPool(p.teamDatabase, password, { max: 1 });
      let versions: { serverVersion: string; schemaVersion: number; migratedFrom: number };
      try {
        versions = { serverVersion: opened.serverVersion, schemaVersion: opened.schemaVersion, migratedFrom: opened.migratedFrom };
      } finally {
        await opened.pool.end();
      }
      // Whether this desk can work there (a LIVE desk refuses an owner's login), and dual control as this desk sees
      // it there: a team database never switches it off unseen.
      const [{ dualControlService }, { controlLines }] = await Promise.all([import('../desk/dual-control'), import('./dual-control')]);
      const control = await dualControlService(deps.runtime()).control(p.id).catch((error: unknown) => ({ refused: error instanceof Error ? error.message : String(error) }));
      const { serverVersion, schemaVersion, migratedFrom } = versions;
      const ok = !('refused' in control) && control.problem === null;
      deps.print(
        [
          `Connected to the team database ${teamWhere(p.teamDatabase)} (tls ${p.teamDatabase.tls}).`,
          `  PostgreSQL ${serverVersion}`,
          `  team schema version ${schemaVersion}${migratedFrom !== schemaVersion ? ` (migrated from ${migratedFrom})` : ''}`,
          ...('refused' in control ? [`  THIS DESK CANNOT WORK THERE: ${control.refused}`] : controlLines(control).map((line) => `  ${line}`)),
        ],
        { profile: p.id, ok, where: teamWhere(p.teamDatabase), tls: p.teamDatabase.tls, serverVersion, schemaVersion, migratedFrom, ...('refused' in control ? { refused: control.refused } : { control }) },
      );
      if (!ok) deps.setExitCode(1);
    });

  actingOptions(team
    .command('clear <profile>')
    .description("stop using a team database: the profile goes back to its own journal and the password leaves this desk's keychain (with dual control on: an admin, --as)"))
    .action(async (idOrName: string, o: ActingOptions) => {
      const ctx = deps.context();
      const p = ctx.profiles.resolve(idOrName);
      await actAs(deps, p.id, { named: o.as, file: o.passphraseFile, env: o.passphraseEnv }, '--passphrase-env <VAR> or --passphrase-file <file>');
      // The desk's key and dual-control code loads when a command changes something, not to register it.
      const { actedBy, changeAdmin } = await import('../desk/keys');
      const admin = await changeAdmin(deps.runtime(), p.id, 'leaving the team database');
      await assertKeychainReachable(ctx.keyStore);
      const after = p.teamDatabase ? ctx.profiles.update(p.id, { teamDatabase: null }, actedBy(admin)) : p;
      const removed = await passwords(deps).clear(p.id);
      deps.print(
        [`Profile ${p.id} no longer uses a team database${p.teamDatabase ? '' : ' (it had none)'}.${removed ? ' Its password was removed from the keychain.' : ''}`],
        { ...teamView(after, false), cleared: p.teamDatabase !== null, passwordRemoved: removed },
      );
    });
}
