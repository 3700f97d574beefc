// Network rules of a profile: a LIVE profile talks https only (refused when added, edited and started),
// each profile has its own callback path secret kept across restarts, and a public callback URL names
// a host the gateway can reach.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createAppContext } from '../../../main/context';
import { createDeskEvents } from '../../../main/desk/events';
import { createDeskRuntime } from '../../../main/desk/runtime';
import { settingsService } from '../../../main/desk/settings';
import { MemoryKeyStore } from '../../../main/keys/key-store';
import { silentLogger } from '../../../main/log';
import { ProfileStore } from '../../../main/profiles/profile-store';

const file = () => join(mkdtempSync(join(tmpdir(), 'desk-profiles-')), 'desk.db');

function refusal(act: () => unknown): string {
  try {
    act();
    return 'accepted';
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
}

describe('LIVE profiles need https', () => {
  it('refuses a LIVE profile on http:// when added or edited, and keeps what was stored', () => {
    const store = new ProfileStore(file());
    expect(refusal(() => store.add({ name: 'Live', baseUrl: 'http://gw.example.com', merchantCode: 'M', environment: 'LIVE' }))).toBe(
      'Invalid profile: a LIVE profile must use an https:// base URL (got http://gw.example.com); only TEST profiles may use http://',
    );
    // TEST may use http (the loopback sandbox); LIVE on https is fine.
    const test = store.add({ name: 'Sandbox', baseUrl: 'http://127.0.0.1:8787', merchantCode: 'M' });
    const live = store.add({ name: 'Live', baseUrl: 'https://gw.example.com', merchantCode: 'M', environment: 'LIVE' });
    expect(refusal(() => store.update(live.id, { baseUrl: 'http://gw.example.com' }))).toMatch(/a LIVE profile must use an https:\/\/ base URL \(got http:\/\/gw\.example\.com\)/);
    expect(store.get(test.id)).toMatchObject({ environment: 'TEST', baseUrl: 'http://127.0.0.1:8787' });
    expect(store.get(live.id).baseUrl).toBe('https://gw.example.com');
    // A TEST profile never becomes LIVE (the environment is fixed at creation), not even with an https URL.
    expect(refusal(() => store.update(test.id, { environment: 'LIVE', baseUrl: 'https://gw2.example.com' }))).toMatch(/the environment is fixed when a profile is created/);
    expect(store.get(test.id)).toMatchObject({ environment: 'TEST', baseUrl: 'http://127.0.0.1:8787' });
    store.close();
  });

  it('a LIVE http:// profile stored earlier is refused at engine start and by the gateway client, with the reason shown in settings', async () => {
    const home = mkdtempSync(join(tmpdir(), 'desk-live-http-'));
    const ctx = createAppContext({ home, keyStore: new MemoryKeyStore() });
    const p = ctx.profiles.add({ name: 'Old live', baseUrl: 'https://gw.example.com', merchantCode: 'M', environment: 'LIVE', callbackEnabled: true });
    // As an earlier version could have stored it.
    const row = ctx.profiles.database.prepare('SELECT data FROM profiles WHERE id = ?').get(p.id) as { data: string };
    ctx.profiles.database.prepare('UPDATE profiles SET data = ? WHERE id = ?').run(JSON.stringify({ ...JSON.parse(row.data), baseUrl: 'http://gw.example.com' }), p.id);
    const runtime = createDeskRuntime({ ctx, events: createDeskEvents(), log: silentLogger });
    const expected = /a LIVE profile must use an https:\/\/ base URL \(got http:\/\/gw\.example\.com\)/;
    await expect(runtime.engineFor(p.id)).rejects.toThrow(expected);
    expect(refusal(() => ctx.gatewayFor(p.id))).toMatch(expected);
    const view = await settingsService(runtime).get(ctx.profiles.get(p.id), {});
    expect(view.callbackListener.state).toBe('stopped');
    expect(view.callbackListener.message).toMatch(expected);
    await runtime.close();
    ctx.close();
  });
});

describe('callback path secret and public URL', () => {
  it('each profile gets its own secret, kept across reopen; a profile from before secrets gets one once', () => {
    const path = file();
    let store = new ProfileStore(path);
    const a = store.add({ name: 'A', baseUrl: 'http://127.0.0.1:1', merchantCode: 'M' });
    const b = store.add({ name: 'B', baseUrl: 'http://127.0.0.1:2', merchantCode: 'M' });
    expect(a.callbackSecret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(b.callbackSecret).not.toBe(a.callbackSecret);
    const row = store.database.prepare('SELECT data FROM profiles WHERE id = ?').get(a.id) as { data: string };
    const { callbackSecret: _dropped, ...older } = JSON.parse(row.data) as Record<string, unknown>;
    store.database.prepare('UPDATE profiles SET data = ? WHERE id = ?').run(JSON.stringify(older), a.id);
    store.close();

    store = new ProfileStore(path);
    const given = store.get(a.id).callbackSecret;
    expect(given).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(given).not.toBe(a.callbackSecret);
    expect(store.get(b.id).callbackSecret).toBe(b.callbackSecret);
    store.close();
    store = new ProfileStore(path);
    expect(store.get(a.id).callbackSecret).toBe(given);
    store.close();
  });

  it('refuses 0.0.0.0 or [::] as a public callback URL: those are where to listen, not where to send', () => {
    const store = new ProfileStore(file());
    const p = store.add({ name: 'A', baseUrl: 'http://127.0.0.1:1', merchantCode: 'M' });
    for (const url of ['http://0.0.0.0:8788', 'http://[::]:8788/hooks']) {
      expect(refusal(() => store.update(p.id, { callbackUrl: url }))).toMatch(/public callback URL must name a host the gateway can reach/);
    }
    expect(store.update(p.id, { callbackUrl: 'https://desk.example.com/hooks' }).callbackUrl).toBe('https://desk.example.com/hooks');
    store.close();
  });
});
