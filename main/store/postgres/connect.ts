// Connecting a desk to its team database (issue 15, "Team desk"): the pool settings a profile's
// teamDatabase means, and opening it (connect, migrate when needed and allowed, server version) with
// failures in plain words. Desks connect as a member role that may not change the schema (issue 23,
// member-role.ts); only the owner of the team's tables migrates them (`profiles team init`).
// The URL is taken apart here and never handed to pg as a connection string, so nothing in it can
// change TLS; the password comes from this desk's keychain (main/keys/team-password.ts) and is
// never part of a message.
import { TeamDatabaseError, type TeamDatabaseErrorCode } from './team-database-error';
import { readFile } from 'node:fs/promises';
import pg from 'pg';
import type { Pool, PoolConfig } from 'pg';
import { teamDatabaseTarget, type TeamDatabase } from '../../profiles/profile-schema';
import { memberRightsMissing, teamRoleRights, type TeamRoleRights } from './member-role';
import { migratePg, PG_SCHEMA_VERSION } from './migrations';
import { teamWhere } from './team-names';

/** An unreachable or silent server fails within this (pg's default is to wait for ever). */
export const TEAM_CONNECT_TIMEOUT_MS = 10_000;
/** No one statement of the desk runs longer (a blocked migration lock included). */
export const TEAM_STATEMENT_TIMEOUT_MS = 30_000;
export const TEAM_APPLICATION_NAME = 'payout-desk';
/** The setting each connection of a desk carries, so the database can say which desk wrote a change. */
export const DESK_ID_SETTING = 'payout_desk.desk_id';

/**
 * The startup option that has every connection name its desk from its first statement on (the server reads
 * `-c name=value`; a space or backslash in the value is escaped with a backslash).
 */
export function deskIdOption(deskId: string): string {
  return `-c ${DESK_ID_SETTING}=${deskId.replace(/[\\ ]/g, (c) => `\\${c}`)}`;
}

export { TeamDatabaseError, type TeamDatabaseErrorCode } from './team-database-error';

/**
 * The pg pool settings of a team database. `ca` is the text of the profile's caFile (read by the
 * caller: see readTeamCa). verify-full checks the chain and that the certificate names the host
 * (Node's TLS does both when rejectUnauthorized is on); require encrypts without checking who answers.
 */
export function teamPoolConfig(team: TeamDatabase, password: string | null, options: { ca?: string; max?: number } = {}): PoolConfig {
  const target = teamDatabaseTarget(team.url);
  const ssl: PoolConfig['ssl'] =
    team.tls === 'disable' ? false : team.tls === 'require' ? { rejectUnauthorized: false } : { rejectUnauthorized: true, ...(options.ca !== undefined ? { ca: options.ca } : {}) };
  return {
    host: target.host,
    port: target.port,
    user: target.user,
    database: target.database,
    ...(password !== null ? { password } : {}),
    ssl,
    application_name: TEAM_APPLICATION_NAME,
    connectionTimeoutMillis: TEAM_CONNECT_TIMEOUT_MS,
    statement_timeout: TEAM_STATEMENT_TIMEOUT_MS,
    query_timeout: TEAM_STATEMENT_TIMEOUT_MS + 5_000,
    idle_in_transaction_session_timeout: TEAM_STATEMENT_TIMEOUT_MS,
    keepAlive: true,
    max: options.max ?? 10,
  };
}

/** The CA bundle of a profile (undefined when it names none), or a clear error. */
export async function readTeamCa(team: TeamDatabase): Promise<string | undefined> {
  if (!team.caFile) return undefined;
  let text: string;
  try {
    text = await readFile(team.caFile, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new TeamDatabaseError('TEAM_DB_CA_FILE', `Cannot read the CA file ${team.caFile} of the team database${code ? ` (${code})` : ''}`);
  }
  if (!text.includes('-----BEGIN CERTIFICATE-----')) {
    throw new TeamDatabaseError('TEAM_DB_CA_FILE', `The CA file ${team.caFile} holds no PEM certificate (expected "-----BEGIN CERTIFICATE-----")`);
  }
  return text;
}

export interface OpenTeamPool {
  pool: Pool;
  /** As the server reports it, e.g. "16.4 (Debian 16.4-1.pgdg120+1)". */
  serverVersion: string;
  /** The team schema version after migrating, and the one found before. */
  schemaVersion: number;
  migratedFrom: number;
  /** The database user the pool connects as. */
  user: string;
  /**
   * The user can change what the team's tables are (drop a trigger, truncate, rewrite a signed row): a
   * superuser, the owner of the tables or of their schema (or a role that can become one), or a role with
   * CREATEROLE (which can grant itself the owner). Desks should connect as a member role instead.
   */
  privileged: boolean;
}

/**
 * Connects, brings the schema up to date when it is older and this user may (migratePg), and reads the
 * server version. A current schema is only read: no DDL. An older one that this user may not migrate (a
 * desk's member role) fails with the owner's command to run. On failure the pool is closed and a
 * TeamDatabaseError says what went wrong. `onError` hears errors of idle connections later (a dropped
 * network); without one they are dropped rather than crash main.
 */
export async function openTeamPool(
  team: TeamDatabase,
  password: string | null,
  options: {
    onError?: (error: Error) => void;
    max?: number;
    /** The desk process the connections work for (deskIdOption); none for a connection check. */
    deskId?: string;
    /** Tests only: a shorter wait for a silent server. */
    connectTimeoutMs?: number;
  } = {},
): Promise<OpenTeamPool> {
  const ca = await readTeamCa(team);
  const config = teamPoolConfig(team, password, { ...(ca !== undefined ? { ca } : {}), ...(options.max !== undefined ? { max: options.max } : {}) });
  if (options.connectTimeoutMs !== undefined) config.connectionTimeoutMillis = options.connectTimeoutMs;
  if (options.deskId) config.options = deskIdOption(options.deskId);
  const pool = new pg.Pool(config);
  pool.on('error', (error) => options.onError?.(error));
  try {
    const version = await pool.query<{ server_version: string }>('SHOW server_version');
    let rights = await teamRoleRights(pool);
    const found = schemaFound(rights, team);
    const migratedFrom = found < PG_SCHEMA_VERSION ? await migratePg(pool) : found;
    if (migratedFrom !== PG_SCHEMA_VERSION) rights = await teamRoleRights(pool);
    // A member whose rights were not given for this version (the owner migrated without `team init`) would
    // fail at its first write; it is told now, and by whom it is fixed.
    if (!rights.privileged) {
      const missing = await memberRightsMissing(pool);
      if (missing.length > 0) {
        fail('TEAM_DB_PERMISSION', `User ${rights.user} lacks rights desks need on the team database (${teamWhere(team)}): ${missing.join(', ')}; its owner gives them (after each upgrade) with \`${teamInitCommand(team, rights.user)}\``);
      }
    }
    return {
      pool,
      serverVersion: version.rows[0]?.server_version ?? 'unknown',
      schemaVersion: PG_SCHEMA_VERSION,
      migratedFrom,
      user: rights.user,
      privileged: rights.privileged,
    };
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw describeTeamError(error, team, password !== null);
  }
}

/** The command the owner of a team database runs to migrate it and give desks their rights. */
export function teamInitCommand(team: TeamDatabase, member?: string): string {
  const t = teamDatabaseTarget(team.url);
  const host = t.host.includes(':') ? `[${t.host}]` : t.host;
  return `payout-desk profiles team init <profile> --owner-url postgres://<owner>@${host}:${t.port}/${t.database}${member ? ` --member ${member}` : ''}`;
}

/** The schema version found, when this desk may work on it (now, or once it migrated it); else why not. */
function schemaFound(rights: TeamRoleRights, team: TeamDatabase): number {
  const where = teamWhere(team);
  if (rights.schemaVersion === null) {
    return fail('TEAM_DB_PERMISSION', `User ${rights.user} has no rights on the team database's tables (${where}): its owner gives a desk's user its rights with \`${teamInitCommand(team, rights.user)}\``);
  }
  if (rights.schemaVersion > PG_SCHEMA_VERSION) {
    return fail('TEAM_DB_SCHEMA_NEWER', `the team database has schema version ${rights.schemaVersion}, newer than this desk knows (${PG_SCHEMA_VERSION}): update Payout Desk`);
  }
  if (rights.schemaVersion < PG_SCHEMA_VERSION && !rights.mayMigrate) {
    const what = rights.schemaVersion === 0
      ? `The team database at ${where} has no team tables yet, and user ${rights.user} may not create them`
      : `The team database's schema is older than this desk (version ${rights.schemaVersion}, this desk needs ${PG_SCHEMA_VERSION}), and user ${rights.user} may not change it (${where})`;
    return fail('TEAM_DB_SCHEMA_OLD', `${what}: its owner runs \`${teamInitCommand(team)}\``);
  }
  return rights.schemaVersion;
}

function fail(code: TeamDatabaseErrorCode, message: string): never {
  throw new TeamDatabaseError(code, message);
}

export { teamWhere };

const TLS_NODE_CODES = /^(ERR_TLS_|ERR_SSL_|CERT_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_(VERIFY|GET_ISSUER)|HOSTNAME_MISMATCH|ERR_OSSL_)/;

/** A pg / Node error from connecting or migrating, in words a finance desk can act on. */
export function describeTeamError(error: unknown, team: TeamDatabase, hadPassword: boolean): TeamDatabaseError {
  if (error instanceof TeamDatabaseError) return error;
  const e = (error ?? {}) as { code?: unknown; message?: unknown; errors?: unknown };
  // Node reports a host with several addresses as an AggregateError; its first error tells the story.
  const inner = Array.isArray(e.errors) && e.errors.length > 0 ? (e.errors[0] as { code?: unknown; message?: unknown }) : e;
  const code = typeof inner.code === 'string' ? inner.code : typeof e.code === 'string' ? e.code : '';
  const message = typeof e.message === 'string' && e.message ? e.message : typeof inner.message === 'string' ? inner.message : String(error);
  const where = teamWhere(team);
  const t = teamDatabaseTarget(team.url);

  switch (code) {
    case 'ECONNREFUSED':
      return new TeamDatabaseError('TEAM_DB_UNREACHABLE', `Cannot reach the team database at ${where}: nothing accepts connections on port ${t.port} of ${t.host} (is PostgreSQL running there, and is the port right?)`, true);
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new TeamDatabaseError('TEAM_DB_UNREACHABLE', `Cannot reach the team database: the host name ${t.host} is not known (${code}); check the URL and the network`, true);
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
    case 'ECONNRESET':
    case 'EPIPE':
      return new TeamDatabaseError('TEAM_DB_UNREACHABLE', `Cannot reach the team database at ${where}: the network refused or dropped the connection (${code})`, true);
    case 'ETIMEDOUT':
      return new TeamDatabaseError('TEAM_DB_TIMEOUT', `The team database at ${where} did not answer in time (${code}); check the host, the port and any firewall`, true);
    case '28P01':
      return new TeamDatabaseError(
        'TEAM_DB_AUTH',
        hadPassword
          ? `The team database refused the password of user ${t.user} (${where}): set the right password (profiles team set --password-stdin, or Settings)`
          : `The team database asks for a password for user ${t.user} (${where}) and none is in this desk's keychain: set it (profiles team set --password-stdin, or Settings)`,
      );
    case '28000':
      if (/no encryption|SSL off/i.test(message)) {
        return new TeamDatabaseError('TEAM_DB_TLS', `The team database at ${where} accepts only encrypted connections: set tls to verify-full (or require)`);
      }
      return new TeamDatabaseError('TEAM_DB_AUTH', `The team database at ${where} does not let user ${t.user} in: ${message}`);
    case '3D000':
      return new TeamDatabaseError('TEAM_DB_MISSING', `The team database "${t.database}" does not exist on ${t.host}:${t.port}: create it (CREATE DATABASE ${t.database} OWNER <owner>, then \`${teamInitCommand(team, t.user)}\`) or fix the URL`);
    case '42501':
      return new TeamDatabaseError('TEAM_DB_PERMISSION', `User ${t.user} may not do this on the team database ${where} (${message}): its owner migrates it and gives desks their rights with \`${teamInitCommand(team, t.user)}\``);
    case '57P03':
    case '53300':
      return new TeamDatabaseError('TEAM_DB_BUSY', `The team database at ${where} cannot take a connection now (${message}); try again shortly`, true);
    case '57014':
      return new TeamDatabaseError('TEAM_DB_TIMEOUT', `A statement on the team database at ${where} took longer than ${TEAM_STATEMENT_TIMEOUT_MS / 1000} s and was cancelled (another desk migrating, or a locked table?)`, true);
    default:
      break;
  }
  if (TLS_NODE_CODES.test(code) || /certificate|self[- ]signed|SSL|TLS|Hostname\/IP does not match/i.test(message)) {
    if (/does not support SSL/i.test(message)) {
      return new TeamDatabaseError('TEAM_DB_TLS', `The team database at ${where} does not offer TLS, and the profile asks for ${team.tls}: turn on ssl on the server (or, for a database on this machine only, set tls to disable)`);
    }
    const hint = team.tls === 'verify-full' ? (team.caFile ? ` (checked against ${team.caFile})` : ' (checked against the system\'s trusted CAs; give the CA file that signed it)') : '';
    return new TeamDatabaseError('TEAM_DB_TLS', `TLS with the team database at ${where} failed: its certificate was not accepted${hint}: ${code ? `${code}: ` : ''}${message}`);
  }
  if (/client password must be a string|SASL/i.test(message) && !hadPassword) {
    return new TeamDatabaseError('TEAM_DB_NO_PASSWORD', `The team database asks for a password for user ${t.user} (${where}) and none is in this desk's keychain: set it (profiles team set --password-stdin, or Settings)`);
  }
  if (/timeout|timed out/i.test(message)) {
    return new TeamDatabaseError('TEAM_DB_TIMEOUT', `The team database at ${where} did not answer within ${TEAM_CONNECT_TIMEOUT_MS / 1000} s; check the host, the port and any firewall`, true);
  }
  if (/newer than this desk knows/.test(message)) return new TeamDatabaseError('TEAM_DB_SCHEMA_NEWER', message);
  return new TeamDatabaseError('TEAM_DB_FAILED', `The team database at ${where} failed: ${code ? `${code}: ` : ''}${message}`);
}
