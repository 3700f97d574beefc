// Batch throughput of the engine against the sandbox, through the real GatewayClient and journal.
//  1. At the gateway's default 10 requests/s: creates per second achieved (target ≥ 9.5), 429s (target 0),
//     time until every payout is final (callbacks on, as a profile with a callback URL runs).
//  2. With the limit raised to 1,000/s on both sides: payouts per second the engine sustains (target ≥ 500).
//     A 1,000-payout run lasts about a second, so this one is repeated (--repeat, default 5) and the
//     median and the slowest run are printed, with the engine's CPU time per payout.
// Run: npx tsx bench/batch.ts [--count 1000] [--only slow|fast] [--repeat 5] [--sync FULL|NORMAL] [--callbacks on|off]
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SandboxState } from '../sandbox/index';
import { createDesk, MERCHANT, payoutRows } from '../test/integration/engine/setup';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? undefined : process.argv[i + 1];
}
const COUNT = Number(arg('count') ?? 1000);
const ONLY = arg('only');
const SYNC = arg('sync') === 'FULL' ? 'FULL' : 'NORMAL';
const CALLBACKS = arg('callbacks') !== 'off';
const REPEAT = Math.max(1, Number(arg('repeat') ?? 5));

/** The sandbox in its own process, as a real gateway would be: it does not share the engine's CPU time. */
async function startSandboxProcess(limit: number): Promise<{ url: string; proc: ChildProcess; state(): Promise<SandboxState>; dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-batch-'));
  const configFile = join(dir, 'sandbox.json');
  writeFileSync(configFile, JSON.stringify({ rateLimitPerSecond: limit }));
  const proc = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, '..', 'sandbox', 'cli.ts'), '--port', '0', '--config', configFile], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    proc.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    proc.on('exit', (code) => reject(new Error(`sandbox exited with ${code}`)));
  });
  return { url, proc, dir, state: async () => (await (await fetch(`${url}/_sandbox/state`)).json()) as SandboxState };
}

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
    const engine = await desk.runtime.engineFor(desk.profileId);
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
    const batch = engine.submitBatch({ fileName: 'bench.json', sha256: `bench-${limit}`, rows });
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

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

if (ONLY !== 'fast') await run(10, `1) limit 10 requests/s on both sides (target ≥ 9.5 creates/s, 0 × 429)`);
if (ONLY !== 'slow') {
  const runs: { perSec: number; cpuMsPerPayout: number }[] = [];
  for (let i = 1; i <= REPEAT; i++) {
    runs.push(await run(1000, `2) limit 1,000 requests/s on both sides (target ≥ 500 payouts/s through the engine), run ${i} of ${REPEAT}`));
  }
  const rates = runs.map((r) => r.perSec);
  console.log(`2) over ${REPEAT} runs of ${COUNT}: median ${median(rates).toFixed(1)} payouts/s, slowest run ${Math.min(...rates).toFixed(1)}/s, fastest ${Math.max(...rates).toFixed(1)}/s; engine CPU median ${median(runs.map((r) => r.cpuMsPerPayout)).toFixed(2)} ms per payout`);
}
