// `profiles team set|show|check|clear` against the project's throwaway PostgreSQL: check connects,
// migrates and prints the versions; an unreachable port, a missing database, an unknown user and TLS
// asked of a server without it each fail with words that say which. (The cluster trusts every loopback
// login, so a wrong password cannot be shown here: its words are covered by the unit test of describeTeamError.)
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { runCli } from '../../../main/cli/index';
import { PG_SCHEMA_VERSION } from '../../../main/store/postgres/migrations';
import { MemoryKeyStore } from '../../../main/keys/key-store';
import { teamPasswordAccount } from '../../../main/keys/team-password';
import { freshDatabase } from './cluster';

let dbUrl: string;
beforeAll(async () => {
  dbUrl = await freshDatabase(inject('postgresUrl'));
});

function setup() {
  const home = mkdtempSync(join(tmpdir(), 'desk-team-cli-'));
  const keyStore = new MemoryKeyStore();
  const cli = async (args: string[], stdin?: string) => {
    let out = '';
    let err = '';
    const code = await runCli(['--home', home, ...args], {
      keyStore,
      io: { stdout: (t) => void (out += t), stderr: (t) => void (err += t), ...(stdin !== undefined ? { readStdin: async () => stdin } : {}) },
    });
    return { code, out, err };
  };
  return { keyStore, cli };
}

async function addProfile(cli: ReturnType<typeof setup>['cli'], environment = 'TEST'): Promise<void> {
  const base = environment === 'LIVE' ? 'https://gw.example.com' : 'http://127.0.0.1:9';
  const r = await cli(['profiles', 'add', '--name', 'Shop', '--base-url', base, '--merchant-code', 'M', '--environment', environment]);
  expect(r.err).toBe('');
  expect(r.code).toBe(0);
}

/** A loopback port nobody listens on (taken, then let go). */
function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

describe('profiles team', () => {
  it('set, show (never the password), check (versions), check again (nothing to migrate), clear', async () => {
    const { cli, keyStore } = setup();
    await addProfile(cli, 'TEST');
    const set = await cli(['profiles', 'team', 'set', 'shop', '--url', dbUrl, '--tls', 'disable', '--password-stdin'], 'team-pw-1\n');
    expect(set.err).toBe('');
    expect(set.code).toBe(0);
    expect(set.out).toContain('the password is in the keychain');
    expect(await keyStore.get(teamPasswordAccount('shop'))).toBe('team-pw-1');

    const shown = await cli(['--json', 'profiles', 'team', 'show', 'shop']);
    expect(JSON.parse(shown.out)).toEqual({ profile: 'shop', teamDatabase: { url: dbUrl, tls: 'disable', caFile: null }, passwordStored: true });
    const human = await cli(['profiles', 'team', 'show', 'shop']);
    expect(human.out).toContain("password  in this desk's keychain");
    const profile = await cli(['profiles', 'show']);
    expect(profile.out).toContain(`teamDatabase: {"url":"${dbUrl}","tls":"disable","caFile":null}`);
    for (const r of [set, shown, human, profile]) expect(r.out).not.toContain('team-pw-1');

    const check = await cli(['--json', 'profiles', 'team', 'check', 'shop']);
    expect(check.err).toBe('');
    expect(check.code).toBe(0);
    const result = JSON.parse(check.out) as Record<string, unknown>;
    expect(result).toMatchObject({ ok: true, tls: 'disable', schemaVersion: PG_SCHEMA_VERSION, migratedFrom: 0 });
    expect(result.serverVersion).toMatch(/^\d+(\.\d+)?/);

    const again = await cli(['profiles', 'team', 'check', 'shop']);
    expect(again.code).toBe(0);
    expect(again.out).toContain(`PostgreSQL ${String(result.serverVersion)}`);
    expect(again.out).toContain(`team schema version ${PG_SCHEMA_VERSION}`);
    expect(again.out).not.toContain('migrated from');

    const cleared = await cli(['--json', 'profiles', 'team', 'clear', 'shop']);
    expect(cleared.code).toBe(0);
    expect(JSON.parse(cleared.out)).toMatchObject({ teamDatabase: null, cleared: true, passwordRemoved: true });
    expect(await keyStore.get(teamPasswordAccount('shop'))).toBeNull();
    const none = await cli(['profiles', 'team', 'check', 'shop']);
    expect(none.code).toBe(2);
    expect(none.err).toContain('has no team database');
  });

  it('on LIVE: clear text to this machine is taken, a login that may change the schema is not (the owner gives desks a member login)', async () => {
    const { cli } = setup();
    await addProfile(cli, 'LIVE');
    expect((await cli(['profiles', 'team', 'set', 'shop', '--url', dbUrl, '--tls', 'disable', '--password-stdin'], 'team-pw-1\n')).code).toBe(0);
    const check = await cli(['profiles', 'team', 'check', 'shop']);
    expect(check.code).toBe(1);
    expect(check.out).toMatch(/THIS DESK CANNOT WORK THERE: User postgres may change the team database's schema .*: a LIVE desk connects as a member role instead/);
  });

  it('refuses a password in the URL, sslmode in the URL, and clear text to a remote host on LIVE', async () => {
    const { cli, keyStore } = setup();
    await addProfile(cli, 'LIVE');
    const withPassword = await cli(['profiles', 'team', 'set', 'shop', '--url', 'postgres://desk:hunter2@db.example.com/payouts']);
    expect(withPassword.code).toBe(1);
    expect(withPassword.err).toContain('the password goes in the keychain, not in the URL');
    expect(withPassword.err).not.toContain('hunter2');
    const sslmode = await cli(['profiles', 'team', 'set', 'shop', '--url', 'postgres://desk@db.example.com/payouts?sslmode=disable']);
    expect(sslmode.code).toBe(1);
    expect(sslmode.err).toContain("TLS comes from the profile's tls setting");
    const clear = await cli(['profiles', 'team', 'set', 'shop', '--url', 'postgres://desk@db.example.com/payouts', '--tls', 'disable', '--password-stdin'], 'pw');
    expect(clear.code).toBe(1);
    expect(clear.err).toContain('clear text');
    // Nothing of a refused change was kept, the password included.
    expect(JSON.parse((await cli(['--json', 'profiles', 'team', 'show', 'shop'])).out)).toEqual({ profile: 'shop', teamDatabase: null, passwordStored: false });
    expect(await keyStore.get(teamPasswordAccount('shop'))).toBeNull();
  });

  it('says so when nothing listens on the port', async () => {
    const { cli } = setup();
    await addProfile(cli);
    const port = await closedPort();
    expect((await cli(['profiles', 'team', 'set', 'shop', '--url', `postgres://postgres@127.0.0.1:${port}/payouts`, '--tls', 'disable'])).code).toBe(0);
    const r = await cli(['--json', 'profiles', 'team', 'check', 'shop']);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.err)).toMatchObject({ error: { code: 'TEAM_DB_UNREACHABLE', message: expect.stringContaining(`nothing accepts connections on port ${port} of 127.0.0.1`) } });
  });

  it('says so when the database does not exist, or the user is not let in', async () => {
    const { cli } = setup();
    await addProfile(cli);
    const missing = dbUrl.replace(/\/[^/]*$/, '/no_such_db');
    expect((await cli(['profiles', 'team', 'set', 'shop', '--url', missing, '--tls', 'disable'])).code).toBe(0);
    const r = await cli(['profiles', 'team', 'check', 'shop']);
    expect(r.code).toBe(1);
    expect(r.err).toContain('"no_such_db" does not exist');

    const stranger = dbUrl.replace('postgres://postgres@', 'postgres://nobody_here@');
    expect((await cli(['profiles', 'team', 'set', 'shop', '--url', stranger])).code).toBe(0);
    // --tls not given: the stored mode (disable) stays.
    expect(JSON.parse((await cli(['--json', 'profiles', 'team', 'show', 'shop'])).out)).toMatchObject({ teamDatabase: { tls: 'disable' } });
    const who = await cli(['profiles', 'team', 'check', 'shop']);
    expect(who.code).toBe(1);
    expect(who.err).toContain('does not let user nobody_here in');
  });

  it('says so when TLS is asked of a server that offers none', async () => {
    const { cli } = setup();
    await addProfile(cli);
    expect((await cli(['profiles', 'team', 'set', 'shop', '--url', dbUrl])).code).toBe(0);
    const r = await cli(['--json', 'profiles', 'team', 'check', 'shop']);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.err)).toMatchObject({ error: { code: 'TEAM_DB_TLS', message: expect.stringContaining('does not offer TLS') } });
  });
});
