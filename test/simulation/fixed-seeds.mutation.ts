// The simulation's share of the mutation run (stryker.config.mjs, issue 25): a fixed list of seeded histories on
// the production wiring, checked against every invariant after each step and at quiescence. A mutant of the money
// files that no unit test notices is killed here when it lets a history pay twice, lose a payout or send one
// without its approvals. Not part of `npm test` (its 200 seeds of simulation.test.ts cover these and more); the
// mutation run's vitest config (vitest.mutation.config.mjs) is the only one that picks this file up.
//
// Every history runs in this thread: Stryker switches a mutant on in the vitest worker, and a worker thread of
// parallel.ts would load the code with no mutant active.
import { describe, expect, it } from 'vitest';
import { SQLITE } from './adapters';
import { runSeedOutcome } from './seed-outcome';

/** 40 seeds (every even one with dual control), in chunks: Stryker stops at the first failing chunk. */
export const KILLER_SEEDS = Array.from({ length: 40 }, (_, i) => i + 1);
/** Short histories: each mutant that outlives the unit tests runs all 40 (about 4 s of one core at 60 steps). */
const STEPS = Number(process.env['MUTATION_SIM_STEPS'] ?? 60);
const CHUNK = 5;

describe('fixed seeds for the mutation run', () => {
  for (let from = 0; from < KILLER_SEEDS.length; from += CHUNK) {
    const seeds = KILLER_SEEDS.slice(from, from + CHUNK);
    it(`seeds ${seeds[0]}–${seeds.at(-1)} of ${STEPS} steps break no invariant`, async () => {
      const failures: string[] = [];
      for (const seed of seeds) {
        const outcome = await runSeedOutcome({ seed, steps: STEPS, without: [], adapter: SQLITE, shortenBudget: 0 });
        if (outcome.failure !== null) failures.push(outcome.failure);
      }
      expect(failures, failures.join('\n\n')).toEqual([]);
    }, 60_000);
  }
});
