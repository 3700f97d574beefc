// One simulated history from start to quiescence, with the invariants checked after every step, and
// the shortening of a failing history to the fewest steps that still fail.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { existsSync } from 'node:fs';
import nodeCrypto from 'node:crypto';
import { syncBuiltinESMExports } from 'node:module';
import FakeTimers from '@sinonjs/fake-timers';
import { MemoryKeyStore } from '../../main/keys/key-store';
import { preloadHttp } from '../../main/gateway/transport';
import { openStorage, SQLITE, type Adapter, type SimStorage } from './adapters';
import { GatewayModel } from './gateway-model';
import { InvariantChecker, type Violation } from './invariants';
import { Person } from './person';
import { Prng } from './prng';
import { prepareDualControl, prepareHome } from './sim-desk';
import { describeStep, drawHistory, type Step, type StepKind } from './steps';
import { World } from './world';

export interface RunResult {
  seed: number;
  /** Where the desk kept its records (a shortened history runs there again). */
  adapter: Adapter;
  /** People, roles and an approval policy on the desk (every other seed). */
  dualControl: boolean;
  steps: Step[];
  violations: Violation[];
  /** Index of the step after which the first violation was seen; steps.length for quiescence. */
  failedAt: number | null;
  /** What happened, in order (person, desk and gateway lines), for a failure report. */
  log: string[];
  stats: { steps: number; payouts: number; simulatedMs: number };
}

const START = Date.UTC(2026, 10, 2, 9, 0, 0);
/** A RAM-backed folder where there is one: the journals (and profile stores) are real SQLite files, only faster to sync. */
const SCRATCH = existsSync('/dev/shm') ? '/dev/shm' : tmpdir();

/** Every even seed runs with dual control on; the recorded histories run without, as when they were found. */
export const dualControlFor = (seed: number): boolean => seed % 2 === 0;

export async function runHistory(seed: number, steps: Step[], dualControl = false, adapter: Adapter = SQLITE): Promise<RunResult> {
  // Before the fake clock: a team database is made on real time.
  const storage: SimStorage = await openStorage(adapter);
  // The desk loads its HTTP client at its first request: loaded here, on real time, it is never a wait on I/O inside a run.
  await preloadHttp();
  const home = mkdtempSync(join(SCRATCH, 'desk-sim-'));
  // Ids the desk makes itself (retry rows, batches) come from the seed too, so a run replays exactly: those of
  // the global crypto (the SQLite journal, the desk services) and, on a stream of their own, those of
  // node:crypto (the team journal's batch and intent ids, desk ids, validation ids). Its named imports follow
  // once synced, which happens before the clock is installed: a sync later would hand fake timers to every
  // `import … from 'node:timers'` too (fake-timers patches that module).
  const randomUUID = crypto.randomUUID;
  const nodeRandomUUID = nodeCrypto.randomUUID;
  crypto.randomUUID = seededUuids(new Prng(seed).fork(2));
  nodeCrypto.randomUUID = seededUuids(new Prng(seed).fork(4));
  syncBuiltinESMExports();
  const clock = FakeTimers.install({
    now: START,
    toFake: ['setTimeout', 'clearTimeout', 'setImmediate', 'clearImmediate', 'setInterval', 'clearInterval', 'Date', 'performance'],
  });
  storage.attach(clock);
  const keyStore = new MemoryKeyStore();
  // So are the desk's own random choices (back-off jitter).
  const random = Math.random;
  const jitter = new Prng(seed).fork(3);
  Math.random = () => jitter.next();
  const model = new GatewayModel(new Prng(seed).fork(1));
  const person = new Person();
  person.dualControl = dualControl;
  const checker = new InvariantChecker(model, person);
  let world: World | undefined;
  const result: RunResult = { seed, adapter, dualControl, steps, violations: [], failedAt: null, log: [], stats: { steps: 0, payouts: 0, simulatedMs: 0 } };
  try {
    await prepareHome(home, keyStore, storage);
    if (dualControl) person.chain = await prepareDualControl(home, keyStore, clock.now, storage);
    world = new World(clock, storage, home, keyStore, model, person);
    await world.during(world.desk.engine());
    for (const [index, step] of steps.entries()) {
      await world.execute(step);
      await world.advance(step.after);
      await world.afterStep();
      result.stats.steps++;
      const violations = await checker.always(await world.desk.journal(), clock.now);
      if (violations.length > 0) {
        result.violations = violations;
        result.failedAt = index;
        break;
      }
    }
    if (result.failedAt === null) {
      await world.quiesce();
      const journal = await world.desk.journal();
      const violations = [...(await checker.always(journal, clock.now)), ...(await checker.atQuiescence(journal, clock.now))];
      if (violations.length > 0) {
        result.violations = violations;
        result.failedAt = steps.length;
      }
    }
    result.stats.payouts = model.payouts.size;
    result.stats.simulatedMs = clock.now - START;
    return result;
  } finally {
    result.log = mergeLogs(world?.log ?? [], model.trace);
    if (world && world.alive) {
      const closing = world.desk.quit();
      let closed = false;
      void closing.finally(() => (closed = true)).catch(() => undefined);
      for (let i = 0; !closed && i < 200; i++) await storage.tick(100);
    }
    clock.uninstall();
    crypto.randomUUID = randomUUID;
    nodeCrypto.randomUUID = nodeRandomUUID;
    syncBuiltinESMExports();
    Math.random = random;
    await storage.close();
    rmSync(home, { recursive: true, force: true });
  }
}

function seededUuids(rng: Prng): () => `${string}-${string}-${string}-${string}-${string}` {
  const hex = (n: number) => Array.from({ length: n }, () => rng.int(0, 15).toString(16)).join('');
  return () => `${hex(8)}-${hex(4)}-4${hex(3)}-a${hex(3)}-${hex(12)}`;
}

export function runSeed(seed: number, stepCount: number, without: readonly StepKind[] = [], adapter: Adapter = SQLITE): Promise<RunResult> {
  return runHistory(seed, drawHistory(seed, stepCount, without), dualControlFor(seed), adapter);
}

/**
 * The shortest history found that still breaks an invariant of the same number: whole chunks of steps
 * are dropped while the failure stays, then single steps (delta debugging, one pass per chunk size).
 */
export async function shorten(failure: RunResult, budget = 400): Promise<RunResult> {
  const first = failure.violations[0];
  let best = failure;
  let steps = failure.steps.slice(0, (failure.failedAt ?? failure.steps.length) + 1);
  let runs = 0;
  const stillFails = async (candidate: Step[]): Promise<RunResult | null> => {
    runs++;
    const r = await runHistory(failure.seed, candidate, failure.dualControl, failure.adapter);
    return r.violations.some((v) => v.invariant === first?.invariant && v.kind === first.kind) ? r : null;
  };
  const trimmed = await stillFails(steps);
  if (trimmed) best = trimmed;
  else steps = failure.steps;
  for (let chunk = Math.max(1, Math.floor(steps.length / 2)); chunk >= 1 && runs < budget; chunk = Math.floor(chunk / 2)) {
    for (let start = 0; start < steps.length && runs < budget; ) {
      const candidate = [...steps.slice(0, start), ...steps.slice(start + chunk)];
      const r = candidate.length > 0 ? await stillFails(candidate) : null;
      if (r) {
        steps = candidate;
        best = r;
      } else start += chunk;
    }
  }
  return best;
}

export function report(r: RunResult): string {
  const lines = [`seed ${r.seed}${r.adapter.name === 'sqlite' ? '' : ` on ${r.adapter.name}`}: ${r.violations.length} violation(s) after step ${r.failedAt === r.steps.length ? 'quiescence' : (r.failedAt ?? 0) + 1} of ${r.steps.length}`];
  for (const v of r.violations) lines.push(`  invariant ${v.invariant} (${v.kind}): ${v.message}`);
  lines.push('  history:');
  r.steps.forEach((s, i) => lines.push(`    ${i + 1}. ${describeStep(s)}`));
  lines.push('  what happened:');
  for (const line of r.log) lines.push(`    ${line}`);
  return lines.join('\n');
}

function mergeLogs(a: string[], b: string[]): string[] {
  const at = (line: string) => Number(line.split(' ', 1)[0]);
  return [...a, ...b].map((line, i) => ({ line, i })).sort((x, y) => at(x.line) - at(y.line) || x.i - y.i).map(({ line }) => `${new Date(at(line)).toISOString().slice(11, 23)} ${line.slice(line.indexOf(' ') + 1)}`);
}
