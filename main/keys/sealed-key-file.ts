// A private key at rest: PKCS#8 DER sealed with AES-256-GCM under the profile's 256-bit wrap key
// (which lives only in the keychain). The profile id and key id are bound in as associated data,
// so a file copied to another profile or renamed to another key id fails to open.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import * as z from '../zod-mini';
import { CodedError } from '../domain/coded-error';

const FORMAT = 'payout-desk-sealed-key';

const SealedFileSchema = z.object({
  format: z.literal(FORMAT),
  version: z.literal(1),
  alg: z.literal('AES-256-GCM'),
  profileId: z.string(),
  keyId: z.string(),
  iv: z.string(),
  tag: z.string(),
  ciphertext: z.string(),
});

export class SealedKeyError extends CodedError<'SEALED_FILE_MISSING' | 'SEALED_FILE_DAMAGED' | 'SEALED_FILE_MISMATCH' | 'WRAP_KEY_INVALID'> {}

export function associatedData(profileId: string, keyId: string): Buffer {
  return Buffer.from(`payout-desk/v1/${profileId}/${keyId}`, 'utf8');
}

export function newWrapKey(): Buffer {
  return randomBytes(32);
}

export function parseWrapKey(base64: string): Buffer {
  const key = Buffer.from(base64, 'base64');
  if (key.length !== 32) throw new SealedKeyError('WRAP_KEY_INVALID', 'The wrap key in the keychain is not 32 bytes; it was altered or belongs to something else');
  return key;
}

export async function writeSealedKey(file: string, wrapKey: Buffer, profileId: string, keyId: string, plaintext: Buffer): Promise<void> {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', wrapKey, iv);
  cipher.setAAD(associatedData(profileId, keyId));
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  const body = {
    format: FORMAT,
    version: 1,
    alg: 'AES-256-GCM',
    profileId,
    keyId,
    iv: iv.toString('base64'),
    tag: cipher.getAuthTag().toString('base64'),
    ciphertext: ciphertext.toString('base64'),
  };
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  await writeFile(tmp, `${JSON.stringify(body, null, 2)}\n`, { mode: 0o600 });
  await rename(tmp, file);
}

export async function readSealedKey(file: string, wrapKey: Buffer, profileId: string, keyId: string): Promise<Buffer> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    throw new SealedKeyError('SEALED_FILE_MISSING', `The sealed key file for key "${keyId}" is missing (${file})`);
  }
  let parsed: z.infer<typeof SealedFileSchema>;
  try {
    parsed = SealedFileSchema.parse(JSON.parse(text));
  } catch {
    throw new SealedKeyError('SEALED_FILE_DAMAGED', `The sealed key file for key "${keyId}" is damaged or not a Payout Desk key file`);
  }
  if (parsed.profileId !== profileId || parsed.keyId !== keyId) {
    throw new SealedKeyError('SEALED_FILE_MISMATCH', `The sealed key file ${file} belongs to another profile or key`);
  }
  try {
    const decipher = createDecipheriv('aes-256-gcm', wrapKey, Buffer.from(parsed.iv, 'base64'));
    decipher.setAAD(associatedData(profileId, keyId));
    decipher.setAuthTag(Buffer.from(parsed.tag, 'base64'));
    return Buffer.concat([decipher.update(Buffer.from(parsed.ciphertext, 'base64')), decipher.final()]);
  } catch {
    throw new SealedKeyError(
      'WRAP_KEY_INVALID',
      `The sealed key "${keyId}" does not open with this profile's keychain wrap key (wrong keychain entry or altered file)`,
    );
  }
}
