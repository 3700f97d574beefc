// A profile pointed at a team database (issue 15): what the profile may hold (no password, no TLS
// override in the URL, no clear text to a remote host on LIVE), old profile rows still load, the pool
// settings each TLS mode means, pg / Node failures in plain words, and the password in the keychain only.
import Database from 'better-sqlite3';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeTeamError, readTeamCa, teamPoolConfig, TEAM_APPLICATION_NAME } from '../../../main/store/postgres/connect';
import { MemoryKeyStore } from '../../../main/keys/key-store';
import { isLoopbackHost, TeamDatabaseSchema, teamUrlProblem, type TeamDatabase } from '../../../main/profiles/profile-schema';
import { ProfileStore } from '../../../main/profiles/profile-store';
import { TeamPasswords, teamPasswordAccount } from '../../../main/keys/team-password';
import type { SecurityAction } from '../../../main/audit/security-action';

const file = () => join(mkdtempSync(join(tmpdir(), 'desk-team-')), 'desk.db');
const team = (over: Partial<TeamDatabase> = {}): TeamDatabase => ({ url: 'postgres://desk@db.example.com:5433/payouts', tls: 'verify-full', caFile: null, ...over });

function problemOf(fn: () => unknown): string {
  try {
    fn();
    return 'ok';
  } catch (e) {
    return (e as Error).message;
  }
}

describe('team database URL', () => {
  it('takes postgres:// and postgresql:// with user, host, optional port and database', () => {
    expect(teamUrlProblem('postgres://desk@db.example.com:5432/payouts')).toBeNull();
    expect(teamUrlProblem('postgresql://desk@db.example.com/payouts')).toBeNull();
    expect(teamUrlProblem('postgres://desk@[::1]:5432/payouts')).toBeNull();
    expect(TeamDatabaseSchema.parse({ url: 'postgres://desk@db/payouts' })).toEqual({ url: 'postgres://desk@db/payouts', tls: 'verify-full', caFile: null });
  });

  it('refuses a password in the URL and says where it goes', () => {
    expect(teamUrlProblem('postgres://desk:hunter2@db.example.com/payouts')).toContain('the password goes in the keychain, not in the URL');
    // An empty password is still the URL trying to carry one.
    expect(teamUrlProblem('postgres://desk:@db.example.com/payouts')).toContain('the password goes in the keychain');
    const parsed = TeamDatabaseSchema.safeParse({ url: 'postgres://desk:hunter2@db/payouts' });
    expect(parsed.success).toBe(false);
    expect(JSON.stringify(parsed.error?.issues)).not.toContain('hunter2');
  });

  it('refuses query parameters that would set TLS, and any other query parameter', () => {
    expect(teamUrlProblem('postgres://desk@db/payouts?sslmode=disable')).toMatch(/must not set sslmode: TLS comes from the profile's tls setting/);
    expect(teamUrlProblem('postgres://desk@db/payouts?sslrootcert=/tmp/x&ssl=0')).toMatch(/sslrootcert, ssl/);
    expect(teamUrlProblem('postgres://desk@db/payouts?host=/var/run/postgresql')).toContain('must not carry query parameters (host)');
  });

  it('refuses other schemes, a missing user or database, and non-URLs', () => {
    expect(teamUrlProblem('mysql://desk@db/payouts')).toContain('postgres://');
    expect(teamUrlProblem('postgres://db.example.com/payouts')).toContain('database user');
    expect(teamUrlProblem('postgres://desk@db.example.com')).toContain('name one database');
    expect(teamUrlProblem('postgres://desk@db.example.com/a/b')).toContain('name one database');
    expect(teamUrlProblem('db.example.com')).toContain('must be a URL');
  });

  it('knows loopback hosts', () => {
    for (const h of ['localhost', '127.0.0.1', '127.1.2.3', '::1', '[::1]']) expect(isLoopbackHost(h)).toBe(true);
    for (const h of ['db.example.com', '10.0.0.1', '0.0.0.0', '::', 'localhost.example.com']) expect(isLoopbackHost(h)).toBe(false);
  });
});

describe('profile with a team database', () => {
  const base = { name: 'Live', baseUrl: 'https://gw.example.com', merchantCode: 'M', environment: 'LIVE' as const };

  it('defaults to no team database, and keeps one given', () => {
    const store = new ProfileStore(file());
    expect(store.add({ name: 'Solo', baseUrl: 'http://127.0.0.1:9', merchantCode: 'M' }).teamDatabase).toBeNull();
    const p = store.add({ ...base, teamDatabase: { url: 'postgres://desk@db.example.com/payouts', caFile: '/etc/ssl/team-ca.pem' } });
    expect(p.teamDatabase).toEqual({ url: 'postgres://desk@db.example.com/payouts', tls: 'verify-full', caFile: '/etc/ssl/team-ca.pem' });
    store.close();
  });

  it('refuses tls "disable" on a LIVE profile unless the database is on this machine, and says why', () => {
    const store = new ProfileStore(file());
    const remote = problemOf(() => store.add({ ...base, teamDatabase: { url: 'postgres://desk@db.example.com/payouts', tls: 'disable' } }));
    expect(remote).toContain('clear text');
    expect(remote).toContain('db.example.com');
    expect(store.add({ ...base, teamDatabase: { url: 'postgres://desk@127.0.0.1:5432/payouts', tls: 'disable' } }).teamDatabase?.tls).toBe('disable');
    // TEST may use clear text, or an unchecked certificate, anywhere (a lab database); it never becomes LIVE.
    const test = store.add({ ...base, name: 'Lab', environment: 'TEST', teamDatabase: { url: 'postgres://desk@lab.example.com/payouts', tls: 'disable' } });
    expect(problemOf(() => store.update(test.id, { environment: 'LIVE' }))).toContain('the environment is fixed when a profile is created');
    expect(store.update(test.id, { teamDatabase: { url: 'postgres://desk@lab.example.com/payouts', tls: 'require' } }).teamDatabase?.tls).toBe('require');
    store.close();
  });

  it('refuses a relative CA file and a password in the URL on update, keeping the stored value', () => {
    const store = new ProfileStore(file());
    const p = store.add({ ...base, teamDatabase: { url: 'postgres://desk@db.example.com/payouts' } });
    expect(problemOf(() => store.update(p.id, { teamDatabase: { url: 'postgres://desk@db.example.com/payouts', caFile: 'certs/ca.pem' } }))).toContain('absolute path');
    expect(problemOf(() => store.update(p.id, { teamDatabase: { url: 'postgres://desk:pw@db.example.com/payouts' } }))).toContain('the password goes in the keychain, not in the URL');
    expect(store.get(p.id).teamDatabase?.url).toBe('postgres://desk@db.example.com/payouts');
    expect(store.update(p.id, { teamDatabase: null }).teamDatabase).toBeNull();
    store.close();
  });

  it('loads a profile row written before team databases existed', () => {
    const path = file();
    const first = new ProfileStore(path);
    const p = first.add({ name: 'Old', baseUrl: 'http://127.0.0.1:9', merchantCode: 'M' });
    first.close();
    // Rewrite the row as an older version stored it: no teamDatabase field at all.
    const db = new Database(path);
    const row = db.prepare('SELECT data FROM profiles WHERE id = ?').get(p.id) as { data: string };
    const { teamDatabase: _dropped, ...old } = JSON.parse(row.data) as Record<string, unknown>;
    expect(_dropped).toBeNull();
    db.prepare('UPDATE profiles SET data = ? WHERE id = ?').run(JSON.stringify(old), p.id);
    db.close();
    const second = new ProfileStore(path);
    expect(second.get(p.id)).toMatchObject({ name: 'Old', teamDatabase: null });
    second.close();
  });
});

describe('teamPoolConfig', () => {
  it('verify-full checks the certificate, with the CA given', () => {
    const config = teamPoolConfig(team(), 'pw', { ca: 'PEM' });
    expect(config).toMatchObject({ host: 'db.example.com', port: 5433, user: 'desk', database: 'payouts', password: 'pw', ssl: { rejectUnauthorized: true, ca: 'PEM' }, application_name: TEAM_APPLICATION_NAME });
    expect(teamPoolConfig(team(), 'pw').ssl).toEqual({ rejectUnauthorized: true });
  });

  it('require encrypts without checking; disable is clear text', () => {
    expect(teamPoolConfig(team({ tls: 'require' }), 'pw', { ca: 'PEM' }).ssl).toEqual({ rejectUnauthorized: false });
    expect(teamPoolConfig(team({ tls: 'disable' }), 'pw').ssl).toBe(false);
  });

  it('sets connection and statement timeouts, takes no connection string, and decodes the URL', () => {
    const config = teamPoolConfig(team({ url: 'postgresql://d%C3%A9sk@[::1]/pay%20outs' }), null);
    expect(config.connectionString).toBeUndefined();
    expect(config).not.toHaveProperty('password');
    expect(config).toMatchObject({ host: '::1', port: 5432, user: 'désk', database: 'pay outs' });
    expect(config.connectionTimeoutMillis).toBeGreaterThan(0);
    expect(config.statement_timeout).toBeGreaterThan(0);
    expect(config.query_timeout).toBeGreaterThan(0);
  });

  it('reads a PEM CA file and refuses a missing or non-PEM one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'desk-ca-'));
    writeFileSync(join(dir, 'ca.pem'), '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');
    writeFileSync(join(dir, 'junk.txt'), 'not a certificate');
    await expect(readTeamCa(team({ caFile: join(dir, 'ca.pem') }))).resolves.toContain('BEGIN CERTIFICATE');
    await expect(readTeamCa(team())).resolves.toBeUndefined();
    await expect(readTeamCa(team({ caFile: join(dir, 'missing.pem') }))).rejects.toMatchObject({ code: 'TEAM_DB_CA_FILE', message: expect.stringContaining('ENOENT') });
    await expect(readTeamCa(team({ caFile: join(dir, 'junk.txt') }))).rejects.toMatchObject({ code: 'TEAM_DB_CA_FILE', message: expect.stringContaining('no PEM certificate') });
  });
});

describe('describeTeamError', () => {
  const describe_ = (error: unknown, hadPassword = true, t = team()) => describeTeamError(error, t, hadPassword);
  const err = (code: string, message = 'x') => Object.assign(new Error(message), { code });

  it('names the failure in words a person can act on', () => {
    expect(describe_(err('ECONNREFUSED'))).toMatchObject({ code: 'TEAM_DB_UNREACHABLE', message: expect.stringContaining('nothing accepts connections on port 5433 of db.example.com') });
    expect(describe_(err('ENOTFOUND'))).toMatchObject({ code: 'TEAM_DB_UNREACHABLE', message: expect.stringContaining('host name db.example.com is not known') });
    expect(describe_(err('28P01'))).toMatchObject({ code: 'TEAM_DB_AUTH', message: expect.stringContaining('refused the password of user desk') });
    expect(describe_(err('28P01'), false)).toMatchObject({ code: 'TEAM_DB_AUTH', message: expect.stringContaining("none is in this desk's keychain") });
    expect(describe_(new Error('SASL: SCRAM-SERVER-FIRST-MESSAGE: client password must be a string'), false).code).toBe('TEAM_DB_NO_PASSWORD');
    expect(describe_(err('3D000'))).toMatchObject({ code: 'TEAM_DB_MISSING', message: expect.stringContaining('"payouts" does not exist') });
    expect(describe_(err('42501', 'permission denied for schema public')).code).toBe('TEAM_DB_PERMISSION');
    expect(describe_(err('28000', 'no pg_hba.conf entry for host "10.0.0.2", user "desk", database "payouts", no encryption')).code).toBe('TEAM_DB_TLS');
    expect(describe_(new Error('The server does not support SSL connections'))).toMatchObject({ code: 'TEAM_DB_TLS', message: expect.stringContaining('does not offer TLS') });
    expect(describe_(err('DEPTH_ZERO_SELF_SIGNED_CERT', 'self-signed certificate'))).toMatchObject({ code: 'TEAM_DB_TLS', message: expect.stringContaining('give the CA file') });
    expect(describe_(err('ERR_TLS_CERT_ALTNAME_INVALID', "Hostname/IP does not match certificate's altnames")).code).toBe('TEAM_DB_TLS');
    expect(describe_(new Error('Connection terminated due to connection timeout')).code).toBe('TEAM_DB_TIMEOUT');
    const aggregate = Object.assign(new AggregateError([err('ECONNREFUSED'), err('ECONNREFUSED')], ''), { code: 'ECONNREFUSED' });
    expect(describe_(aggregate).code).toBe('TEAM_DB_UNREACHABLE');
    expect(describe_(err('XX000', 'something odd'))).toMatchObject({ code: 'TEAM_DB_FAILED', message: expect.stringContaining('something odd') });
  });
});

describe('TeamPasswords', () => {
  function setup() {
    const keyStore = new MemoryKeyStore();
    const profiles = new ProfileStore(file());
    const actions: SecurityAction[] = [];
    const audit = { record: async (a: SecurityAction) => void actions.push(a), report: (a: SecurityAction) => void actions.push(a) };
    const p = profiles.add({ name: 'Shop', baseUrl: 'http://127.0.0.1:9', merchantCode: 'M' });
    return { keyStore, profiles, actions, p, passwords: new TeamPasswords({ keyStore, profiles, audit }) };
  }

  it('keeps the password under the profile in the keychain, never in the profile, and audits without it', async () => {
    const { keyStore, profiles, actions, p, passwords } = setup();
    expect(await passwords.has(p.id)).toBe(false);
    await passwords.set(p.id, 's3cret-pw');
    expect(await keyStore.get(teamPasswordAccount(p.id))).toBe('s3cret-pw');
    expect(teamPasswordAccount(p.id)).toBe(`profile:${p.id}:team-db-password`);
    expect(await passwords.has(p.id)).toBe(true);
    expect(JSON.stringify(profiles.get(p.id))).not.toContain('s3cret-pw');
    expect(await passwords.clear(p.id)).toBe(true);
    expect(await passwords.has(p.id)).toBe(false);
    expect(await passwords.clear(p.id)).toBe(false);
    expect(actions.map((a) => a.action)).toEqual(['team-db-password.set', 'team-db-password.cleared', 'team-db-password.cleared']);
    expect(JSON.stringify(actions)).not.toContain('s3cret-pw');
  });

  it('refuses an empty, multi-line or unknown-profile password', async () => {
    const { passwords, p } = setup();
    await expect(passwords.set(p.id, '')).rejects.toThrow('1-1024 characters');
    await expect(passwords.set(p.id, 'a\nb')).rejects.toThrow('one line');
    await expect(passwords.set('nobody', 'pw')).rejects.toThrow('No profile');
  });
});
