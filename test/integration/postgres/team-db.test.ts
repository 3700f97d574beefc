// `npm run team-db` (sandbox/team-db/cli.ts), as a person uses it: the lines it prints are pasted into a shell
// as they are (`profiles team init`, `set`, `check` against a desk home of their own) and succeed; SIGTERM stops
// the server; with --state the next start (through npm, stopped by killing npm) runs the same cluster, on
// the same port, with the same passwords. Needs the OS keychain (team set keeps the password there).
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { portIsFree } from '../../../sandbox/team-db/ports';
import { PG_SCHEMA_VERSION } from '../../../main/store/postgres/migrations';

const root = join(import.meta.dirname, '../../..');
const linux = process.platform === 'linux';
const run = promisify(execFile);
const tag = Math.random().toString(36).slice(2, 10);
// Not under a mkdtemp folder: as root the cluster runs as `postgres`, who could not reach into one (0700).
const dir = join(tmpdir(), `team-db-test-${tag}`);
const home = mkdtempSync(join(tmpdir(), 'team-db-home-'));
const env = { ...process.env, PAYOUT_DESK_HOME: home, PAYOUT_DESK_KEYCHAIN_SERVICE: `payout-desk-team-db-test-${tag}` };
const started: ChildProcess[] = [];

interface Started {
  child: ChildProcess;
  port: number;
  lines: string[];
  output: () => string;
}

/** Starts the command and waits for its block of lines (it ends with "Stop: …"). */
async function startTeamDb(command: string, args: string[]): Promise<Started> {
  const child = spawn(command, args, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  started.push(child);
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', () => /^Stop: /m.test(out) && resolve());
    child.once('exit', (code) => reject(new Error(`team-db exited (${String(code)}) before it was ready:\n${out}`)));
  });
  const port = Number(/^team database ready on 127\.0\.0\.1:(\d+) /m.exec(out)?.[1]);
  return { child, port, lines: out.split('\n').map((l) => l.trim()), output: () => out };
}

const line = (s: Started, words: string) => {
  const found = s.lines.find((l) => l.includes(words) && !l.startsWith('#'));
  if (!found) throw new Error(`no line with "${words}" in:\n${s.output()}`);
  return found;
};

/** A printed line, run by a shell as pasted. */
async function paste(text: string): Promise<string> {
  const { stdout } = await run('sh', ['-c', text], { cwd: root, env });
  return stdout;
}

const exited = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve(child.exitCode) : child.once('exit', resolve)));

async function portClosed(port: number): Promise<boolean> {
  const deadline = Date.now() + 30_000;
  while (!(await portIsFree(port)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 250));
  return portIsFree(port);
}

afterAll(async () => {
  // A test that failed half-way: stop what it started (SIGTERM, so the server goes too), then the folders.
  for (const child of started) if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  await Promise.all(started.map(exited));
  const pidFile = join(dir, 'data', 'postmaster.pid');
  if (existsSync(pidFile)) process.kill(Number(readFileSync(pidFile, 'utf8').split('\n')[0]), 'SIGINT');
  rmSync(dir, { recursive: true, force: true });
  rmSync(home, { recursive: true, force: true });
}, 60_000);

describe.skipIf(!linux)('npm run team-db', () => {
  it('prints init, set and check lines that work as pasted; stops on SIGTERM; --state starts the same cluster again', async () => {
    const first = await startTeamDb(process.execPath, ['--import', 'tsx', 'sandbox/team-db/cli.ts', '--state', '--dir', dir, '--port', '0', '--profile', 'shop']);
    expect(first.output()).toContain('listening on 127.0.0.1 only');
    expect(first.output()).toMatch(/TLS\s+none/);

    await paste('npm run -s cli -- profiles add --name Shop --base-url http://127.0.0.1:9 --merchant-code M --environment TEST');
    const init = await paste(line(first, 'profiles team init'));
    expect(init).toContain('Login role payouts_desk (made now, with the password given) is a member of payout_desk_member.');
    expect(await paste(line(first, 'profiles team set'))).toContain('the password is in the keychain');
    const check = await paste(line(first, 'profiles team check'));
    expect(check).toContain(`Connected to the team database payouts_desk@127.0.0.1:${first.port}/payouts (tls disable).`);
    expect(check).toContain(`team schema version ${PG_SCHEMA_VERSION}`);

    first.child.kill('SIGTERM');
    expect(await exited(first.child)).toBe(0);
    expect(first.output()).toContain(`stopped; the folder ${dir} is kept`);
    expect(await portClosed(first.port)).toBe(true);
    expect(existsSync(join(dir, 'data', 'postmaster.pid'))).toBe(false);

    // Through npm, with no --port: the port the profile was set to, and the passwords the desk keeps.
    const second = await startTeamDb('npm', ['run', '-s', 'team-db', '--', '--state', '--dir', dir, '--profile', 'shop']);
    expect(second.port).toBe(first.port);
    expect(second.output()).toContain('the cluster kept in its folder');
    expect(line(second, 'profiles team set')).toBe(line(first, 'profiles team set'));
    const again = await paste(line(second, 'profiles team check'));
    expect(again).toContain(`team schema version ${PG_SCHEMA_VERSION}`);
    expect(again).not.toContain('migrated from');

    // Stopping npm by its PID reaches no further down; the command watches for its npm's end.
    second.child.kill('SIGTERM');
    expect(await portClosed(second.port)).toBe(true);
    expect(existsSync(join(dir, 'data', 'PG_VERSION'))).toBe(true);
  }, 240_000);
});
