// `keyring start` on a headless machine, end to end with the real programs: a private bus and an unlocked
// GNOME Keyring in a throwaway HOME, its lines run by sh's eval, a key made and used through it, the same
// stored keys opened at the next start, `keyring stop` ending both daemons, and a wrong password refused
// with "wrong password?" and nothing left running. Skipped (with the reason) where the programs are missing.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { agentFromEnv, isProcessOf, missingPrograms, readAgentState, type Agent } from '../../../main/keys/keyring-agent';

const root = join(import.meta.dirname, '../../..');
const missing = process.platform === 'linux' ? missingPrograms(process.env) : ['Linux'];
if (missing.length > 0) console.log(`keyring agent tests skipped: needs ${missing.join(', ')}`);

const base = mkdtempSync(join(tmpdir(), 'desk-keyring-agent-'));
const runtimeDir = join(base, 'run');
mkdirSync(runtimeDir, { mode: 0o700 });
/** A shell of a new user: no session bus, no keyring variables; its own HOME, runtime folder and data folder. */
const shellEnv: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: join(base, 'home'), XDG_RUNTIME_DIR: runtimeDir, PAYOUT_DESK_HOME: join(base, 'data'), LANG: 'C.UTF-8' };
const started: Agent[] = [];

/** Runs `payout-desk <args>` in sh after eval of `lines`, as a person would after `eval "$(… keyring start)"`. */
function inShell(lines: string, args: string[], extraEnv: NodeJS.ProcessEnv = {}): Promise<{ code: number; out: string; err: string }> {
  const script = 'eval "$AGENT_LINES"; exec node --import tsx main/cli/index.ts "$@"';
  const env = { ...shellEnv, ...extraEnv, AGENT_LINES: lines };
  return new Promise((resolve) => {
    execFile('sh', ['-c', script, 'sh', ...args], { cwd: root, env, timeout: 60_000 }, (error, out, err) => {
      resolve({ code: typeof error?.code === 'number' ? error.code : error ? 1 : 0, out, err });
    });
  });
}

/** `keyring start`; the agent its lines name is remembered so afterAll ends it even when a test fails. */
async function start(password: string): Promise<{ code: number; lines: string; err: string; agent: Agent | null }> {
  const r = await inShell('', ['keyring', 'start'], { KEYRING_PASSWORD: password });
  const vars = Object.fromEntries([...r.out.matchAll(/^(\w+)='([^']*)'/gm)].map((m) => [m[1], m[2]]));
  const agent = agentFromEnv(vars);
  if (agent) started.push(agent);
  return { code: r.code, lines: r.out, err: r.err, agent };
}

const alive = (a: Agent) => isProcessOf(a.busPid, 'dbus-daemon') || isProcessOf(a.keyringPid, 'gnome-keyring-daemon');

afterAll(() => {
  for (const a of started) {
    for (const [pid, program] of [[a.keyringPid, 'gnome-keyring-daemon'], [a.busPid, 'dbus-daemon']] as const) {
      if (isProcessOf(pid, program)) process.kill(pid, 'SIGKILL');
    }
  }
});

describe.skipIf(missing.length > 0)('keyring start / stop on a headless machine', () => {
  it('one eval per shell makes the keychain commands work; stop ends both daemons; the next start opens the same keys', async () => {
    const first = await start('first password');
    expect(first.code, first.err).toBe(0);
    expect(first.agent).not.toBeNull();
    // Only the lines for eval on stdout; what is said to the person is on stderr.
    expect(first.lines.trim().split('\n').every((l) => /^\w+='[^']*'; export \w+;$/.test(l))).toBe(true);
    expect(first.err).toContain('Keyring started');

    expect((await inShell(first.lines, ['profiles', 'add', '--name', 'Headless', '--base-url', 'http://127.0.0.1:9', '--merchant-code', 'M'])).code).toBe(0);
    const generated = await inShell(first.lines, ['keys', 'generate', '--bits', '2048']);
    expect(generated.code, generated.err).toBe(0);
    expect((await inShell(first.lines, ['keyring', 'status'])).out).toContain('unlocked');

    // A second start in the same shell finds the running one instead of starting another.
    const again = await inShell(first.lines, ['keyring', 'start']);
    expect(again.code, again.err).toBe(0);
    expect(again.out).toBe(first.lines);

    const stopped = await inShell(first.lines, ['keyring', 'stop']);
    expect(stopped.code, stopped.err).toBe(0);
    expect(stopped.out.trim()).toBe('unset DBUS_SESSION_BUS_ADDRESS PAYOUT_DESK_KEYRING_PIDS;');
    expect(alive(first.agent!)).toBe(false);
    expect(readAgentState(shellEnv)).toBeNull();

    // The keyring on disk outlives the daemons: a second key needs the profile's wrap key stored at the first start.
    const second = await start('first password');
    expect(second.code, second.err).toBe(0);
    const rotated = await inShell(second.lines, ['keys', 'generate', '--bits', '2048']);
    expect(rotated.code, rotated.err).toBe(0);
    expect((await inShell(second.lines, ['keyring', 'stop'])).code).toBe(0);
    expect(alive(second.agent!)).toBe(false);
  }, 180_000);

  // After the test above, whose first start made the keyring on disk with its password.
  it('a wrong password says so, prints nothing to eval and leaves nothing running', async () => {
    const wrong = await start('not the password');
    expect(wrong.code).toBe(1);
    expect(wrong.err).toContain('the keyring did not unlock: wrong password?');
    expect(wrong.err).not.toMatch(/wrap key|Gtk/);
    expect(wrong.lines).toBe('');
    expect(readAgentState(shellEnv)).toBeNull();
    expect((await inShell('', ['keyring', 'status'])).code).toBe(1);
  }, 120_000);
});
