// Seeded histories on several cores: a pool of worker threads (seed-worker.ts), each running one history at
// a time and taking the next seed when it is done, so a long history does not hold up a share of the others.
// A history only ever depends on its seed (its clock, ids and random choices are its thread's own), so a seed
// found failing here fails the same way on its own with `npm run simulate -- --seed S`.
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { runSeedOutcome, type SeedJob, type SeedOutcome } from './seed-outcome';

/** One thread per core: a history on SQLite keeps its core busy. */
export const DEFAULT_WORKERS = availableParallelism();

export interface RunSeedsOptions {
  /** Threads to run histories in; 1 runs them here, in this thread, one after the other. */
  workers: number;
  /** Called as each history ends, in the order they end. */
  onOutcome?: (outcome: SeedOutcome) => void;
  /** After the first failure no new seed is started (those running finish). */
  stopAtFirstFailure?: boolean;
}

/** Runs every job; resolves to their outcomes in the order of the jobs given (seeds not started are left out). */
export async function runSeeds(jobs: readonly SeedJob[], options: RunSeedsOptions): Promise<SeedOutcome[]> {
  const outcomes = new Map<number, SeedOutcome>();
  let stopped = false;
  const record = (index: number, outcome: SeedOutcome) => {
    outcomes.set(index, outcome);
    options.onOutcome?.(outcome);
    if (outcome.failure !== null && options.stopAtFirstFailure) stopped = true;
  };
  let next = 0;
  const take = (): number | null => (stopped || next >= jobs.length ? null : next++);

  const workers = Math.max(1, Math.min(options.workers, jobs.length));
  if (workers === 1) {
    for (let index = take(); index !== null; index = take()) record(index, await runSeedOutcome(jobs[index]!));
  } else {
    await Promise.all(Array.from({ length: workers }, () => drain(jobs, take, record)));
  }
  return [...outcomes.entries()].sort(([a], [b]) => a - b).map(([, outcome]) => outcome);
}

/** One worker thread taking jobs until none is left. */
async function drain(jobs: readonly SeedJob[], take: () => number | null, record: (index: number, outcome: SeedOutcome) => void): Promise<void> {
  const worker = new Worker(new URL('./seed-worker-boot.mjs', import.meta.url));
  // The answer awaited now: a message, or the thread failing or ending first.
  let waiting: { resolve(answer: { outcome?: SeedOutcome; error?: string }): void; reject(error: Error): void } | null = null;
  // Why the thread ended, once it has: a seed is never posted to a thread that is gone (it would wait forever).
  let gone: Error | null = null;
  const ended = new Promise<void>((resolve) => {
    worker.on('exit', (code) => {
      gone ??= new Error(`the worker thread ended (exit ${code}) before it answered`);
      waiting?.reject(gone);
      resolve();
    });
  });
  worker.on('message', (answer: { outcome?: SeedOutcome; error?: string }) => waiting?.resolve(answer));
  worker.on('error', (error) => {
    gone ??= error;
    waiting?.reject(error);
  });
  try {
    for (let index = take(); index !== null; index = take()) {
      const job = jobs[index]!;
      if (gone) throw gone;
      const answer = new Promise<{ outcome?: SeedOutcome; error?: string }>((resolve, reject) => (waiting = { resolve, reject }));
      worker.postMessage(job);
      const { outcome, error } = await answer;
      waiting = null;
      if (!outcome) throw new Error(`seed ${job.seed} could not run: ${error ?? 'no answer'}`);
      record(index, outcome);
    }
  } finally {
    if (!gone) worker.postMessage(null);
    await ended;
  }
}
