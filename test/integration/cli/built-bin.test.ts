// The `payout-desk` bin over the CLI built ahead of time (issue 26): the same output and exit codes as the CLI
// run from its sources, and the fallback to the sources, with one line that says how to build, when the
// build is missing or older than a source file.
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCli } from '../../../scripts/build-cli.mjs';
import { runCli } from '../../../main/cli/index';

const root = join(import.meta.dirname, '..', '..', '..');
const bin = join(root, 'bin', 'payout-desk.cjs');
let buildDir = '';
let work = '';

interface Ran { code: number; stdout: string; stderr: string }

function runBin(args: string[], build: string, env: NodeJS.ProcessEnv = {}): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(process.execPath, [bin, ...args], { env: { ...process.env, PAYOUT_DESK_CLI_BUILD: build, PAYOUT_DESK_HOME: '', ...env } }, (error, stdout, stderr) => {
      resolve({ code: error ? Number(error.code) : 0, stdout, stderr });
    });
  });
}

/** The same command line run in this process from the TypeScript sources. */
async function runSources(args: string[]): Promise<Ran> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, { io: { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t) }, env: {} });
  return { code, stdout, stderr };
}

const emptyHome = () => mkdtempSync(join(work, 'home-'));

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'built-bin-'));
  // Inside the repository, where the bundle finds its native modules in node_modules.
  mkdirSync(join(root, 'node_modules', '.cache'), { recursive: true });
  buildDir = mkdtempSync(join(root, 'node_modules', '.cache', 'cli-test-'));
  await buildCli({ outdir: buildDir });
});

afterAll(() => {
  rmSync(work, { recursive: true, force: true });
  for (const dir of [buildDir, `${buildDir}-no-cache`, `${buildDir}-bad-cache`, `${buildDir}-profile-cache`]) if (buildDir) rmSync(dir, { recursive: true, force: true });
});

describe('the built bin', () => {
  it('prints the same help as the sources, and nothing on stderr', async () => {
    const built = await runBin(['--help'], buildDir);
    expect(built).toEqual({ ...(await runSources(['--help'])), stderr: '' });
    expect(built.stdout).toContain('Usage: payout-desk');
  });

  it('gives the same error and exit code as the sources (a command that needs a profile, on an empty home)', async () => {
    const home = emptyHome();
    const built = await runBin(['payouts', 'list', '--home', home], buildDir);
    expect(built.code).toBe(2);
    expect(built).toEqual(await runSources(['payouts', 'list', '--home', home]));
    expect(built.stderr).toContain('No profile yet');
  });

  it('runs a command on the data folder (profiles list) as the sources do', async () => {
    const home = emptyHome();
    const built = await runBin(['--json', 'profiles', 'list', '--home', home], buildDir);
    expect(built).toEqual(await runSources(['--json', 'profiles', 'list', '--home', home]));
    expect(built.code).toBe(0);
  });

  it('reaches the OS keychain (keytar, loaded when first needed) as the sources do', async () => {
    const home = emptyHome();
    const env = { PAYOUT_DESK_KEYCHAIN_SERVICE: `payout-desk-built-bin-test-${process.pid}` };
    const args = ['profiles', 'add', '--name', 'Built', '--base-url', 'http://127.0.0.1:9', '--merchant-code', 'M1', '--home', home];
    const built = await runBin(args, buildDir, env);
    expect(built.stderr).toBe('');
    expect(built.code).toBe(0);
    expect((await runBin(['--json', 'profiles', 'list', '--home', home], buildDir, env)).stdout).toContain('"name": "Built"');
  });

  it('prints the version of package.json', async () => {
    const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
    expect(await runBin(['--version'], buildDir)).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
  });
});

describe("the bundle's code cache (compiled code kept beside it)", () => {
  // Beside the build, inside the repository: the bundle finds its native modules in node_modules from there.
  const copyOfBuild = (name: string) => {
    const copy = `${buildDir}-${name}`;
    cpSync(buildDir, copy, { recursive: true });
    return copy;
  };

  it('is written by the build', () => {
    expect(statSync(join(buildDir, 'index.cjs.v8cache')).size).toBeGreaterThan(100_000);
  });

  it('when missing: the command runs as usual and the cache is written for the next one', async () => {
    const build = copyOfBuild('no-cache');
    rmSync(join(build, 'index.cjs.v8cache'));
    const home = emptyHome();
    expect(await runBin(['payouts', 'list', '--home', home], build)).toEqual(await runSources(['payouts', 'list', '--home', home]));
    expect(existsSync(join(build, 'index.cjs.v8cache'))).toBe(true);
  });

  it("the build's: written again, once, by the first command that opens the desk on a profile (code the build's run never reached)", async () => {
    const build = copyOfBuild('profile-cache');
    const cache = join(build, 'index.cjs.v8cache');
    const mark = join(build, 'index.cjs.v8cache.build');
    expect(existsSync(mark)).toBe(true);
    const home = emptyHome();
    const env = { PAYOUT_DESK_KEYCHAIN_SERVICE: `payout-desk-built-bin-cache-test-${process.pid}` };
    const added = await runBin(['profiles', 'add', '--name', 'Cached', '--base-url', 'http://127.0.0.1:9', '--merchant-code', 'M1', '--home', home], build, env);
    expect(added).toMatchObject({ code: 0, stderr: '' });
    // A profile command never opens the desk: the build's cache is kept.
    const fromBuild = readFileSync(cache);
    expect(existsSync(mark)).toBe(true);
    expect(await runBin(['payouts', 'list', '--home', home], build, env)).toEqual({ code: 0, stdout: 'No payouts match.\n', stderr: '' });
    const widened = readFileSync(cache);
    expect(widened.equals(fromBuild)).toBe(false);
    expect(existsSync(mark)).toBe(false);
    // Once: the next desk command uses it and leaves it as it is.
    expect(await runBin(['payouts', 'list', '--home', home], build, env)).toEqual({ code: 0, stdout: 'No payouts match.\n', stderr: '' });
    expect(readFileSync(cache).equals(widened)).toBe(true);
  });

  it('when V8 rejects it (damaged, or from another node): the same output, and a good cache replaces it', async () => {
    const build = copyOfBuild('bad-cache');
    const damaged = Buffer.alloc(4096, 7);
    writeFileSync(join(build, 'index.cjs.v8cache'), damaged);
    const home = emptyHome();
    expect(await runBin(['payouts', 'list', '--home', home], build)).toEqual(await runSources(['payouts', 'list', '--home', home]));
    expect(readFileSync(join(build, 'index.cjs.v8cache')).equals(damaged)).toBe(false);
    expect(await runBin(['--help'], build)).toEqual({ ...(await runSources(['--help'])), stderr: '' });
  });
});

describe('without a usable build, the bin runs the sources', () => {
  it('when there is no build: says once how to build, then the same output and exit code', async () => {
    const home = emptyHome();
    const ran = await runBin(['payouts', 'list', '--home', home], join(work, 'no-build'));
    const [notice, ...rest] = ran.stderr.split('\n');
    expect(notice).toBe('payout-desk: the CLI is not built; running the sources (slower start). Build it with: npm run build:cli');
    expect({ ...ran, stderr: rest.join('\n') }).toEqual(await runSources(['payouts', 'list', '--home', home]));
  });

  it('when a source file is newer than the build (a stale build is never run)', async () => {
    const stale = join(work, 'stale-build');
    cpSync(buildDir, stale, { recursive: true });
    const manifest = JSON.parse(readFileSync(join(stale, 'inputs.json'), 'utf8')) as { builtAt: number; inputs: string[] };
    writeFileSync(join(stale, 'inputs.json'), JSON.stringify({ ...manifest, builtAt: 0 }));
    const ran = await runBin(['--help'], stale);
    expect(ran.stderr).toMatch(/^payout-desk: the CLI build is older than \S+; running the sources \(slower start\)\. Build it with: npm run build:cli\n$/);
    expect(ran.code).toBe(0);
    expect(ran.stdout).toBe((await runSources(['--help'])).stdout);
  });
});
