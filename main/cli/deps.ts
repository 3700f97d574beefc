// What main/cli/index.ts hands every command module (main/cli/<area>.ts). Kept apart from main/cli/index.ts so
// the command modules never import the entry file that imports them.
import type { Command } from 'commander';
import type { Area, Verb } from '../../contract/api';
import type { AppContext } from '../context';
import type { ProfileContext } from '../profile-context';
import type { DeskEvents } from '../desk/events';
import type { DeskRuntime } from '../desk/runtime';
import type { AreaArgs, AreaResult, DeskServices } from '../desk/services';
import type { Profile } from '../profiles/profile-schema';
import { CodedError } from '../domain/coded-error';

export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  /**
   * Asks a person a question and resolves to the answer, or to null when nobody can answer (no
   * terminal). Optional: without it the CLI asks on the terminal when standard input is one.
   */
  ask?(question: string): Promise<string | null>;
  /** All of standard input (for --password-stdin). Optional: without it the CLI reads process.stdin. */
  readStdin?(): Promise<string>;
}

/** The UI's own services (main/desk) over the CLI's data folder, acting on the chosen profile. */
export interface CliDesk {
  readonly profile: Profile;
  readonly runtime: DeskRuntime;
  readonly events: DeskEvents;
  readonly services: DeskServices;
  /** One service method, its arguments first checked by the same schema the IPC handlers use. */
  call<A extends Area, V extends Verb<A>>(area: A, verb: V, args: AreaArgs<A, V>): Promise<AreaResult<A, V>>;
}

/** What every command module gets. */
export interface CliDeps {
  /**
   * The profile half of the app context (profiles, keychain, key custody), created on first use and closed
   * when the command ends: all a command marked startsLight may use.
   */
  profileContext(): ProfileContext;
  /** The app context of the chosen data folder (the profile half plus the gateway clients), created on first use. */
  context(): AppContext;
  /** The profile named by --profile, else the current one; a clear error when there is none. */
  profile(): Profile;
  /** The desk runtime of the data folder (journals, engines), for commands that act on a profile they name. */
  runtime(): DeskRuntime;
  /** The desk services (journal, started engine on first use); closed, engine stopped, when the command ends. */
  desk(): CliDesk;
  /** True with --json. */
  json(): boolean;
  /** Prints a result: `data` as JSON with --json, else the human lines. */
  print(human: string | string[], data: unknown): void;
  /** For commands that finish their output but must not exit 0. */
  setExitCode(code: number): void;
  /** Environment (for PAYOUT_DESK_HOME, passphrase variables). */
  env: NodeJS.ProcessEnv;
  io: CliIo;
}

export class CliUsageError extends CodedError<'USAGE'> {
  constructor(message: string) {
    super('USAGE', message);
  }
}

/**
 * A payout that could not be sent for a reason a person must fix: it is kept HELD under its id and
 * is not sent until released (or it is discarded). Printed with what to do next; exit code HELD_EXIT.
 */
export class CliHeldError extends CodedError<'PAYOUT_HELD'> {
  constructor(
    message: string,
    readonly idPayout: string,
    readonly hints: string[],
  ) {
    super('PAYOUT_HELD', message);
  }
}

const light = new WeakSet<Command>();

/**
 * Marks a command that needs only the app context (profiles, keys, the keychain), never runtime() or desk():
 * it starts without loading the desk's composition (journals, engines, the gateway client), issue 26.
 * A security action it records still reaches the audit log: the first one composes the runtime.
 */
export function startsLight(command: Command): Command {
  light.add(command);
  return command;
}

export function startsLightly(command: Command): boolean {
  return light.has(command);
}
