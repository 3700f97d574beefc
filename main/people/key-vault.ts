// Where each person's sealed signing key lives on this machine, and unlocking it into a session.
// Both parts are small, so both sit in the OS keychain (KeyStore; MemoryKeyStore in tests):
//   person:<id>:wrap-key    32 random bytes, base64: the outer seal (see person-key.ts)
//   person:<id>:signing-key the sealed blob, JSON (about 450 bytes, far under Windows' 2,560-byte cap)
// The journal keeps only the public key. Rule: values read here never reach a log, an error or IPC.
import { randomBytes, sign as edSign, type KeyObject } from 'node:crypto';
import type { KeyStore } from '../keys/key-store';
import {
  generatePersonKey, parseSealedPersonKey, sealPersonKey, unsealPersonKey, checkPassphrase, type KdfParams,
} from './person-key';
import { PeopleError, type PersonRecord } from './roles';

export const personWrapKeyAccount = (personId: string) => `person:${personId}:wrap-key`;
export const personSigningKeyAccount = (personId: string) => `person:${personId}:signing-key`;

/**
 * A person who has unlocked their key: signs until locked. The private key is held only in this object
 * (a KeyObject, whose memory Node does not let us wipe; lock() drops the only reference).
 */
export class UnlockedSession {
  private key: KeyObject | null;
  /** When this person last typed a code of their second factor at this desk (main/desk/second-factor-gate.ts). */
  secondFactorAt: number | null = null;

  constructor(
    readonly personId: string,
    readonly publicKey: string,
    key: KeyObject,
    readonly unlockedAt: number,
  ) {
    this.key = key;
  }

  get locked(): boolean {
    return this.key === null;
  }

  /** Ed25519 signature over the bytes, base64. */
  sign(bytes: Uint8Array): string {
    if (!this.key) throw new PeopleError('LOCKED', 'The desk is locked; unlock with your passphrase to sign');
    return edSign(null, bytes, this.key).toString('base64');
  }

  lock(): void {
    this.key = null;
  }
}

export class PersonKeyVault {
  constructor(
    private readonly keyStore: KeyStore,
    private readonly options: { kdf?: KdfParams; now?: () => number } = {},
  ) {}

  /**
   * Makes a new signing key for a person about to be added, seals it with a fresh keychain wrap key and
   * their passphrase, and stores both. Returns the public key for the journal.
   */
  async create(personId: string, passphrase: string): Promise<{ publicKey: string }> {
    const session = await this.createUnlocked(personId, passphrase);
    session.lock();
    return { publicKey: session.publicKey };
  }

  /**
   * As create(), and the person is unlocked: they typed their passphrase a moment ago at this desk, and their
   * first act is to sign (their enrolment, or the control chain's first record).
   */
  async createUnlocked(personId: string, passphrase: string): Promise<UnlockedSession> {
    checkPassphrase(passphrase);
    const pair = generatePersonKey();
    const wrapKey = randomBytes(32);
    const sealed = await sealPersonKey({ personId, pair, passphrase, wrapKey, ...(this.options.kdf ? { kdf: this.options.kdf } : {}) });
    await this.keyStore.set(personWrapKeyAccount(personId), wrapKey.toString('base64'));
    await this.keyStore.set(personSigningKeyAccount(personId), JSON.stringify(sealed));
    return new UnlockedSession(personId, pair.publicKey, pair.privateKey, (this.options.now ?? Date.now)());
  }

  /** True when this machine's keychain holds the person's sealed key. */
  async has(personId: string): Promise<boolean> {
    return (await this.keyStore.get(personSigningKeyAccount(personId))) !== null;
  }

  /** Opens the person's key with their passphrase. A revoked person cannot unlock. */
  async unlock(person: PersonRecord, passphrase: string): Promise<UnlockedSession> {
    if (person.revokedAt !== null) throw new PeopleError('PERSON_REVOKED', `${person.name} was revoked and can no longer sign`);
    const [wrap, text] = await Promise.all([this.keyStore.get(personWrapKeyAccount(person.id)), this.keyStore.get(personSigningKeyAccount(person.id))]);
    if (!wrap || !text) throw new PeopleError('KEY_MISSING', `The ${this.keyStore.description} holds no signing key for ${person.name} on this machine`);
    const wrapKey = Buffer.from(wrap, 'base64');
    if (wrapKey.length !== 32) throw new PeopleError('KEY_DAMAGED', `The keychain wrap key of ${person.name} is not 32 bytes`);
    const key = await unsealPersonKey({ sealed: parseSealedPersonKey(text), personId: person.id, publicKey: person.publicKey, passphrase, wrapKey });
    return new UnlockedSession(person.id, person.publicKey, key, (this.options.now ?? Date.now)());
  }

  /** Forgets the person's key on this machine (revocation); their public key stays in the journal for history. */
  async remove(personId: string): Promise<void> {
    await this.keyStore.delete(personSigningKeyAccount(personId));
    await this.keyStore.delete(personWrapKeyAccount(personId));
  }
}
