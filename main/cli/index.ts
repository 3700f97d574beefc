// The headless twin of the UI (DESIGN.md §5): `npm run cli -- <command>` and the `payout-desk` bin.
// Global options: --json (machine output), --home <dir> (or PAYOUT_DESK_HOME), --profile <id|name>,
// --verbose (redacted service log on stderr). Exit code 0 only on success; errors go to stderr
// (2 a usage error; 4 a payout kept HELD, with how to release or discard it).
// Command modules live in main/cli/<area>.ts and export register<Area>Commands(program, deps), listed in
// main/cli/catalogue.ts (a command line loads only the module of its command); what
// they share is in main/cli/deps.ts (what they are handed) and main/cli/shared.ts (helpers).
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Command, CommanderError } from 'commander';
// A named import: the bundle (scripts/build-cli.mjs) keeps only the version, not the whole package.json.
import { version } from '../../package.json';
import type { AppContext } from '../context';
import type { ProfileContext } from '../profile-context';
import { GatewayError } from '../gateway/errors';
import type { DeskRuntime } from '../desk/runtime';
import { KeytarKeyStore, type KeyStore } from '../keys/key-store';
import { createLogger, redactText, silentLogger, type Logger } from '../log';
import { CodedError } from '../domain/coded-error';
import { CliHeldError, CliUsageError, startsLightly, type CliDeps, type CliDesk, type CliIo } from './deps';
import { HELD_EXIT } from './shared';
import { CLI_AREAS, commandWord } from './catalogue';
import { lockedInCliTerms, secondFactorInCliTerms } from './locked-words';
import { keychainErrorForCli } from './keychain-fix';

export { CliHeldError, CliUsageError, type CliDeps, type CliDesk, type CliIo } from './deps';

export interface CliOptions {
  io?: CliIo;
  env?: NodeJS.ProcessEnv;
  /** Default: the OS keychain (service from PAYOUT_DESK_KEYCHAIN_SERVICE, else `payout-desk`). */
  keyStore?: KeyStore;
  /** Default: silent, or a redacted stderr log with --verbose. */
  logger?: Logger;
}

/** Where the desktop app keeps its data (Electron's userData for the app name), used when --home is not given. */
export function defaultHome(env: NodeJS.ProcessEnv = process.env): string {
  if (process.platform === 'win32') return join(env.APPDATA ?? join(homedir(), 'AppData', 'Roaming'), 'payout-desk');
  if (process.platform === 'darwin') return join(homedir(), 'Library', 'Application Support', 'payout-desk');
  return join(env.XDG_CONFIG_HOME ?? join(homedir(), '.config'), 'payout-desk');
}

type Composition = typeof import('./composition');
let composition: Composition | undefined;
type ContextModule = typeof import('../context');
let contextModule: ContextModule | undefined;
type ProfileContextModule = typeof import('../profile-context');
let profileContextModule: ProfileContextModule | undefined;

/**
 * Loads the heavy half of the CLI (main/cli/composition.ts). runCli does it before a command's action runs;
 * code that uses buildProgram's deps without parsing a command line awaits it first.
 */
export async function loadCliComposition(): Promise<Composition> {
  profileContextModule ??= await import('../profile-context');
  contextModule ??= await import('../context');
  composition ??= await import('./composition');
  return composition;
}

let deskOpened = false;

/**
 * Whether a command in this process opened the desk on a profile: the bin then keeps the code it compiled on
 * that path in the bundle's code cache, which the build's own run (on an empty folder) never reached.
 */
export function cliDeskOpened(): boolean {
  return deskOpened;
}

/** Whether this process has loaded the desk's composition (the tests of the light commands ask). */
export function cliCompositionLoaded(): boolean {
  return composition !== undefined;
}

function loadedComposition(): Composition {
  if (!composition) throw new Error('the CLI composition is not loaded: await loadCliComposition() first (or the command is marked startsLight but uses the desk)');
  return composition;
}

/**
 * The program for one command line: only the module of the command `argv` names is loaded (the others are
 * listed for help); without `argv`, every command is registered.
 */
export async function buildProgram(options: CliOptions = {}, argv?: readonly string[]): Promise<{ program: Command; deps: CliDeps; exitCode(): number; dispose(): Promise<void> }> {
  const io: CliIo = options.io ?? { stdout: (t) => process.stdout.write(t), stderr: (t) => process.stderr.write(t) };
  const env = options.env ?? process.env;
  const program = new Command('payout-desk')
    .description('Payout Desk: payouts, batches, balances and payins through the payment gateway')
    .option('--json', 'machine-readable JSON output')
    .option('--home <dir>', 'data folder (default: PAYOUT_DESK_HOME or the app data folder)')
    .option('--profile <id>', 'profile id or name (default: the current profile)')
    .option('--verbose', 'log gateway requests to stderr (secrets are never logged)')
    .version(version, '-V, --version', 'print the version of payout-desk')
    .showHelpAfterError()
    .exitOverride()
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr })
    // Before any command's action (help and usage errors never get here): what deps.context() builds on, and
    // the desk's composition unless the command only reads or writes profiles and keys (startsLight).
    .hook('preAction', async (_program, action) => {
      if (startsLightly(action)) profileContextModule ??= await import('../profile-context');
      else {
        // A desk command on a data folder in use reads the keychain (its journal's audit seal) once the desk is
        // loaded and composed: the keychain's connection is opened now, beside that work, not after it.
        const store = keyStoreOf();
        if (store instanceof KeytarKeyStore && existsSync(join(homeOf(), 'desk.db'))) store.warmUp();
        await loadCliComposition();
      }
    });

  // The profile half of the context (profiles, keychain, keys), then the app context made on it.
  let base: ProfileContext | undefined;
  let ctx: AppContext | undefined;
  // Made on first use: by runtime() and desk(), or by the first security action of a key or profile command
  // (the runtime is what writes those into the profile's journal, main/audit/security-trail.ts).
  let runtime: DeskRuntime | undefined;
  let runtimeComposed: Promise<void> | undefined;
  let desk: CliDesk | undefined;
  // A command that completes but must still exit non-zero (e.g. `batch validate` with invalid rows).
  let exitCode = 0;
  const composeRuntime = (c: AppContext): DeskRuntime => {
    if (runtime) return runtime;
    const { createDeskEvents, composeDesk } = loadedComposition();
    const events = createDeskEvents((error) => c.logger.error('cli event listener failed', { error }));
    runtime = composeDesk({ ctx: c, events, log: c.logger });
    return runtime;
  };
  const globals = () => program.opts<{ json?: boolean; home?: string; profile?: string; verbose?: boolean }>();
  const homeOf = (): string => globals().home ?? env.PAYOUT_DESK_HOME ?? defaultHome(env);
  let keyStore: KeyStore | undefined;
  const keyStoreOf = (): KeyStore => (keyStore ??= options.keyStore ?? new KeytarKeyStore(env['PAYOUT_DESK_KEYCHAIN_SERVICE'] || undefined));
  const deps: CliDeps = {
    env,
    io,
    json: () => globals().json === true,
    profileContext() {
      if (!base) {
        const logger = options.logger ?? (globals().verbose ? createLogger((line) => io.stderr(`${line}\n`)) : silentLogger);
        if (!profileContextModule) throw new Error('the CLI profile context module is not loaded: it is loaded before a command runs');
        const b = profileContextModule.createProfileContext({ home: homeOf(), keyStore: keyStoreOf(), logger });
        base = b;
        // Until the runtime exists, the first security action composes it (its writer then replaces this
        // one) and is passed on to it: a light command that adds a profile still has it audited.
        b.trail.attach(async (action) => {
          runtimeComposed ??= loadCliComposition().then(() => void composeRuntime(deps.context()));
          await runtimeComposed;
          await b.trail.record(action);
        });
      }
      return base;
    },
    context() {
      if (!ctx) {
        if (!contextModule) throw new Error('the CLI context module is not loaded: a command marked startsLight asked for the app context');
        ctx = contextModule.createAppContext({ home: deps.profileContext().home, base: deps.profileContext() });
      }
      return ctx;
    },
    profile() {
      const c = deps.profileContext();
      const named = globals().profile;
      if (named) return c.profiles.resolve(named);
      const current = c.profiles.currentId();
      if (!current) throw new CliUsageError('No profile yet: create one with "profiles add" (or pass --profile)');
      return c.profiles.get(current);
    },
    runtime() {
      return runtime ?? composeRuntime(deps.context());
    },
    desk() {
      const c = deps.context();
      const r = deps.runtime();
      desk ??= loadedComposition().openCliDesk(c, r, deps.profile());
      deskOpened = true;
      return desk;
    },
    setExitCode(code) {
      exitCode = code;
    },
    print(human, data) {
      if (deps.json()) io.stdout(`${JSON.stringify(data, null, 2)}\n`);
      else io.stdout(`${Array.isArray(human) ? human.join('\n') : human}\n`);
    },
  };

  const wanted = argv === undefined ? undefined : commandWord(argv);
  for (const area of CLI_AREAS) {
    const names = Object.keys(area.commands);
    if (argv === undefined || (wanted !== undefined && names.includes(wanted))) (await area.load())(program, deps);
    else for (const name of names) program.command(name).description(area.commands[name]!);
  }

  return {
    program,
    deps,
    exitCode: () => exitCode,
    async dispose() {
      // Engine stopped (requests on the wire finish and are journalled) and journals closed before the profile store.
      try {
        // A runtime still being made for a security action is waited for, then closed like any other.
        await runtimeComposed;
        // Also waits for audit entries of key and profile commands and anchors them in the keychain.
        await runtime?.close();
      } finally {
        desk = undefined;
        runtime = undefined;
        // The app context closes the profile half it was made on.
        if (ctx) ctx.close();
        else base?.close();
        ctx = undefined;
        base = undefined;
      }
    },
  };
}

/** One line for stderr that says what went wrong; never a stack, never a secret. */
export function describeError(e: unknown): { code: string; message: string } {
  if (e instanceof GatewayError) {
    const status = e.status !== undefined ? `HTTP ${e.status}, ` : '';
    return { code: e.code, message: `gateway ${e.kind} (${status}${e.code}): ${e.message}` };
  }
  // The desk's "unlock first" is the screen's way; the CLI's is --as.
  if (e instanceof CodedError) {
    const text = e.code === 'LOCKED' ? lockedInCliTerms(e.message) : e.code === 'SECOND_FACTOR_REQUIRED' ? secondFactorInCliTerms(e.message) : e.message;
    return { code: e.code, message: redactText(text) };
  }
  if (e instanceof Error) {
    // Not ours (a library's, node's): its own code when it has one (ENOENT…), else its class.
    const code = typeof (e as { code?: unknown }).code === 'string' ? String((e as { code?: unknown }).code) : e.name.toUpperCase();
    return { code, message: redactText(e.message) };
  }
  return { code: 'ERROR', message: redactText(String(e)) };
}

/** Runs one command line; resolves to the exit code. */
export async function runCli(argv: string[], options: CliOptions = {}): Promise<number> {
  const { program, deps, exitCode, dispose } = await buildProgram(options, argv);
  const fail = (e: unknown): number => {
    const described = describeError(e);
    const { code } = described;
    // One form, whole, whichever way it came: the reason and the fix, naming the command as typed.
    const message = code === 'KEYCHAIN_UNAVAILABLE' ? keychainErrorForCli(described.message, argv, deps.env) : described.message;
    deps.io.stderr(deps.json() ? `${JSON.stringify({ error: { code, message } })}\n` : `error: ${message}\n`);
    return e instanceof CliUsageError ? 2 : 1;
  };
  let code: number;
  try {
    await program.parseAsync(argv, { from: 'user' });
    code = exitCode();
  } catch (e) {
    if (e instanceof CommanderError) {
      // Help and version are successes; everything else commander already printed.
      code = e.exitCode === 0 || e.code === 'commander.helpDisplayed' || e.code === 'commander.version' ? 0 : 2;
    } else if (e instanceof CliHeldError) {
      // The payout is safe in the journal and waits for a person: say what to do next.
      const { code: errorCode, message } = describeError(e);
      deps.io.stderr(deps.json() ? `${JSON.stringify({ error: { code: errorCode, message, idPayout: e.idPayout, hints: e.hints } })}\n` : `error: ${message}\n${e.hints.join('\n')}\n`);
      code = HELD_EXIT;
    } else {
      code = fail(e);
    }
  }
  // Closing writes what is still on its way (audit entries of profile commands, their keychain anchor):
  // a failure there is the command's failure too.
  try {
    await dispose();
  } catch (e) {
    code = code === 0 ? fail(e) : code;
  }
  return code;
}

const invokedDirectly = process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href;
// Not a top-level await: the bundle (scripts/build-cli.mjs) is a CommonJS script, which cannot have one.
if (invokedDirectly) {
  void runCli(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
