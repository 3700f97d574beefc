// The CLI round trip against the sandbox: profiles add → keys generate → register the public key
// through the sandbox's admin route → connect → balances / currencies / operators; exit codes and
// stderr on failure; `keys import` of every PEM kind (and the refusals), `profiles use`; and the
// `payout-desk` bin itself.
import axios from 'axios';
import { execFile } from 'node:child_process';
import { createHash, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../main/cli/index';
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

describe('keys import and profiles use', () => {
  // A home of its own: these tests switch the current profile.
  const importHome = mkdtempSync(join(tmpdir(), 'desk-cli-import-'));
  const importKeys = new MemoryKeyStore();
  async function run(args: string[], env: Record<string, string> = {}): Promise<{ code: number; out: string; err: string }> {
    let out = '';
    let err = '';
    const code = await runCli(['--home', importHome, ...args], { keyStore: importKeys, env, io: { stdout: (t) => void (out += t), stderr: (t) => void (err += t) } });
    return { code, out, err };
  }
  const pemFile = (name: string, pem: string) => {
    const file = join(importHome, name);
    writeFileSync(file, pem);
    return file;
  };
  /** SHA-256 of the DER SubjectPublicKeyInfo, upper-case hex with colons (what the desk shows). */
  const fingerprintOf = (key: KeyObject) => createHash('sha256').update(createPublicKey(key).export({ type: 'spki', format: 'der' })).digest('hex').toUpperCase().match(/../g)!.join(':');
  const rsa = (bits: number) => generateKeyPairSync('rsa', { modulusLength: bits }).privateKey;
  type Listed = { keyId: string; fingerprint: string; status: string; source: string; bits: number };
  const listed = async () => JSON.parse((await run(['--json', 'keys', 'list'])).out) as Listed[];

  it('imports PKCS#1, PKCS#8 and encrypted PKCS#8 (passphrase from an environment variable or a file), and signs with the imported key', async () => {
    expect((await run(['profiles', 'add', '--name', 'Import A', '--base-url', sandbox.url, '--merchant-code', 'DEMO-MERCHANT'])).code).toBe(0);

    const pkcs1Key = rsa(2048);
    const pkcs1 = pkcs1Key.export({ type: 'pkcs1', format: 'pem' }).toString();
    expect(pkcs1).toMatch(/^-----BEGIN RSA PRIVATE KEY-----/);
    const first = await run(['--json', 'keys', 'import', pemFile('pkcs1.pem', pkcs1)]);
    expect(first).toMatchObject({ code: 0, err: '' });
    // The first key of a profile becomes active; the fingerprint is the key's own.
    expect(JSON.parse(first.out)).toMatchObject({ status: 'active', source: 'imported', bits: 2048, fingerprint: fingerprintOf(pkcs1Key) });

    const pkcs8Key = rsa(3072);
    const pkcs8 = pkcs8Key.export({ type: 'pkcs8', format: 'pem' }).toString();
    expect(pkcs8).toMatch(/^-----BEGIN PRIVATE KEY-----/);
    const second = await run(['keys', 'import', pemFile('pkcs8.pem', pkcs8)]);
    expect(second.code).toBe(0);
    expect(second.out).toContain('Imported key into profile import-a');
    expect(second.out).toContain(fingerprintOf(pkcs8Key));
    expect(second.out).toMatch(/standby\s+RSA-3072\s+imported/);
    expect(second.out).toContain('still holds the key in the clear');

    const encryptedKey = rsa(2048);
    const passphrase = 'correct horse battery staple';
    const encrypted = encryptedKey.export({ type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase }).toString();
    expect(encrypted).toMatch(/^-----BEGIN ENCRYPTED PRIVATE KEY-----/);
    const encryptedFile = pemFile('encrypted.pem', encrypted);
    const noPassphrase = await run(['keys', 'import', encryptedFile]);
    expect(noPassphrase.code).toBe(1);
    expect(noPassphrase.err).toMatch(/^error: The private key is encrypted; give its passphrase/);
    const unsetVariable = await run(['keys', 'import', encryptedFile, '--passphrase-env', 'DESK_KEY_PASSPHRASE']);
    expect(unsetVariable.code).toBe(2);
    expect(unsetVariable.err).toMatch(/Environment variable DESK_KEY_PASSPHRASE \(for the passphrase\) is not set/);
    const wrong = await run(['keys', 'import', encryptedFile, '--passphrase-file', pemFile('wrong-pass.txt', 'not the passphrase\n')]);
    expect(wrong.code).toBe(1);
    expect(wrong.err).toMatch(/Could not decrypt the private key: wrong passphrase or damaged file/);
    const fromEnv = await run(['--json', 'keys', 'import', encryptedFile, '--passphrase-env', 'DESK_KEY_PASSPHRASE', '--activate'], { DESK_KEY_PASSPHRASE: passphrase });
    expect(fromEnv).toMatchObject({ code: 0, err: '' });
    expect(JSON.parse(fromEnv.out)).toMatchObject({ status: 'active', fingerprint: fingerprintOf(encryptedKey) });
    // The same key again (here from a passphrase file) is refused: it is already held.
    const again = await run(['keys', 'import', encryptedFile, '--passphrase-file', pemFile('pass.txt', `${passphrase}\n`)]);
    expect(again.code).toBe(1);
    expect(again.err).toMatch(/already held/);

    const keys = await listed();
    expect(keys.map((k) => [k.fingerprint, k.status])).toEqual(
      expect.arrayContaining([[fingerprintOf(pkcs1Key), 'standby'], [fingerprintOf(pkcs8Key), 'standby'], [fingerprintOf(encryptedKey), 'active']]),
    );
    expect(keys).toHaveLength(3);
    // No key text ever reaches the output, not even for refused imports.
    for (const r of [first, second, noPassphrase, wrong, fromEnv, again]) expect(r.out + r.err).not.toMatch(/PRIVATE KEY|MII/);

    // The active (imported, encrypted) key is the one that signs: refused until the gateway knows its public key.
    const beforeRegistration = await run(['connect']);
    expect(beforeRegistration.code).toBe(1);
    expect(beforeRegistration.err).toContain(fingerprintOf(encryptedKey));
    sandbox.registerPublicKey('DEMO-MERCHANT', createPublicKey(encryptedKey).export({ type: 'spki', format: 'pem' }).toString());
    const connect = await run(['connect']);
    expect(connect).toMatchObject({ code: 0, err: '' });
    expect(connect.out).toContain('Channel: Demo Store');
  });

  it('refuses a non-RSA key and a 1024-bit RSA key with a clear message, storing nothing', async () => {
    const before = await listed();
    const ec = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const notRsa = await run(['keys', 'import', pemFile('ec.pem', ec)]);
    expect(notRsa.code).toBe(1);
    expect(notRsa.err).toMatch(/^error: Only RSA keys are accepted \(SHA256withRSA\); this key is EC/);
    const ed = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    expect((await run(['keys', 'import', pemFile('ed.pem', ed)])).err).toMatch(/Only RSA keys are accepted.*ED25519/);
    const small = rsa(1024).export({ type: 'pkcs1', format: 'pem' }).toString();
    const weak = await run(['keys', 'import', pemFile('rsa1024.pem', small)]);
    expect(weak.code).toBe(1);
    expect(weak.err).toMatch(/^error: RSA key of 1024 bits is too weak; at least 2048 bits are required/);
    const publicOnly = await run(['keys', 'import', pemFile('public.pem', createPublicKey(rsa(2048)).export({ type: 'spki', format: 'pem' }).toString())]);
    expect(publicOnly.err).toMatch(/public key or certificate; the private key is needed/);
    expect(await listed()).toEqual(before);
  });

  it('profiles use switches the current profile by name or id, for every later command', async () => {
    expect((await run(['profiles', 'add', '--name', 'Import B', '--base-url', sandbox.url, '--merchant-code', 'IMPORT-B'])).code).toBe(0);
    const current = async () => (JSON.parse((await run(['--json', 'profiles', 'list'])).out) as { id: string; current: boolean }[]).filter((p) => p.current).map((p) => p.id);
    expect(await current()).toEqual(['import-a']); // adding a second profile does not switch

    const byName = await run(['profiles', 'use', 'Import B']);
    expect(byName).toMatchObject({ code: 0, err: '' });
    expect(byName.out).toContain('Current profile: import-b "Import B" [TEST]');
    expect(await current()).toEqual(['import-b']);
    expect((await run(['profiles', 'list'])).out).toMatch(/^\* import-b/m);
    // Later commands act on it: it has no keys yet, and `profiles show` names it.
    expect((await run(['keys', 'list'])).out).toContain('Profile import-b has no keys');
    expect((await run(['profiles', 'show'])).out).toMatch(/^merchantCode: IMPORT-B$/m);

    const byId = await run(['--json', 'profiles', 'use', 'import-a']);
    expect(byId.code).toBe(0);
    expect(JSON.parse(byId.out)).toMatchObject({ id: 'import-a', current: true });
    expect(await current()).toEqual(['import-a']);
    expect(await listed()).toHaveLength(3);

    const unknown = await run(['profiles', 'use', 'nope']);
    expect(unknown.code).toBe(1);
    expect(unknown.err).toMatch(/^error: No profile "nope" \(see "profiles list"\)/);
    expect(await current()).toEqual(['import-a']);
  });
});

describe('payout-desk bin', () => {
  it('runs the CLI from any folder and passes the exit code through', async () => {
    const bin = join(import.meta.dirname, '../../../bin/payout-desk.cjs');
    const run = promisify(execFile);
    const binHome = mkdtempSync(join(tmpdir(), 'desk-bin-'));
    const ok = await run(process.execPath, [bin, '--home', binHome, '--json', 'profiles', 'list'], { cwd: tmpdir() });
    expect(JSON.parse(ok.stdout)).toEqual([]);
    const failed = await run(process.execPath, [bin, '--home', binHome, 'connect'], { cwd: tmpdir() }).catch((e: { code: number; stderr: string }) => e);
    expect(failed).toMatchObject({ code: 2 });
    expect((failed as { stderr: string }).stderr).toMatch(/No profile yet/);
  }, 30_000);
});
