// A person's own Ed25519 signing key at rest, sealed twice:
//   inner: AES-256-GCM under scrypt(passphrase): only the person can open it;
//   outer: AES-256-GCM under a 32-byte wrap key that lives only in this machine's OS keychain, so a
//          copy of the sealed blob elsewhere cannot even be used to guess the passphrase offline.
// The person id, the public key and the KDF parameters are bound in as associated data on both layers,
// so a blob moved to another person, or its parameters lowered, fails to open.
// Rule: the private key and the passphrase never go to a log, an error message, the journal or IPC.
import { createCipheriv, createDecipheriv, createPrivateKey, createPublicKey, generateKeyPairSync, randomBytes, scrypt, createHash, verify, type KeyObject } from 'node:crypto';
import { z } from 'zod';
import { PeopleError } from './roles';
import { builtOnFirstUse } from '../built-on-first-use';

/**
 * scrypt N = 2^17, r = 8, p = 1: 128 MiB of memory and about 0.4 s per unlock on the build machine
 * (measured: 367 ms), OWASP's recommended minimum for scrypt. A person unlocks once at the start of work,
 * so the cost falls on an attacker guessing passphrases (each guess needs 128 MiB), not on the desk.
 * p = 1 because parallelism only helps an attacker with more cores than the desk.
 */
export const DEFAULT_KDF = { N: 2 ** 17, r: 8, p: 1 } as const;
export type KdfParams = { N: number; r: number; p: number };
/** Parameters below these are refused when opening a blob (no "weak blob" downgrade). Tests use the floor. */
export const MIN_KDF = { N: 2 ** 14, r: 8, p: 1 } as const;
export const MIN_PASSPHRASE_LENGTH = 12;

const FORMAT = 'payout-desk-person-key';

const sealedSchema = builtOnFirstUse(() =>
  z.object({
    format: z.literal(FORMAT),
    version: z.literal(1),
    personId: z.string().min(1),
    publicKey: z.string().min(1),
    kdf: z.object({ alg: z.literal('scrypt'), N: z.number().int(), r: z.number().int(), p: z.number().int(), salt: z.string() }),
    iv: z.string(),
    tag: z.string(),
    ciphertext: z.string(),
  }),
);
export type SealedPersonKey = z.infer<ReturnType<typeof sealedSchema>>;

export interface PersonKeyPair {
  /** SPKI DER, base64: what the journal keeps and every verifier uses. */
  publicKey: string;
  privateKey: KeyObject;
}

export function generatePersonKey(): PersonKeyPair {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  return { publicKey: publicKey.export({ format: 'der', type: 'spki' }).toString('base64'), privateKey };
}

/**
 * Public keys already read, by their SPKI text: a desk checks the same few people's signatures over and over
 * (every control record at each read of the chain, every approval at each gate), and reading a key is most of
 * the cost of checking a signature. A KeyObject cannot change; the oldest entry goes when the map is full.
 */
const readKeys = new Map<string, KeyObject>();
const READ_KEYS_KEPT = 512;

/** The public key of a stored SPKI (base64); throws on anything that is not an Ed25519 key. */
export function publicKeyObject(spkiBase64: string): KeyObject {
  const known = readKeys.get(spkiBase64);
  if (known) return known;
  const key = createPublicKey({ key: Buffer.from(spkiBase64, 'base64'), format: 'der', type: 'spki' });
  if (key.asymmetricKeyType !== 'ed25519') throw new PeopleError('KEY_DAMAGED', 'The stored public key is not an Ed25519 key');
  if (readKeys.size >= READ_KEYS_KEPT) readKeys.delete(readKeys.keys().next().value!);
  readKeys.set(spkiBase64, key);
  return key;
}

/**
 * Whether `signatureBase64` is the Ed25519 signature of the person whose stored public key is `spkiBase64` over
 * exactly `bytes`. A damaged key or signature is simply not valid: the caller says what failed to verify.
 */
export function personSignatureValid(bytes: Buffer, signatureBase64: string, spkiBase64: string): boolean {
  try {
    return verify(null, bytes, publicKeyObject(spkiBase64), Buffer.from(signatureBase64, 'base64'));
  } catch {
    return false;
  }
}

/** Short hex fingerprint of a public key, for people to compare by eye. */
export function publicKeyFingerprint(spkiBase64: string): string {
  return createHash('sha256').update(Buffer.from(spkiBase64, 'base64')).digest('hex').slice(0, 16).match(/.{4}/g)!.join(':');
}

function checkKdf(kdf: KdfParams): void {
  const powerOfTwo = kdf.N > 1 && (kdf.N & (kdf.N - 1)) === 0;
  if (!powerOfTwo || kdf.N < MIN_KDF.N || kdf.r < MIN_KDF.r || kdf.p < MIN_KDF.p || kdf.N > 2 ** 20 || kdf.r > 32 || kdf.p > 16) {
    throw new PeopleError('KEY_DAMAGED', 'The sealed key names scrypt parameters this desk does not accept');
  }
}

/** scrypt with enough maxmem for the parameters (Node's default cap is 32 MiB). */
function passphraseKey(passphrase: string, salt: Buffer, kdf: KdfParams): Promise<Buffer> {
  const maxmem = 128 * kdf.N * kdf.r * kdf.p + 64 * 1024 * 1024;
  return new Promise((resolve, reject) =>
    scrypt(passphrase.normalize('NFC'), salt, 32, { N: kdf.N, r: kdf.r, p: kdf.p, maxmem }, (error, key) => (error ? reject(error) : resolve(key))),
  );
}

function aad(layer: 'inner' | 'outer', personId: string, publicKey: string, kdf: KdfParams & { salt: string }): Buffer {
  return Buffer.from(`payout-desk/person-key/v1/${layer}/${personId}/${publicKey}/scrypt:${kdf.N}:${kdf.r}:${kdf.p}:${kdf.salt}`, 'utf8');
}

export function gcmSeal(key: Buffer, plaintext: Buffer, associated: Buffer): Buffer {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(associated);
  const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]);
}

/** Opens iv(12) | tag(16) | body; null when the key is wrong or the bytes were altered. */
export function gcmOpen(key: Buffer, sealed: Buffer, associated: Buffer): Buffer | null {
  if (sealed.length < 28) return null;
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, 12));
    decipher.setAAD(associated);
    decipher.setAuthTag(sealed.subarray(12, 28));
    return Buffer.concat([decipher.update(sealed.subarray(28)), decipher.final()]);
  } catch {
    return null;
  }
}

export function checkPassphrase(passphrase: string): void {
  if ([...passphrase].length < MIN_PASSPHRASE_LENGTH) {
    throw new PeopleError('WEAK_PASSPHRASE', `A passphrase needs at least ${MIN_PASSPHRASE_LENGTH} characters`);
  }
}

export async function sealPersonKey(input: {
  personId: string;
  pair: PersonKeyPair;
  passphrase: string;
  wrapKey: Buffer;
  kdf?: KdfParams;
}): Promise<SealedPersonKey> {
  checkPassphrase(input.passphrase);
  const params = input.kdf ?? DEFAULT_KDF;
  checkKdf(params);
  const salt = randomBytes(16);
  const kdf = { N: params.N, r: params.r, p: params.p, salt: salt.toString('base64') };
  const pkcs8 = input.pair.privateKey.export({ format: 'der', type: 'pkcs8' });
  const inner = gcmSeal(await passphraseKey(input.passphrase, salt, params), pkcs8, aad('inner', input.personId, input.pair.publicKey, kdf));
  const outer = gcmSeal(input.wrapKey, inner, aad('outer', input.personId, input.pair.publicKey, kdf));
  return {
    format: FORMAT,
    version: 1,
    personId: input.personId,
    publicKey: input.pair.publicKey,
    kdf: { alg: 'scrypt', ...kdf },
    iv: outer.subarray(0, 12).toString('base64'),
    tag: outer.subarray(12, 28).toString('base64'),
    ciphertext: outer.subarray(28).toString('base64'),
  };
}

export function parseSealedPersonKey(text: string): SealedPersonKey {
  try {
    return sealedSchema().parse(JSON.parse(text));
  } catch {
    throw new PeopleError('KEY_DAMAGED', 'The sealed signing key is damaged or not a Payout Desk person key');
  }
}

/**
 * Opens a sealed key. Distinct, clear errors: KEY_ELSEWHERE (this keychain's wrap key does not open it:
 * sealed on another machine, or altered), WRONG_PASSPHRASE, KEY_MISMATCH (it is not the key the journal
 * names for this person).
 */
export async function unsealPersonKey(input: { sealed: SealedPersonKey; personId: string; publicKey: string; passphrase: string; wrapKey: Buffer }): Promise<KeyObject> {
  const { sealed } = input;
  if (sealed.personId !== input.personId) throw new PeopleError('KEY_MISMATCH', 'The sealed signing key belongs to another person');
  if (sealed.publicKey !== input.publicKey) throw new PeopleError('KEY_MISMATCH', "The sealed signing key is not the one this desk's journal names for this person");
  checkKdf(sealed.kdf);
  const outer = Buffer.concat([Buffer.from(sealed.iv, 'base64'), Buffer.from(sealed.tag, 'base64'), Buffer.from(sealed.ciphertext, 'base64')]);
  const inner = gcmOpen(input.wrapKey, outer, aad('outer', sealed.personId, sealed.publicKey, sealed.kdf));
  if (!inner) throw new PeopleError('KEY_ELSEWHERE', "The signing key does not open with this machine's keychain key (sealed elsewhere, or altered)");
  const key = await passphraseKey(input.passphrase, Buffer.from(sealed.kdf.salt, 'base64'), sealed.kdf);
  const pkcs8 = gcmOpen(key, inner, aad('inner', sealed.personId, sealed.publicKey, sealed.kdf));
  if (!pkcs8) throw new PeopleError('WRONG_PASSPHRASE', 'Wrong passphrase');
  const privateKey = createPrivateKey({ key: pkcs8, format: 'der', type: 'pkcs8' });
  pkcs8.fill(0);
  const derived = createPublicKey(privateKey).export({ format: 'der', type: 'spki' }).toString('base64');
  if (derived !== sealed.publicKey) throw new PeopleError('KEY_MISMATCH', 'The sealed signing key does not match its public key');
  return privateKey;
}
