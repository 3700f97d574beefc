// Where secrets live: the OS keychain (keytar → Secret Service / Keychain / Credential Manager).
// Only small values are stored here (a 32-byte wrap key per profile, the deprecated merchant
// secret): Windows Credential Manager caps a secret at 2,560 bytes, which an RSA PEM exceeds.
// Rule: values read from a KeyStore never go to a log, an error message or across IPC.

import type { ZodType } from 'zod';
import { CodedError } from '../domain/coded-error';
import { secretServiceState } from './secret-service-bus';

export const DEFAULT_KEYCHAIN_SERVICE = 'payout-desk';

export interface KeyStore {
  /** A human label for messages ("OS keychain (service payout-desk)"). */
  readonly description: string;
  get(account: string): Promise<string | null>;
  set(account: string, secret: string): Promise<void>;
  /** True when an entry was removed. */
  delete(account: string): Promise<boolean>;
}

export class KeyStoreError extends CodedError<'KEYCHAIN_UNAVAILABLE'> {
  constructor(message: string) {
    super('KEYCHAIN_UNAVAILABLE', message);
  }
}

/**
 * keytar's errors when there is no usable Secret Service (Linux): no session bus (no X11 to autolaunch
 * one), nothing owning org.freedesktop.secrets on it, or a locked / dismissed collection.
 */
const SECRET_SERVICE_UNAVAILABLE = /d-?bus|autolaunch|could not connect|\$DISPLAY|X11|org\.freedesktop\.secrets|secret service|ServiceUnknown|no such (interface|object)|locked|prompt (was )?dismissed|Cannot create an item in a locked collection/i;

/** How the hint names the CLI: the words that start it and the whole command line to run again. */
export interface HintWords {
  cli: string;
  rerun: string;
}

const GENERIC_WORDS: HintWords = { cli: 'npx payout-desk', rerun: 'npx payout-desk <command>' };

/** A keychain that answers but is locked: said when a lookup on it finds it locked (see lockedKeyringMessage). */
const LOCKED = /did not unlock|is locked|locked collection/i;

/**
 * What is missing and the whole fix for an error of that family (null for any other error): the CLI
 * prints it once, naming the command to run again; the app's screens show shortKeychainHint instead.
 */
export function secretServiceHint(reason: string, words: HintWords = GENERIC_WORDS): string | null {
  if (!SECRET_SERVICE_UNAVAILABLE.test(reason)) return null;
  const start = `  eval "$(${words.cli} keyring start)"   # asks for the keyring password (or --password-file F, or KEYRING_PASSWORD)`;
  if (LOCKED.test(reason)) {
    return [
      'The Secret Service answers, but its keyring is locked: it was given a password other than the one it was made with.',
      'In a desktop session, unlock the "login" keyring. On a headless machine, start it again with the right password, then run the command again:',
      `  eval "$(${words.cli} keyring stop)"`,
      start,
      `  ${words.rerun}`,
    ].join('\n');
  }
  return [
    'The keys live in the OS keychain, and on Linux that is a Secret Service (e.g. GNOME Keyring) on the D-Bus session bus, running and unlocked.',
    'In a desktop session, log in to it. On a headless machine (SSH, container, CI), start one for this shell, once, then run the command again:',
    '  apt-get install dbus gnome-keyring   # once, as root (else with sudo)',
    start,
    `  ${words.rerun}`,
    `(The password opens the keyring in ~/.local/share/keyrings: the same one each time, or the stored keys cannot be read. "${words.cli} keyring stop" ends it.)`,
  ].join('\n');
}

/** How the app words a keychain error (main/desk/errors.ts): reason, then a short hint; main/cli/keychain-fix.ts reads the reason back out. */
export const KEYCHAIN_ERROR_PREFIX = 'the system keychain is not available: ';
export const KEYCHAIN_HINT_SEPARATOR = ' → ';

/** The app's one line for the same errors: its screens have no room for the whole fix. */
export function shortKeychainHint(reason: string): string | null {
  if (!SECRET_SERVICE_UNAVAILABLE.test(reason)) return null;
  return LOCKED.test(reason) ? 'unlock the "login" keyring' : 'log in to the desktop keyring, or on a headless machine run eval "$(npx payout-desk keyring start)" first';
}

/** What a lookup in a locked keyring says instead of "nothing stored". */
export function lockedKeyringMessage(description: string): string {
  return `the keyring did not unlock: wrong password? The ${description} is locked, so nothing stored in it can be read`;
}

/**
 * One harmless lookup, so an action that must be audited (its entries are sealed with a key from the
 * keychain) fails before it changes anything when the keychain cannot be reached, with the same hint.
 */
export async function assertKeychainReachable(store: KeyStore): Promise<void> {
  await store.get('reachability-check');
}

/** A JSON value kept in the keychain; null when there is none, or it is not what `schema` says (treated as missing). */
export async function readKeychainJson<T>(store: KeyStore, account: string, schema: ZodType<T>): Promise<T | null> {
  const text = await store.get(account);
  if (!text) return null;
  try {
    const parsed = schema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** In-memory store for unit tests and throwaway demo profiles. */
export class MemoryKeyStore implements KeyStore {
  readonly description = 'in-memory key store (not persistent)';
  private readonly entries = new Map<string, string>();

  async get(account: string): Promise<string | null> {
    return this.entries.get(account) ?? null;
  }
  async set(account: string, secret: string): Promise<void> {
    this.entries.set(account, secret);
  }
  async delete(account: string): Promise<boolean> {
    return this.entries.delete(account);
  }
  /** For tests: number of stored entries. */
  get size(): number {
    return this.entries.size;
  }
}

interface KeytarApi {
  getPassword(service: string, account: string): Promise<string | null>;
  setPassword(service: string, account: string, password: string): Promise<void>;
  deletePassword(service: string, account: string): Promise<boolean>;
}

/** An account never stored: KeytarKeyStore.warmUp looks it up to open the connection. */
const WARM_UP_ACCOUNT = 'connection-warm-up';

/**
 * The OS keychain through keytar. keytar is loaded on first use so code that never touches the
 * keychain (unit tests, `--help`) does not need the native module or a Secret Service.
 */
export class KeytarKeyStore implements KeyStore {
  readonly description: string;
  private api: Promise<KeytarApi> | undefined;

  constructor(readonly service: string = DEFAULT_KEYCHAIN_SERVICE) {
    this.description = `OS keychain (service ${service})`;
  }

  async get(account: string): Promise<string | null> {
    const value = await this.call('read', (k) => k.getPassword(this.service, account));
    // A locked keyring answers "nothing stored": told apart here, or a wrong keyring password would read
    // as a missing key (e.g. "no wrap key for profile …").
    if (value === null && (await this.isLocked())) throw new KeyStoreError(lockedKeyringMessage(this.description));
    return value;
  }
  async set(account: string, secret: string): Promise<void> {
    await this.call('write', (k) => k.setPassword(this.service, account, secret));
  }
  async delete(account: string): Promise<boolean> {
    return this.call('delete', (k) => k.deletePassword(this.service, account));
  }

  /**
   * Makes the first keychain call now and does not wait for it: on Linux that call also connects to the
   * Secret Service over D-Bus (about 10 ms on a quiet machine), which then runs beside the caller's own
   * start-up work instead of after it (issue 26: the CLI's desk commands). It looks up an account nothing
   * stores, so it reads and writes nothing; a failure is ignored, as the read that needs the keychain reports it.
   */
  warmUp(): void {
    this.call('read', (k) => k.getPassword(this.service, WARM_UP_ACCOUNT)).catch(() => undefined);
  }

  /** Linux only: the Secret Service on this process's session bus reports its default keyring locked. */
  private async isLocked(): Promise<boolean> {
    const bus = process.env['DBUS_SESSION_BUS_ADDRESS'];
    if (process.platform !== 'linux' || !bus) return false;
    return (await secretServiceState(bus)) === 'locked';
  }

  private async call<T>(what: string, fn: (k: KeytarApi) => Promise<T>): Promise<T> {
    this.api ??= import('keytar').then((m) => (m.default ?? m) as KeytarApi);
    try {
      return await fn(await this.api);
    } catch (e) {
      // keytar's own messages name the failing backend (e.g. no Secret Service on D-Bus); they never contain the value.
      const reason = e instanceof Error ? e.message : String(e);
      // The fix is not added here: the CLI prints it whole, naming the command typed; the app a short form.
      const locked = LOCKED.test(reason) ? `${lockedKeyringMessage(this.description)} (${reason})` : null;
      throw new KeyStoreError(locked ?? `Could not ${what} the ${this.description}: ${reason}`);
    }
  }
}
