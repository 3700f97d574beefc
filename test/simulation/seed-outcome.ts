// One seeded history as a job and its outcome: what `npm run simulate` and the simulation tests need to know
// of a run, small enough to pass between threads (parallel.ts). A failing run is shortened and reported
// where it ran.
import type { Adapter } from './adapters';
import { report, runSeed, shorten } from './run';
import type { StepKind } from './steps';

export interface SeedJob {
  seed: number;
  steps: number;
  without: readonly StepKind[];
  adapter: Adapter;
  /** Only violations whose kind contains this text count. */
  kind?: string;
  /** Runs spent shortening a failing history (0: reported as it failed). */
  shortenBudget: number;
}

export interface SeedOutcome {
  seed: number;
  steps: number;
  payouts: number;
  simulatedMs: number;
  /** The shortened failing history, told step by step; null when no invariant broke. */
  failure: string | null;
}

export async function runSeedOutcome(job: SeedJob): Promise<SeedOutcome> {
  const result = await runSeed(job.seed, job.steps, job.without, job.adapter);
  if (job.kind !== undefined) {
    const wanted = result.violations.filter((v) => v.kind.includes(job.kind ?? ''));
    result.violations = wanted.length > 0 ? [...wanted, ...result.violations.filter((v) => !wanted.includes(v))] : [];
  }
  const outcome = { seed: job.seed, steps: result.stats.steps, payouts: result.stats.payouts, simulatedMs: result.stats.simulatedMs };
  if (result.violations.length === 0) return { ...outcome, failure: null };
  return { ...outcome, failure: report(job.shortenBudget > 0 ? await shorten(result, job.shortenBudget) : result) };
}
