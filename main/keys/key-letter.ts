// The printable letter that hands a public key to the platform: who, which key, how to check it.
import type { KeyRecord, Profile } from '../profiles/profile-schema';

export interface KeyLetterInput {
  profile: Pick<Profile, 'name' | 'merchantCode' | 'environment' | 'baseUrl'>;
  key: Pick<KeyRecord, 'keyId' | 'fingerprint' | 'bits' | 'createdAt'>;
  publicKeyPem: string;
  date: Date;
}

export function keyLetterText({ profile, key, publicKeyPem, date }: KeyLetterInput): string {
  const line = '-'.repeat(72);
  return [
    'PUBLIC KEY REGISTRATION - SHA256withRSA request signing',
    line,
    `Merchant code:     ${profile.merchantCode}`,
    `Profile:           ${profile.name} (${profile.environment})`,
    `Gateway:           ${profile.baseUrl}`,
    `Key id:            ${key.keyId}`,
    `Key:               RSA ${key.bits} bits, created ${key.createdAt}`,
    `SHA-256 fingerprint of the DER SubjectPublicKeyInfo:`,
    `  ${key.fingerprint}`,
    `Date of this letter: ${date.toISOString().slice(0, 10)}`,
    line,
    'Please register the following public key (PEM, SPKI) for the merchant above.',
    'Before registering, compare its fingerprint with the one printed here:',
    '  openssl pkey -pubin -in key.pem -outform DER | openssl dgst -sha256 -c',
    '',
    publicKeyPem.trim(),
    '',
    line,
    'Authorised by (name and role): ____________________________________',
    '',
    'Signature: ____________________________________   Date: ______________',
    '',
  ].join('\n');
}
