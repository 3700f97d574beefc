// Where secrets live: the OS keychain (keytar → Secret Service / Keychain / Credential Manager).
// Only small values are stored here (a 32-byte wrap key per profile, the deprecated merchant
// secret): Windows Credential Manager caps a secret at 2,560 bytes, which an RSA PEM exceeds.
// Rule: values read from a KeyStore never go to a log, an error message or across IPC.

import type { ZodType } from 'zod';
import { CodedError } from '../domain/coded-error';

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

/** What is missing and how to run the CLI anyway, for an error of that family; null for any other error. */
export function secretServiceHint(reason: string): string | null {
  if (!SECRET_SERVICE_UNAVAILABLE.test(reason)) return null;
  return [
    'The keys live in the OS keychain, and on Linux that is a Secret Service (e.g. GNOME Keyring) on the D-Bus session bus, running and unlocked.',
    'In a desktop session, log in to it (or unlock the "login" keyring). On a headless box (SSH, container, CI), start a bus and an unlocked keyring for the command:',
    '  sudo apt-get install dbus-user-session gnome-keyring   # once',
    '  dbus-run-session -- sh -c \'printf "%s" "$KEYRING_PASSWORD" | gnome-keyring-daemon --unlock --components=secrets >/dev/null && npx payout-desk <command>\'',
    '(KEYRING_PASSWORD unlocks the keyring in ~/.local/share/keyrings; the same password must be used each time, or the stored keys cannot be read.)',
  ].join('\n');
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
    return this.call('read', (k) => k.getPassword(this.service, account));
  }
  async set(account: string, secret: string): Promise<void> {
    await this.call('write', (k) => k.setPassword(this.service, account, secret));
  }
  async delete(account: string): Promise<boolean> {
    return this.call('delete', (k) => k.deletePassword(this.service, account));
  }

  private async call<T>(what: string, fn: (k: KeytarApi) => Promise<T>): Promise<T> {
    this.api ??= import('keytar').then((m) => (m.default ?? m) as KeytarApi);
    try {
      return await fn(await this.api);
    } catch (e) {
      // keytar's own messages name the failing backend (e.g. no Secret Service on D-Bus); they never contain the value.
      const reason = e instanceof Error ? e.message : String(e);
      const hint = secretServiceHint(reason);
      throw new KeyStoreError(`Could not ${what} the ${this.description}: ${reason}${hint ? `\n${hint}` : ''}`);
    }
  }
}
