// The team rate budget (main/store/postgres/rate-budget.ts) on a throwaway PostgreSQL: two desks (own pools)
// sending N requests between them to a local fake gateway with the sandbox's sliding window of 10/s, then a
// desk crashing with slots in flight while the other carries on. Prints throughput at the gateway, the most
// stamps in any 1000 ms, 429s, and how long the survivor waits for the dead desk's slots.
// Run (as root or the postgres user, like the postgres tests): npx tsx bench/team-rate-budget.ts
//   [--n 500] [--workers 12] [--leg-ms 0] [--jitter-ms 3] [--max-request-ms 5000] [--kill-every-ms 10000] [--own-floor-ms 0]
import pg from 'pg';
import { migratePg } from '../main/store/postgres/migrations';
import { startCluster, freshDatabase } from '../test/integration/postgres/cluster';
import { Desk, FakeGateway, killSessions, maxInAnyWindow } from '../test/integration/postgres/team-desks';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? fallback : Number(process.argv[i + 1]);
}
const N = arg('n', 500);
const WORKERS = arg('workers', 12);
const LEG_MS = arg('leg-ms', 0);
const JITTER_MS = arg('jitter-ms', 3);
const MAX_REQUEST_MS = arg('max-request-ms', 5000);
const KILL_EVERY_MS = arg('kill-every-ms', 10_000);
/** The floor each desk passes for its own slots (the fake's least legs are leg-ms each way: 2 × leg-ms is exact). */
const OWN_FLOOR_MS = arg('own-floor-ms', 0);
const LIMIT = 10;

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const leg = () => LEG_MS + Math.random() * JITTER_MS;
const fmt = (n: number, d = 2) => n.toFixed(d);

function rate(times: readonly number[]): number {
  const sorted = [...times].sort((a, b) => a - b);
  return sorted.length < 2 ? 0 : ((sorted.length - 1) * 1000) / (sorted.at(-1)! - sorted[0]!);
}

async function shared(url: string, admin: pg.Pool): Promise<void> {
  const gateway = new FakeGateway(LIMIT, leg);
  const a = new Desk('desk-a', url, { maxRequestMs: MAX_REQUEST_MS });
  const b = new Desk('desk-b', url, { maxRequestMs: MAX_REQUEST_MS });
  let running = true;
  let kills = 0;
  // Desk A's database sessions are killed every KILL_EVERY_MS (the desk itself lives on and reconnects).
  const killer = (async () => {
    for (;;) {
      const until = performance.now() + KILL_EVERY_MS;
      while (running && performance.now() < until) await sleep(20);
      if (!running) return;
      kills += (await killSessions(admin, 'desk-a')) > 0 ? 1 : 0;
    }
  })();
  const started = performance.now();
  await Promise.all([a.send(gateway, Math.ceil(N / 2), WORKERS, 'create', OWN_FLOOR_MS), b.send(gateway, Math.floor(N / 2), WORKERS, 'create', OWN_FLOOR_MS)]);
  const elapsed = performance.now() - started;
  running = false;
  await killer;
  const stamps = gateway.accepted;
  console.log(`two desks × ${WORKERS} workers, N = ${N}, gateway legs ${LEG_MS} + 0..${JITTER_MS} ms each way, own floor ${OWN_FLOOR_MS} ms, desk A's sessions killed ${kills}×`);
  console.log(`  done in ${fmt(elapsed / 1000, 1)} s (${fmt((N * 1000) / elapsed)} req/s); at the gateway, first to last stamp: ${fmt(rate(stamps))} req/s (limit ${LIMIT}); desk A ${a.sent}, desk B ${b.sent}`);
  console.log(`  most stamps in any 1000 ms: ${maxInAnyWindow(stamps)}; 429s: ${gateway.rateLimited}`);
  await a.close();
  await b.close();
}

async function crash(url: string, admin: pg.Pool): Promise<void> {
  const gateway = new FakeGateway(LIMIT, leg);
  const a = new Desk('desk-a', url, { maxRequestMs: MAX_REQUEST_MS });
  const b = new Desk('desk-b', url, { maxRequestMs: MAX_REQUEST_MS });
  let crashing = false;
  let hung = 0;
  // Desk A's workers; once it is crashing, a request sent never reports its end: A dies before its answers.
  const aWorker = async () => {
    for (;;) {
      const slot = await a.budget.reserve('create').catch(() => null);
      if (!slot) return;
      await gateway.request('desk-a');
      if (crashing) {
        hung += 1;
        return;
      }
      await slot.end('answered');
    }
  };
  let bRunning = true;
  const bArrivals: number[] = [];
  const bWorker = async () => {
    while (bRunning) {
      const slot = await b.budget.reserve('create');
      await gateway.request('desk-b');
      bArrivals.push(performance.now());
      await slot.end('answered');
    }
  };
  const aWorkers = Array.from({ length: WORKERS }, aWorker);
  const bWorkers = Array.from({ length: WORKERS }, bWorker);
  await sleep(3000);
  crashing = true;
  const armedAt = performance.now();
  while (hung < WORKERS / 2 && performance.now() - armedAt < 3000) await sleep(10);
  // The crash: its sessions die, its pool is gone; what it sent stays in flight in the budget.
  const killedAt = performance.now();
  const aGone = a.close().catch(() => undefined);
  await killSessions(admin, 'desk-a');
  const heldByA = async () =>
    Number((await admin.query<{ n: string }>("SELECT count(*) AS n FROM rate_budget_slots WHERE desk_id = 'desk-a' AND live_until > clock_timestamp()")).rows[0]!.n);
  const heldAtCrash = await heldByA();
  while ((await heldByA()) > 0) await sleep(20);
  const releasedAt = performance.now();
  await sleep(5000);
  bRunning = false;
  await Promise.all(bWorkers);
  await Promise.race([Promise.all(aWorkers), sleep(100)]);
  const between = (from: number, to: number) => bArrivals.filter((t) => t > from && t <= to).length;
  const firstAfter = bArrivals.find((t) => t > killedAt) ?? NaN;
  console.log(`desk A crashes with requests in flight (maxRequestMs ${MAX_REQUEST_MS}, ${WORKERS} workers a desk), desk B carries on:`);
  console.log(`  A's live slots at the crash: ${heldAtCrash} (${hung} sent and never answered); bound: maxRequestMs + window + margin = ${MAX_REQUEST_MS + 1005} ms after each was reserved`);
  console.log(`  B's first request after the crash: +${fmt(firstAfter - killedAt, 0)} ms; A's slots all back: +${fmt(releasedAt - killedAt, 0)} ms after the crash`);
  console.log(`  B's rate while A's slots were held: ${fmt((between(killedAt, releasedAt) * 1000) / (releasedAt - killedAt))} req/s; in the 5 s after (from 50 ms before the poll saw them back): ${fmt(between(releasedAt - 50, releasedAt + 4950) / 5)} req/s`);
  console.log(`  most stamps in any 1000 ms: ${maxInAnyWindow(gateway.accepted)}; 429s: ${gateway.rateLimited}`);
  await b.close();
  await aGone;
}

async function main(): Promise<void> {
  const cluster = await startCluster();
  try {
    for (const scenario of [shared, crash]) {
      const url = await freshDatabase(cluster.url);
      const admin = new pg.Pool({ connectionString: url, max: 2, application_name: 'admin' });
      admin.on('error', () => undefined);
      await migratePg(admin);
      await scenario(url, admin);
      await admin.end();
    }
  } finally {
    await cluster.stop();
  }
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
