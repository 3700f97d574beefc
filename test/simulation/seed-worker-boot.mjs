// Worker threads do not inherit tsx's loader from the thread that starts them: register it, then load the
// TypeScript worker (test/simulation/parallel.ts starts this file).
import { register } from 'tsx/esm/api';

register();
await import('./seed-worker.ts');
