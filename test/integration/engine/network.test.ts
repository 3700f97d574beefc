// A batch over a slow, jittery network with stalls (both legs delayed by the sandbox): the limiter's estimate
// of where the gateway stamped each request must keep it out of 429s, and every payout is stored once and read
// to its final status. Correctness only: the rates are measured by bench/batch.ts.
import { afterEach, describe, expect, it } from 'vitest';
import type { SandboxHandle } from '../../../sandbox/index';
import { createDesk, payoutRows, sandboxConfig, startSandbox, until, type Desk } from './setup';

let desk: Desk | undefined;
let sandbox: SandboxHandle | undefined;
afterEach(async () => {
  await desk?.dispose();
  await sandbox?.close();
});

describe('batch over a slow network', () => {
  it('80 payouts at 10/s over 60 + 40 ms each way with 600 ms stalls: no 429, each stored once, all final', { timeout: 120_000 }, async () => {
    sandbox = await startSandbox(sandboxConfig({ faults: { latencyMs: 60, latencyJitterMs: 40, stallEveryMs: 4_000, stallForMs: 600, seed: 3 } }));
    desk = await createDesk({ baseUrl: sandbox.url, sandbox, rateLimitPerSec: 10 });
    const engine = await desk.engine();
    const rows = payoutRows(80, 'net');
    const batch = await engine.submitBatch({ fileName: 'net.json', sha256: 'net', rows });
    await engine.waitForBatch(batch.id);
    await until(() => engine.journal.batchCounts(batch.id).final === 80, 60_000, 'all 80 final');

    const state = sandbox.state();
    expect(state.rateLimitedCount).toBe(0);
    const stored = state.payouts.filter((p) => p.idPayout.startsWith('net-'));
    expect(stored).toHaveLength(80);
    for (const row of rows) expect(state.createAttempts.payouts[row.idPayout]).toBe(1);
    const limiter = desk.ctx.limiterFor(desk.ctx.profiles.get(desk.profileId));
    // The round trips taught the limiter a floor (both legs' 60 ms and more), so it did not run on the worst case.
    expect(limiter.stats().floorMs).toBeGreaterThan(60);
  });
});
