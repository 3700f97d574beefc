// Least privilege on the team database (issue 23). Only the owner of the team's tables may change what they
// are: drop a trigger, truncate, rewrite a signed row. Desks connect as a login role that is a member of
// MEMBER_GROUP (NOLOGIN), which holds exactly the statements desks issue (PgJournal, TeamRateBudget,
// PgDualControlRepository, PgPayeeRepository, TeamAuditSeal, the change feeds): SELECT where they read,
// INSERT where they add, UPDATE of named columns and DELETE only where they change or remove rows. The
// append-only tables get no UPDATE, DELETE or TRUNCATE at all, so a desk's password cannot rewrite them even
// past a trigger. Column lists on INSERT only where a column is the database's to set: the order (seq) and
// the time (recorded_at, its DEFAULT the database's clock) of a signed record.
//
// The counters the triggers move (dual_control_changes, payee_changes) are not the desks' to write: their
// trigger functions run as the owner (SECURITY DEFINER), so a desk cannot set a counter back or to its end.
// That rather than UPDATE on the counters: with UPDATE any desk could freeze or overflow the change markers.
//
// `profiles team init` (main/cli/team-init.ts) runs applyMemberRole as the owner right after migrating. It is
// exact and can run again: the group's rights on every table of the schema are revoked first, then given as
// below, so running it after an upgrade brings them to this build's schema. Roles are the cluster's, grants
// the database's: so the group is made once per cluster, its rights once per team database.
import { createHash, createHmac, pbkdf2Sync, randomBytes } from 'node:crypto';
import { escapeIdentifier, escapeLiteral, type Pool, type PoolClient } from 'pg';
import type { TeamDatabaseErrorCode } from './team-database-error';
import type { PgQueryable } from './history';
import { PG_SCHEMA_VERSION } from './migrations';
import { inTransaction } from './transaction';
import { CodedError } from '../../domain/coded-error';

import { MEMBER_GROUP } from './team-names';

export { MEMBER_GROUP };

/** What the member group may do on one table or view. SELECT always. */
export interface MemberTableRights {
  table: string;
  /** Columns a desk inserts; 'all' when the whole row is the desk's to write. */
  insert?: 'all' | readonly string[];
  /** Columns a desk updates (never any of an append-only table). */
  update?: readonly string[];
  delete?: true;
  /** Serial columns whose sequence a desk's insert draws from (USAGE on it). */
  serial?: readonly string[];
}

/** Every table and view of the team schema and what desks may do with it (read from the statements they issue). */
export const MEMBER_TABLES: readonly MemberTableRights[] = [
  // Read only: the schema's version, the team's id, and the dual-control rows from before the control chain
  // (read once, for an admin to seal into the chain; no longer written).
  { table: 'schema_version' },
  { table: 'team_identity' },
  { table: 'people' },
  { table: 'role_grants' },
  { table: 'policies' },
  // Signed records, append-only: added once; their order and recorded_at are the database's.
  { table: 'control_chain', insert: ['seq', 'hash', 'record_json'] },
  { table: 'control_proposals', insert: ['hash', 'record_json'], serial: ['id'] },
  { table: 'preparations', insert: ['id', 'profile_id', 'subject_kind', 'subject_id', 'digest', 'signer_id', 'signed_at', 'signature'], serial: ['seq'] },
  {
    table: 'approvals',
    insert: ['id', 'profile_id', 'subject_kind', 'subject_id', 'manifest_digest', 'policy_version', 'decision', 'reason', 'signer_id', 'signed_at', 'signature'],
    serial: ['seq'],
  },
  // recorded_at has no DEFAULT here (migration 6): the payee book writes it.
  {
    table: 'payee_approvals',
    insert: ['id', 'profile_id', 'payee_id', 'payee_version', 'change_digest', 'policy_version', 'decision', 'reason', 'signer_id', 'signed_at', 'signature', 'recorded_at'],
  },
  // Append-only too: the audit chain (each desk numbers and signs its entries) and the desks' signer keys.
  { table: 'audit_log', insert: 'all' },
  { table: 'audit_signers', insert: 'all' },
  { table: 'status_events', insert: 'all', serial: ['seq'] },
  { table: 'intents', insert: 'all' },
  { table: 'balance_snapshots', insert: 'all', serial: ['seq'] },
  // Closing a period: statements as issued and movements already exported are only added (triggers refuse the
  // rest); the accounting accounts are one row, replaced by its writers.
  { table: 'issued_statements', insert: 'all', serial: ['seq'] },
  { table: 'exported_movements', insert: 'all' },
  // pain.001 references (a run's MsgId, each EndToEndId) as first recorded: only added (triggers refuse the rest).
  { table: 'payment_run_refs', insert: 'all' },
  { table: 'accounting_accounts', insert: 'all', update: ['accounts_json', 'updated_at'] },
  // The calendar: a schedule is added with its subject, then moved, released or cancelled (its state and times only).
  { table: 'schedules', insert: 'all', update: ['execute_at', 'zone', 'local_time', 'state', 'updated_at', 'released_at', 'released_by', 'late_by_ms'] },
  // Recurring payouts: a template's terms are never updated (pause, resume, end move its state only); an occurrence is
  // claimed by its insert, then settled (its state, reason and who took over a stale claim).
  { table: 'recurring_templates', insert: 'all', update: ['state', 'active_since', 'updated_at', 'changed_by'] },
  { table: 'recurring_occurrences', insert: 'all', update: ['state', 'reason', 'actor', 'updated_at'] },
  // Moved by SECURITY DEFINER triggers only. UPDATE of only_row (a constant) lets the payee book lock the
  // counter's row (SELECT … FOR UPDATE needs an UPDATE right) without letting a desk set the counter.
  { table: 'dual_control_changes' },
  { table: 'payee_changes', update: ['only_row'] },
  // Payee versions: added, then put in force and closed once (triggers refuse the rest).
  {
    table: 'payees',
    insert: [
      'payee_id', 'version', 'base_version', 'name', 'name_key', 'account_number', 'operator_code', 'email_address', 'email_key', 'reference_default', 'source',
      'source_ref', 'bank_change', 'change_digest', 'created_at', 'created_by', 'effective_at', 'closed_at', 'closed_by', 'close_reason',
    ],
    update: ['effective_at', 'closed_at', 'closed_by', 'close_reason'],
  },
  // The journal's working rows: what a payment is (amount, account, ids, who prepared it) is never updated.
  { table: 'batches', insert: 'all', update: ['state', 'pause_reason', 'updated_at'] },
  {
    table: 'payments',
    insert: 'all',
    update: [
      'state', 'status', 'gateway_status', 'is_final', 'fee_minor', 'fee_currency_code', 'failure_reason', 'processed_at', 'is_test', 'last_error', 'attempts',
      'updated_at', 'accepted_at', 'final_at', 'next_poll_at', 'unknown_since', 'resend_refused', 'not_found_since', 'not_found_reads', 'claimed_by',
    ],
  },
  { table: 'payouts' },
  { table: 'payins' },
  // Remittance mails: a desk claims a payout's row (insert), then writes each attempt's outcome; never deletes one.
  {
    table: 'remittance_mails',
    insert: 'all',
    update: ['batch_id', 'recipient', 'state', 'attempts', 'last_reply', 'message_id', 'sends', 'sent_at', 'requested_by', 'claim', 'updated_at'],
  },
  // The desks' leases and the shared rate budget: kept and cleared by the desks themselves.
  { table: 'desk_leases', insert: 'all', update: ['lease_until'], delete: true },
  { table: 'rate_budget_slots', insert: 'all', update: ['ended_at', 'outcome', 'live_until'], delete: true, serial: ['id'] },
  { table: 'rate_budget_pauses', insert: 'all', update: ['paused_until'] },
  { table: 'rate_budget_waiters', insert: 'all', update: ['seen_at'] },
];

/** Functions a desk's statements call (defaults, generated columns, searches). */
export const MEMBER_FUNCTIONS: readonly string[] = ['desk_now_ms', 'desk_fold', 'desk_search_text'];

/** Trigger functions that write what desks may not (the change counters): they run as their owner. */
export const DEFINER_FUNCTIONS: readonly string[] = ['dual_control_changed', 'payees_changed'];

/** What the connected user may do on the team database, read without changing anything. */
export interface TeamRoleRights {
  user: string;
  /** The team schema's version (0: no team tables yet); null when this user may not read it. */
  schemaVersion: number | null;
  /**
   * Can change what the team's tables are (drop a trigger, truncate, rewrite a signed row): a superuser, the
   * owner of the tables or of their schema (or a role that can become one), or a role with CREATEROLE (which
   * can grant itself the owner).
   */
  privileged: boolean;
  /** May bring the schema up to date now: a superuser, a user with the rights of the tables' owner, or on an empty schema one that may create in it. */
  mayMigrate: boolean;
}

/** The rights of the connected user on the team's schema (the first schema of its search_path). */
export async function teamRoleRights(db: PgQueryable): Promise<TeamRoleRights> {
  const r = (await db.query<{
    user: string; superuser: boolean; createrole: boolean; has_version: boolean; reads_version: boolean; owner_rights: boolean; owns_objects: boolean; owns_schema: boolean; may_create: boolean;
  }>(
    `WITH s AS (SELECT oid, nspowner FROM pg_namespace WHERE nspname = current_schema()),
          v AS (SELECT relowner FROM pg_class WHERE oid = to_regclass('schema_version'))
     SELECT current_user AS user, r.rolsuper AS superuser, r.rolcreaterole AS createrole,
            EXISTS (SELECT 1 FROM v) AS has_version,
            COALESCE(has_table_privilege(to_regclass('schema_version'), 'SELECT'), false) AS reads_version,
            COALESCE((SELECT pg_has_role(v.relowner, 'USAGE') FROM v), false) AS owner_rights,
            EXISTS (SELECT 1 FROM pg_class c JOIN s ON c.relnamespace = s.oid WHERE c.relkind IN ('r', 'p', 'v', 'm', 'S', 'f') AND pg_has_role(c.relowner, 'MEMBER')) AS owns_objects,
            COALESCE((SELECT pg_has_role(s.nspowner, 'MEMBER') FROM s), false) AS owns_schema,
            COALESCE((SELECT has_schema_privilege(s.oid, 'CREATE') FROM s), false) AS may_create
       FROM pg_roles r WHERE r.rolname = current_user`,
  )).rows[0];
  if (!r) throw new Error('the team database does not know the user this desk connected as');
  let schemaVersion: number | null = 0;
  if (r.has_version) schemaVersion = r.reads_version ? ((await db.query<{ version: number }>('SELECT version FROM schema_version')).rows[0]?.version ?? 0) : null;
  return {
    user: r.user,
    schemaVersion,
    privileged: r.superuser || r.createrole || r.owns_objects || r.owns_schema,
    mayMigrate: r.superuser || (r.has_version ? r.owner_rights : r.may_create),
  };
}

/**
 * What a desk connected as a member lacks of MEMBER_TABLES and DEFINER_FUNCTIONS, e.g. "INSERT on payees";
 * empty when `profiles team init` gave this version's rights. Table-wide only: a column left out of a list
 * shows at the statement that needs it.
 */
export async function memberRightsMissing(db: PgQueryable): Promise<string[]> {
  const wanted = MEMBER_TABLES.flatMap((t) => [
    [t.table, 'SELECT'],
    ...(t.insert ? [[t.table, 'INSERT']] : []),
    ...(t.update ? [[t.table, 'UPDATE']] : []),
    ...(t.delete ? [[t.table, 'DELETE']] : []),
  ]);
  const r = await db.query<{ missing: string }>(
    `SELECT x.p || ' on ' || x.t AS missing FROM unnest($1::text[], $2::text[]) AS x (t, p)
      WHERE to_regclass(x.t) IS NULL
         OR NOT CASE WHEN x.p = 'DELETE' THEN has_table_privilege(to_regclass(x.t), x.p) ELSE has_any_column_privilege(to_regclass(x.t), x.p) END
     UNION ALL
     SELECT p.proname || '() running as its owner' FROM pg_proc p
      WHERE p.pronamespace = current_schema()::regnamespace AND p.proname = ANY($3::text[]) AND NOT p.prosecdef`,
    [wanted.map((w) => w[0]), wanted.map((w) => w[1]), [...DEFINER_FUNCTIONS]],
  );
  return r.rows.map((row) => row.missing);
}

export interface MemberRoleOptions {
  /** The login role a desk connects as, made a member of MEMBER_GROUP. */
  login?: string;
  /** Made (or set) the login role's password; required when the login role does not exist yet. */
  password?: string | null;
}

/** A refusal of applyMemberRole, in the words and codes of the team database's errors (connect.ts). */
export class MemberRoleError extends CodedError<TeamDatabaseErrorCode> {}

/** What applyMemberRole did, for `profiles team init` to print. */
export interface MemberRoleReport {
  group: string;
  groupCreated: boolean;
  schema: string;
  /** Per table, the rights given, e.g. "SELECT, INSERT (seq, hash), UPDATE (state), DELETE". */
  tables: { table: string; rights: string }[];
  definerFunctions: string[];
  /** Tables or views of the schema this build does not know: the group was given nothing on them. */
  unknownTables: string[];
  /** PUBLIC's CREATE on the schema was revoked (servers before PostgreSQL 15 give it). */
  revokedPublicCreate: boolean;
  /** PUBLIC may still create in the schema (the owner of the tables does not own it): a superuser should revoke it. */
  publicMayCreate: boolean;
  login: { name: string; created: boolean; passwordSet: boolean } | null;
}

/**
 * As the owner of the team's tables, on a schema at this build's version: makes MEMBER_GROUP if missing,
 * gives it exactly MEMBER_TABLES, has the counters' trigger functions run as the owner, and makes `login`
 * (created with `password` when missing) a member. One transaction: on any refusal nothing is changed.
 */
export async function applyMemberRole(pool: Pool, options: MemberRoleOptions = {}): Promise<MemberRoleReport> {
  return inTransaction(pool, async (c) => {
    const rights = await teamRoleRights(c);
    if (!rights.mayMigrate || rights.schemaVersion === null) {
      throw new MemberRoleError('TEAM_DB_PERMISSION', `User ${rights.user} does not own the team database's tables, so it cannot give desks their rights: connect as their owner (the user that migrated them)`);
    }
    if (rights.schemaVersion !== PG_SCHEMA_VERSION) {
      throw new MemberRoleError('TEAM_DB_SCHEMA_OLD', `The team database's schema is at version ${rights.schemaVersion}, not ${PG_SCHEMA_VERSION}: migrate it first`);
    }
    const schema = (await c.query<{ s: string }>('SELECT current_schema() AS s')).rows[0]!.s;
    const s = escapeIdentifier(schema);
    const g = escapeIdentifier(MEMBER_GROUP);
    const groupCreated = await ensureGroup(c, rights.user);

    const present = (await c.query<{ relname: string }>(
      `SELECT relname FROM pg_class WHERE relnamespace = current_schema()::regnamespace AND relkind IN ('r', 'p', 'v', 'm', 'f') ORDER BY relname`,
    )).rows.map((r) => r.relname);
    const known = new Set(MEMBER_TABLES.map((t) => t.table));
    const missing = MEMBER_TABLES.filter((t) => !present.includes(t.table)).map((t) => t.table);
    if (missing.length > 0) throw new MemberRoleError('TEAM_DB_FAILED', `The team database has no ${missing.join(', ')}: it was changed by hand`);

    // Exact: whatever the group or PUBLIC held on the team's tables goes first (column rights with them).
    await c.query(`REVOKE ALL ON ALL TABLES IN SCHEMA ${s} FROM ${g}`);
    await c.query(`REVOKE ALL ON ALL SEQUENCES IN SCHEMA ${s} FROM ${g}`);
    await c.query(`REVOKE ALL ON ALL FUNCTIONS IN SCHEMA ${s} FROM ${g}`);
    await c.query(`GRANT USAGE ON SCHEMA ${s} TO ${g}`);
    const tables: MemberRoleReport['tables'] = [];
    for (const t of MEMBER_TABLES) {
      const name = `${s}.${escapeIdentifier(t.table)}`;
      await c.query(`REVOKE ALL ON ${name} FROM PUBLIC`);
      const given = ['SELECT'];
      if (t.insert) given.push(t.insert === 'all' ? 'INSERT' : `INSERT (${columns(t.insert)})`);
      if (t.update) given.push(`UPDATE (${columns(t.update)})`);
      if (t.delete) given.push('DELETE');
      await c.query(`GRANT ${given.join(', ')} ON ${name} TO ${g}`);
      for (const column of t.serial ?? []) {
        const sequence = (await c.query<{ seq: string | null }>('SELECT pg_get_serial_sequence($1, $2) AS seq', [name, column])).rows[0]?.seq;
        if (!sequence) throw new MemberRoleError('TEAM_DB_FAILED', `${t.table}.${column} draws from no sequence: the team database was changed by hand`);
        await c.query(`GRANT USAGE ON SEQUENCE ${sequence} TO ${g}`);
      }
      tables.push({ table: t.table, rights: given.join(', ') });
    }

    for (const fn of await functionsNamed(c, MEMBER_FUNCTIONS)) await c.query(`GRANT EXECUTE ON FUNCTION ${fn} TO ${g}`);
    const definer = await functionsNamed(c, DEFINER_FUNCTIONS);
    for (const fn of definer) {
      // pg_temp last: a desk's temporary objects never stand in for the owner's.
      await c.query(`ALTER FUNCTION ${fn} SECURITY DEFINER SET search_path = pg_catalog, ${s}, pg_temp`);
      // Trigger functions are not called directly, and a trigger fires without EXECUTE: nobody needs it.
      await c.query(`REVOKE ALL ON FUNCTION ${fn} FROM PUBLIC`);
    }

    // A role that may create in the schema could put objects in the way of the owner's functions.
    const create = (await c.query<{ public_may: boolean; mine: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM aclexplode(COALESCE(n.nspacl, acldefault('n', n.nspowner))) a WHERE a.grantee = 0 AND a.privilege_type = 'CREATE') AS public_may,
              pg_has_role(n.nspowner, 'USAGE') AS mine
         FROM pg_namespace n WHERE n.nspname = current_schema()`,
    )).rows[0]!;
    let revokedPublicCreate = false;
    if (create.public_may && create.mine) {
      await c.query(`REVOKE CREATE ON SCHEMA ${s} FROM PUBLIC`);
      revokedPublicCreate = true;
    }

    const login = options.login === undefined ? null : await ensureLogin(c, options.login, options.password ?? null, rights.user);
    return {
      group: MEMBER_GROUP,
      groupCreated,
      schema,
      tables,
      definerFunctions: definer,
      unknownTables: present.filter((t) => !known.has(t)),
      revokedPublicCreate,
      publicMayCreate: create.public_may && !create.mine,
      login,
    };
  });
}

const columns = (list: readonly string[]) => list.map((c) => escapeIdentifier(c)).join(', ');

/** The functions of the schema with these names, as `name(argument types)`. */
async function functionsNamed(c: PoolClient, names: readonly string[]): Promise<string[]> {
  const found = (await c.query<{ fn: string; name: string }>(
    `SELECT p.oid::regprocedure::text AS fn, p.proname AS name FROM pg_proc p WHERE p.pronamespace = current_schema()::regnamespace AND p.proname = ANY($1::text[]) ORDER BY p.proname`,
    [[...names]],
  )).rows;
  const missing = names.filter((n) => !found.some((f) => f.name === n));
  if (missing.length > 0) throw new MemberRoleError('TEAM_DB_FAILED', `The team database has no function ${missing.join(', ')}: it was changed by hand`);
  return found.map((f) => f.fn);
}

interface RoleRow {
  rolcanlogin: boolean;
  rolsuper: boolean;
  rolcreaterole: boolean;
  rolcreatedb: boolean;
  rolbypassrls: boolean;
  /** It is, or can become, the owner of the team's tables. */
  owner: boolean;
}

async function roleRow(c: PoolClient, name: string): Promise<RoleRow | undefined> {
  return (await c.query<RoleRow>(
    `SELECT r.rolcanlogin, r.rolsuper, r.rolcreaterole, r.rolcreatedb, r.rolbypassrls,
            pg_has_role(r.oid, (SELECT relowner FROM pg_class WHERE oid = to_regclass('schema_version')), 'MEMBER') AS owner
       FROM pg_roles r WHERE r.rolname = $1`,
    [name],
  )).rows[0];
}

/** Makes the group when missing; refuses one that is more than a group of rights. True when made now. */
async function ensureGroup(c: PoolClient, owner: string): Promise<boolean> {
  const row = await roleRow(c, MEMBER_GROUP);
  if (row) {
    if (row.rolcanlogin || row.rolsuper || row.rolcreaterole || row.rolcreatedb || row.rolbypassrls || row.owner) {
      throw new MemberRoleError('TEAM_DB_PERMISSION', `The role ${MEMBER_GROUP} exists and is more than a group of desks' rights (it can log in, create roles or databases, bypass row security, or act as the owner): a superuser makes it NOLOGIN NOSUPERUSER NOCREATEROLE NOCREATEDB NOBYPASSRLS and takes it out of the owner's roles`);
    }
    return false;
  }
  await asOwner(() => c.query(`CREATE ROLE ${escapeIdentifier(MEMBER_GROUP)} NOLOGIN`), `make the role ${MEMBER_GROUP}: a superuser runs CREATE ROLE ${MEMBER_GROUP} NOLOGIN (or gives ${owner} CREATEROLE), then run this again`);
  return true;
}

/** A role name a desk may connect as: printable, no more than PostgreSQL keeps, none of its reserved ones. */
function checkLoginName(name: string, owner: string): void {
  if (!/^[A-Za-z_][A-Za-z0-9_.-]{0,62}$/.test(name)) {
    throw new MemberRoleError('TEAM_DB_FAILED', `"${name}" is not a role name a desk can connect as (letters, digits, _ . -, starting with a letter or _, at most 63)`);
  }
  if (/^pg_/i.test(name) || name.toLowerCase() === 'public' || name === MEMBER_GROUP) throw new MemberRoleError('TEAM_DB_FAILED', `"${name}" cannot be a desk's login role`);
  if (name === owner) throw new MemberRoleError('TEAM_DB_PERMISSION', `${name} owns the team's tables: desks connect as a role of their own (--member another name)`);
}

async function ensureLogin(c: PoolClient, name: string, password: string | null, owner: string): Promise<NonNullable<MemberRoleReport['login']>> {
  checkLoginName(name, owner);
  const role = escapeIdentifier(name);
  const row = await roleRow(c, name);
  let created = false;
  if (row) {
    if (row.rolsuper || row.rolcreaterole || row.rolbypassrls || row.owner) {
      throw new MemberRoleError('TEAM_DB_PERMISSION', `The role ${name} is a superuser, may create roles, bypasses row security or can act as the owner of the team's tables: desks must connect as a role without those (--member another name)`);
    }
    if (!row.rolcanlogin) throw new MemberRoleError('TEAM_DB_FAILED', `The role ${name} cannot log in (NOLOGIN): name a login role, or a new one to make`);
    if (password !== null) {
      await asOwner(() => c.query(`ALTER ROLE ${role} PASSWORD ${escapeLiteral(scramVerifier(password))}`), `set the password of ${name}`);
    }
  } else {
    if (password === null) {
      throw new MemberRoleError('TEAM_DB_FAILED', `There is no role ${name}: give its password (--member-password-stdin or --member-password-env) to make it, or have it made`);
    }
    await asOwner(() => c.query(`CREATE ROLE ${role} LOGIN PASSWORD ${escapeLiteral(scramVerifier(password))}`), `make the role ${name}: a superuser makes it (or gives ${owner} CREATEROLE), then run this again`);
    created = true;
  }
  await asOwner(() => c.query(`GRANT ${escapeIdentifier(MEMBER_GROUP)} TO ${role}`), `make ${name} a member of ${MEMBER_GROUP}: a superuser runs GRANT ${MEMBER_GROUP} TO ${name}`);
  // Only where PUBLIC's CONNECT was taken away (by default every role may connect).
  const db = (await c.query<{ d: string; may: boolean }>(`SELECT current_database() AS d, has_database_privilege($1, current_database(), 'CONNECT') AS may`, [name])).rows[0]!;
  if (!db.may) await asOwner(() => c.query(`GRANT CONNECT ON DATABASE ${escapeIdentifier(db.d)} TO ${role}`), `let ${name} connect to ${db.d}: its owner runs GRANT CONNECT ON DATABASE ${db.d} TO ${name}`);
  return { name, created, passwordSet: password !== null };
}

/** Runs a statement that needs CREATEROLE (or a superuser); a refusal says who must do it. */
async function asOwner<T>(statement: () => Promise<T>, what: string): Promise<T> {
  try {
    return await statement();
  } catch (error) {
    if ((error as { code?: unknown }).code === '42501') throw new MemberRoleError('TEAM_DB_PERMISSION', `The owner may not ${what} (${(error as Error).message})`);
    throw error;
  }
}

/**
 * The SCRAM-SHA-256 secret of a password, as PostgreSQL stores it (and psql's \password sends it): the
 * password itself never reaches the server, so it cannot land in its log (a statement that fails is logged
 * in full). The password is prepared as the pg client and libpq do (SASLprep's mapping and NFKC).
 */
export function scramVerifier(password: string, salt: Buffer = randomBytes(16), iterations = 4096): string {
  const prepared = password
    .replace(/[\u00A0\u1680\u2000-\u200B\u202F\u205F\u3000]/g, ' ')
    // eslint-disable-next-line no-misleading-character-class
    .replace(/[\u00AD\u034F\u1806\u180B\u180C\u180D\u200C\u200D\u2060\uFE00-\uFE0F\uFEFF]/g, '')
    .normalize('NFKC');
  const salted = pbkdf2Sync(prepared, salt, iterations, 32, 'sha256');
  const clientKey = createHmac('sha256', salted).update('Client Key').digest();
  const storedKey = createHash('sha256').update(clientKey).digest();
  const serverKey = createHmac('sha256', salted).update('Server Key').digest();
  return `SCRAM-SHA-256$${iterations}:${salt.toString('base64')}$${storedKey.toString('base64')}:${serverKey.toString('base64')}`;
}
