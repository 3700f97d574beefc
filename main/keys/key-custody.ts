// Key custody for every profile: the keychain holds a 256-bit wrap key per profile (and the
// deprecated merchant secret when a profile opts in); each RSA private key is sealed under the wrap
// key in `<home>/profiles/<profileId>/keys/<keyId>.key.enc`; metadata lives in the profiles DB.
// Rule: private keys exist in clear only as KeyObjects inside this process. Nothing here returns
// private key text except `backupPem`, which demands a passphrase and an explicit confirmation.
import type { KeyObject } from 'node:crypto';
import { join } from 'node:path';
import type { KeyRecord, KeySource, Profile } from '../profiles/profile-schema';
import type { ProfileStore } from '../profiles/profile-store';
import type { SecurityAction, SecurityActionReporter } from '../audit/security-action';
import type { KeyStore } from './key-store';
import { keyLetterText } from './key-letter';
import {
  DEFAULT_RSA_BITS,
  encryptedBackupPem,
  generateRsaKey,
  importRsaPrivateKeyPem,
  privateKeyDer,
  privateKeyFromDer,
  publicKeyFingerprint,
  publicKeyPem,
  rsaBits,
  signSha256WithRsa,
} from './rsa';
import { SealedKeyError, newWrapKey, parseWrapKey, readSealedKey, writeSealedKey } from './sealed-key-file';
import { CodedError } from '../domain/coded-error';

export class KeyCustodyError extends CodedError<'NO_ACTIVE_KEY' | 'WRAP_KEY_MISSING' | 'KEY_DUPLICATE' | 'NO_SECRET' | 'SECRET_INVALID'> {}

/** What the gateway client gets: a way to sign, never the key itself. */
export interface RequestSigner {
  readonly keyId: string;
  readonly fingerprint: string;
  /** SHA256withRSA over the exact UTF-8 bytes of `body`, base64. */
  sign(body: string): string;
}

export interface AddKeyOptions {
  /** Make the new key the one that signs. Default: only when the profile has no active key yet. */
  activate?: boolean;
}

export const wrapKeyAccount = (profileId: string) => `profile:${profileId}:wrap-key`;
export const secretAccount = (profileId: string) => `profile:${profileId}:deprecated-secret`;

export class KeyCustody {
  constructor(
    /** `audit` hears every key and secret action (see main/audit/security-trail.ts); never the key or secret itself. */
    private readonly deps: { home: string; keyStore: KeyStore; profiles: ProfileStore; audit?: SecurityActionReporter },
  ) {}

  get keyStoreDescription(): string {
    return this.deps.keyStore.description;
  }

  sealedKeyPath(profileId: string, keyId: string): string {
    return join(this.deps.home, 'profiles', profileId, 'keys', `${keyId}.key.enc`);
  }

  async generateKey(profileId: string, bits: number = DEFAULT_RSA_BITS, options: AddKeyOptions = {}): Promise<KeyRecord> {
    this.deps.profiles.get(profileId);
    const key = await generateRsaKey(bits);
    const record = await this.store(profileId, key, 'generated', options);
    await this.audited(profileId, 'key.generated', record);
    return record;
  }

  async importKey(profileId: string, pem: string, passphrase?: string, options: AddKeyOptions = {}): Promise<KeyRecord> {
    this.deps.profiles.get(profileId);
    const key = importRsaPrivateKeyPem(pem, passphrase);
    const record = await this.store(profileId, key, 'imported', options);
    await this.audited(profileId, 'key.imported', record);
    return record;
  }

  /**
   * Rotation step one: a new key that signs from now on. The previous key becomes standby and stays
   * (the platform accepts any registered public key) until the user retires it.
   */
  async rotate(profileId: string, bits: number = DEFAULT_RSA_BITS): Promise<{ key: KeyRecord; previousKeyId: string | null }> {
    const previousKeyId = this.deps.profiles.get(profileId).activeKeyId;
    const key = await this.generateKey(profileId, bits, { activate: true });
    await this.audited(profileId, 'key.rotated', key, { previousKeyId });
    return { key, previousKeyId };
  }

  activate(profileId: string, keyId: string): KeyRecord {
    const previousKeyId = this.deps.profiles.get(profileId).activeKeyId;
    this.deps.profiles.setActiveKey(profileId, keyId);
    const record = this.deps.profiles.getKey(profileId, keyId);
    this.deps.audit?.report(keyAction(profileId, 'key.activated', record, { previousKeyId }));
    return record;
  }

  /** Stops using a key for good. The sealed file is kept (never auto-deleted) but the key can no longer sign. */
  retire(profileId: string, keyId: string): KeyRecord {
    const record = this.deps.profiles.retireKey(profileId, keyId);
    this.deps.audit?.report(keyAction(profileId, 'key.retired', record));
    return record;
  }

  listKeys(profileId: string): KeyRecord[] {
    this.deps.profiles.get(profileId);
    return this.deps.profiles.listKeys(profileId);
  }

  /** The key record named, or the active key. */
  keyRecord(profileId: string, keyId?: string): KeyRecord {
    const profile = this.deps.profiles.get(profileId);
    const id = keyId ?? profile.activeKeyId;
    if (!id) throw new KeyCustodyError('NO_ACTIVE_KEY', `Profile "${profileId}" has no active key (use "keys generate" or "keys import")`);
    return this.deps.profiles.getKey(profileId, id);
  }

  async publicKeyPem(profileId: string, keyId?: string): Promise<string> {
    const record = this.keyRecord(profileId, keyId);
    return publicKeyPem(await this.unseal(profileId, record.keyId));
  }

  async keyLetter(profileId: string, keyId?: string, date: Date = new Date()): Promise<string> {
    const profile = this.deps.profiles.get(profileId);
    const record = this.keyRecord(profileId, keyId);
    const pem = await this.publicKeyPem(profileId, record.keyId);
    return keyLetterText({ profile, key: record, publicKeyPem: pem, date });
  }

  /** Encrypted PKCS#8 PEM of one key; the only export of a private key (see rsa.encryptedBackupPem). */
  async backupPem(profileId: string, keyId: string, passphrase: string, confirmed: boolean): Promise<string> {
    const record = this.keyRecord(profileId, keyId);
    const key = await this.unseal(profileId, record.keyId);
    const pem = encryptedBackupPem(key, passphrase, confirmed);
    await this.audited(profileId, 'key.backed-up', record, { format: 'encrypted PKCS#8 PEM' });
    return pem;
  }

  /** A signer over the profile's active key. Retired keys never sign. */
  async signerFor(profileId: string): Promise<RequestSigner> {
    const record = this.keyRecord(profileId);
    if (record.status !== 'active') {
      throw new KeyCustodyError('NO_ACTIVE_KEY', `Key "${record.keyId}" of profile "${profileId}" is ${record.status}, not active`);
    }
    const key = await this.unseal(profileId, record.keyId);
    return { keyId: record.keyId, fingerprint: record.fingerprint, sign: (body) => signSha256WithRsa(key, body) };
  }

  // ---- deprecated merchant secret ------------------------------------------------------------

  /** Stores the deprecated merchant secret in the keychain. It is used only if the profile opts in. */
  async setDeprecatedSecret(profileId: string, secret: string): Promise<void> {
    this.deps.profiles.get(profileId);
    if (!secret.trim() || secret.length > 1024) {
      throw new KeyCustodyError('SECRET_INVALID', 'The merchant secret must be 1-1024 characters');
    }
    await this.deps.keyStore.set(secretAccount(profileId), secret);
    // Only that it was set: the secret itself never goes near the audit log.
    await this.deps.audit?.record({ profileId, action: 'merchant-secret.set', subject: profileId, details: {} });
  }

  async hasDeprecatedSecret(profileId: string): Promise<boolean> {
    return (await this.deps.keyStore.get(secretAccount(profileId))) !== null;
  }

  async deleteDeprecatedSecret(profileId: string): Promise<boolean> {
    const removed = await this.deps.keyStore.delete(secretAccount(profileId));
    await this.deps.audit?.record({ profileId, action: 'merchant-secret.cleared', subject: profileId, details: { removed } });
    return removed;
  }

  /** For the token manager only; never shown, logged or sent over IPC. */
  async deprecatedSecret(profile: Profile): Promise<string> {
    const secret = profile.useDeprecatedSecret ? await this.deps.keyStore.get(secretAccount(profile.id)) : null;
    if (!secret) {
      throw new KeyCustodyError(
        'NO_SECRET',
        profile.useDeprecatedSecret
          ? `Profile "${profile.id}" opts in to the deprecated secret, but none is stored in the ${this.deps.keyStore.description}`
          : `Profile "${profile.id}" does not use the deprecated secret`,
      );
    }
    return secret;
  }

  // ---- internals -----------------------------------------------------------------------------

  private async audited(profileId: string, action: string, record: KeyRecord, extra: Record<string, unknown> = {}): Promise<void> {
    await this.deps.audit?.record(keyAction(profileId, action, record, extra));
  }

  private async store(profileId: string, key: KeyObject, source: KeySource, options: AddKeyOptions): Promise<KeyRecord> {
    const fingerprint = publicKeyFingerprint(key);
    const existing = this.deps.profiles.listKeys(profileId).find((k) => k.fingerprint === fingerprint);
    if (existing) throw new KeyCustodyError('KEY_DUPLICATE', `This key is already held by profile "${profileId}" as key "${existing.keyId}"`);
    const now = new Date();
    const keyId = `${now.toISOString().slice(0, 10).replace(/-/g, '')}-${fingerprint.replace(/:/g, '').slice(0, 8).toLowerCase()}`;
    const wrapKey = await this.wrapKey(profileId, true);
    await writeSealedKey(this.sealedKeyPath(profileId, keyId), wrapKey, profileId, keyId, privateKeyDer(key));
    const activate = options.activate ?? !this.deps.profiles.get(profileId).activeKeyId;
    this.deps.profiles.addKey({
      profileId,
      keyId,
      createdAt: now.toISOString(),
      fingerprint,
      bits: rsaBits(key),
      status: activate ? 'active' : 'standby',
      source,
    });
    return this.deps.profiles.getKey(profileId, keyId);
  }

  private async unseal(profileId: string, keyId: string): Promise<KeyObject> {
    const wrapKey = await this.wrapKey(profileId, false);
    const der = await readSealedKey(this.sealedKeyPath(profileId, keyId), wrapKey, profileId, keyId);
    try {
      return privateKeyFromDer(der);
    } finally {
      der.fill(0);
    }
  }

  private async wrapKey(profileId: string, createIfMissing: boolean): Promise<Buffer> {
    const account = wrapKeyAccount(profileId);
    const stored = await this.deps.keyStore.get(account);
    if (stored) return parseWrapKey(stored);
    if (!createIfMissing || this.deps.profiles.listKeys(profileId).length > 0) {
      throw new KeyCustodyError(
        'WRAP_KEY_MISSING',
        `The ${this.deps.keyStore.description} has no wrap key for profile "${profileId}"; its sealed keys cannot be opened without it (restore the keychain or import a backup)`,
      );
    }
    const fresh = newWrapKey();
    await this.deps.keyStore.set(account, fresh.toString('base64'));
    return fresh;
  }
}

export { SealedKeyError };

/** A key action for the audit log: which key (id, fingerprint, size, source, status), never its material. */
function keyAction(profileId: string, action: string, k: KeyRecord, extra: Record<string, unknown> = {}): SecurityAction {
  return { profileId, action, subject: k.keyId, details: { keyId: k.keyId, fingerprint: k.fingerprint, bits: k.bits, source: k.source, status: k.status, ...extra } };
}
