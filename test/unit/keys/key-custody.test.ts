// Key custody with the in-memory key store: what is on disk, what is in the keychain, rotation and
// retirement, sealed files bound to their profile and key id, and the deprecated secret.
import { createPublicKey, generateKeyPairSync, verify } from 'node:crypto';
import { copyFileSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KeyCustody, wrapKeyAccount, secretAccount } from '../../../main/keys/key-custody';
import { MemoryKeyStore } from '../../../main/keys/key-store';
import { ProfileStore } from '../../../main/profiles/profile-store';

let home: string;
let store: MemoryKeyStore;
let profiles: ProfileStore;
let custody: KeyCustody;
let profileId: string;

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'desk-keys-'));
  store = new MemoryKeyStore();
  profiles = new ProfileStore(join(home, 'desk.db'));
  custody = new KeyCustody({ home, keyStore: store, profiles });
  profileId = profiles.add({ name: 'Shop EU', baseUrl: 'https://gw.example.com', merchantCode: 'SHOP-EU' }).id;
});
afterEach(() => profiles.close());

function allFilesText(dir: string): string {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => readFileSync(join(d.parentPath, d.name)).toString('latin1'))
    .join('\n');
}

describe('generate and store', () => {
  it('keeps only a 32-byte wrap key in the keychain and a sealed file on disk; the first key is active', async () => {
    const key = await custody.generateKey(profileId, 2048);
    expect(key).toMatchObject({ profileId, bits: 2048, status: 'active', source: 'generated', retiredAt: null });
    expect(key.keyId).toMatch(/^\d{8}-[0-9a-f]{8}$/);
    expect(profiles.get(profileId).activeKeyId).toBe(key.keyId);
    expect(store.size).toBe(1);
    expect(Buffer.from((await store.get(wrapKeyAccount(profileId)))!, 'base64')).toHaveLength(32);

    const sealed = JSON.parse(readFileSync(custody.sealedKeyPath(profileId, key.keyId), 'utf8')) as Record<string, string>;
    expect(sealed).toMatchObject({ format: 'payout-desk-sealed-key', alg: 'AES-256-GCM', profileId, keyId: key.keyId });
    // Nothing in the data folder (sealed file, SQLite database) holds the key in the clear.
    const disk = allFilesText(home);
    expect(disk).not.toContain('PRIVATE KEY');
    const signer = await custody.signerFor(profileId);
    const sig = signer.sign('{"a":1}');
    expect(verify('sha256', Buffer.from('{"a":1}'), createPublicKey(await custody.publicKeyPem(profileId)), Buffer.from(sig, 'base64'))).toBe(true);
  });

  it('cannot open the keys without the keychain entry, nor with another wrap key', async () => {
    const key = await custody.generateKey(profileId, 2048);
    const fresh = new KeyCustody({ home, keyStore: new MemoryKeyStore(), profiles });
    await expect(fresh.signerFor(profileId)).rejects.toThrow(/no wrap key for profile "shop-eu"/);
    const other = new MemoryKeyStore();
    await other.set(wrapKeyAccount(profileId), Buffer.alloc(32, 7).toString('base64'));
    await expect(new KeyCustody({ home, keyStore: other, profiles }).publicKeyPem(profileId, key.keyId)).rejects.toThrow(/does not open/);
  });

  it('binds each sealed file to its profile and key id (associated data)', async () => {
    const a = await custody.generateKey(profileId, 2048);
    const b = await custody.generateKey(profileId, 2048);
    // Swap the files: the ids inside and the GCM associated data both refuse.
    copyFileSync(custody.sealedKeyPath(profileId, a.keyId), custody.sealedKeyPath(profileId, b.keyId));
    await expect(custody.publicKeyPem(profileId, b.keyId)).rejects.toThrow(/belongs to another profile or key/);
    // Even with the label inside rewritten, the GCM associated data (profile + key id) does not match.
    const path = custody.sealedKeyPath(profileId, b.keyId);
    writeFileSync(path, readFileSync(path, 'utf8').replace(`"keyId": "${a.keyId}"`, `"keyId": "${b.keyId}"`));
    await expect(custody.publicKeyPem(profileId, b.keyId)).rejects.toThrow(/does not open with this profile's keychain wrap key/);
  });

  it('imports a key once and refuses the same key twice', async () => {
    const pem = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
    const key = await custody.importKey(profileId, pem);
    expect(key.source).toBe('imported');
    await expect(custody.importKey(profileId, pem)).rejects.toThrow(`already held by profile "${profileId}" as key "${key.keyId}"`);
  });
});

describe('rotation', () => {
  it('activates the new key, keeps the old one as standby until retired, and never deletes it', async () => {
    const first = await custody.generateKey(profileId, 2048);
    const standby = await custody.generateKey(profileId, 2048);
    expect(standby.status).toBe('standby');
    const { key: rotated, previousKeyId } = await custody.rotate(profileId, 2048);
    expect(previousKeyId).toBe(first.keyId);
    expect(custody.listKeys(profileId).map((k) => [k.keyId, k.status])).toEqual([
      [first.keyId, 'standby'],
      [standby.keyId, 'standby'],
      [rotated.keyId, 'active'],
    ]);
    expect((await custody.signerFor(profileId)).keyId).toBe(rotated.keyId);

    expect(() => custody.retire(profileId, rotated.keyId)).toThrow(/active key; activate another key/);
    const retired = custody.retire(profileId, first.keyId);
    expect(retired.status).toBe('retired');
    expect(retired.retiredAt).not.toBeNull();
    expect(() => custody.activate(profileId, first.keyId)).toThrow(/retired and cannot be made active/);
    // The sealed file stays: retiring is not deleting.
    expect(readFileSync(custody.sealedKeyPath(profileId, first.keyId), 'utf8')).toContain('payout-desk-sealed-key');
    custody.activate(profileId, standby.keyId);
    expect(profiles.get(profileId).activeKeyId).toBe(standby.keyId);
  });

  it('writes a key letter with merchant code, key id, fingerprint, date and a signature line', async () => {
    const key = await custody.generateKey(profileId, 2048);
    const letter = await custody.keyLetter(profileId, undefined, new Date('2026-03-04T10:00:00Z'));
    expect(letter).toContain('Merchant code:     SHOP-EU');
    expect(letter).toContain(`Key id:            ${key.keyId}`);
    expect(letter).toContain(key.fingerprint);
    expect(letter).toContain('Date of this letter: 2026-03-04');
    expect(letter).toMatch(/Signature: _+/);
    expect(letter).toContain('-----BEGIN PUBLIC KEY-----');
    expect(letter).not.toContain('PRIVATE');
  });

  it('backs a key up only with confirmation and a passphrase', async () => {
    const key = await custody.generateKey(profileId, 2048);
    await expect(custody.backupPem(profileId, key.keyId, 'a long enough passphrase', false)).rejects.toThrow(/confirmation/);
    expect(await custody.backupPem(profileId, key.keyId, 'a long enough passphrase', true)).toMatch(/^-----BEGIN ENCRYPTED PRIVATE KEY-----/);
  });
});

describe('deprecated secret', () => {
  it('is kept in the keychain and used only when the profile opts in', async () => {
    await custody.setDeprecatedSecret(profileId, 'merchant-secret-1');
    expect(await store.get(secretAccount(profileId))).toBe('merchant-secret-1');
    expect(await custody.hasDeprecatedSecret(profileId)).toBe(true);
    await expect(custody.deprecatedSecret(profiles.get(profileId))).rejects.toThrow(/does not use the deprecated secret/);
    const optedIn = profiles.update(profileId, { useDeprecatedSecret: true });
    expect(await custody.deprecatedSecret(optedIn)).toBe('merchant-secret-1');
    expect(JSON.stringify(profiles.get(profileId))).not.toContain('merchant-secret-1');
    await custody.deleteDeprecatedSecret(profileId);
    await expect(custody.deprecatedSecret(optedIn)).rejects.toThrow(/none is stored/);
  });
});
