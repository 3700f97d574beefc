// Profiles can be changed and removed after creation: `profiles edit` changes only the fields given
// (through the store's validation), `profiles remove` keeps the journal unless --delete-journal (asked
// for, or --yes), and removing the current profile leaves another current one, or none, never a missing one.
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildProgram, loadCliComposition, runCli, type CliIo } from '../../../main/cli/index';
import { journalPath } from '../../../main/desk/profile-engine';
import { MemoryKeyStore } from '../../../main/keys/key-store';

function setup() {
  const home = mkdtempSync(join(tmpdir(), 'desk-cli-prof-'));
  const keyStore = new MemoryKeyStore();
  const cli = async (args: string[], io: Partial<CliIo> = {}) => {
    let out = '';
    let err = '';
    const code = await runCli(['--home', home, ...args], { keyStore, io: { stdout: (t) => void (out += t), stderr: (t) => void (err += t), ...io } });
    return { code, out, err };
  };
  return { home, keyStore, cli };
}

const add = (name: string, extra: string[] = []) => ['profiles', 'add', '--name', name, '--base-url', 'http://127.0.0.1:9', '--merchant-code', 'M', ...extra];

describe('profiles edit', () => {
  it('changes only the fields given, and says what changed', async () => {
    const { cli } = setup();
    expect((await cli(add('Shop EU'))).code).toBe(0);
    const r = await cli(['profiles', 'edit', '--base-url', 'http://127.0.0.1:8787/', '--api-version', '3', '--rate-limit', '25', '--callbacks', 'on', '--callback-port', '9100', '--callback-url', 'http://127.0.0.1:9100/cb', '--max-amount-minor', '500000']);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toContain('baseUrl: http://127.0.0.1:9 -> http://127.0.0.1:8787');
    expect(r.out).toContain('rateLimitPerSec: 10 -> 25');
    const shown = JSON.parse((await cli(['--json', 'profiles', 'show'])).out) as Record<string, unknown>;
    expect(shown).toMatchObject({ name: 'Shop EU', merchantCode: 'M', baseUrl: 'http://127.0.0.1:8787', apiMajorVersion: 3, rateLimitPerSec: 25, callbackEnabled: true, callbackPort: 9100, callbackUrl: 'http://127.0.0.1:9100/cb', maxAmountMinor: 500000, timestampUnit: 'ms', tokenValiditySecs: 900 });
    expect((await cli(['profiles', 'edit', 'shop-eu', '--max-amount-minor', 'none', '--callback-url', 'none'])).code).toBe(0);
    expect(JSON.parse((await cli(['--json', 'profiles', 'show'])).out)).toMatchObject({ maxAmountMinor: null, callbackUrl: null, rateLimitPerSec: 25 });
  });

  it('refuses a bad value with the reason and changes nothing', async () => {
    const { cli } = setup();
    expect((await cli(add('Shop EU'))).code).toBe(0);
    const r = await cli(['profiles', 'edit', '--base-url', 'ftp://example.com', '--rate-limit', '30']);
    expect(r.code).toBe(1);
    expect(r.err).toContain('http(s) URL');
    expect(JSON.parse((await cli(['--json', 'profiles', 'show'])).out)).toMatchObject({ baseUrl: 'http://127.0.0.1:9', rateLimitPerSec: 10 });
    const none = await cli(['profiles', 'edit']);
    expect(none.code).toBe(2);
    expect(none.err).toContain('Nothing to change');
  });
});

describe('profiles remove', () => {
  it('keeps the journal, and the other profile becomes current', async () => {
    const { home, cli } = setup();
    expect((await cli(add('Shop EU'))).code).toBe(0);
    expect((await cli(add('Shop US'))).code).toBe(0);
    // Opening history creates the journal of the current profile (shop-eu).
    expect((await cli(['payouts', 'list'])).code).toBe(0);
    expect(existsSync(journalPath(home, 'shop-eu'))).toBe(true);
    const r = await cli(['profiles', 'remove', 'shop-eu']);
    expect(r.code).toBe(0);
    expect(r.out).toContain(`Its journal is kept: ${journalPath(home, 'shop-eu')}`);
    expect(r.out).toContain('Current profile: shop-us');
    expect(existsSync(journalPath(home, 'shop-eu'))).toBe(true);
    expect(JSON.parse((await cli(['--json', 'profiles', 'show'])).out)).toMatchObject({ id: 'shop-us', current: true });
  });

  it('deletes the journal only when asked and confirmed', async () => {
    const { home, cli } = setup();
    expect((await cli(add('Shop EU'))).code).toBe(0);
    expect((await cli(['payouts', 'list'])).code).toBe(0);
    const unasked = await cli(['profiles', 'remove', 'shop-eu', '--delete-journal'], { ask: async () => null });
    expect(unasked.code).toBe(2);
    expect(unasked.err).toContain('--yes');
    const declined = await cli(['profiles', 'remove', 'shop-eu', '--delete-journal'], { ask: async () => 'n' });
    expect(declined.code).toBe(1);
    expect(JSON.parse((await cli(['--json', 'profiles', 'list'])).out)).toHaveLength(1);
    const r = await cli(['profiles', 'remove', 'shop-eu', '--delete-journal', '--yes']);
    expect(r.code).toBe(0);
    expect(r.out).toContain('Its journal was deleted.');
    expect(r.out).toContain('No profile is left');
    expect(existsSync(journalPath(home, 'shop-eu'))).toBe(false);
    const after = await cli(['profiles', 'show']);
    expect(after.code).toBe(2);
    expect(after.err).toContain('No profile yet');
  });

  it('over the desk services (the app): the removed current profile stops, its connection goes, the next one is current', async () => {
    const { home, keyStore, cli } = setup();
    expect((await cli(add('Shop EU'))).code).toBe(0);
    expect((await cli(add('Shop US'))).code).toBe(0);
    // runCli loads the CLI's composition before a command runs; deps used directly need it loaded first.
    await loadCliComposition();
    const built = await buildProgram({ keyStore, env: { PAYOUT_DESK_HOME: home }, io: { stdout: () => undefined, stderr: () => undefined } });
    try {
      const desk = built.deps.desk();
      // Settings of a profile other than the current one (the Settings edit dialog does this).
      expect(await desk.call('settings', 'update', { profileId: 'shop-us', rateLimitPerSec: 7 })).toMatchObject({ rateLimitPerSec: 7 });
      expect(built.deps.context().profiles.get('shop-eu').rateLimitPerSec).toBe(10);
      await desk.runtime.journalFor('shop-eu');
      desk.runtime.setConnection('shop-eu', { status: 'online' });
      const result = await desk.call('profiles', 'remove', { profileId: 'shop-eu', deleteJournal: true });
      expect(result).toEqual({ removed: true, journalDeleted: true, activeProfileId: 'shop-us' });
      expect(await desk.runtime.connection()).toMatchObject({ profileId: 'shop-us', status: 'unknown' });
      expect(existsSync(journalPath(home, 'shop-eu'))).toBe(false);
      expect((await desk.call('profiles', 'list', undefined)).activeProfileId).toBe('shop-us');
    } finally {
      await built.dispose();
    }
  });
});
