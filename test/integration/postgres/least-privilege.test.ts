// Least privilege on the team database (issue 23): the owner migrates and gives desks' group role only the
// statements desks issue (`profiles team init`); a desk connected as a member does its whole work, and cannot
// drop a trigger, truncate, rewrite or delete a signed row, pick a record's recorded_at, set a change counter,
// rewrite what a payment is, or create anything. A desk as a member never runs DDL: on an older schema it
// says who must migrate. Each test has a database of its own, owned by a role that is not a superuser.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import type { BatchValidation, BatchView } from '../../../contract/api';
import { PgDualControlRepository } from '../../../main/store/postgres/dual-control';
import { signPreparation } from '../../../main/approvals/preparation';
import { runCli } from '../../../main/cli/index';
import { createAppContext } from '../../../main/context';
import { silentLogger } from '../../../main/log';
import { openTeamStores } from '../../../main/store/postgres/profile-stores';
import { openTeamPool, type OpenTeamPool } from '../../../main/store/postgres/connect';
import { PgJournal } from '../../../main/store/postgres/journal';
import { applyMemberRole, MEMBER_GROUP, MEMBER_TABLES, scramVerifier } from '../../../main/store/postgres/member-role';
import { PG_SCHEMA_VERSION } from '../../../main/store/postgres/migrations';
import { MemoryKeyStore } from '../../../main/keys/key-store';
import { PgPayeeRepository } from '../../../main/store/postgres/payees';
import type { TeamDatabase } from '../../../main/profiles/profile-schema';
import { draftRecord, signRecord } from '../../../main/trust/chain-record';
import { startSandbox, type SandboxHandle } from '../../../sandbox/index';
import { approve, chainOf, manifest, member, row } from '../../unit/approvals/helpers';
import { payout } from '../../unit/journal/helpers';
import { T0, version } from '../../unit/payees/helpers';
import { sandboxConfig } from '../engine/setup';
import { eventually, openTeamAppDesk, teamCsv, type TeamAppDesk } from './team-app-desk';

const OWNER = 'lp_owner';
const DESK = 'lp_desk';

let admin: pg.Pool;
const pools: pg.Pool[] = [];
const opened: { close(): Promise<void> }[] = [];

beforeAll(async () => {
  admin = new pg.Pool({ connectionString: inject('postgresUrl'), max: 2 });
  // The owner of the team's tables: no superuser; CREATEROLE so that init can make the desks' roles.
  await admin.query(`CREATE ROLE ${OWNER} LOGIN CREATEROLE`);
});
afterEach(async () => {
  for (const o of opened.splice(0).reverse()) await o.close().catch(() => undefined);
  for (const p of pools.splice(0)) await p.end().catch(() => undefined);
});
afterAll(async () => {
  await admin.end();
});

/** postgres://user@… of database `db` on the test cluster. */
function urlAs(user: string, db: string): string {
  return inject('postgresUrl').replace('postgres://postgres@', `postgres://${user}@`).replace(/\/[^/]*$/, `/${db}`);
}

const team = (user: string, db: string): TeamDatabase => ({ url: urlAs(user, db), tls: 'disable', caFile: null });

let dbCount = 0;
/** A new empty database owned by the owner role (its public schema too: PostgreSQL 15's pg_database_owner). */
async function ownedDatabase(): Promise<string> {
  const name = `lp_${++dbCount}_${Math.random().toString(36).slice(2, 8)}`;
  await admin.query(`CREATE DATABASE ${name} OWNER ${OWNER}`);
  return name;
}

function cliAt() {
  const home = mkdtempSync(join(tmpdir(), 'desk-least-privilege-'));
  const keyStore = new MemoryKeyStore();
  let profileAdded = false;
  return async (args: string[], options: { env?: Record<string, string>; stdin?: string } = {}) => {
    let out = '';
    let err = '';
    const io = { stdout: (t: string) => void (out += t), stderr: (t: string) => void (err += t), ...(options.stdin !== undefined ? { readStdin: async () => options.stdin! } : {}) };
    if (!profileAdded) {
      profileAdded = true;
      const code = await runCli(['--home', home, 'profiles', 'add', '--name', 'Shop', '--base-url', 'http://127.0.0.1:9', '--merchant-code', 'M', '--environment', 'TEST'], { keyStore, io, env: {} });
      expect(code).toBe(0);
      out = '';
      err = '';
    }
    const code = await runCli(['--home', home, ...args], { keyStore, io, env: options.env ?? {} });
    return { code, out, err };
  };
}

/** `profiles team init` as the owner on `db`, making `login` a member (its password from an environment variable). */
async function init(db: string, login = DESK, password = 'desk-password-1'): Promise<Record<string, unknown>> {
  const cli = cliAt();
  const r = await cli(['--json', 'profiles', 'team', 'init', 'shop', '--owner-url', urlAs(OWNER, db), '--tls', 'disable', '--member', login, '--member-password-env', 'DESK_PW'], {
    env: { DESK_PW: password },
  });
  expect(r.err).toBe('');
  expect(r.code).toBe(0);
  return JSON.parse(r.out) as Record<string, unknown>;
}

/** openTeamPool on `db` as `user`; closed after the test. */
async function open(user: string, db: string, deskId?: string): Promise<OpenTeamPool> {
  const o = await openTeamPool(team(user, db), null, { max: 6, ...(deskId ? { deskId } : {}) });
  pools.push(o.pool);
  return o;
}

/** A plain pool on `db` as `user` (for statements no desk issues). */
function poolAs(user: string, db: string): pg.Pool {
  const pool = new pg.Pool({ connectionString: urlAs(user, db), max: 2 });
  pools.push(pool);
  return pool;
}

const PERMISSION = /permission denied|must be owner|must be superuser/;

describe('profiles team init', () => {
  it('migrates as the owner, makes the group and the login role (a SCRAM secret, never the password), and says what desks may do; run again, it only re-applies', async () => {
    const db = await ownedDatabase();
    const cli = cliAt();
    const first = await cli(['--json', 'profiles', 'team', 'init', 'shop', '--owner-url', urlAs(OWNER, db), '--tls', 'disable', '--member', 'lp_desk_one', '--member-password-stdin'], {
      stdin: 'first-desk-secret\n',
    });
    expect(first.err).toBe('');
    expect(first.code).toBe(0);
    const report = JSON.parse(first.out) as Record<string, unknown>;
    expect(report).toMatchObject({ schemaVersion: PG_SCHEMA_VERSION, migratedFrom: 0, group: MEMBER_GROUP, unknownTables: [], login: { name: 'lp_desk_one', created: true, passwordSet: true } });
    expect(report['memberUrl']).toBe(urlAs('lp_desk_one', db));
    expect(report['tables']).toContainEqual({ table: 'approvals', rights: expect.stringMatching(/^SELECT, INSERT \("id", .*"signature"\)$/) });
    expect(report['tables']).toContainEqual({ table: 'control_chain', rights: 'SELECT, INSERT ("seq", "hash", "record_json")' });
    expect(first.out).not.toContain('first-desk-secret');

    const secret = (await admin.query<{ rolpassword: string }>(`SELECT rolpassword FROM pg_authid WHERE rolname = 'lp_desk_one'`)).rows[0]!.rolpassword;
    const [, iterations, salt] = /^SCRAM-SHA-256\$(\d+):([^$]+)\$/.exec(secret)!;
    expect(scramVerifier('first-desk-secret', Buffer.from(salt!, 'base64'), Number(iterations))).toBe(secret);
    const membership = await admin.query(`SELECT 1 FROM pg_auth_members m JOIN pg_roles g ON g.oid = m.roleid JOIN pg_roles u ON u.oid = m.member WHERE g.rolname = $1 AND u.rolname = 'lp_desk_one'`, [MEMBER_GROUP]);
    expect(membership.rowCount).toBe(1);

    const human = await cli(['profiles', 'team', 'init', 'shop', '--owner-url', urlAs(OWNER, db), '--tls', 'disable', '--member', 'lp_desk_one']);
    expect(human.err).toBe('');
    expect(human.code).toBe(0);
    expect(human.out).toContain(`schema version ${PG_SCHEMA_VERSION} (already current)`);
    expect(human.out).toContain('Login role lp_desk_one (already there) is a member of payout_desk_member.');
    expect(human.out).toMatch(/audit_log\s+SELECT, INSERT\n/);
    expect(human.out).toContain('Next, at each desk (desks connect as the member, never as the owner; DESK_DB_PASSWORD holds its password):');
    // The line to paste keeps the TLS mode the owner used (a server without TLS on this machine: disable).
    expect(human.out).toContain(`profiles team set shop --url ${urlAs('lp_desk_one', db)} --tls disable --password-stdin`);
    expect(human.out).toContain(`printf '%s' "$DESK_DB_PASSWORD" | `);
  });

  it('gives rights on every table and view of the schema, and nothing it does not name', async () => {
    const db = await ownedDatabase();
    await init(db);
    const tables = (await poolAs(OWNER, db).query<{ relname: string }>(
      `SELECT relname FROM pg_class WHERE relnamespace = 'public'::regnamespace AND relkind IN ('r', 'v') AND relname NOT LIKE 'pg\\_%' ORDER BY relname`,
    )).rows.map((r) => r.relname);
    expect(tables.sort()).toEqual(MEMBER_TABLES.map((t) => t.table).sort());
    // Table-level rights beyond SELECT only where named; never TRUNCATE, REFERENCES or TRIGGER.
    const rights = (await poolAs(OWNER, db).query<{ table_name: string; privilege_type: string }>(
      `SELECT table_name, privilege_type FROM information_schema.role_table_grants WHERE grantee = $1 ORDER BY table_name, privilege_type`,
      [MEMBER_GROUP],
    )).rows;
    expect(rights.filter((r) => ['TRUNCATE', 'REFERENCES', 'TRIGGER'].includes(r.privilege_type))).toEqual([]);
    const appendOnly = ['control_chain', 'control_proposals', 'preparations', 'approvals', 'policies', 'people', 'role_grants', 'audit_log', 'audit_signers', 'payee_approvals', 'status_events', 'team_identity', 'schema_version'];
    expect(rights.filter((r) => appendOnly.includes(r.table_name) && ['UPDATE', 'DELETE'].includes(r.privilege_type))).toEqual([]);
    const columnUpdates = (await poolAs(OWNER, db).query<{ table_name: string; column_name: string }>(
      `SELECT table_name, column_name FROM information_schema.column_privileges WHERE grantee = $1 AND privilege_type = 'UPDATE' AND table_name IN ('payments', 'payees') ORDER BY 1, 2`,
      [MEMBER_GROUP],
    )).rows;
    expect(columnUpdates.filter((r) => r.table_name === 'payees').map((r) => r.column_name)).toEqual(['close_reason', 'closed_at', 'closed_by', 'effective_at']);
    const payments = columnUpdates.filter((r) => r.table_name === 'payments').map((r) => r.column_name);
    expect(payments).toContain('state');
    for (const fixed of ['id', 'amount_minor', 'currency_code', 'account_name', 'account_number', 'payment_operator_code', 'email_address', 'callback_url', 'batch_id', 'prepared_by']) {
      expect(payments).not.toContain(fixed);
    }
  });

  it('refuses an owner URL whose user does not own the tables, a member that is the owner, and a login role to make without its password', async () => {
    const db = await ownedDatabase();
    await init(db);
    const cli = cliAt();
    const notOwner = await cli(['profiles', 'team', 'init', 'shop', '--owner-url', urlAs(DESK, db), '--tls', 'disable', '--member', 'lp_other']);
    expect(notOwner.code).toBe(1);
    expect(notOwner.err).toContain(`User ${DESK} does not own the team database's tables`);
    const ownerAsMember = await cli(['profiles', 'team', 'init', 'shop', '--owner-url', urlAs(OWNER, db), '--tls', 'disable', '--member', OWNER]);
    expect(ownerAsMember.code).toBe(2);
    expect(ownerAsMember.err).toContain('is the owner: desks connect as a role of their own');
    const noPassword = await cli(['profiles', 'team', 'init', 'shop', '--owner-url', urlAs(OWNER, db), '--tls', 'disable', '--member', 'lp_nobody_yet']);
    expect(noPassword.code).toBe(1);
    expect(noPassword.err).toContain('There is no role lp_nobody_yet: give its password');
    expect((await admin.query(`SELECT 1 FROM pg_roles WHERE rolname = 'lp_nobody_yet'`)).rowCount).toBe(0);
    const unset = await cli(['profiles', 'team', 'init', 'shop', '--owner-url', urlAs(OWNER, db), '--tls', 'disable', '--owner-password-env', 'NOT_SET_HERE']);
    expect(unset.code).toBe(2);
    expect(unset.err).toContain('NOT_SET_HERE, which is not set');
  });
});

describe('a desk connected as a member', () => {
  it('opens a current schema without DDL (it may not create anything) and is told it is no owner', async () => {
    const db = await ownedDatabase();
    await init(db);
    const desk = poolAs(DESK, db);
    expect((await desk.query(`SELECT has_schema_privilege('public', 'CREATE') AS may`)).rows[0]).toEqual({ may: false });
    // Any DDL (migratePg's CREATE TABLE IF NOT EXISTS included) would fail: opening succeeds, so none ran.
    const asMember = await open(DESK, db, 'desk-a');
    expect(asMember).toMatchObject({ user: DESK, privileged: false, schemaVersion: PG_SCHEMA_VERSION, migratedFrom: PG_SCHEMA_VERSION });
    const journal = await PgJournal.open(asMember.pool, { deskId: 'desk-a' });
    opened.push(journal);
    expect((await open(OWNER, db)).privileged).toBe(true);
    expect((await openTeamPool({ url: inject('postgresUrl').replace(/\/[^/]*$/, `/${db}`), tls: 'disable', caFile: null }, null, { max: 1 }).then((o) => (pools.push(o.pool), o))).privileged).toBe(true);
  });

  it("does a desk's work: payments, claims, the audit log, the control chain, proposals, approvals, preparations and the payee book", async () => {
    const db = await ownedDatabase();
    await init(db);
    const { pool } = await open(DESK, db, 'desk-a');
    const journal = await PgJournal.open(pool, { deskId: 'desk-a' });
    opened.push(journal);
    await journal.insertPayment('payout', payout('p-1'));
    await journal.createBatch({ fileName: 'b.csv', sha256: 'b'.repeat(64), rows: [payout('b-1'), payout('b-2')] });
    const claim = await journal.claimSend('payout', 'p-1');
    expect(claim!.confirm()).toBe(true);
    await journal.recordObservation('payout', 'p-1', { status: 'SUCCESS', isFinal: true, source: 'create' });
    await claim!.release();
    expect(await journal.paymentState('payout', 'p-1')).toEqual({ state: 'ACCEPTED', isFinal: true });
    await journal.setNextPoll('payout', 'b-1', T0);
    expect((await journal.duePolls(T0 + 1, 10)).map((p) => p.id)).toEqual(['b-1']);
    expect(await journal.cancelUnsent('payout', ['b-2'])).toBe(1);
    await journal.insertBalanceSnapshots([{ currencyCode: 'EUR', availableMinor: 100, reservedMinor: 0 }]);
    await journal.audit({ actor: 'desk', action: 'test.done', subject: null, details: {} });
    expect((await journal.listAudit(100)).map((e) => e.action)).toContain('test.done');

    const ada = member('ada', ['admin', 'approver', 'preparer']);
    const dual = await PgDualControlRepository.open(pool);
    opened.push(dual);
    const before = dual.changeMarker();
    const [genesis] = chainOf('prof-1', [ada]);
    await dual.appendChain(genesis!);
    const next = signRecord(draftRecord({ head: { seq: genesis!.seq, hash: genesis!.hash, at: genesis!.at }, at: T0, body: { kind: 'policy', version: 1, rules: { bands: {}, newOrChangedPayee: 0 } } }), ada.session);
    await dual.addProposal(next);
    const on = manifest([row('p-9', 100)]);
    await dual.addApproval(approve(ada, on));
    await dual.addPreparation(signPreparation(ada.session, { id: 'prep-1', manifest: on, signedAt: T0 }));
    expect((await dual.chain()).map((r) => r.hash)).toEqual([genesis!.hash]);
    expect(await dual.proposals()).toHaveLength(1);
    // recorded_at is the database's clock, not the desk's.
    const [approval] = await dual.approvalsFor(on.subject);
    expect(Math.abs((approval?.recordedAt ?? 0) - Date.now())).toBeLessThan(60_000);
    expect(await dual.preparationsFor(on.subject)).toHaveLength(1);
    // The counter moved (its trigger runs as the owner), though the desk may not write it.
    expect(dual.changeMarker()).not.toBe(before);

    const payees = await PgPayeeRepository.open(pool, () => T0);
    opened.push({ close: () => payees.end() });
    await payees.addVersions([version('g', 1), version('g', 2, { accountNumber: 'DE89370400440532013000' }, { waiting: true })]);
    await payees.activate('g', 2, T0 + 100, 'ada');
    await payees.addVersions([version('h', 1, { name: 'Hedy Lamarr' }, { waiting: true })]);
    await payees.close('h', 1, T0 + 100, 'ada', 'withdrawn');
    await payees.addApproval({ id: 'pa-1', profileId: 'prof-1', payeeId: 'g', payeeVersion: 2, changeDigest: 'd', policyVersion: 1, decision: 'approve', reason: null, signerId: 'ada', signedAt: T0, signature: 's' });
    expect((await payees.versions('g')).map((v) => [v.version, v.closedAt !== null])).toEqual([[1, true], [2, false]]);
  });

  it('cannot drop a trigger, truncate, rewrite or delete a signed row, pick recorded_at, set a counter, rewrite a payment, or create anything', async () => {
    const db = await ownedDatabase();
    await init(db);
    const { pool } = await open(DESK, db, 'desk-a');
    const journal = await PgJournal.open(pool, { deskId: 'desk-a' });
    opened.push(journal);
    await journal.insertPayment('payout', payout('p-1'));
    const ada = member('ada', ['admin', 'approver']);
    const dual = await PgDualControlRepository.open(pool);
    opened.push(dual);
    await dual.appendChain(chainOf('prof-1', [ada])[0]!);
    const on = manifest([row('p-1', 12_550)]);
    await dual.addApproval(approve(ada, on));
    await dual.addPreparation(signPreparation(ada.session, { id: 'prep-1', manifest: on, signedAt: T0 }));
    const payees = await PgPayeeRepository.open(pool, () => T0);
    opened.push({ close: () => payees.end() });
    await payees.addVersions([version('g', 1)]);

    const desk = poolAs(DESK, db);
    const refused = async (sql: string) => {
      const error = await desk.query(sql).then(() => null, (e: unknown) => e as { code?: string; message: string });
      expect(error, sql).not.toBeNull();
      // Refused for want of the right, not by a trigger that a privileged role could drop.
      expect(error!.message, sql).toMatch(PERMISSION);
    };
    for (const sql of [
      'DROP TRIGGER approvals_append_only ON approvals',
      'DROP TRIGGER control_chain_append_only ON control_chain',
      'ALTER TABLE audit_log DISABLE TRIGGER ALL',
      'DROP FUNCTION append_only() CASCADE',
      'TRUNCATE control_chain',
      'TRUNCATE audit_log',
      'TRUNCATE approvals',
      'TRUNCATE payees',
      `UPDATE control_chain SET record_json = '{}'`,
      'DELETE FROM control_chain',
      `UPDATE approvals SET decision = 'approve'`,
      'DELETE FROM approvals',
      `UPDATE audit_log SET actor = 'someone else'`,
      'DELETE FROM audit_log',
      `UPDATE preparations SET signer_id = 'mallory'`,
      'DELETE FROM preparations',
      'DELETE FROM control_proposals',
      `UPDATE audit_signers SET public_key = 'x'`,
      `UPDATE payee_approvals SET decision = 'approve'`,
      `INSERT INTO people (id, name, public_key, created_at) VALUES ('mallory', 'Mallory', 'k', 1)`,
      `INSERT INTO policies (version, profile_id, rules_json, set_at, recorded_at) VALUES (9, 'prof-1', '{}', 1, 1)`,
      `INSERT INTO approvals (id, profile_id, subject_kind, subject_id, manifest_digest, policy_version, decision, signer_id, signed_at, signature, recorded_at)
         VALUES ('late', 'prof-1', 'batch', 'batch-1', 'd', 0, 'approve', 'ada', 1, 's', 1)`,
      `INSERT INTO preparations (id, profile_id, subject_kind, subject_id, digest, signer_id, signed_at, signature, recorded_at) VALUES ('p', 'prof-1', 'batch', 'b', 'd', 'ada', 1, 's', 1)`,
      `INSERT INTO control_chain (seq, hash, record_json, recorded_at) VALUES (99, 'h', '{}', 1)`,
      `INSERT INTO approvals (seq, id, profile_id, subject_kind, subject_id, manifest_digest, policy_version, decision, signer_id, signed_at, signature)
         VALUES (1, 'first', 'prof-1', 'batch', 'batch-1', 'd', 0, 'approve', 'ada', 1, 's')`,
      'UPDATE dual_control_changes SET n = 9223372036854775807',
      'UPDATE payee_changes SET n = 0',
      'UPDATE schema_version SET version = 1',
      `UPDATE payments SET account_number = 'GB33BUKB20201555555555'`,
      'UPDATE payments SET amount_minor = 1',
      `UPDATE payments SET callback_url = 'https://evil.example'`,
      'DELETE FROM payments',
      `UPDATE payees SET account_number = 'GB33BUKB20201555555555'`,
      'DELETE FROM payees',
      'CREATE TABLE shadow (a int)',
      'CREATE FUNCTION pg_temp_like() RETURNS int LANGUAGE sql AS $$ SELECT 1 $$',
      `SET ROLE ${OWNER}`,
      `ALTER ROLE ${DESK} SUPERUSER`,
      'ALTER FUNCTION dual_control_changed() SECURITY INVOKER',
    ]) await refused(sql);

    // Nothing of it happened.
    expect((await desk.query('SELECT count(*)::int AS n FROM control_chain')).rows[0]).toEqual({ n: 1 });
    expect((await desk.query(`SELECT count(*)::int AS n FROM approvals WHERE id IN ('late', 'first')`)).rows[0]).toEqual({ n: 0 });
    expect((await desk.query(`SELECT account_number FROM payments WHERE id = 'p-1'`)).rows[0]).toEqual({ account_number: 'DE89370400440532013000' });
  });
});

describe('openTeamPool as a member, when the schema is not this desk\'s', () => {
  it('an older schema: says its owner runs team init, and changes nothing', async () => {
    const db = await ownedDatabase();
    await init(db);
    await poolAs('postgres', db).query('UPDATE schema_version SET version = version - 1');
    const error = await openTeamPool(team(DESK, db), null, { max: 1 }).then(() => null, (e: unknown) => e as { code: string; message: string });
    expect(error).toMatchObject({ code: 'TEAM_DB_SCHEMA_OLD' });
    expect(error!.message).toContain(`The team database's schema is older than this desk (version ${PG_SCHEMA_VERSION - 1}, this desk needs ${PG_SCHEMA_VERSION}), and user ${DESK} may not change it`);
    expect(error!.message).toMatch(new RegExp(`its owner runs \`payout-desk profiles team init <profile> --owner-url postgres://<owner>@127\\.0\\.0\\.1:\\d+/${db}\``));
    expect((await poolAs('postgres', db).query('SELECT version FROM schema_version')).rows[0]).toEqual({ version: PG_SCHEMA_VERSION - 1 });
  });

  it('a database with no team tables yet, and one whose owner never gave this user its rights: each says so', async () => {
    await init(await ownedDatabase());
    const empty = await ownedDatabase();
    const error = await openTeamPool(team(DESK, empty), null, { max: 1 }).then(() => null, (e: unknown) => e as { code: string; message: string });
    expect(error).toMatchObject({ code: 'TEAM_DB_SCHEMA_OLD', message: expect.stringContaining(`has no team tables yet, and user ${DESK} may not create them`) });
    expect((await poolAs('postgres', empty).query(`SELECT to_regclass('schema_version') AS t`)).rows[0]).toEqual({ t: null });

    const db = await ownedDatabase();
    await openTeamPool(team(OWNER, db), null, { max: 1 }).then((o) => o.pool.end());
    await admin.query(`DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'lp_stranger') THEN CREATE ROLE lp_stranger LOGIN; END IF; END $$`);
    const stranger = await openTeamPool(team('lp_stranger', db), null, { max: 1 }).then(() => null, (e: unknown) => e as { code: string; message: string });
    expect(stranger).toMatchObject({ code: 'TEAM_DB_PERMISSION', message: expect.stringContaining('User lp_stranger has no rights on the team database\'s tables') });
    expect(stranger!.message).toContain('--member lp_stranger');
  });

  it('rights not given for this version (the owner migrated without init): says which, and init again mends them', async () => {
    const db = await ownedDatabase();
    await init(db);
    const owner = poolAs(OWNER, db);
    // As a later migration that adds or replaces them would leave them.
    await owner.query(`REVOKE INSERT ON payee_approvals FROM ${MEMBER_GROUP}`);
    await owner.query('CREATE OR REPLACE FUNCTION payees_changed() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$');
    const error = await openTeamPool(team(DESK, db), null, { max: 1 }).then(() => null, (e: unknown) => e as { code: string; message: string });
    expect(error).toMatchObject({ code: 'TEAM_DB_PERMISSION' });
    expect(error!.message).toContain(`User ${DESK} lacks rights desks need on the team database`);
    expect(error!.message).toContain('INSERT on payee_approvals, payees_changed() running as its owner;');
    expect(error!.message).toContain(`--member ${DESK}`);
    await init(db);
    expect((await open(DESK, db)).privileged).toBe(false);
  });

  it('applyMemberRole, asked by a user who does not own the tables, changes nothing', async () => {
    const db = await ownedDatabase();
    await init(db);
    const { pool } = await open(DESK, db);
    await expect(applyMemberRole(pool, { login: 'lp_sneaky', password: 'x' })).rejects.toMatchObject({ code: 'TEAM_DB_PERMISSION' });
    expect((await admin.query(`SELECT 1 FROM pg_roles WHERE rolname = 'lp_sneaky'`)).rowCount).toBe(0);
  });
});

describe('two desks of a team as the app runs them, each connected as a member', () => {
  let sandbox: SandboxHandle;
  const desks: TeamAppDesk[] = [];
  beforeAll(async () => {
    sandbox = await startSandbox(sandboxConfig());
  });
  afterAll(async () => {
    for (const d of desks.splice(0)) await d.close();
    await sandbox.close();
  });

  it('a batch prepared at one desk is sent by the other and seen final at both', async () => {
    const db = await ownedDatabase();
    await init(db);
    await init(db, 'lp_sender', 'sender-password-1');
    const prep = await openTeamAppDesk({ name: 'prep', teamUrl: urlAs(DESK, db), gatewayUrl: sandbox.url });
    desks.push(prep);
    const sender = await openTeamAppDesk({ name: 'sender', teamUrl: urlAs('lp_sender', db), gatewayUrl: sandbox.url, senderOf: sandbox });
    desks.push(sender);
    await sender.runtime.engineFor('team');
    const validation = await prep.call<BatchValidation>('batches:validateFile', { source: teamCsv('lp1', 5) });
    expect(validation.errors).toEqual([]);
    const submitted = await prep.call<BatchView>('batches:submit', { validationId: validation.validationId, confirmedWarningRows: validation.warnings.map((w) => w.rowNumber) });
    await eventually(async () => (await prep.call<BatchView>('batches:get', { batchId: submitted.id })).progress.pending === 0, 'the batch final at the preparing desk');
    expect((await sender.call<BatchView>('batches:get', { batchId: submitted.id })).progress).toMatchObject({ state: 'COMPLETED', total: 5, done: 5 });
    expect(sandbox.state().payouts.filter((p) => p.idPayout.startsWith('lp1-'))).toHaveLength(5);
  });
});

describe('a LIVE desk', () => {
  it("does not open its team stores as a role that may change the schema; as the member it does", async () => {
    const db = await ownedDatabase();
    await init(db);
    const home = mkdtempSync(join(tmpdir(), 'desk-least-privilege-live-'));
    const ctx = createAppContext({ home, keyStore: new MemoryKeyStore() });
    try {
      // Loopback: a LIVE profile may connect without TLS to a database on this machine.
      ctx.profiles.add({ id: 'live', name: 'Live', baseUrl: 'https://gateway.example.com', merchantCode: 'M', environment: 'LIVE' });
      ctx.profiles.update('live', { teamDatabase: team(OWNER, db) });
      await expect(openTeamStores({ ctx, profile: ctx.profiles.get('live'), log: silentLogger })).rejects.toMatchObject({ code: 'TEAM_DB_PRIVILEGED', message: expect.stringMatching(/User lp_owner may change the team database's schema.*team init/) });
      ctx.profiles.update('live', { teamDatabase: team(DESK, db) });
      const stores = await openTeamStores({ ctx, profile: ctx.profiles.get('live'), log: silentLogger });
      opened.push(stores);
      expect(stores.team?.where).toContain(DESK);
    } finally {
      ctx.close();
    }
  });
});
