// RSA key handling with node:crypto only: generate, import PEM (PKCS#1, PKCS#8, encrypted PKCS#8),
// public export (SPKI PEM) and fingerprint, encrypted backup, and the request signature.
// Private keys stay KeyObjects; PEM/DER text of a private key exists only transiently in here.
import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPair,
  sign as cryptoSign,
  type KeyObject,
} from 'node:crypto';
import { promisify } from 'node:util';
import { CodedError } from '../domain/coded-error';

export const RSA_KEY_SIZES = [2048, 3072, 4096] as const;
export type RsaKeySize = (typeof RSA_KEY_SIZES)[number];
export const DEFAULT_RSA_BITS: RsaKeySize = 3072;
export const MIN_RSA_BITS = 2048;

export class KeyMaterialError extends CodedError<'KEY_FORMAT' | 'KEY_PASSPHRASE' | 'KEY_NOT_RSA' | 'KEY_TOO_SMALL' | 'KEY_SIZE' | 'BACKUP_NOT_CONFIRMED' | 'BACKUP_PASSPHRASE'> {}

const generateKeyPairAsync = promisify(generateKeyPair);

export function isRsaKeySize(bits: number): bits is RsaKeySize {
  return (RSA_KEY_SIZES as readonly number[]).includes(bits);
}

/** A fresh RSA private key (public exponent 65537). */
export async function generateRsaKey(bits: number = DEFAULT_RSA_BITS): Promise<KeyObject> {
  if (!isRsaKeySize(bits)) {
    throw new KeyMaterialError('KEY_SIZE', `RSA key size must be one of ${RSA_KEY_SIZES.join(', ')} bits (got ${bits})`);
  }
  const { privateKey } = await generateKeyPairAsync('rsa', { modulusLength: bits, publicExponent: 0x10001 });
  return privateKey;
}

/**
 * Imports a PEM private key: PKCS#1 ("BEGIN RSA PRIVATE KEY"), PKCS#8 ("BEGIN PRIVATE KEY") or
 * encrypted PKCS#8 ("BEGIN ENCRYPTED PRIVATE KEY", needs the passphrase). Refuses public keys,
 * non-RSA keys and RSA keys under 2048 bits, each with its own message.
 */
export function importRsaPrivateKeyPem(pem: string, passphrase?: string): KeyObject {
  const text = pem.trim();
  if (!/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(text)) {
    if (/-----BEGIN (RSA )?PUBLIC KEY-----|-----BEGIN CERTIFICATE-----/.test(text)) {
      throw new KeyMaterialError('KEY_FORMAT', 'This is a public key or certificate; the private key is needed to sign requests');
    }
    throw new KeyMaterialError('KEY_FORMAT', 'Not a PEM private key (expected a "-----BEGIN … PRIVATE KEY-----" block)');
  }
  const encrypted = text.includes('BEGIN ENCRYPTED PRIVATE KEY') || /Proc-Type:\s*4,ENCRYPTED/.test(text);
  if (encrypted && !passphrase) {
    throw new KeyMaterialError('KEY_PASSPHRASE', 'The private key is encrypted; give its passphrase');
  }
  let key: KeyObject;
  try {
    key = createPrivateKey(encrypted ? { key: text, format: 'pem', passphrase } : { key: text, format: 'pem' });
  } catch {
    // node's own message may quote decoder internals; ours is specific and carries no key text.
    throw encrypted
      ? new KeyMaterialError('KEY_PASSPHRASE', 'Could not decrypt the private key: wrong passphrase or damaged file')
      : new KeyMaterialError('KEY_FORMAT', 'Could not read the private key: the PEM is damaged or of an unsupported kind');
  }
  assertUsableRsa(key);
  return key;
}

/** Throws unless the key is an RSA private key of at least 2048 bits. */
export function assertUsableRsa(key: KeyObject): void {
  const type = key.asymmetricKeyType;
  if (type !== 'rsa') {
    const label = type === 'rsa-pss' ? 'RSA-PSS' : (type ?? 'unknown').toUpperCase();
    throw new KeyMaterialError('KEY_NOT_RSA', `Only RSA keys are accepted (SHA256withRSA); this key is ${label}`);
  }
  const bits = rsaBits(key);
  if (bits < MIN_RSA_BITS) {
    throw new KeyMaterialError('KEY_TOO_SMALL', `RSA key of ${bits} bits is too weak; at least ${MIN_RSA_BITS} bits are required`);
  }
}

export function rsaBits(key: KeyObject): number {
  return key.asymmetricKeyDetails?.modulusLength ?? 0;
}

/** The public half as SPKI PEM ("-----BEGIN PUBLIC KEY-----"), the format the platform takes. */
export function publicKeyPem(key: KeyObject): string {
  const pub = key.type === 'public' ? key : createPublicKey(key);
  return pub.export({ type: 'spki', format: 'pem' }).toString();
}

/**
 * Fingerprint = SHA-256 of the DER-encoded SubjectPublicKeyInfo, written as 32 upper-case hex
 * pairs joined by colons. Anyone can recompute it from the public PEM with
 * `openssl pkey -pubin -outform DER | openssl dgst -sha256 -c`.
 */
export function publicKeyFingerprint(key: KeyObject): string {
  const pub = key.type === 'public' ? key : createPublicKey(key);
  const der = pub.export({ type: 'spki', format: 'der' });
  return createHash('sha256').update(der).digest('hex').toUpperCase().match(/../g)!.join(':');
}

/** PKCS#8 DER of the private key: the plaintext that gets sealed under the wrap key. */
export function privateKeyDer(key: KeyObject): Buffer {
  return key.export({ type: 'pkcs8', format: 'der' });
}

export function privateKeyFromDer(der: Buffer): KeyObject {
  return createPrivateKey({ key: der, format: 'der', type: 'pkcs8' });
}

export const MIN_BACKUP_PASSPHRASE = 12;

/**
 * The only way a private key leaves the app: encrypted PKCS#8 PEM (AES-256-CBC under a scrypt/PBKDF2
 * key derived from the passphrase, as OpenSSL writes it). Requires an explicit confirmation.
 */
export function encryptedBackupPem(key: KeyObject, passphrase: string, confirmed: boolean): string {
  if (!confirmed) {
    throw new KeyMaterialError(
      'BACKUP_NOT_CONFIRMED',
      'Exporting a private key needs explicit confirmation (it is the only copy outside the keychain)',
    );
  }
  if (passphrase.length < MIN_BACKUP_PASSPHRASE) {
    throw new KeyMaterialError('BACKUP_PASSPHRASE', `The backup passphrase must have at least ${MIN_BACKUP_PASSPHRASE} characters`);
  }
  return key.export({ type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase }).toString();
}

/** SHA256withRSA (PKCS#1 v1.5) over the exact bytes, base64: the X-SIGNATURE value. */
export function signSha256WithRsa(key: KeyObject, body: string | Buffer): string {
  return cryptoSign('sha256', typeof body === 'string' ? Buffer.from(body, 'utf8') : body, key).toString('base64');
}
