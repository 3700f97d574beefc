// The CLI round trip against the sandbox: profiles add → keys generate → register the public key
// through the sandbox's admin route → connect → balances / currencies / operators; exit codes and
// stderr on failure; and the `payout-desk` bin itself.
import axios from 'axios';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../main/cli';
import { MemoryKeyStore } from '../../../main/keys/key-store';
import { startSandbox, type SandboxHandle } from '../../../sandbox/index';

let sandbox: SandboxHandle;
const home = mkdtempSync(join(tmpdir(), 'desk-cli-'));
const keyStore = new MemoryKeyStore();

async function cli(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(['--home', home, ...args], { keyStore, io: { stdout: (t) => void (out += t), stderr: (t) => void (err += t) } });
  return { code, out, err };
}

beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(async () => sandbox.close());

describe('CLI round trip', () => {
  it('adds a profile, generates and registers a key, connects and reads balances', async () => {
    const add = await cli('profiles', 'add', '--name', 'Sandbox EU', '--base-url', sandbox.url, '--merchant-code', 'DEMO-MERCHANT');
    expect(add).toMatchObject({ code: 0, err: '' });
    expect(add.out).toContain('Added profile sandbox-eu (current)');

    const gen = await cli('--json', 'keys', 'generate', '--bits', '2048');
    expect(gen.code).toBe(0);
    const key = JSON.parse(gen.out) as { keyId: string; fingerprint: string; status: string; bits: number };
    expect(key).toMatchObject({ status: 'active', bits: 2048 });

    const pemFile = join(home, 'public.pem');
    expect((await cli('keys', 'export-public', '--out', pemFile)).code).toBe(0);
    const pem = readFileSync(pemFile, 'utf8');
    expect(pem).toMatch(/^-----BEGIN PUBLIC KEY-----/);
    expect((await cli('keys', 'fingerprint')).out).toContain(key.fingerprint);
    const letter = await cli('keys', 'letter');
    expect(letter.out).toContain('Merchant code:     DEMO-MERCHANT');
    expect(letter.out).toContain(key.fingerprint);

    // Before registration the gateway refuses the signature: exit code 1 and a clear stderr line.
    const refused = await cli('connect');
    expect(refused.code).toBe(1);
    expect(refused.err).toMatch(/^error: gateway unauthorized \(HTTP 401, INVALID_SIGNATURE\)/);
    expect(refused.err).toContain(key.fingerprint);

    const registered = await axios.post(`${sandbox.url}/_sandbox/merchants/DEMO-MERCHANT/keys`, pem, { headers: { 'Content-Type': 'text/plain' } });
    expect(registered.status).toBe(201);

    const connect = await cli('connect');
    expect(connect).toMatchObject({ code: 0, err: '' });
    expect(connect.out).toContain('Channel: Demo Store');
    expect(connect.out).toContain('sub: DEMO-MERCHANT');
    expect(connect.out).toContain('POST /payouts/[A-Za-z0-9_-]{1,64}');
    expect(connect.out).not.toMatch(/eyJ/);
    const connectJson = JSON.parse((await cli('--json', 'connect')).out) as { channelName: string; claims: Record<string, unknown> };
    expect(connectJson.channelName).toBe('Demo Store');
    expect(connectJson.claims.sub).toBe('DEMO-MERCHANT');
    expect(JSON.stringify(connectJson)).not.toMatch(/eyJ/);

    const balances = await cli('balances', '--currencies', 'EUR,KWD');
    expect(balances.code).toBe(0);
    expect(balances.out).toMatch(/EUR\s+100000\.00\s+0\.00/);
    expect(balances.out).toMatch(/KWD\s+5000\.000\s+0\.000/);
    const json = JSON.parse((await cli('--json', 'balances', '--currencies', 'JPY')).out) as { balances: unknown[] };
    expect(json.balances).toEqual([{ currencyCode: 'JPY', available: '100000000', availableMinor: 100_000_000, reserved: '0', reservedMinor: 0 }]);

    expect((await cli('currencies')).out).toMatch(/KWD\s+3\s+Kuwaiti Dinar/);
    const operators = await cli('operators', '--currency', 'EUR');
    expect(operators.out).toContain('EU_SEPA');
    expect(operators.out).not.toContain('US_ACH');
  });

  it('rotates, lists, backs up with confirmation only, and retires keys', async () => {
    const before = JSON.parse((await cli('--json', 'keys', 'list')).out) as { keyId: string }[];
    const rotate = await cli('--json', 'keys', 'rotate', '--bits', '2048');
    expect(rotate.code).toBe(0);
    const { active, previousKeyId } = JSON.parse(rotate.out) as { active: { keyId: string }; previousKeyId: string };
    expect(previousKeyId).toBe(before[0]!.keyId);

    const passFile = join(home, 'pass.txt');
    writeFileSync(passFile, 'a backup passphrase\n');
    const out = join(home, 'backup.pem');
    const unconfirmed = await cli('keys', 'backup', '--key', active.keyId, '--out', out, '--passphrase-file', passFile);
    expect(unconfirmed.code).toBe(1);
    expect(unconfirmed.err).toMatch(/explicit confirmation/);
    const backup = await cli('keys', 'backup', '--key', active.keyId, '--out', out, '--passphrase-file', passFile, '--confirm-private-key-export');
    expect(backup.code).toBe(0);
    expect(readFileSync(out, 'utf8')).toMatch(/^-----BEGIN ENCRYPTED PRIVATE KEY-----/);
    expect((await cli('keys', 'backup', '--key', active.keyId, '--out', out, '--passphrase-file', passFile, '--confirm-private-key-export')).err).toMatch(/already exists/);

    expect((await cli('keys', 'retire', active.keyId)).err).toMatch(/active key/);
    const retire = await cli('keys', 'retire', previousKeyId);
    expect(retire.code).toBe(0);
    const list = await cli('keys', 'list');
    expect(list.out).toMatch(new RegExp(`${previousKeyId}\\s+retired`));
    expect(list.out).toMatch(new RegExp(`\\* ${active.keyId}\\s+active`));
  });

  it('flags the deprecated secret wherever it shows, and refuses secrets on the command line', async () => {
    expect((await cli('keys', 'secret', 'set')).err).toMatch(/never on the command line/);
    const set = await runCli(['--home', home, 'keys', 'secret', 'set', '--secret-env', 'DESK_SECRET'], {
      keyStore,
      env: { DESK_SECRET: 'top-secret-value' },
      io: { stdout: () => undefined, stderr: () => undefined },
    });
    expect(set).toBe(0);
    expect((await cli('keys', 'secret', 'status')).out).toMatch(/DEPRECATED.*stored.*not used/);
    expect((await cli('profiles', 'list')).out).not.toContain('top-secret-value');
  });

  it('exits non-zero with a clear message on bad input', async () => {
    const bad = await cli('profiles', 'add', '--name', 'X', '--base-url', 'not a url', '--merchant-code', 'M');
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/^error: Invalid profile: baseUrl: must be an http\(s\) URL/);
    expect((await cli('balances', '--currencies', 'EURO')).code).toBe(2);
    expect((await cli('--profile', 'nope', 'balances')).err).toMatch(/No profile "nope"/);
  });
});

describe('payout-desk bin', () => {
  it('runs the CLI from any folder and passes the exit code through', async () => {
    const bin = join(import.meta.dirname, '../../../bin/payout-desk.js');
    const run = promisify(execFile);
    const binHome = mkdtempSync(join(tmpdir(), 'desk-bin-'));
    const ok = await run(process.execPath, [bin, '--home', binHome, '--json', 'profiles', 'list'], { cwd: tmpdir() });
    expect(JSON.parse(ok.stdout)).toEqual([]);
    const failed = await run(process.execPath, [bin, '--home', binHome, 'connect'], { cwd: tmpdir() }).catch((e: { code: number; stderr: string }) => e);
    expect(failed).toMatchObject({ code: 2 });
    expect((failed as { stderr: string }).stderr).toMatch(/No profile yet/);
  }, 30_000);
});
