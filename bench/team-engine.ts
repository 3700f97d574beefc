// Engine throughput on the team journal in PostgreSQL (issue 15): the limit raised to 1,000/s on both sides,
// a batch of N through the real GatewayClient to the sandbox in its own process, the journal and (default)
// the merchant's rate budget in a throwaway PostgreSQL cluster on this machine. Target ≥ 500 payouts/s.
// Repeated (--repeat, default 5); the median and the slowest run are printed with the engine's CPU per payout.
// --budget local keeps the rate budget in this process, to show what the shared budget costs.
// Run: npx tsx bench/team-engine.ts [--rows 1000] [--repeat 5] [--budget team|local]
import { rmSync } from 'node:fs';
import { MemoryKeyStore } from '../main/keys/key-store';
import { openTeamDesk } from '../main/compose/team-desk';
import { createDesk, MERCHANT, payoutRows } from '../test/integration/engine/setup';
import { freshDatabase, startCluster } from '../test/integration/postgres/cluster';
import { startSandboxProcess } from './sandbox-process';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? undefined : process.argv[i + 1];
}
const COUNT = Number(arg('rows') ?? 1000);
const REPEAT = Math.max(1, Number(arg('repeat') ?? 5));
const SHARED = arg('budget') !== 'local';
const LIMIT = 1000;


const cluster = await startCluster();
const sandbox = await startSandboxProcess(LIMIT);
const keyStore = new MemoryKeyStore();
const setup = await createDesk({ baseUrl: sandbox.url, rateLimitPerSec: LIMIT, keyStore });
const pem = await setup.ctx.keys.publicKeyPem(setup.profileId);
await fetch(`${sandbox.url}/_sandbox/merchants/${MERCHANT}/keys`, { method: 'POST', body: pem, headers: { 'content-type': 'text/plain' } });
const home = setup.home;
await setup.runtime.close();
setup.ctx.profiles.update(setup.profileId, { teamDatabase: { url: await freshDatabase(cluster.url), tls: 'disable', caFile: null } });
const desk = await openTeamDesk({
  home,
  keyStore,
  profileId: setup.profileId,
  deskName: 'bench',
  shareRateBudget: SHARED,
  engineOptions: { pollIntervalMs: 10_000, pollTickMs: 250, backoff: { baseMs: 500, capMs: 30_000 }, balancesIntervalMs: null, callbackListen: null },
});
try {
  // The token is paid once per session, not per batch.
  await desk.ctx.gatewayFor(setup.profileId).merchantInfo();
  const runs: { perSec: number; cpuMs: number }[] = [];
  for (let r = 0; r < REPEAT; r++) {
    const rows = payoutRows(COUNT, `team-${r}`);
    const started = performance.now();
    const cpuBefore = process.cpuUsage();
    const batch = await desk.engine.submitBatch({ fileName: 'bench.json', sha256: `team-bench-${r}`, rows });
    const done = await desk.engine.waitForBatch(batch.id);
    const secs = (performance.now() - started) / 1000;
    const cpu = process.cpuUsage(cpuBefore);
    if (done.state !== 'COMPLETED') throw new Error(`run ${r}: batch ended ${done.state}`);
    runs.push({ perSec: COUNT / secs, cpuMs: (cpu.user + cpu.system) / 1000 / COUNT });
    console.log(`  run ${r + 1}: ${(COUNT / secs).toFixed(1)} payouts/s (${secs.toFixed(2)} s), ${((cpu.user + cpu.system) / 1000 / COUNT).toFixed(2)} ms CPU per payout`);
  }
  const state = await sandbox.state();
  const sorted = [...runs].sort((a, b) => a.perSec - b.perSec);
  const median = sorted[Math.floor(sorted.length / 2)]!;
  console.log(`team engine on PostgreSQL (${SHARED ? 'rate budget in the database' : 'rate budget in this process'}), limit ${LIMIT}/s, ${COUNT} payouts × ${REPEAT}:`);
  console.log(`  median ${median.perSec.toFixed(1)} payouts/s, slowest ${sorted[0]!.perSec.toFixed(1)}/s; engine CPU ${median.cpuMs.toFixed(2)} ms per payout (median run)`);
  console.log(`  stored at the gateway: ${state.payouts.length} of ${COUNT * REPEAT}; 429 answers: ${state.rateLimitedCount}`);
} finally {
  await desk.close();
  setup.ctx.close();
  rmSync(home, { recursive: true, force: true });
  sandbox.proc.kill('SIGTERM');
  rmSync(sandbox.dir, { recursive: true, force: true });
  await cluster.stop();
}
