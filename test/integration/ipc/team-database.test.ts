// The team database card's channels through the handlers main registers: the password crosses once,
// page → main, lands in the keychain and never comes back (nor reaches the audit log or the service log);
// the CA file is a token of a file chosen in main's dialog, never a path the page names; hostile
// arguments get a specific refusal; a database nobody answers for fails with words.
import { createServer } from 'node:net';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IpcHandlerMap } from '../../../contract/api';
import { createAppContext, type AppContext } from '../../../main/context';
import { bindActiveProfile, createDeskServices } from '../../../main/desk';
import type { DialogPort } from '../../../main/desk/dialogs';
import { createDeskEvents } from '../../../main/desk/events';
import { composeDesk } from '../../../main/compose/desk';
import type { DeskRuntime } from '../../../main/desk/runtime';
import { createIpcHandlers } from '../../../main/ipc/handlers';
import { MemoryKeyStore } from '../../../main/keys/key-store';
import { createCapturingLogger } from '../../../main/log';
import { teamPasswordAccount } from '../../../main/keys/team-password';
import { callerOf } from './ipc-helpers';

const PASSWORD = 'team-db-pass-Zq8!';
let home = '';
let keyStore: MemoryKeyStore;
let ctx: AppContext;
let runtime: DeskRuntime;
let handlers: IpcHandlerMap;
const log = createCapturingLogger();
const call = callerOf(() => handlers);
const openAnswers: (string | null)[] = [];
const dialogs: DialogPort = {
  async chooseOpenFile() {
    return openAnswers.shift() ?? null;
  },
  async chooseSavePath() {
    return null;
  },
};

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'desk-team-ipc-'));
  keyStore = new MemoryKeyStore();
  ctx = createAppContext({ home, keyStore, logger: log });
  runtime = composeDesk({ ctx, events: createDeskEvents(), log });
  handlers = createIpcHandlers(bindActiveProfile(createDeskServices(runtime, { name: 'Payout Desk', version: 'test', platform: process.platform, demoAvailable: false, dialogs }, null), ctx), { log });
  await call('profiles:create', { name: 'Shop', baseUrl: 'http://127.0.0.1:9', merchantCode: 'M', environment: 'TEST' });
});

afterAll(async () => {
  await runtime.close();
  ctx.close();
  await rm(home, { recursive: true, force: true });
});

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

describe('settings: team database', () => {
  it('starts with none', async () => {
    expect(await call('settings:teamDatabase', {})).toEqual({ config: null, passwordStored: false });
  });

  it('saves URL, TLS and a CA file chosen in main; the password goes to the keychain and never comes back', async () => {
    const caPath = join(home, 'team-ca.pem');
    await writeFile(caPath, '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');
    openAnswers.push(caPath);
    const chosen = await call('app:chooseFile', { purpose: 'ca' });
    if (!chosen.chosen) throw new Error('the dialog answer was not taken');
    const view = await call('settings:setTeamDatabase', { url: 'postgres://desk@db.example.com:5432/payouts', tls: 'verify-full', caFile: { kind: 'granted', token: chosen.file.token }, password: PASSWORD });
    expect(view).toEqual({ config: { url: 'postgres://desk@db.example.com:5432/payouts', tls: 'verify-full', caFile: caPath }, passwordStored: true });
    expect(await keyStore.get(teamPasswordAccount('shop'))).toBe(PASSWORD);
    // Saved again without a password or a CA file: both are kept.
    const again = await call('settings:setTeamDatabase', { url: 'postgres://desk@db.example.com:5433/payouts', tls: 'require' });
    expect(again).toEqual({ config: { url: 'postgres://desk@db.example.com:5433/payouts', tls: 'require', caFile: caPath }, passwordStored: true });
    const everything = JSON.stringify([view, again, await call('settings:teamDatabase', {}), await call('profiles:list'), await call('settings:get', {})]);
    expect(everything).not.toContain(PASSWORD);
  });

  it('writes both changes to the audit log, without the password', async () => {
    const entries = (await call('audit:list', { limit: 500 })).items;
    const actions = entries.map((e) => e.action);
    expect(actions).toContain('team-db-password.set');
    expect(actions.filter((a) => a === 'profile.updated').length).toBeGreaterThanOrEqual(2);
    expect(JSON.stringify(entries)).not.toContain(PASSWORD);
    expect(JSON.stringify([log.lines, log.raw])).not.toContain(PASSWORD);
  });

  it('refuses hostile or wrong arguments with the field and the reason', async () => {
    const refuse = async (args: unknown) => {
      const r = await handlers['settings:setTeamDatabase'](args);
      if (r.ok) throw new Error('accepted');
      return r.error;
    };
    // A path the page names is not a chosen file.
    expect((await refuse({ url: 'postgres://desk@db/payouts', tls: 'verify-full', caFile: '/etc/passwd' })).issues?.[0]?.field).toBe('caFile');
    expect((await refuse({ url: 'postgres://desk@db/payouts', tls: 'none' })).issues?.[0]?.field).toBe('tls');
    expect((await refuse({ url: 'postgres://desk@db/payouts', tls: 'require', password: 'x'.repeat(1025) })).issues?.[0]).toMatchObject({ field: 'password', message: 'at most 1024 characters' });
    expect((await refuse({ url: 'postgres://desk@db/payouts', tls: 'require', password: '' })).issues?.[0]?.field).toBe('password');
    expect((await refuse({ url: 'x'.repeat(5000), tls: 'require' })).issues?.[0]?.field).toBe('url');
    const inUrl = await refuse({ url: 'postgres://desk:hunter2@db/payouts', tls: 'require' });
    expect(inUrl.message).toContain('the password goes in the keychain, not in the URL');
    expect(inUrl.message).not.toContain('hunter2');
    expect((await refuse({ url: 'postgres://desk@db/payouts?sslmode=disable', tls: 'require' })).message).toContain("TLS comes from the profile's tls setting");
    const token = await refuse({ url: 'postgres://desk@db/payouts', tls: 'require', caFile: { kind: 'granted', token: '0f8fad5b-d9cb-469f-a165-70867728950e' } });
    expect(token.code).toBe('FILE_NOT_GRANTED');
    // None of these changed what was saved.
    expect((await call('settings:teamDatabase', {})).config?.url).toBe('postgres://desk@db.example.com:5433/payouts');
  });

  it('checks the connection and says why it failed', async () => {
    const port = await closedPort();
    await call('settings:setTeamDatabase', { url: `postgres://desk@127.0.0.1:${port}/payouts`, tls: 'disable', caFile: null });
    const r = await handlers['settings:checkTeamDatabase']({});
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error.code).toBe('TEAM_DB_UNREACHABLE');
      expect(r.error.message).toContain(`nothing accepts connections on port ${port} of 127.0.0.1`);
    }
  });

  it('clears: back to the own journal, the password leaves the keychain', async () => {
    expect(await call('settings:clearTeamDatabase', {})).toEqual({ config: null, passwordStored: false });
    expect(await keyStore.get(teamPasswordAccount('shop'))).toBeNull();
    const r = await handlers['settings:checkTeamDatabase']({});
    expect(r.ok ? null : r.error.code).toBe('NO_TEAM_DATABASE');
  });
});
