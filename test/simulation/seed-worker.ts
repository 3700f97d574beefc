// A worker thread of runSeeds (parallel.ts): runs each seed it is sent, one at a time, and answers with its
// outcome; null ends it (after dropping its template databases). Each thread has its own fake clock, seeded
// ids and Math.random, so histories in different threads cannot disturb each other.
import { parentPort } from 'node:worker_threads';
import { dropTemplates } from './adapters';
import { runSeedOutcome, type SeedJob } from './seed-outcome';

const port = parentPort;
if (!port) throw new Error('seed-worker.ts runs as a worker thread of test/simulation/parallel.ts');
port.on('message', (job: SeedJob | null) => {
  if (job === null) {
    void dropTemplates().finally(() => port.close());
    return;
  }
  runSeedOutcome(job).then(
    (outcome) => port.postMessage({ outcome }),
    (error: unknown) => port.postMessage({ error: error instanceof Error ? (error.stack ?? error.message) : String(error) }),
  );
});
