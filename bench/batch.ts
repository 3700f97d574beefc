// Batch throughput of the engine against the sandbox, through the real GatewayClient and journal.
//  1. At the gateway's default 10 requests/s, over networks the sandbox simulates (request and answer legs
//     each delayed latencyMs + 0..latencyJitterMs, optional stalls), one table, a row per network:
//     creates per second at the gateway (from its own stamps), 429s (count and % of requests sent), and the
//     time until the desk knows every payout final against the floor 2 × N / 10 s (a create and a read each).
//     Callbacks are on, as a profile with a callback URL runs. Targets: issue 16 (docs/gateway-notes.md).
//  2. With the limit raised to 1,000/s on both sides: payouts per second the engine sustains (target ≥ 500).
//     A 1,000-payout run lasts about a second, so this one is repeated (--repeat, default 5) and the
//     median and the slowest run are printed, with the engine's CPU time per payout.
// Run: npx tsx bench/batch.ts [--rows 1000] [--only slow|fast|all] [--networks loopback,100+50,300+100,stall]
//        [--repeat 5] [--sync FULL|NORMAL] [--callbacks on|off]
// (default: the network table only; settings run one after another, each about 2 × N / 10 s)
import { rmSync } from 'node:fs';
import type { FaultConfig } from '../sandbox/index';
import { createDesk, MERCHANT, payoutRows } from '../test/integration/engine/setup';
import { warmUpSamples } from '../main/gateway/rate-limiter';
import { startSandboxProcess } from './sandbox-process';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? undefined : process.argv[i + 1];
}
const COUNT = Number(arg('rows') ?? arg('count') ?? 1000);
const ONLY = arg('only') ?? 'slow';
const SYNC = arg('sync') === 'FULL' ? 'FULL' : 'NORMAL';
const CALLBACKS = arg('callbacks') !== 'off';
const REPEAT = Math.max(1, Number(arg('repeat') ?? 5));


/** Runs one batch; returns payouts per second through the engine and engine CPU ms per payout. */
async function run(limit: number, label: string): Promise<{ perSec: number; cpuMsPerPayout: number }> {
  const sandbox = await startSandboxProcess(limit);
  const desk = await createDesk({
    baseUrl: sandbox.url,
    rateLimitPerSec: limit,
    journalSynchronous: SYNC, // NORMAL is the app's default (new ids always fsynced)
    engine: { pollIntervalMs: 10_000, pollTickMs: 250, backoff: { baseMs: 500, capMs: 30_000 }, callbackListen: CALLBACKS ? { host: '127.0.0.1', port: 0 } : null },
  });
  const pem = await desk.ctx.keys.publicKeyPem(desk.profileId);
  await fetch(`${sandbox.url}/_sandbox/merchants/${MERCHANT}/keys`, { method: 'POST', body: pem, headers: { 'content-type': 'text/plain' } });
  try {
    const engine = await desk.engine();
    // Fetch the token before the clock starts: it is paid once per session, not per batch.
    await desk.ctx.gatewayFor(desk.profileId).merchantInfo();
    const rows = payoutRows(COUNT, `bench-${limit}`);
    const started = performance.now();
    const cpuBefore = process.cpuUsage();
    let lastLog = 0;
    engine.on('batch-progress', (p) => {
      if (performance.now() - lastLog > 5_000) {
        lastLog = performance.now();
        console.log(`    … ${p.sent}/${p.total} accepted, ${p.ratePerSec}/s, eta ${p.etaSeconds ?? '?'} s`);
      }
    });
    const batch = await engine.submitBatch({ fileName: 'bench.json', sha256: `bench-${limit}`, rows });
    await engine.waitForBatch(batch.id);
    const sentSecs = (performance.now() - started) / 1000;
    const cpu = process.cpuUsage(cpuBefore);
    const state = await sandbox.state();
    const created = state.payouts.map((p) => Date.parse(p.createdAt)).sort((a, b) => a - b);
    const createSpan = (created.at(-1)! - created[0]!) / 1000;
    const attempts = Object.values(state.createAttempts.payouts).reduce((a, b) => a + b, 0);
    console.log(`${label}`);
    console.log(`  payouts: ${COUNT}, stored at the gateway: ${state.payouts.length}, create attempts: ${attempts}`);
    console.log(`  creates per second at the gateway: ${((created.length - 1) / createSpan).toFixed(2)} (first to last create ${createSpan.toFixed(2)} s)`);
    const perSec = COUNT / sentSecs;
    const cpuMsPerPayout = (cpu.user + cpu.system) / 1000 / COUNT;
    console.log(`  payouts per second through the engine (submit → all accepted): ${perSec.toFixed(1)} (${sentSecs.toFixed(2)} s)`);
    console.log(`  engine CPU while sending: ${cpuMsPerPayout.toFixed(2)} ms per payout (${((cpu.user + cpu.system) / 10 / (sentSecs * 1000)).toFixed(0)} % of one core)`);
    console.log(`  429 answers from the gateway while sending: ${state.rateLimitedCount}`);
    while (engine.journal.batchCounts(batch.id).final < COUNT) await new Promise((r) => setTimeout(r, 100));
    const finalSecs = (performance.now() - started) / 1000;
    const after = await sandbox.state();
    console.log(`  time until all final: ${finalSecs.toFixed(1)} s (${after.callbacks.length} callbacks, ${after.rateLimitedCount} 429s in total)`);
    return { perSec, cpuMsPerPayout };
  } finally {
    await desk.dispose();
    sandbox.proc.kill('SIGTERM');
    rmSync(sandbox.dir, { recursive: true, force: true });
  }
}

interface Network {
  name: string;
  faults: Partial<FaultConfig>;
  /** Creates/s no rule can pass here in steady state without knowing each stamp (docs/gateway-notes.md). */
  steadyBound: number;
}

const NETWORKS: Record<string, Network> = {
  loopback: { name: 'loopback', faults: {}, steadyBound: 9.99 },
  '100+50': { name: '100 + 50 ms each way', faults: { latencyMs: 100, latencyJitterMs: 50 }, steadyBound: 10 / 1.05 },
  '300+100': { name: '300 + 100 ms each way', faults: { latencyMs: 300, latencyJitterMs: 100 }, steadyBound: 10 / 1.1 },
  stall: { name: '300 ms, 2 s stall every 20 s', faults: { latencyMs: 300, stallEveryMs: 20_000, stallForMs: 2_000 }, steadyBound: 9.0 },
};

interface NetworkRow {
  network: string;
  createsPerSec: number;
  stored: number;
  attempts: number;
  requests: number;
  rateLimited: number;
  finalSecs: number;
  floorSecs: number;
  floorMs: number;
  /** The most creates/s this batch could reach: its first round trips on the worst-case rule, the rest at the steady bound. */
  bound: number;
}

/** One batch of COUNT at 10/s over one simulated network; returns its row of the table. */
async function runNetwork(network: Network): Promise<NetworkRow> {
  const limit = 10;
  const sandbox = await startSandboxProcess(limit, { ...network.faults, seed: 16 });
  const desk = await createDesk({
    baseUrl: sandbox.url,
    rateLimitPerSec: limit,
    journalSynchronous: SYNC,
    engine: { pollIntervalMs: 10_000, pollTickMs: 250, backoff: { baseMs: 500, capMs: 30_000 }, callbackListen: CALLBACKS ? { host: '127.0.0.1', port: 0 } : null },
  });
  const pem = await desk.ctx.keys.publicKeyPem(desk.profileId);
  await fetch(`${sandbox.url}/_sandbox/merchants/${MERCHANT}/keys`, { method: 'POST', body: pem, headers: { 'content-type': 'text/plain' } });
  try {
    const engine = await desk.engine();
    const limiter = desk.ctx.limiterFor(desk.ctx.profiles.get(desk.profileId));
    // Fetch the token before the clock starts: it is paid once per session, not per batch.
    await desk.ctx.gatewayFor(desk.profileId).merchantInfo();
    const rows = payoutRows(COUNT, `bench-${network.name.replace(/[^A-Za-z0-9]+/g, '-')}`.slice(0, 40));
    const releasedBefore = limiter.stats().released;
    const limitedBefore = (await sandbox.state()).rateLimitedCount;
    const started = performance.now();
    let lastLog = started;
    const batch = await engine.submitBatch({ fileName: 'bench.json', sha256: `bench-${network.name}`, rows });
    for (;;) {
      const counts = engine.journal.batchCounts(batch.id);
      if (counts.final >= COUNT) break;
      if (performance.now() - lastLog > 20_000) {
        lastLog = performance.now();
        console.error(`    … ${network.name}: ${counts.sent}/${COUNT} accepted, ${counts.final} final after ${((lastLog - started) / 1000).toFixed(0)} s`);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    const finalSecs = (performance.now() - started) / 1000;
    const state = await sandbox.state();
    const created = state.payouts.map((p) => Date.parse(p.createdAt)).sort((a, b) => a - b);
    const createSpan = (created.at(-1)! - created[0]!) / 1000;
    return {
      network: network.name,
      createsPerSec: (created.length - 1) / createSpan,
      stored: state.payouts.length,
      attempts: Object.values(state.createAttempts.payouts).reduce((a, b) => a + b, 0),
      requests: limiter.stats().released - releasedBefore,
      rateLimited: state.rateLimitedCount - limitedBefore,
      finalSecs,
      floorSecs: (2 * COUNT) / limit,
      floorMs: limiter.stats().floorMs,
      bound: batchBound(network, COUNT, limit),
    };
  } finally {
    await desk.dispose();
    sandbox.proc.kill('SIGTERM');
    rmSync(sandbox.dir, { recursive: true, force: true });
  }
}

/**
 * A batch of n over this network, at best: the limiter's warm-up (warmUpSamples round trips, each slot held for a
 * mean round trip + a window: the stall-safe start) and then the steady bound, as creates/s between the first
 * and the last stamp. A short batch spends a larger share of itself warming up: at 300 + 100 ms, 200 rows can
 * reach about 8.4/s and 1,000 about 8.9/s against the steady 9.09.
 */
function batchBound(network: Network, n: number, limit: number): number {
  const { latencyMs = 0, latencyJitterMs = 0 } = network.faults;
  const meanRoundTripMs = 2 * (latencyMs + latencyJitterMs / 2);
  const warm = Math.min(n - 1, warmUpSamples(limit));
  const seconds = (warm * (1000 + meanRoundTripMs)) / 1000 / limit + (n - 1 - warm) / network.steadyBound;
  return (n - 1) / seconds;
}

const NETWORKS_BY_NAME = new Map(Object.values(NETWORKS).map((n) => [n.name, n]));

function networkTable(rows: NetworkRow[]): string {
  const header = ['network (each leg)', 'creates/s at gateway', 'bound for this batch', '429s (% of requests)', 'all final', 'floor 2N/10', 'over floor', 'stored / create attempts', 'learned floor (ms)'];
  const lines = rows.map((r) => [
    r.network,
    r.createsPerSec.toFixed(2),
    `${r.bound.toFixed(2)} (steady ${NETWORKS_BY_NAME.get(r.network)?.steadyBound.toFixed(2) ?? '?'})`,
    `${r.rateLimited} (${((100 * r.rateLimited) / Math.max(1, r.requests)).toFixed(2)} % of ${r.requests})`,
    `${r.finalSecs.toFixed(1)} s`,
    `${r.floorSecs.toFixed(0)} s`,
    `${(100 * (r.finalSecs / r.floorSecs - 1)).toFixed(1)} %`,
    `${r.stored} / ${r.attempts}`,
    r.floorMs.toFixed(0),
  ]);
  return [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`, ...lines.map((l) => `| ${l.join(' | ')} |`)].join('\n');
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

if (ONLY !== 'fast') {
  const names = (arg('networks') ?? Object.keys(NETWORKS).join(',')).split(',');
  const rows: NetworkRow[] = [];
  for (const name of names) {
    const network = NETWORKS[name];
    if (!network) throw new Error(`unknown network ${name}; known: ${Object.keys(NETWORKS).join(', ')}`);
    console.error(`  running ${network.name} (${COUNT} payouts) …`);
    rows.push(await runNetwork(network));
    console.error(networkTable(rows.slice(-1)));
  }
  console.log(`1) ${COUNT} payouts at 10 requests/s, callbacks ${CALLBACKS ? 'on' : 'off'}; creates/s from the sandbox's stamps; floor = 2 × N / 10 s`);
  console.log(networkTable(rows));
}
if (ONLY === 'fast' || ONLY === 'all') {
  const runs: { perSec: number; cpuMsPerPayout: number }[] = [];
  for (let i = 1; i <= REPEAT; i++) {
    runs.push(await run(1000, `2) limit 1,000 requests/s on both sides (target ≥ 500 payouts/s through the engine), run ${i} of ${REPEAT}`));
  }
  const rates = runs.map((r) => r.perSec);
  console.log(`2) over ${REPEAT} runs of ${COUNT}: median ${median(rates).toFixed(1)} payouts/s, slowest run ${Math.min(...rates).toFixed(1)}/s, fastest ${Math.max(...rates).toFixed(1)}/s; engine CPU median ${median(runs.map((r) => r.cpuMsPerPayout)).toFixed(2)} ms per payout`);
}
