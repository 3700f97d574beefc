// A keyring for a headless shell, in the manner of ssh-agent (`payout-desk keyring start|stop|status`):
// a private D-Bus session bus and a GNOME Keyring Secret Service on it, unlocked with the person's
// password, kept running after the command ends. The shell learns of it through the variables
// exportLines() prints for `eval`; a state file lets a later start or stop find it without them.
// The keyrings themselves stay where GNOME Keyring keeps them (~/.local/share/keyrings), so the same
// password opens the same stored keys at every start; the first start makes the "login" keyring.
import { execFile, spawn } from 'node:child_process';
import { accessSync, constants, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import * as z from '../zod-mini';
import { CodedError } from '../domain/coded-error';
import { lazy } from '../lazy';
import { secretServiceState, type SecretServiceState } from './secret-service-bus';

export type AgentEnv = Readonly<Record<string, string | undefined>>;

/** The variable that names this agent's processes, next to the bus address every D-Bus client reads. */
export const AGENT_PIDS_VAR = 'PAYOUT_DESK_KEYRING_PIDS';
export const BUS_ADDRESS_VAR = 'DBUS_SESSION_BUS_ADDRESS';

/** What is said when the keyring is still locked after its password was given. */
export const WRONG_PASSWORD = 'the keyring did not unlock: wrong password?';

export class KeyringAgentError extends CodedError<'KEYRING_WRONG_PASSWORD' | 'KEYRING_NOT_STARTED'> {}

const agentSchema = lazy(() => z.object({ busAddress: z.string().check(z.minLength(1)), busPid: z.int().check(z.positive()), keyringPid: z.int().check(z.positive()) }));
export type Agent = z.infer<ReturnType<typeof agentSchema>>;

/** Single quotes for sh, bash and zsh: nothing inside is expanded. */
export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/** The lines `eval "$(payout-desk keyring start)"` runs. */
export function exportLines(agent: Agent): string {
  return [
    `${BUS_ADDRESS_VAR}=${shellQuote(agent.busAddress)}; export ${BUS_ADDRESS_VAR};`,
    `${AGENT_PIDS_VAR}=${shellQuote(`${agent.busPid} ${agent.keyringPid}`)}; export ${AGENT_PIDS_VAR};`,
  ].join('\n');
}

/** The line `eval "$(payout-desk keyring stop)"` runs. */
export function unsetLines(): string {
  return `unset ${BUS_ADDRESS_VAR} ${AGENT_PIDS_VAR};`;
}

/** The agent the shell's variables name (after an eval of exportLines), or null. */
export function agentFromEnv(env: AgentEnv): Agent | null {
  const pids = (env[AGENT_PIDS_VAR] ?? '').trim().split(/\s+/).map(Number);
  const parsed = agentSchema().safeParse({ busAddress: env[BUS_ADDRESS_VAR], busPid: pids[0], keyringPid: pids[1] });
  return parsed.success ? parsed.data : null;
}

/** Per user and private: the runtime folder when there is one (gone at logout, as the daemons are), else ~/.cache. */
export function agentStateDir(env: AgentEnv): string {
  const runtime = env['XDG_RUNTIME_DIR'];
  return runtime ? join(runtime, 'payout-desk') : join(env['HOME'] || homedir(), '.cache', 'payout-desk');
}

const stateFile = (env: AgentEnv) => join(agentStateDir(env), 'keyring-agent.json');

export function readAgentState(env: AgentEnv): Agent | null {
  try {
    const parsed = agentSchema().safeParse(JSON.parse(readFileSync(stateFile(env), 'utf8')));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

function writeAgentState(env: AgentEnv, agent: Agent): void {
  mkdirSync(agentStateDir(env), { recursive: true, mode: 0o700 });
  writeFileSync(stateFile(env), `${JSON.stringify(agent)}\n`, { mode: 0o600 });
}

/**
 * True when `pid` is a live process of that program. The name is checked so a pid the system gave to
 * another process since is never signalled; a zombie (exited, not yet reaped) counts as gone.
 */
export function isProcessOf(pid: number, program: string): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // "pid (comm) state …": comm is cut to 15 characters by the kernel.
    const match = /^\d+ \((.*)\) (\S)/.exec(stat);
    return match !== null && match[2] !== 'Z' && program.startsWith(match[1] ?? '\0');
  } catch {
    return false;
  }
}

export interface AgentStatus {
  agent: Agent;
  /** Both processes still run. */
  running: boolean;
  service: SecretServiceState;
}

/** The agent this shell's variables name, else the one the state file names, with whether it still works. */
export async function findAgent(env: AgentEnv): Promise<AgentStatus | null> {
  const agent = agentFromEnv(env) ?? readAgentState(env);
  if (!agent) return null;
  const running = isProcessOf(agent.busPid, 'dbus-daemon') && isProcessOf(agent.keyringPid, 'gnome-keyring-daemon');
  return { agent, running, service: running ? await secretServiceState(agent.busAddress) : 'absent' };
}

/** Starts a bus and an unlocked keyring on it; a wrong password stops both again and throws WRONG_PASSWORD. */
export async function startAgent(env: AgentEnv, password: string): Promise<Agent> {
  const bus = await startBus(env);
  const keyringPid = startKeyring(env, bus.address, bus.pid, password);
  const agent: Agent = { busAddress: bus.address, busPid: bus.pid, keyringPid };
  const state = await awaitUnlocked(agent);
  if (state !== 'unlocked') {
    await stopAgent(env, agent);
    if (state === 'locked') throw new KeyringAgentError('KEYRING_WRONG_PASSWORD', `${WRONG_PASSWORD} It stayed locked, so nothing was started: give the password the keyring in ~/.local/share/keyrings was made with`);
    throw new KeyringAgentError('KEYRING_NOT_STARTED', `gnome-keyring-daemon did not offer a Secret Service on the new bus (${state})`);
  }
  writeAgentState(env, agent);
  return agent;
}

/** Ends the agent's processes (only if they are still the programs it started) and forgets it. */
export async function stopAgent(env: AgentEnv, agent: Agent): Promise<void> {
  const ours: [number, string][] = [[agent.keyringPid, 'gnome-keyring-daemon'], [agent.busPid, 'dbus-daemon']];
  for (const [pid, program] of ours) {
    if (isProcessOf(pid, program)) process.kill(pid, 'SIGTERM');
  }
  await waitFor(() => ours.every(([pid, program]) => !isProcessOf(pid, program)), 3000);
  for (const [pid, program] of ours) {
    if (isProcessOf(pid, program)) process.kill(pid, 'SIGKILL');
  }
  rmSync(keyringRuntimeDir(env, agent.busPid), { recursive: true, force: true });
  if (readAgentState(env)?.busPid === agent.busPid) rmSync(stateFile(env), { force: true });
}

/** The programs an agent needs that are not on PATH (Debian and Ubuntu: packages dbus and gnome-keyring). */
export function missingPrograms(env: AgentEnv): string[] {
  const dirs = (env['PATH'] ?? '').split(delimiter).filter(Boolean);
  return ['dbus-daemon', 'dbus-send', 'gnome-keyring-daemon'].filter((program) => !dirs.some((dir) => isExecutable(join(dir, program))));
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

// ---- internals -----------------------------------------------------------------------------

/** dbus-daemon forks itself and prints its address and pid: the bus outlives this command. */
function startBus(env: AgentEnv): Promise<{ address: string; pid: number }> {
  const childEnv = { ...env };
  delete childEnv[BUS_ADDRESS_VAR];
  return new Promise((resolve, reject) => {
    execFile('dbus-daemon', ['--session', '--fork', '--nosyslog', '--print-address=1', '--print-pid=1'], { env: childEnv, timeout: 10_000 }, (error, stdout, stderr) => {
      const [address, pid] = stdout.trim().split('\n');
      if (error || !address || !Number(pid)) return reject(new KeyringAgentError('KEYRING_NOT_STARTED', `dbus-daemon did not start: ${error?.message ?? ''} ${stderr}`.trim()));
      resolve({ address, pid: Number(pid) });
    });
  });
}

/**
 * gnome-keyring-daemon in the foreground of a process of its own (so its pid is known), detached from
 * this command, reading the password from standard input. It gets a runtime folder of its own: an
 * existing daemon's control socket in the usual one would otherwise be unlocked instead of this one.
 */
function startKeyring(env: AgentEnv, busAddress: string, busPid: number, password: string): number {
  const runtimeDir = keyringRuntimeDir(env, busPid);
  mkdirSync(runtimeDir, { recursive: true, mode: 0o700 });
  const child = spawn('gnome-keyring-daemon', ['--foreground', '--unlock', '--components=secrets'], {
    env: { ...env, [BUS_ADDRESS_VAR]: busAddress, XDG_RUNTIME_DIR: runtimeDir },
    detached: true,
    // Its chatter is dropped: a pipe would break (and end it) once this command exits.
    stdio: ['pipe', 'ignore', 'ignore'],
  });
  // A failed spawn reports through these events (and child.pid stays undefined): not an unhandled crash.
  child.on('error', () => undefined);
  child.stdin.on('error', () => undefined);
  if (child.pid === undefined) throw new KeyringAgentError('KEYRING_NOT_STARTED', 'gnome-keyring-daemon could not be started');
  child.stdin.end(password);
  child.unref();
  return child.pid;
}

const keyringRuntimeDir = (env: AgentEnv, busPid: number) => join(agentStateDir(env), `keyring-${busPid}`);

/**
 * Waits for the keyring to own its name on the bus and report its default collection. It may show
 * "locked" for a moment before the password is applied, so "locked" is only believed after a while.
 */
async function awaitUnlocked(agent: Agent): Promise<SecretServiceState> {
  let state: SecretServiceState = 'absent';
  const started = Date.now();
  let lockedSince: number | null = null;
  while (Date.now() - started < 10_000) {
    state = await secretServiceState(agent.busAddress, 2000);
    if (state === 'unlocked') return state;
    if (!isProcessOf(agent.keyringPid, 'gnome-keyring-daemon')) return state === 'locked' ? state : 'absent';
    if (state === 'locked') {
      lockedSince ??= Date.now();
      if (Date.now() - lockedSince > 1000) return state;
    }
    await sleep(100);
  }
  return state;
}

async function waitFor(done: () => boolean, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!done() && Date.now() < until) await sleep(50);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
