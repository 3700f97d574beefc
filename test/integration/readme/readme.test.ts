// The README, run as printed: its shell blocks, top to bottom in one shell, on a copy of this checkout with
// its own HOME (so the keyring, the profiles and the data folder start empty), as a new user on a headless
// machine would type them. It must reach a paid payout, a finished dual-control batch and a finished team
// batch with no line that is not in the README. Only the secrets a person would type are given (as the
// environment variables the README names), and the fixed ports are swapped for free ones.
import { spawn, execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { readmeScript, shellBlocks } from './readme-blocks';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const readme = readFileSync(join(root, 'README.md'), 'utf8');

const has = (program: string) => {
  try {
    execFileSync('sh', ['-c', `command -v ${program}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};
const missing = ['dbus-daemon', 'gnome-keyring-daemon', 'dbus-send'].filter((p) => !has(p));
if (!existsSync('/usr/lib/postgresql') && !has('initdb')) missing.push('initdb (postgresql)');
if (missing.length > 0) console.log(`README walk-through skipped: ${missing.join(', ')} not installed (the test command installs them as root)`);

const freePort = () =>
  new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });

/** The checkout's tracked files, as a fresh clone has them, sharing this one's node_modules. */
function freshCopy(into: string): string {
  const dir = join(into, 'payout-desk');
  const files = execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8' }).split('\0').filter(Boolean);
  for (const file of files) {
    if (!existsSync(join(root, file))) continue; // deleted in the working tree, not yet committed
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    cpSync(join(root, file), join(dir, file));
  }
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
  // What `npm install` does in a fresh clone (its prepare script): the command line built from these sources.
  execFileSync(process.execPath, ['scripts/build-cli.mjs'], { cwd: dir, stdio: 'pipe' });
  return dir;
}

const scratch = mkdtempSync(join(tmpdir(), 'readme-run-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('the README', () => {
  it('says why for every shell block it does not run', () => {
    const blocks = shellBlocks(readme);
    expect(blocks.length).toBeGreaterThan(3);
    for (const b of blocks.filter((x) => x.skip)) console.log(`README.md:${b.line} not run: ${b.skip}`);
    // The three walk-throughs the first hour rests on are run, not skipped.
    const run = blocks.filter((b) => !b.skip).map((b) => b.code).join('\n');
    for (const step of ['keyring start', 'sandbox-setup', 'payouts create', 'batch submit', 'approvals approve', 'team-db', 'team send']) expect(run).toContain(step);
  });

  it.skipIf(missing.length > 0)('run as printed: a paid payout, a finished dual-control batch and a finished team batch', async () => {
    const project = freshCopy(scratch);
    const home = join(scratch, 'home');
    mkdirSync(home);
    const ports = new Map([
      ['8787', String(await freePort())],
      ['5433', String(await freePort())],
    ]);
    const script = readmeScript(shellBlocks(readme), ports);
    const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, npm_config_cache: join(process.env['HOME'] ?? home, '.npm') };
    // Nothing of the test suite's own keyring, bus or data folder: the README's lines must make their own.
    for (const name of ['DBUS_SESSION_BUS_ADDRESS', 'XDG_RUNTIME_DIR', 'XDG_DATA_HOME', 'XDG_CONFIG_HOME', 'GNOME_KEYRING_CONTROL', 'PAYOUT_DESK_HOME', 'PAYOUT_DESK_KEYCHAIN_SERVICE']) delete env[name];
    Object.assign(env, {
      KEYRING_PASSWORD: 'readme-keyring-pass', ADA_PASS: 'ada passphrase 1', BOB_PASS: 'bob passphrase 2',
      TEAM_OWNER_PW: 'owner pw for the readme', TEAM_DESK_PW: 'desk pw for the readme',
    });

    const child = spawn('bash', ['-c', script], { cwd: project, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => void (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => void (output += d.toString()));
    const code = await new Promise<number>((resolve) => child.on('exit', (c) => resolve(c ?? 1)));
    // Whatever the script left running (it stops its own background jobs on exit; this is the safety net).
    try {
      process.kill(-child.pid!, 'SIGTERM');
    } catch {
      // already gone
    }
    const lastStep = [...output.matchAll(/### (README\.md:\d+)/g)].at(-1)?.[1] ?? 'the first block';
    expect(code, `stopped in ${lastStep}:\n${output.slice(-6000)}`).toBe(0);
    for (const marker of readmeMarkers) expect(output, `no "${marker}" in the output:\n${output.slice(-6000)}`).toMatch(marker);
  }, 20 * 60_000);
});

/** What the walk-through must reach: a payout paid, the dual-control batch and the team batch finished. */
const readmeMarkers: RegExp[] = [
  /SUCCESS/,
  /needs 1 more approval from: Bob/,
  /Done: all 2 payouts final and successful\./,
  /All sent and final\./,
];
