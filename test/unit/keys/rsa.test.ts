// RSA key material: the formats finance teams actually receive, the keys we must refuse, the
// fingerprint anyone can recompute with openssl, and the one guarded way out (encrypted backup).
import { execFileSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  KeyMaterialError,
  encryptedBackupPem,
  generateRsaKey,
  importRsaPrivateKeyPem,
  publicKeyFingerprint,
  publicKeyPem,
  rsaBits,
} from '../../../main/keys/rsa';

const rsa2048 = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
const pkcs1 = rsa2048.export({ type: 'pkcs1', format: 'pem' }).toString();
const pkcs8 = rsa2048.export({ type: 'pkcs8', format: 'pem' }).toString();
const encrypted = rsa2048.export({ type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase: 'correct horse battery' }).toString();

function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (e instanceof KeyMaterialError) return `${e.code}: ${e.message}`;
    throw e;
  }
  return 'no error';
}

describe('generate', () => {
  it('creates 3072-bit keys by default and offers 2048 and 4096 only', async () => {
    expect(rsaBits(await generateRsaKey())).toBe(3072);
    expect(rsaBits(await generateRsaKey(2048))).toBe(2048);
    await expect(generateRsaKey(1024)).rejects.toThrow(/2048, 3072, 4096/);
  }, 60_000);
});

describe('import', () => {
  it('accepts PKCS#1, PKCS#8 and passphrase-encrypted PKCS#8 of the same key', () => {
    const fp = publicKeyFingerprint(rsa2048);
    expect(publicKeyFingerprint(importRsaPrivateKeyPem(pkcs1))).toBe(fp);
    expect(publicKeyFingerprint(importRsaPrivateKeyPem(`\n${pkcs8}\n`))).toBe(fp);
    expect(publicKeyFingerprint(importRsaPrivateKeyPem(encrypted, 'correct horse battery'))).toBe(fp);
  });

  it('asks for the passphrase, and says when it is wrong', () => {
    expect(codeOf(() => importRsaPrivateKeyPem(encrypted))).toMatch(/^KEY_PASSPHRASE: .*give its passphrase/);
    expect(codeOf(() => importRsaPrivateKeyPem(encrypted, 'wrong'))).toMatch(/^KEY_PASSPHRASE: .*wrong passphrase/);
  });

  it('refuses non-RSA keys, small RSA keys, public keys and garbage with specific messages', () => {
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const ed = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const small = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
    expect(codeOf(() => importRsaPrivateKeyPem(ec))).toMatch(/^KEY_NOT_RSA: .*this key is EC$/);
    expect(codeOf(() => importRsaPrivateKeyPem(ed))).toMatch(/^KEY_NOT_RSA: .*this key is ED25519$/);
    expect(codeOf(() => importRsaPrivateKeyPem(small))).toMatch(/^KEY_TOO_SMALL: RSA key of 1024 bits.*at least 2048/);
    expect(codeOf(() => importRsaPrivateKeyPem(publicKeyPem(rsa2048)))).toMatch(/^KEY_FORMAT: This is a public key/);
    expect(codeOf(() => importRsaPrivateKeyPem('hello'))).toMatch(/^KEY_FORMAT: Not a PEM private key/);
    const damaged = pkcs8.replace(/\n[A-Za-z0-9+/]{20}/, '\n!!!!');
    expect(codeOf(() => importRsaPrivateKeyPem(damaged))).toMatch(/^KEY_FORMAT: /);
  });

  it('never echoes key text in its messages', () => {
    const damaged = pkcs8.slice(0, 200);
    const message = codeOf(() => importRsaPrivateKeyPem(damaged));
    expect(message).not.toContain(pkcs8.split('\n')[1]!.slice(0, 16));
  });
});

describe('public export and fingerprint', () => {
  it('exports SPKI PEM and a SHA-256 fingerprint that openssl reproduces', () => {
    const pem = publicKeyPem(rsa2048);
    expect(pem).toMatch(/^-----BEGIN PUBLIC KEY-----\n/);
    const fp = publicKeyFingerprint(rsa2048);
    expect(fp).toMatch(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
    const der = execFileSync('openssl', ['pkey', '-pubin', '-outform', 'DER'], { input: pem });
    const digest = execFileSync('openssl', ['dgst', '-sha256', '-c'], { input: der, encoding: 'utf8' });
    expect(digest.trim().split('= ')[1]!.toUpperCase()).toBe(fp);
  });
});

describe('backup', () => {
  it('requires confirmation and a long passphrase, and yields an encrypted PKCS#8 that re-imports', () => {
    expect(codeOf(() => encryptedBackupPem(rsa2048, 'a long enough passphrase', false))).toMatch(/^BACKUP_NOT_CONFIRMED/);
    expect(codeOf(() => encryptedBackupPem(rsa2048, 'short', true))).toMatch(/^BACKUP_PASSPHRASE/);
    const backup = encryptedBackupPem(rsa2048, 'a long enough passphrase', true);
    expect(backup).toMatch(/^-----BEGIN ENCRYPTED PRIVATE KEY-----/);
    expect(publicKeyFingerprint(importRsaPrivateKeyPem(backup, 'a long enough passphrase'))).toBe(publicKeyFingerprint(rsa2048));
    // openssl opens it with the passphrase too: a standard format, not a private one.
    const out = execFileSync('openssl', ['pkey', '-passin', 'pass:a long enough passphrase', '-noout', '-text_pub'], { input: backup, encoding: 'utf8' });
    expect(out).toMatch(/2048 bit/);
  });
});
