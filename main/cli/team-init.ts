// CLI: `profiles team init <profile> --owner-url postgres://owner@host/db --member <login role>` (issue 23,
// least privilege): run once by the owner of the team database, and again after an upgrade. It migrates
// the schema with the owner's credentials, gives the desks' group role (payout_desk_member) only the rights
// desks need (main/store/postgres/member-role.ts), and makes the desk's login role a member of it, so desks never
// connect as the owner. Passwords come from an environment variable or standard input, never from argv, and
// are never printed; this desk keeps neither (the member's goes to each desk with `profiles team set`).
import { type Command, InvalidArgumentError } from 'commander';
import type { MemberRoleReport } from '../store/postgres/member-role';
import { TeamDatabaseError } from '../store/postgres/team-database-error';
import { MEMBER_GROUP, teamWhere } from '../store/postgres/team-names';
import { typedCommand } from './invocation';
import { profileRuleProblem, TEAM_TLS_MODES, TeamDatabaseSchema, teamDatabaseTarget, type TeamDatabase, type TeamTlsMode } from '../profiles/profile-schema';
import { CliUsageError, type CliDeps } from './deps';

interface InitOptions {
  ownerUrl: string;
  ownerPasswordEnv?: string;
  ownerPasswordStdin?: boolean;
  member?: string;
  memberPasswordEnv?: string;
  memberPasswordStdin?: boolean;
  tls?: TeamTlsMode;
  ca?: string;
}

function tlsMode(value: string): TeamTlsMode {
  const v = value.trim().toLowerCase();
  const match = TEAM_TLS_MODES.find((m) => m === v);
  if (!match) throw new InvalidArgumentError(`must be one of ${TEAM_TLS_MODES.join(', ')}`);
  return match;
}

/** The first line of standard input (a trailing newline is not part of the password). */
async function readStdinLine(deps: CliDeps, option: string): Promise<string> {
  let text: string;
  if (deps.io.readStdin) {
    text = await deps.io.readStdin();
  } else {
    if (process.stdin.isTTY) throw new CliUsageError(`${option} reads the password from a pipe, e.g.: printf "%s" "$PASSWORD" | ${typedCommand('profiles team init …')}`);
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
    text = Buffer.concat(chunks).toString('utf8');
  }
  return text.split(/\r?\n/)[0] ?? '';
}

/** A password from standard input or a named environment variable; null when neither option was given. */
async function secret(deps: CliDeps, who: string, fromStdin: boolean | undefined, envName: string | undefined): Promise<string | null> {
  if (fromStdin && envName !== undefined) throw new CliUsageError(`give the ${who} password one way: --${who}-password-stdin or --${who}-password-env`);
  let value: string | undefined;
  if (fromStdin) value = await readStdinLine(deps, `--${who}-password-stdin`);
  else if (envName !== undefined) {
    value = deps.env[envName];
    if (value === undefined) throw new CliUsageError(`--${who}-password-env names ${envName}, which is not set`);
  } else return null;
  if (value === '') throw new CliUsageError(`the ${who} password is empty; nothing was changed`);
  return value;
}

/** The owner's connection: the URL given, TLS as the profile's team database has it unless --tls / --ca say. */
function ownerTarget(o: InitOptions, profile: { environment: 'TEST' | 'LIVE'; baseUrl: string; teamDatabase: TeamDatabase | null }): TeamDatabase {
  const parsed = TeamDatabaseSchema.safeParse({
    url: o.ownerUrl,
    tls: o.tls ?? profile.teamDatabase?.tls ?? 'verify-full',
    caFile: o.ca === undefined ? (profile.teamDatabase?.caFile ?? null) : o.ca.trim().toLowerCase() === 'none' ? null : o.ca,
  });
  if (!parsed.success) throw new CliUsageError(`--owner-url / --tls / --ca: ${parsed.error.issues.map((i) => i.message).join('; ')}`);
  // The owner's password crosses the same network a desk's would: the same rule.
  const problem = profileRuleProblem({ environment: profile.environment, baseUrl: profile.baseUrl, teamDatabase: parsed.data });
  if (problem) throw new CliUsageError(problem);
  return parsed.data;
}

/** The `profiles team set` line a desk runs next, as the user typed the CLI, with the TLS the owner used when it is not the default. */
export function nextDeskLine(profileId: string, memberUrl: string, target: Pick<TeamDatabase, 'tls' | 'caFile'>): string {
  const tls = target.tls !== 'verify-full' ? ` --tls ${target.tls}` : '';
  const ca = target.caFile ? ` --ca ${target.caFile}` : '';
  return `printf '%s' "$DESK_DB_PASSWORD" | ${typedCommand(`profiles team set ${profileId} --url ${memberUrl}${tls}${ca} --password-stdin`)}`;
}

function reportLines(where: string, schema: { from: number; to: number }, r: MemberRoleReport, next: string | null): string[] {
  const width = Math.max(...r.tables.map((t) => t.table.length));
  const lines = [
    `Team database ${where}: schema version ${schema.to}${schema.from !== schema.to ? ` (migrated from ${schema.from})` : ' (already current)'}.`,
    `Desks' role ${r.group}${r.groupCreated ? ' (made now, NOLOGIN)' : ''} may, in schema ${r.schema}, no more than:`,
    ...r.tables.map((t) => `  ${t.table.padEnd(width)}  ${t.rights}`),
    `  No DDL, no TRUNCATE, and no UPDATE or DELETE on the append-only tables; the change counters move as the owner (${r.definerFunctions.join(', ')}).`,
  ];
  if (r.revokedPublicCreate) lines.push(`  PUBLIC may no longer create objects in schema ${r.schema}.`);
  if (r.publicMayCreate) lines.push(`  Warning: any role may still create objects in schema ${r.schema}; a superuser runs REVOKE CREATE ON SCHEMA ${r.schema} FROM PUBLIC.`);
  if (r.unknownTables.length > 0) lines.push(`  Not given to desks (not tables of this version): ${r.unknownTables.join(', ')}.`);
  if (r.login) {
    const how = r.login.created ? 'made now, with the password given' : r.login.passwordSet ? 'its password set to the one given' : 'already there';
    lines.push(`Login role ${r.login.name} (${how}) is a member of ${r.group}.`);
  }
  if (next) lines.push('Next, at each desk (desks connect as the member, never as the owner; DESK_DB_PASSWORD holds its password):', `  ${next}`);
  return lines;
}

export function registerTeamInitCommand(team: Command, deps: CliDeps): void {
  team
    .command('init <profile>')
    .description(`as the team database's owner: migrate it, give desks' role ${MEMBER_GROUP} only the rights desks need, and make a desk's login role a member (run again after an upgrade)`)
    .requiredOption('--owner-url <url>', 'postgres://owner@host:5432/database: the user owning the team tables (no password in it)')
    .option('--owner-password-env <name>', "environment variable holding the owner's password")
    .option('--owner-password-stdin', "read the owner's password from standard input")
    .option('--member <role>', `the login role desks connect as, made a member of ${MEMBER_GROUP} (made when missing: give its password)`)
    .option('--member-password-env <name>', "environment variable holding the member's password (sets it)")
    .option('--member-password-stdin', "read the member's password from standard input (sets it)")
    .option('--tls <mode>', `TLS to the owner's connection: ${TEAM_TLS_MODES.join(', ')} (default: the profile's team database, else verify-full)`, tlsMode)
    .option('--ca <file>', 'PEM file of the CA that signed the server certificate (default: the profile\'s), or "none"')
    .action(async (idOrName: string, o: InitOptions) => {
      const profile = deps.context().profiles.resolve(idOrName);
      const target = ownerTarget(o, profile);
      if ((o.memberPasswordStdin || o.memberPasswordEnv !== undefined) && o.member === undefined) throw new CliUsageError('a member password needs --member <role>');
      if (o.ownerPasswordStdin && o.memberPasswordStdin) throw new CliUsageError('only one password can come from standard input: give the other with --owner-password-env or --member-password-env');
      const ownerPassword = await secret(deps, 'owner', o.ownerPasswordStdin, o.ownerPasswordEnv);
      const memberPassword = await secret(deps, 'member', o.memberPasswordStdin, o.memberPasswordEnv);
      const owner = teamDatabaseTarget(target.url).user;
      if (o.member !== undefined && o.member === owner) throw new CliUsageError(`--member ${o.member} is the owner: desks connect as a role of their own`);

      let opened;
      try {
        opened = await (await import('../store/postgres/connect')).openTeamPool(target, ownerPassword, { max: 2 });
      } catch (error) {
        // Said to a desk as "its owner runs init": here the user named as owner is not the owner.
        if (error instanceof TeamDatabaseError && (error.code === 'TEAM_DB_SCHEMA_OLD' || error.code === 'TEAM_DB_PERMISSION')) {
          throw new TeamDatabaseError(error.code, `${owner} is not the owner of the team database's tables (${teamWhere(target)}), so it cannot migrate them or give desks their rights: --owner-url names the user that owns them (${error.message})`);
        }
        throw error;
      }
      try {
        const { applyMemberRole } = await import('../store/postgres/member-role');
        const report = await applyMemberRole(opened.pool, { ...(o.member !== undefined ? { login: o.member } : {}), password: memberPassword });
        const t = teamDatabaseTarget(target.url);
        const host = t.host.includes(':') ? `[${t.host}]` : t.host;
        const memberUrl = report.login ? `postgres://${encodeURIComponent(report.login.name)}@${host}:${t.port}/${encodeURIComponent(t.database)}` : null;
        deps.print(reportLines(teamWhere(target), { from: opened.migratedFrom, to: opened.schemaVersion }, report, memberUrl ? nextDeskLine(profile.id, memberUrl, target) : null), {
          profile: profile.id,
          where: teamWhere(target),
          serverVersion: opened.serverVersion,
          schemaVersion: opened.schemaVersion,
          migratedFrom: opened.migratedFrom,
          ...report,
          memberUrl,
        });
      } finally {
        await opened.pool.end();
      }
    });
}
