// Benchmark: how fast the simulation hunts for double payments. Runs --seeds histories of --steps
// steps, split over one process per core, and prints seeds/s, steps/s, the wall time and the failures.
// Target: 10,000 seeds of 200 steps in under 10 minutes on the 2-core build machine, 0 violations.
// --adapter postgres: on team databases (one per history) of one throwaway cluster shared by the processes
// (default 1,000 seeds there).
// It also prints the CPU one seed costs, every process counted (the seed processes and, on PostgreSQL, the
// database server's), and so the most seeds/s this machine's cores could give at that cost, however the work
// were spread: the bound a faster harness cannot pass without histories (or a desk) that cost less CPU.
//   npx tsx bench/simulate.ts [--seeds 10000] [--steps 200] [--from 1] [--workers N] [--adapter sqlite|postgres]
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { parseArgs } from 'node:util';
import { startCluster } from '../test/integration/postgres/cluster';

const { values } = parseArgs({
  options: {
    seeds: { type: 'string' },
    steps: { type: 'string', default: '200' },
    from: { type: 'string', default: '1' },
    workers: { type: 'string', default: String(availableParallelism()) },
    adapter: { type: 'string', default: 'sqlite' },
  },
});
if (values.adapter !== 'sqlite' && values.adapter !== 'postgres') throw new Error(`--adapter is sqlite or postgres, not ${values.adapter}`);
const seeds = Number(values.seeds ?? (values.adapter === 'postgres' ? 1000 : 10000));
const workers = Math.max(1, Math.min(Number(values.workers), seeds));
const from = Number(values.from);

interface WorkerResult {
  seeds: number;
  failed: number;
  steps: number;
  failures: string[];
}

/** One process runs a contiguous range of seeds through the simulation's CLI, in one thread, and reports its summary line. */
function runRange(start: number, count: number): Promise<WorkerResult> {
  return new Promise((resolve, reject) => {
    const args = ['--import', 'tsx', 'test/simulation/cli.ts', '--seeds', String(count), '--from', String(start), '--steps', values.steps, '--keep-going', '--no-shorten', '--adapter', values.adapter!, '--workers', '1'];
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, ...(clusterUrl ? { SIM_POSTGRES_URL: clusterUrl } : {}) } });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('error', reject);
    child.on('close', () => {
      const summary = /simulate: (\d+) seed\(s\) of \d+ steps on \w+ in \d+ thread\(s\), (\d+) failed; (\d+) steps/.exec(out);
      if (!summary) return reject(new Error(`no summary from seeds ${start}..${start + count - 1}:\n${out.slice(-2000)}`));
      const failures = out.split('\n').filter((line) => /^seed \d+( on \w+)?: \d+ violation/.test(line));
      resolve({ seeds: Number(summary[1]), failed: Number(summary[2]), steps: Number(summary[3]), failures });
    });
  });
}

/**
 * CPU seconds of the processes this one waited for (the seed processes, and the database server once stopped,
 * which waited for its own backends): /proc/self/stat's cutime + cstime. Null where there is no /proc.
 */
function childrenCpuSeconds(): number | null {
  let stat: string;
  try {
    stat = readFileSync('/proc/self/stat', 'utf8');
  } catch {
    return null;
  }
  // Fields after the command's closing parenthesis; cutime and cstime are the 16th and 17th of the line.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticksPerSecond = 100; // USER_HZ: 100 on Linux whatever the kernel's own tick
  return (Number(fields[13]) + Number(fields[14])) / ticksPerSecond;
}

const cpuBefore = childrenCpuSeconds();
// One cluster for every process (each makes its own databases on it).
const cluster = values.adapter === 'postgres' ? await startCluster() : null;
const clusterUrl = cluster?.url ?? null;
const started = performance.now();
const per = Math.ceil(seeds / workers);
let results: WorkerResult[];
try {
  results = await Promise.all(
    Array.from({ length: workers }, (_, w) => runRange(from + w * per, Math.max(0, Math.min(per, seeds - w * per)))),
  );
} finally {
  await cluster?.stop();
}
const seconds = (performance.now() - started) / 1000;
const total = results.reduce((a, r) => ({ seeds: a.seeds + r.seeds, failed: a.failed + r.failed, steps: a.steps + r.steps }), { seeds: 0, failed: 0, steps: 0 });
for (const r of results) for (const line of r.failures) console.log(line);
console.log(`simulation on ${values.adapter}: ${total.seeds} seeds of ${values.steps} steps (${total.steps} steps run) on ${workers} process(es) in ${seconds.toFixed(1)} s`);
console.log(`  ${(total.seeds / seconds).toFixed(2)} seeds/s, ${Math.round(total.steps / seconds)} steps/s; ${total.failed} seed(s) with a violation`);
const cpuAfter = childrenCpuSeconds();
if (cpuBefore !== null && cpuAfter !== null && total.seeds > 0) {
  const cpuPerSeed = (cpuAfter - cpuBefore) / total.seeds;
  const cores = availableParallelism();
  const target = cluster ? 2 : 17;
  console.log(`  CPU per seed ${(cpuPerSeed * 1000).toFixed(0)} ms (every process${cluster ? ', the database server included' : ''}, start-up shared out); on ${cores} cores at most ${(cores / cpuPerSeed).toFixed(2)} seeds/s however the seeds were spread; the target's ${target} seeds/s needs ≤ ${((cores / target) * 1000).toFixed(0)} ms`);
}
console.log(`  10,000 seeds at this rate: ${((10_000 / (total.seeds / seconds)) / 60).toFixed(1)} min (target < 10 min)`);
process.exitCode = total.failed > 0 ? 1 : 0;
