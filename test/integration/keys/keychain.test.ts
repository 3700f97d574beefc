// Key custody against the real Secret Service (gnome-keyring, started by the test command). The
// keychain entry is read back with `secret-tool`, an independent reader, and the data folder on its
// own (no keychain entry) is shown not to yield the private key.
import { execFile } from 'node:child_process';
import { createPublicKey, randomBytes } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAppContext } from '../../../main/context';
import { KeyCustodyError, secretAccount, wrapKeyAccount } from '../../../main/keys/key-custody';
import { DEFAULT_KEYCHAIN_SERVICE, KeytarKeyStore } from '../../../main/keys/key-store';
import { privateKeyFromDer } from '../../../main/keys/rsa';
import { readSealedKey } from '../../../main/keys/sealed-key-file';

const run = promisify(execFile);

async function secretTool(...args: string[]): Promise<string> {
  const { stdout } = await run('secret-tool', args, { timeout: 10_000 });
  return stdout;
}

/** Fails loudly (this suite must not silently pass) when no Secret Service answers on D-Bus. */
async function requireSecretService(): Promise<void> {
  const probe = new KeytarKeyStore(`payout-desk-probe-${randomBytes(4).toString('hex')}`);
  const reason = () =>
    `No Secret Service is reachable (DBUS_SESSION_BUS_ADDRESS=${process.env.DBUS_SESSION_BUS_ADDRESS ?? 'unset'}). ` +
    'Run through "npm test" (it starts dbus-run-session with an unlocked gnome-keyring), or see COMMON.md for the manual command.';
  try {
    await Promise.race([
      (async () => {
        await probe.set('probe', 'ok');
        if ((await probe.get('probe')) !== 'ok') throw new Error('read back a different value');
        await probe.delete('probe');
      })(),
      new Promise((_, reject) => setTimeout(() => reject(new Error('the keychain did not answer within 10 s (locked?)')), 10_000)),
    ]);
  } catch (e) {
    throw new Error(`${reason()} Cause: ${e instanceof Error ? e.message : String(e)}`);
  }
}

const cleanup: { service: string; account: string }[] = [];
beforeAll(async () => {
  await requireSecretService();
}, 30_000);
afterAll(async () => {
  for (const { service, account } of cleanup) await new KeytarKeyStore(service).delete(account).catch(() => false);
});

describe('KeytarKeyStore on the real Secret Service', () => {
  it('stores, reads and deletes an entry that secret-tool sees under service/account attributes', async () => {
    const service = `payout-desk-test-${randomBytes(4).toString('hex')}`;
    const store = new KeytarKeyStore(service);
    cleanup.push({ service, account: 'acct-1' });
    await store.set('acct-1', 'value-1');
    expect(await store.get('acct-1')).toBe('value-1');
    expect(await secretTool('lookup', 'service', service, 'account', 'acct-1')).toBe('value-1');
    expect(await store.delete('acct-1')).toBe(true);
    expect(await store.get('acct-1')).toBeNull();
    await expect(secretTool('lookup', 'service', service, 'account', 'acct-1')).rejects.toBeTruthy();
  });
});

describe('key custody with the OS keychain (service payout-desk)', () => {
  it('keeps the wrap key in the keychain, readable by secret-tool, and it opens the sealed key', async () => {
    const home = mkdtempSync(join(tmpdir(), 'desk-keychain-'));
    const ctx = createAppContext({ home });
    const id = `kc-${randomBytes(4).toString('hex')}`;
    cleanup.push({ service: DEFAULT_KEYCHAIN_SERVICE, account: wrapKeyAccount(id) }, { service: DEFAULT_KEYCHAIN_SERVICE, account: secretAccount(id) });
    ctx.profiles.add({ id, name: id, baseUrl: 'https://gw.example.com', merchantCode: 'M1' });
    const key = await ctx.keys.generateKey(id, 2048);
    const publicPem = await ctx.keys.publicKeyPem(id);

    const fromSecretTool = await secretTool('lookup', 'service', DEFAULT_KEYCHAIN_SERVICE, 'account', wrapKeyAccount(id));
    expect(Buffer.from(fromSecretTool, 'base64')).toHaveLength(32);
    // Independent path: secret-tool's wrap key + the sealed file give the same public key.
    const der = await readSealedKey(ctx.keys.sealedKeyPath(id, key.keyId), Buffer.from(fromSecretTool, 'base64'), id, key.keyId);
    expect(createPublicKey(privateKeyFromDer(der)).export({ type: 'spki', format: 'pem' })).toBe(publicPem);

    await ctx.keys.setDeprecatedSecret(id, 'deprecated-merchant-secret');
    expect(await secretTool('lookup', 'service', DEFAULT_KEYCHAIN_SERVICE, 'account', secretAccount(id))).toBe('deprecated-merchant-secret');
    ctx.close();
  });

  it('the data folder alone (no keychain entry) does not yield the key', async () => {
    const home = mkdtempSync(join(tmpdir(), 'desk-keychain-'));
    const ctx = createAppContext({ home });
    const id = `kc-${randomBytes(4).toString('hex')}`;
    cleanup.push({ service: DEFAULT_KEYCHAIN_SERVICE, account: wrapKeyAccount(id) });
    ctx.profiles.add({ id, name: id, baseUrl: 'https://gw.example.com', merchantCode: 'M1' });
    await ctx.keys.generateKey(id, 2048);
    const modulus = Buffer.from(createPublicKey(await ctx.keys.publicKeyPem(id)).export({ format: 'jwk' }).n!, 'base64url');
    ctx.close();

    // A copy of the whole data folder, as a thief or a backup tool would see it.
    const copy = mkdtempSync(join(tmpdir(), 'desk-stolen-'));
    cpSync(home, copy, { recursive: true });
    const files = readdirSync(copy, { recursive: true, withFileTypes: true }).filter((d) => d.isFile());
    expect(files.some((d) => d.name.endsWith('.key.enc'))).toBe(true);
    for (const f of files) {
      const bytes = readFileSync(join(f.parentPath, f.name));
      expect(bytes.includes(modulus.subarray(0, 32))).toBe(false);
      expect(bytes.toString('latin1')).not.toContain('PRIVATE KEY');
    }

    // Without the keychain entry the copy cannot sign: the wrap key exists nowhere else.
    await secretTool('clear', 'service', DEFAULT_KEYCHAIN_SERVICE, 'account', wrapKeyAccount(id));
    const thief = createAppContext({ home: copy });
    const failure = await thief.keys.signerFor(id).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(KeyCustodyError);
    expect((failure as KeyCustodyError).code).toBe('WRAP_KEY_MISSING');
    thief.close();
  });
});
