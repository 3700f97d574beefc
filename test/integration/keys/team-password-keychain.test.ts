// The team database password in the real OS keychain (Secret Service, started by the test command):
// `profiles team set --password-stdin` puts it under profile:<id>:team-db-password, where secret-tool
// (an independent reader) finds it; the data folder never holds it; each desk has its own keychain, so two
// desks of one team keep their own copies; `profiles team clear` and `profiles remove` take it out.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../main/cli/index';
import { KeytarKeyStore } from '../../../main/keys/key-store';
import { teamPasswordAccount } from '../../../main/keys/team-password';

const run = promisify(execFile);
const secretTool = async (...args: string[]) => (await run('secret-tool', args, { timeout: 10_000 })).stdout;
const lookup = (service: string, account: string) => secretTool('lookup', 'service', service, 'account', account).catch(() => null);

// Two desks = two keychains: a service name each stands for another machine's keychain.
const services = [`payout-desk-team-a-${randomBytes(4).toString('hex')}`, `payout-desk-team-b-${randomBytes(4).toString('hex')}`];

beforeAll(async () => {
  // Fails loudly (this suite must not silently pass) when no Secret Service answers on D-Bus.
  const probe = new KeytarKeyStore(services[0]);
  await probe.set('probe', 'ok');
  if ((await probe.get('probe')) !== 'ok') throw new Error('the keychain read back a different value');
  await probe.delete('probe');
}, 30_000);
afterAll(async () => {
  for (const service of services) await secretTool('clear', 'service', service).catch(() => undefined);
});

function desk(service: string) {
  const home = mkdtempSync(join(tmpdir(), 'desk-team-kc-'));
  const keyStore = new KeytarKeyStore(service);
  const cli = async (args: string[], stdin?: string) => {
    let out = '';
    let err = '';
    const code = await runCli(['--home', home, ...args], { keyStore, io: { stdout: (t) => void (out += t), stderr: (t) => void (err += t), ...(stdin !== undefined ? { readStdin: async () => stdin } : {}) } });
    return { code, out, err };
  };
  return { home, cli };
}

describe('team database password in the OS keychain', () => {
  it('each desk keeps its own; never in the data folder or the output; clear and remove take it out', async () => {
    const [a, b] = [desk(services[0]!), desk(services[1]!)];
    const url = 'postgres://desk@db.example.com:5432/payouts';
    for (const [d, pw] of [[a, 'pw-of-desk-a'], [b, 'pw-of-desk-b']] as const) {
      expect((await d.cli(['profiles', 'add', '--id', 'shop', '--name', 'Shop', '--base-url', 'https://gw.example.com', '--merchant-code', 'M', '--environment', 'LIVE'])).code).toBe(0);
      const set = await d.cli(['profiles', 'team', 'set', 'shop', '--url', url, '--password-stdin'], `${pw}\n`);
      expect(set.err).toBe('');
      expect(set.out).not.toContain(pw);
    }
    expect(await lookup(services[0]!, teamPasswordAccount('shop'))).toBe('pw-of-desk-a');
    expect(await lookup(services[1]!, teamPasswordAccount('shop'))).toBe('pw-of-desk-b');

    const shown = await a.cli(['--json', 'profiles', 'team', 'show', 'shop']);
    expect(JSON.parse(shown.out)).toEqual({ profile: 'shop', teamDatabase: { url, tls: 'verify-full', caFile: null }, passwordStored: true });
    const everything = readdirSync(a.home, { recursive: true, withFileTypes: true }).filter((f) => f.isFile());
    expect(everything.length).toBeGreaterThan(0);
    for (const f of everything) expect(readFileSync(join(f.parentPath, f.name)).includes('pw-of-desk-a')).toBe(false);

    expect((await a.cli(['profiles', 'team', 'clear', 'shop'])).code).toBe(0);
    expect(await lookup(services[0]!, teamPasswordAccount('shop'))).toBeNull();
    // The other desk's keychain is its own: untouched.
    expect(await lookup(services[1]!, teamPasswordAccount('shop'))).toBe('pw-of-desk-b');
    expect((await b.cli(['profiles', 'remove', 'shop'])).code).toBe(0);
    expect(await lookup(services[1]!, teamPasswordAccount('shop'))).toBeNull();
  });
});
