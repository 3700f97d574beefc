// Asks a D-Bus session bus whether a Secret Service owns it and whether its default collection (the
// "login" keyring) is unlocked. keytar cannot tell: a locked keyring answers a lookup with "nothing
// stored", which is how a wrong keyring password once read as "no wrap key". dbus-send comes with
// dbus-daemon on Debian and Ubuntu, so wherever a private bus can be started it can be asked.
import { execFile } from 'node:child_process';

/** `unknown`: the bus could not be asked (dbus-send missing or not answering in time). */
export type SecretServiceState = 'unlocked' | 'locked' | 'absent' | 'unknown';

const DEFAULT_COLLECTION = '/org/freedesktop/secrets/aliases/default';

/** Reads dbus-send's answer to `Properties.Get(Collection, Locked)`. */
export function parseLockedReply(stdout: string): SecretServiceState {
  const match = /boolean (true|false)/.exec(stdout);
  if (!match) return 'unknown';
  return match[1] === 'true' ? 'locked' : 'unlocked';
}

/** True when the name has an owner on the bus; asked of the bus itself, so nothing is started by asking. */
export function parseOwnerReply(stdout: string): boolean {
  return /boolean true/.test(stdout);
}

/**
 * The Secret Service on the bus at `busAddress`. Whether the name has an owner is asked first: a lookup
 * addressed to org.freedesktop.secrets itself would make a session bus start one (D-Bus activation).
 */
export async function secretServiceState(busAddress: string, timeoutMs = 3000): Promise<SecretServiceState> {
  const owner = await dbusSend(busAddress, timeoutMs, ['--dest=org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus.NameHasOwner', 'string:org.freedesktop.secrets']);
  if (owner === null) return 'unknown';
  if (!parseOwnerReply(owner)) return 'absent';
  const locked = await dbusSend(busAddress, timeoutMs, [
    '--dest=org.freedesktop.secrets',
    DEFAULT_COLLECTION,
    'org.freedesktop.DBus.Properties.Get',
    'string:org.freedesktop.Secret.Collection',
    'string:Locked',
  ]);
  // A running service without a default collection cannot be used as the keychain either.
  return locked === null ? 'absent' : parseLockedReply(locked);
}

/** dbus-send's printed reply, or null when it failed (not installed, no bus, an error reply). */
function dbusSend(busAddress: string, timeoutMs: number, call: string[]): Promise<string | null> {
  // Only the bus address is handed over: the child needs nothing else from this process's environment.
  const env = { PATH: process.env['PATH'] ?? '/usr/bin:/bin', DBUS_SESSION_BUS_ADDRESS: busAddress };
  const args = ['--session', '--print-reply', `--reply-timeout=${timeoutMs}`, ...call];
  return new Promise((resolve) => {
    execFile('dbus-send', args, { env, timeout: timeoutMs + 1000 }, (error, stdout) => resolve(error ? null : stdout));
  });
}
