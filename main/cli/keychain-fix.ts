// A keychain the CLI cannot use is reported in one form, whole: the reason, then the fix, ending with the
// very command the person typed, ready to paste again. Whether the error came straight from the keychain
// or through a desk service (which words it for the app's screens, clipped, with a short hint), the
// reason is taken back out and the CLI's own fix put after it.
import { shellQuote } from '../keys/keyring-agent';
import { KEYCHAIN_ERROR_PREFIX, KEYCHAIN_HINT_SEPARATOR, secretServiceHint } from '../keys/key-store';
import { cliPrefix, typedCommand, type Env } from './invocation';

/** The command line as typed, each word quoted for the shell when it needs to be. */
export function commandAsTyped(argv: readonly string[], env: Env): string {
  return typedCommand(argv.map((word) => (/^[\w@%+=:,./-]+$/.test(word) ? word : shellQuote(word))).join(' '), env);
}

/** The keychain's own words, without the app's prefix and short hint. */
export function keychainReason(message: string): string {
  const reason = message.startsWith(KEYCHAIN_ERROR_PREFIX) ? message.slice(KEYCHAIN_ERROR_PREFIX.length) : message;
  return reason.split(KEYCHAIN_HINT_SEPARATOR)[0] ?? reason;
}

/** What the CLI prints for a KEYCHAIN_UNAVAILABLE error of the command `argv`. */
export function keychainErrorForCli(message: string, argv: readonly string[], env: Env): string {
  const reason = keychainReason(message);
  const fix = secretServiceHint(reason, { cli: cliPrefix(env), rerun: commandAsTyped(argv, env) });
  return fix ? `${reason}\n${fix}` : reason;
}
