// A LIVE profile reaches a remote team database with verify-full only: "require" checks no certificate, so a
// man in the middle could ask for the password in clear. Refused when set (profile store, IPC), and at start
// for a setting stored before the rule (engine, gateway client, the connection check), before any connection.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Channel, IpcHandlerMap, Result } from '../../../contract/api';
import { createAppContext, type AppContext } from '../../../main/context';
import { bindActiveProfile, createDeskServices } from '../../../main/desk';
import { createDeskEvents } from '../../../main/desk/events';
import { composeDesk } from '../../../main/compose/desk';
import type { DeskRuntime } from '../../../main/desk/runtime';
import { createIpcHandlers } from '../../../main/ipc/handlers';
import { MemoryKeyStore } from '../../../main/keys/key-store';
import { silentLogger } from '../../../main/log';
import { profileRuleProblem, type TeamDatabase } from '../../../main/profiles/profile-schema';

const team = (url: string, tls: TeamDatabase['tls']): TeamDatabase => ({ url, tls, caFile: null });
const live = { environment: 'LIVE' as const, baseUrl: 'https://gw.example.com' };

function refusal(act: () => unknown): string {
  try {
    act();
    return 'accepted';
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
}

describe('the rule', () => {
  it('refuses require and disable to a remote host on LIVE, and says what to use', () => {
    const require = profileRuleProblem({ ...live, teamDatabase: team('postgres://desk@db.example.com/payouts', 'require') });
    expect(require).toBe(
      'a LIVE profile cannot reach its team database db.example.com with tls "require": the server\'s certificate is not checked, so a man in the middle could ask for the password in clear; use verify-full (with a CA file for a private CA), or require only for a database on this machine: localhost, 127.0.0.1, ::1',
    );
    expect(profileRuleProblem({ ...live, teamDatabase: team('postgres://desk@10.0.0.5/payouts', 'disable') })).toContain('clear text');
  });

  it('allows verify-full anywhere, require or disable on this machine, and anything on TEST', () => {
    expect(profileRuleProblem({ ...live, teamDatabase: team('postgres://desk@db.example.com/payouts', 'verify-full') })).toBeNull();
    for (const host of ['localhost', '127.0.0.1', '[::1]']) {
      expect(profileRuleProblem({ ...live, teamDatabase: team(`postgres://desk@${host}:5432/payouts`, 'require') })).toBeNull();
      expect(profileRuleProblem({ ...live, teamDatabase: team(`postgres://desk@${host}:5432/payouts`, 'disable') })).toBeNull();
    }
    expect(profileRuleProblem({ environment: 'TEST', baseUrl: 'http://127.0.0.1:9', teamDatabase: team('postgres://desk@lab.example.com/payouts', 'require') })).toBeNull();
  });
});

describe('a LIVE profile with a team database', () => {
  let home: string;
  let ctx: AppContext;
  let rt: DeskRuntime;
  let handlers: IpcHandlerMap;
  const call = async (channel: Channel, args?: unknown): Promise<Result<unknown>> => handlers[channel](args) as Promise<Result<unknown>>;

  beforeAll(() => {
    home = mkdtempSync(join(tmpdir(), 'desk-live-tls-'));
    ctx = createAppContext({ home, keyStore: new MemoryKeyStore() });
    rt = composeDesk({ ctx, events: createDeskEvents(), log: silentLogger });
    handlers = createIpcHandlers(bindActiveProfile(createDeskServices(rt, { name: 'Payout Desk', version: '0', platform: 'linux', demoAvailable: false }, null), ctx));
  });
  afterAll(async () => {
    await rt.close();
    ctx.close();
    rmSync(home, { recursive: true, force: true });
  });

  it('is refused with require to a remote host when added or changed, in the store and over IPC, keeping what was stored', async () => {
    expect(refusal(() => ctx.profiles.add({ name: 'Live A', ...live, merchantCode: 'M', teamDatabase: team('postgres://desk@db.example.com/payouts', 'require') }))).toMatch(/^Invalid profile: a LIVE profile cannot reach its team database db\.example\.com with tls "require"/);
    const p = ctx.profiles.add({ id: 'live-b', name: 'Live B', ...live, merchantCode: 'M', teamDatabase: team('postgres://desk@db.example.com/payouts', 'verify-full') });
    ctx.profiles.setCurrent(p.id);
    expect(refusal(() => ctx.profiles.update(p.id, { teamDatabase: team('postgres://desk@db.example.com/payouts', 'require') }))).toMatch(/with tls "require"/);
    const r = await call('settings:setTeamDatabase', { url: 'postgres://desk@db.example.com:5433/payouts', tls: 'require', password: 'pw-not-kept' });
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error.code).toBe('PROFILE_INVALID');
      expect(r.error.message).toMatch(/man in the middle could ask for the password in clear/);
    }
    expect(ctx.profiles.get(p.id).teamDatabase).toEqual(team('postgres://desk@db.example.com/payouts', 'verify-full'));
    // Loopback is fine: nothing leaves the machine.
    expect((await call('settings:setTeamDatabase', { url: 'postgres://desk@127.0.0.1:9/payouts', tls: 'require' })).ok).toBe(true);
  });

  it('stored before the rule: refused at engine start, by the gateway client and by the connection check, before connecting', async () => {
    const p = ctx.profiles.add({ id: 'live-old', name: 'Live old', ...live, merchantCode: 'M' });
    // As an earlier version could have stored it.
    const row = ctx.profiles.database.prepare('SELECT data FROM profiles WHERE id = ?').get(p.id) as { data: string };
    ctx.profiles.database.prepare('UPDATE profiles SET data = ? WHERE id = ?').run(JSON.stringify({ ...JSON.parse(row.data), teamDatabase: team('postgres://desk@db.example.com/payouts', 'require') }), p.id);
    const expected = /cannot reach its team database db\.example\.com with tls "require"/;
    await expect(rt.engineFor(p.id)).rejects.toThrow(expected);
    expect(refusal(() => ctx.gatewayFor(p.id))).toMatch(expected);
    const check = await call('settings:checkTeamDatabase', { profileId: p.id });
    expect(check.ok).toBe(false);
    if (!check.ok) {
      expect(check.error.code).toBe('PROFILE_INVALID');
      expect(check.error.message).toMatch(expected);
    }
  });
});
