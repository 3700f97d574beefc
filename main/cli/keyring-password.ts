// Where `keyring start` gets the keyring's password: a file, an environment variable, or a question on
// the terminal with nothing echoed. Never from argv, where other users of the machine can read it.
import { readFileSync } from 'node:fs';
import { CliUsageError } from './deps';

export interface PasswordOptions {
  passwordFile?: string;
  passwordEnv?: string;
}

export interface PasswordSources {
  env: Readonly<Record<string, string | undefined>>;
  /** Asks on the terminal without echo; null when there is no terminal to ask on. */
  askHidden(question: string): Promise<string | null>;
}

export const DEFAULT_PASSWORD_VAR = 'KEYRING_PASSWORD';

/** The password, from the first source given: --password-file, --password-env, KEYRING_PASSWORD, the terminal. */
export async function keyringPassword(options: PasswordOptions, sources: PasswordSources): Promise<string> {
  const password = await fromFirstSource(options, sources);
  // An empty password would make GNOME Keyring keep the keys unencrypted on disk.
  if (password === '') throw new CliUsageError('The keyring password is empty: the keys would be stored unencrypted');
  return password;
}

async function fromFirstSource(options: PasswordOptions, sources: PasswordSources): Promise<string> {
  if (options.passwordFile !== undefined) return withoutFinalNewline(readFileSync(options.passwordFile, 'utf8'));
  if (options.passwordEnv !== undefined) {
    const value = sources.env[options.passwordEnv];
    if (value === undefined) throw new CliUsageError(`The environment variable ${options.passwordEnv} (--password-env) is not set`);
    return value;
  }
  const fromEnv = sources.env[DEFAULT_PASSWORD_VAR];
  if (fromEnv !== undefined) return fromEnv;
  const asked = await sources.askHidden('Keyring password: ');
  if (asked !== null) return asked;
  throw new CliUsageError(`No keyring password: no terminal to ask on. Give --password-file <file>, --password-env <NAME> or set ${DEFAULT_PASSWORD_VAR}`);
}

/** A file written by `echo` ends with a newline that is not part of the password. */
export function withoutFinalNewline(text: string): string {
  return text.replace(/\r?\n$/, '');
}

/** Reads one line from the terminal with echo off (raw mode); the question goes to stderr, keeping stdout for eval. */
export function askHiddenOnTerminal(question: string): Promise<string | null> {
  const stdin = process.stdin;
  if (!stdin.isTTY) return Promise.resolve(null);
  return new Promise((resolve, reject) => {
    process.stderr.write(question);
    let typed = '';
    const finish = (error?: Error) => {
      stdin.off('data', onData);
      stdin.setRawMode(false);
      stdin.pause();
      process.stderr.write('\n');
      if (error) reject(error);
      else resolve(typed);
    };
    const onData = (chunk: string) => {
      for (const ch of chunk) {
        if (ch === '\r' || ch === '\n' || ch === '\u0004') return finish();
        if (ch === '\u0003') return finish(new CliUsageError('Cancelled: no keyring was started'));
        typed = ch === '\u007f' || ch === '\b' ? typed.slice(0, -1) : typed + ch;
      }
    };
    stdin.setEncoding('utf8');
    stdin.setRawMode(true);
    stdin.resume();
    stdin.on('data', onData);
  });
}
