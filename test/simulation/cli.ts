// npm run simulate -- --seeds N [--from S] [--steps K]   runs seeds S..S+N-1 (default 1..200, 200 steps)
// --workers W runs W histories at a time in worker threads (default: one per core; 1 runs them in this thread).
// npm run simulate -- --seed S [--steps K]               replays one seed exactly and prints its history
// --adapter postgres runs them on a team database (a fresh one per history) on the cluster at
// SIM_POSTGRES_URL, or on a throwaway cluster started for the run (test/integration/postgres/cluster.ts).
// --without wrong-key,crash leaves those steps out of the drawn histories.
// --kind TEXT counts only violations whose kind contains TEXT (e.g. "missing").
// A failing seed is shortened to the fewest steps that still fail, and printed with what happened.
import { parseArgs } from 'node:util';
import { startCluster, type Cluster } from '../integration/postgres/cluster';
import { dropTemplates, SQLITE, type Adapter } from './adapters';
import { DEFAULT_WORKERS, runSeeds } from './parallel';
import type { SeedJob } from './seed-outcome';
import type { StepKind } from './steps';

const { values } = parseArgs({
  options: {
    seeds: { type: 'string', default: '200' },
    from: { type: 'string', default: '1' },
    seed: { type: 'string' },
    steps: { type: 'string', default: '200' },
    'keep-going': { type: 'boolean', default: false },
    'no-shorten': { type: 'boolean', default: false },
    /** Only violations whose kind contains this text count (to look for one kind of breach). */
    kind: { type: 'string' },
    /** Step kinds left out of the drawn histories, comma-separated (e.g. wrong-key,create-faults). */
    without: { type: 'string', default: '' },
    /** sqlite (default) or postgres. */
    adapter: { type: 'string', default: 'sqlite' },
    /** Histories run at a time, each in a worker thread of its own. */
    workers: { type: 'string', default: String(DEFAULT_WORKERS) },
  },
});
if (values.adapter !== 'sqlite' && values.adapter !== 'postgres') throw new Error(`--adapter is sqlite or postgres, not ${values.adapter}`);
const given = process.env['SIM_POSTGRES_URL'];
const cluster: Cluster | null = values.adapter === 'postgres' && !given ? await startCluster() : null;
const adapter: Adapter = values.adapter === 'postgres' ? { name: 'postgres', clusterUrl: given ?? cluster!.url } : SQLITE;

const steps = Number(values.steps);
const seeds = values.seed !== undefined ? [Number(values.seed)] : Array.from({ length: Number(values.seeds) }, (_, i) => Number(values.from) + i);
let failed = 0;
let stepsRun = 0;

async function runAll(): Promise<void> {
  const jobs: SeedJob[] = seeds.map((seed) => ({
    seed,
    steps,
    without: values.without.split(',').filter(Boolean) as StepKind[],
    adapter,
    ...(values.kind !== undefined ? { kind: values.kind } : {}),
    shortenBudget: values['no-shorten'] ? 0 : 400,
  }));
  const workers = Number(values.workers);
  if (!Number.isInteger(workers) || workers < 1) throw new Error(`--workers is a whole number from 1, not ${values.workers}`);
  // A line on stderr each tenth of the seeds: a run of 15 minutes says it is alive (and one that hangs, that it is not).
  const every = Math.max(10, Math.ceil(jobs.length / 10));
  let done = 0;
  await runSeeds(jobs, {
    workers,
    stopAtFirstFailure: !values['keep-going'],
    onOutcome(outcome) {
      stepsRun += outcome.steps;
      done++;
      if (done % every === 0 && done < jobs.length) process.stderr.write(`simulate: ${done}/${jobs.length} seeds, ${failed + (outcome.failure === null ? 0 : 1)} failed, ${((performance.now() - started) / 1000).toFixed(0)} s\n`);
      if (outcome.failure === null) {
        if (values.seed !== undefined) console.log(`seed ${outcome.seed}: no violation in ${outcome.steps} steps (${outcome.payouts} payouts, ${Math.round(outcome.simulatedMs / 60_000)} simulated minutes)`);
        return;
      }
      failed++;
      console.log(outcome.failure);
    },
  });
}

// A cluster started here is stopped here, interrupted or not.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void (cluster?.stop() ?? Promise.resolve()).finally(() => process.exit(130)));
}
const started = performance.now();
try {
  await runAll();
} finally {
  await dropTemplates();
  await cluster?.stop();
}
const seconds = (performance.now() - started) / 1000;
console.log(`simulate: ${seeds.length} seed(s) of ${steps} steps on ${adapter.name} in ${Math.min(Number(values.workers), seeds.length)} thread(s), ${failed} failed; ${stepsRun} steps in ${seconds.toFixed(1)} s (${(seeds.length / seconds).toFixed(2)} seeds/s, ${Math.round(stepsRun / seconds)} steps/s)`);
process.exitCode = failed > 0 ? 1 : 0;
