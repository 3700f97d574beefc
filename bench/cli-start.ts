// Benchmark: how long the `payout-desk` command takes to start and finish a light command (issue 26: ≤ 300 ms).
// Builds the CLI into a fresh folder first (so the figures are never those of a stale build), then runs each
// command N times through bin/payout-desk.cjs, built (in-process bundle) and from sources (tsx, the fallback),
// and prints the median, min and max wall time of each. Every run uses a new, empty data folder.
//   npx tsx bench/cli-start.ts [--runs 10]
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { buildCli } from '../scripts/build-cli.mjs';
import { numberArg } from './args';

const runs = numberArg('runs', 10);
const TARGET_MS = 300;
const root = join(import.meta.dirname, '..');
const bin = join(root, 'bin', 'payout-desk.cjs');

// light: the CLI itself and a command on the profile half of the context (no journal); desk: a command that loads
// the desk (journals, engines, services) before it looks for its profile.
// `home` is a new, empty data folder for each run; `profileHome` one folder with a profile (and, after the first
// run, its journal), made once before the runs when a keychain is there to make it.
const commands: { label: string; kind: 'light' | 'desk'; args: (home: string, profileHome: string) => string[] }[] = [
  { label: '--help', kind: 'light', args: () => ['--help'] },
  { label: 'profiles list', kind: 'light', args: (home) => ['profiles', 'list', '--home', home] },
  // No profile yet: it loads the desk, opens the data folder and stops with a usage error (exit 2), as on a first run.
  { label: 'payouts list', kind: 'desk', args: (home) => ['payouts', 'list', '--home', home] },
  // The everyday case: a profile, its journal opened and read.
  { label: 'payouts list, a profile', kind: 'desk', args: (_home, profileHome) => ['payouts', 'list', '--home', profileHome] },
];

// Its own keychain service: the bench's profile never meets a person's keys.
const benchEnv = { ...process.env, PAYOUT_DESK_KEYCHAIN_SERVICE: `payout-desk-bench-cli-start-${process.pid}` };

// CPU time (user + system) of the command, read by GNU time where it is installed: on a shared, busy machine
// wall time mostly measures the queue for a core, CPU time what the command itself costs.
const GNU_TIME = '/usr/bin/time';
const withCpu = existsSync(GNU_TIME);

/** What the bin says on stderr when it runs the sources instead of a build (missing, or older than a source). */
const FELL_BACK = 'running the sources (slower start)';

function timeOne(args: string[], buildDir: string): { wall: number; cpu: number | null; fellBack: boolean } {
  const started = performance.now();
  const command = withCpu ? [GNU_TIME, '-f', 'cpu %U %S', process.execPath, bin, ...args] : [process.execPath, bin, ...args];
  const result = spawnSync(command[0]!, command.slice(1), { env: { ...benchEnv, PAYOUT_DESK_CLI_BUILD: buildDir }, encoding: 'utf8' });
  const wall = performance.now() - started;
  if (result.status === null || result.status === 1) throw new Error(`payout-desk ${args.join(' ')} failed (${result.signal ?? `exit ${result.status}`}): ${result.stderr.trim()}`);
  const cpuLine = /cpu ([\d.]+) ([\d.]+)\s*$/.exec(result.stderr);
  return { wall, cpu: cpuLine ? (Number(cpuLine[1]) + Number(cpuLine[2])) * 1000 : null, fellBack: result.stderr.includes(FELL_BACK) };
}

function figures(samples: number[]): { median: number; min: number; max: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const median = sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  return { median, min: sorted[0]!, max: sorted.at(-1)! };
}

const work = mkdtempSync(join(tmpdir(), 'bench-cli-start-'));
// Inside the repository: the bundle finds its native modules (keytar, better-sqlite3) in node_modules from there.
mkdirSync(join(root, 'node_modules', '.cache'), { recursive: true });
const buildDir = mkdtempSync(join(root, 'node_modules', '.cache', 'cli-start-'));
try {
  const buildStarted = performance.now();
  await buildCli({ outdir: buildDir });
  console.log(`built the CLI in ${Math.round(performance.now() - buildStarted)} ms; ${runs} runs of each command, wall time in ms (median [min–max])${withCpu ? ' and CPU time (median)' : ''}; load average ${loadavg()[0]!.toFixed(2)}`);
  const paths = [
    { label: 'built', buildDir },
    // A folder with no build in it: the bin falls back to the sources under tsx.
    { label: 'sources (tsx)', buildDir: join(work, 'no-build') },
  ];
  const profileHome = mkdtempSync(join(work, 'profile-'));
  const added = spawnSync(process.execPath, [bin, 'profiles', 'add', '--name', 'Bench', '--base-url', 'http://127.0.0.1:9', '--merchant-code', 'M1', '--home', profileHome], {
    env: { ...benchEnv, PAYOUT_DESK_CLI_BUILD: buildDir },
    encoding: 'utf8',
  });
  const withProfile = added.status === 0;
  if (!withProfile) console.log(`(no "payouts list, a profile" row: adding the bench's profile needs the OS keychain, and failed: ${added.stderr.trim().split('\n')[0]})`);
  const measured = commands.filter((command) => withProfile || !command.args('', profileHome).includes(profileHome));
  // Round by round, every command and path once per round: a burst of load on this shared machine then slows
  // a run of each, not all the runs of one command.
  const samples = measured.map(() => paths.map(() => ({ wall: [] as number[], cpu: [] as number[] })));
  // A source file saved during the bench (the working tree is shared) makes the build older than it, and the
  // bin then runs the sources: such a sample is not the built CLI's. The CLI is built again and the sample taken again.
  let rebuilt = 0;
  for (let i = 0; i < runs; i += 1) {
    for (const [c, command] of measured.entries()) {
      for (const [p, path] of paths.entries()) {
        let one = timeOne(command.args(mkdtempSync(join(work, 'home-')), profileHome), path.buildDir);
        if (path.label === 'built' && one.fellBack) {
          if (rebuilt === 3) throw new Error('the sources keep changing during the bench: the built CLI cannot be timed');
          rebuilt += 1;
          await buildCli({ outdir: buildDir });
          one = timeOne(command.args(mkdtempSync(join(work, 'home-')), profileHome), path.buildDir);
        }
        samples[c]![p]!.wall.push(one.wall);
        if (one.cpu !== null) samples[c]![p]!.cpu.push(one.cpu);
      }
    }
  }
  if (rebuilt > 0) console.log(`(built again ${rebuilt} time(s): a source file changed during the bench)`);
  const worstBuiltMedian = { light: 0, desk: 0 };
  measured.forEach((command, c) => {
    const cells = paths.map((path, p) => {
      const { wall, cpu } = samples[c]![p]!;
      const { median, min, max } = figures(wall);
      if (path.label === 'built') worstBuiltMedian[command.kind] = Math.max(worstBuiltMedian[command.kind], median);
      const cpuCell = cpu.length > 0 ? ` cpu ${figures(cpu).median.toFixed(0)}` : '';
      return `${path.label} ${median.toFixed(0).padStart(5)} [${min.toFixed(0)}–${max.toFixed(0)}]${cpuCell}`;
    });
    console.log(`${command.label.padEnd(23)} ${cells.join('   ')}`);
  });
  const verdict = (ms: number) => `${ms.toFixed(0)} ms (target ≤ ${TARGET_MS} ms${ms <= TARGET_MS ? ', met' : ', missed'})`;
  console.log(`slowest median of the built CLI: start and light commands ${verdict(worstBuiltMedian.light)}; a desk command ${verdict(worstBuiltMedian.desk)}`);
} finally {
  rmSync(work, { recursive: true, force: true });
  rmSync(buildDir, { recursive: true, force: true });
}
