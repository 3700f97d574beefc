// The SMTP password in the real OS keychain (Secret Service, started by the test command): `profiles smtp set
// --password-stdin` puts it under profile:<id>:smtp-password, where secret-tool (an independent reader) finds it; the
// data folder and the output never hold it; `profiles smtp clear` and `profiles remove` take it out.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../main/cli/index';
import { KeytarKeyStore } from '../../../main/keys/key-store';
import { smtpPasswordAccount } from '../../../main/keys/smtp-password';

const run = promisify(execFile);
const secretTool = async (...args: string[]) => (await run('secret-tool', args, { timeout: 10_000 })).stdout;
const lookup = (account: string) => secretTool('lookup', 'service', service, 'account', account).catch(() => null);

const service = `payout-desk-smtp-${randomBytes(4).toString('hex')}`;
const home = mkdtempSync(join(tmpdir(), 'desk-smtp-kc-'));
const PASSWORD = `smtp-${randomBytes(6).toString('hex')}`;

beforeAll(async () => {
  // Fails loudly (this suite must not silently pass) when no Secret Service answers on D-Bus.
  const probe = new KeytarKeyStore(service);
  await probe.set('probe', 'ok');
  if ((await probe.get('probe')) !== 'ok') throw new Error('the keychain read back a different value');
  await probe.delete('probe');
}, 30_000);
afterAll(async () => {
  await secretTool('clear', 'service', service).catch(() => undefined);
  rmSync(home, { recursive: true, force: true });
});

async function cli(args: string[], stdin?: string): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(['--home', home, ...args], { keyStore: new KeytarKeyStore(service), io: { stdout: (t) => void (out += t), stderr: (t) => void (err += t), ...(stdin !== undefined ? { readStdin: async () => stdin } : {}) } });
  return { code, out, err };
}

/** Every byte of every file under the data folder, to look for the password in. */
function folderBytes(dir: string): Buffer {
  return Buffer.concat(readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => readFileSync(join(e.parentPath, e.name))));
}

describe('SMTP password in the OS keychain', () => {
  it('is kept under the profile’s account, never in the data folder or the output; clear and remove take it out', async () => {
    expect((await cli(['profiles', 'add', '--id', 'shop', '--name', 'Shop', '--base-url', 'https://gw.example.com', '--merchant-code', 'M', '--environment', 'LIVE'])).code).toBe(0);
    const set = await cli(['profiles', 'smtp', 'set', 'shop', '--host', 'smtp.example.com', '--from', 'payouts@example.com', '--username', 'payouts@example.com', '--password-stdin'], `${PASSWORD}\n`);
    expect(set).toMatchObject({ code: 0, err: '' });
    expect(set.out).not.toContain(PASSWORD);
    expect(await lookup(smtpPasswordAccount('shop'))).toBe(PASSWORD);
    const shown = await cli(['--json', 'profiles', 'smtp', 'show', 'shop']);
    expect(JSON.parse(shown.out)).toEqual({ profile: 'shop', smtp: { host: 'smtp.example.com', port: 587, security: 'starttls', username: 'payouts@example.com', from: 'payouts@example.com', replyTo: null }, passwordStored: true });
    expect(folderBytes(home).includes(Buffer.from(PASSWORD))).toBe(false);

    const cleared = await cli(['--json', 'profiles', 'smtp', 'clear', 'shop']);
    expect(JSON.parse(cleared.out)).toMatchObject({ smtp: null, cleared: true, passwordRemoved: true });
    expect(await lookup(smtpPasswordAccount('shop'))).toBeNull();

    // Set again, then the profile removed: the password goes with it.
    await cli(['profiles', 'smtp', 'set', 'shop', '--host', 'smtp.example.com', '--from', 'payouts@example.com', '--username', 'payouts@example.com', '--password-stdin'], `${PASSWORD}\n`);
    expect(await lookup(smtpPasswordAccount('shop'))).toBe(PASSWORD);
    expect((await cli(['profiles', 'remove', 'shop'])).code).toBe(0);
    expect(await lookup(smtpPasswordAccount('shop'))).toBeNull();
  });
});
