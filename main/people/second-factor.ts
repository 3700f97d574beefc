// A person's second factor: a TOTP secret (RFC 6238: SHA-1, 6 digits, 30-second steps, what every
// authenticator app reads from a QR code) and ten recovery codes, kept in this desk's keychain beside the
// person's signing key and sealed with the same keychain wrap key (AES-256-GCM, the person's id as associated
// data), so a keychain entry copied to another person or altered does not open.
//   person:<id>:second-factor          the enrolled secret, the last step used, hashes of unused recovery codes
//   person:<id>:second-factor-pending  a secret shown but not yet confirmed with a code (10 minutes)
// A code is accepted one step either side of this desk's clock, and never twice: the step of the last code
// used is kept, and a code of that step or an earlier one is refused as a replay.
// What it proves: whoever approves also holds the phone, not only the passphrase. What it cannot: the desk
// holds the secret to check codes, so someone with this desk's OS account, the keychain and the passphrase can
// compute codes too (docs/threat-model.md).
import { createHash, randomInt, timingSafeEqual } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import type { KeyStore } from '../keys/key-store';
import { gcmOpen, gcmSeal } from './person-key';
import { personWrapKeyAccount } from './key-vault';
import { CodedError } from '../domain/coded-error';

export type SecondFactorCode = 'SECOND_FACTOR_REQUIRED' | 'SECOND_FACTOR_NOT_ENROLLED' | 'SECOND_FACTOR_WRONG' | 'SECOND_FACTOR_REPLAYED' | 'SECOND_FACTOR_NO_ENROLMENT' | 'SECOND_FACTOR_ENROLLED' | 'KEY_MISSING' | 'KEY_DAMAGED';
export class SecondFactorError extends CodedError<SecondFactorCode> {}

export const secondFactorAccount = (personId: string) => `person:${personId}:second-factor`;
export const pendingSecondFactorAccount = (personId: string) => `person:${personId}:second-factor-pending`;

const PERIOD_S = 30;
const DIGITS = 6;
/** Steps either side of this desk's clock a code may come from (a phone and a desk a little apart). */
const WINDOW = 1;
const PENDING_MS = 10 * 60_000;
const RECOVERY_CODES = 10;
const ISSUER = 'Payout Desk';
// Recovery codes avoid letters read as digits (no I, L, O, U): typed from paper.
const RECOVERY_ALPHABET = 'ABCDEFGHJKMNPQRSTVWXYZ23456789';

interface EnrolledRecord {
  v: 1;
  secret: string;
  /** The time step of the last code used; a code of this step or earlier is a replay. */
  lastStep: number;
  /** SHA-256 (hex) of each recovery code not used yet. */
  recovery: string[];
  enrolledAt: number;
}

interface PendingRecord {
  v: 1;
  secret: string;
  startedAt: number;
}

export interface SecondFactorStatus {
  enrolled: boolean;
  recoveryCodesLeft: number | null;
  enrolledAt: number | null;
}

export interface EnrolmentStart {
  /** The otpauth:// URI an authenticator app reads (shown as a QR code). */
  uri: string;
  /** The same secret in base32, for typing into an app by hand. */
  secret: string;
  expiresAt: number;
}

export interface CodeUse {
  /** 'totp' for a code of the app, 'recovery' for a recovery code (used up). */
  kind: 'totp' | 'recovery';
  recoveryCodesLeft: number;
}

const hash = (code: string) => createHash('sha256').update(code).digest('hex');
const normalRecovery = (code: string) => code.toUpperCase().replace(/[^A-Z0-9]/g, '');

function newRecoveryCode(): string {
  let out = '';
  for (let i = 0; i < 10; i += 1) out += RECOVERY_ALPHABET[randomInt(RECOVERY_ALPHABET.length)];
  return `${out.slice(0, 5)}-${out.slice(5)}`;
}

function totpOf(secret: string, label: string): TOTP {
  return new TOTP({ issuer: ISSUER, label, algorithm: 'SHA1', digits: DIGITS, period: PERIOD_S, secret: Secret.fromBase32(secret) });
}

export class SecondFactorVault {
  constructor(
    private readonly keyStore: KeyStore,
    private readonly now: () => number = Date.now,
  ) {}

  private async wrapKey(personId: string): Promise<Buffer> {
    const wrap = await this.keyStore.get(personWrapKeyAccount(personId));
    if (!wrap) throw new SecondFactorError('KEY_MISSING', `The ${this.keyStore.description} holds no key of this person on this machine: a second factor is set up at the person's own desk`);
    const key = Buffer.from(wrap, 'base64');
    if (key.length !== 32) throw new SecondFactorError('KEY_DAMAGED', 'The keychain wrap key of this person is not 32 bytes');
    return key;
  }

  private aad(personId: string, kind: 'enrolled' | 'pending'): Buffer {
    return Buffer.from(`payout-desk/second-factor/v1/${kind}/${personId}`, 'utf8');
  }

  private async read<T>(personId: string, kind: 'enrolled' | 'pending'): Promise<T | null> {
    const account = kind === 'enrolled' ? secondFactorAccount(personId) : pendingSecondFactorAccount(personId);
    const text = await this.keyStore.get(account);
    if (text === null) return null;
    const opened = gcmOpen(await this.wrapKey(personId), Buffer.from(text, 'base64'), this.aad(personId, kind));
    if (!opened) throw new SecondFactorError('KEY_DAMAGED', `The second factor kept in the ${this.keyStore.description} does not open with this person's key: it was altered or copied from another person`);
    return JSON.parse(opened.toString('utf8')) as T;
  }

  private async write(personId: string, kind: 'enrolled' | 'pending', record: EnrolledRecord | PendingRecord): Promise<void> {
    const account = kind === 'enrolled' ? secondFactorAccount(personId) : pendingSecondFactorAccount(personId);
    const sealed = gcmSeal(await this.wrapKey(personId), Buffer.from(JSON.stringify(record), 'utf8'), this.aad(personId, kind));
    await this.keyStore.set(account, sealed.toString('base64'));
  }

  async status(personId: string): Promise<SecondFactorStatus> {
    const record = await this.read<EnrolledRecord>(personId, 'enrolled');
    return { enrolled: record !== null, recoveryCodesLeft: record?.recovery.length ?? null, enrolledAt: record?.enrolledAt ?? null };
  }

  /** A new secret to show (QR code and text), kept sealed until the person confirms it with a code from their app. */
  async begin(personId: string, label: string): Promise<EnrolmentStart> {
    if (await this.read<EnrolledRecord>(personId, 'enrolled')) throw new SecondFactorError('SECOND_FACTOR_ENROLLED', 'A second factor is set up already: remove it (with a code) before setting up another');
    const secret = new Secret({ size: 20 }).base32;
    const startedAt = this.now();
    await this.write(personId, 'pending', { v: 1, secret, startedAt });
    return { uri: totpOf(secret, label).toString(), secret, expiresAt: startedAt + PENDING_MS };
  }

  /** The code from the app proves it holds the secret: enrolled, and the recovery codes are returned, once. */
  async confirm(personId: string, code: string): Promise<{ recoveryCodes: string[] }> {
    const pending = await this.read<PendingRecord>(personId, 'pending');
    if (!pending || this.now() - pending.startedAt > PENDING_MS) {
      if (pending) await this.keyStore.delete(pendingSecondFactorAccount(personId));
      throw new SecondFactorError('SECOND_FACTOR_NO_ENROLMENT', 'No set-up of a second factor is waiting (or it is older than 10 minutes): start again to get a new QR code');
    }
    const step = this.matchingStep(pending.secret, code);
    if (step === null) throw new SecondFactorError('SECOND_FACTOR_WRONG', 'That code does not match the secret just shown: check the app scanned this QR code and the phone\'s clock is right');
    const recoveryCodes = Array.from({ length: RECOVERY_CODES }, newRecoveryCode);
    await this.write(personId, 'enrolled', { v: 1, secret: pending.secret, lastStep: step, recovery: recoveryCodes.map((c) => hash(normalRecovery(c))), enrolledAt: this.now() });
    await this.keyStore.delete(pendingSecondFactorAccount(personId));
    return { recoveryCodes };
  }

  /**
   * Checks a code of the app (6 digits) or a recovery code, and uses it up: the app's code by its step (no code
   * of that step or an earlier one is taken again), a recovery code for good.
   */
  async use(personId: string, code: string): Promise<CodeUse> {
    const record = await this.read<EnrolledRecord>(personId, 'enrolled');
    if (!record) throw new SecondFactorError('SECOND_FACTOR_NOT_ENROLLED', 'This person has no second factor on this desk: set one up first (People, Second factor)');
    const clean = code.trim();
    if (/^\d{6}$/.test(clean)) {
      const step = this.matchingStep(record.secret, clean);
      if (step === null) throw new SecondFactorError('SECOND_FACTOR_WRONG', 'That code is not the one your authenticator app shows now');
      if (step <= record.lastStep) throw new SecondFactorError('SECOND_FACTOR_REPLAYED', 'That code was used already: wait for the app to show the next one');
      await this.write(personId, 'enrolled', { ...record, lastStep: step });
      return { kind: 'totp', recoveryCodesLeft: record.recovery.length };
    }
    const digest = Buffer.from(hash(normalRecovery(clean)), 'hex');
    const index = record.recovery.findIndex((h) => timingSafeEqual(Buffer.from(h, 'hex'), digest));
    if (index < 0) throw new SecondFactorError('SECOND_FACTOR_WRONG', 'That is neither the code your app shows now (6 digits) nor one of your unused recovery codes');
    const recovery = record.recovery.filter((_, i) => i !== index);
    await this.write(personId, 'enrolled', { ...record, recovery });
    return { kind: 'recovery', recoveryCodesLeft: recovery.length };
  }

  /** Removes the second factor; the caller has checked a code first (use()). */
  async remove(personId: string): Promise<void> {
    await this.keyStore.delete(secondFactorAccount(personId));
    await this.keyStore.delete(pendingSecondFactorAccount(personId));
  }

  /** The absolute time step the code belongs to, within the window around now; null when it matches none. */
  private matchingStep(secret: string, code: string): number | null {
    if (!/^\d{6}$/.test(code.trim())) return null;
    const timestamp = this.now();
    const delta = totpOf(secret, 'check').validate({ token: code.trim(), timestamp, window: WINDOW });
    return delta === null ? null : Math.floor(timestamp / 1000 / PERIOD_S) + delta;
  }
}

/** The code an authenticator app would show at `at` (tests, and the sandbox's demo people). */
export function codeAt(secret: string, at: number): string {
  return totpOf(secret, 'check').generate({ timestamp: at });
}

/** The base32 secret inside an otpauth:// URI (tests play the phone with it). */
export function secretOfUri(uri: string): string {
  const secret = new URL(uri).searchParams.get('secret');
  if (!secret) throw new Error('no secret in the otpauth URI');
  return secret;
}
