// A batch of 300 through a misbehaving gateway: 5xx after storing, connections dropped after storing,
// 5xx before storing, latency spikes past the client's time-out, and 429 bursts (the client is allowed
// more than the sandbox accepts). Every payout must be stored exactly once and end with the right status.
import { afterEach, describe, expect, it } from 'vitest';
import type { SandboxHandle } from '../../../sandbox/index';
import { createDesk, payoutRows, sandboxConfig, startSandbox, until, type Desk } from './setup';

let desk: Desk | undefined;
let sandbox: SandboxHandle | undefined;
afterEach(async () => {
  await desk?.dispose();
  await sandbox?.close();
});

describe('batch under gateway faults', () => {
  it('stores every payout exactly once and records every final status right', { timeout: 150_000 }, async () => {
    sandbox = await startSandbox(sandboxConfig({
      rateLimitPerSecond: 60,
      faults: {
        failAfterStoreProbability: 0.08,
        dropAfterStoreProbability: 0.08,
        failBeforeStoreProbability: 0.05,
        latencyMs: 0,
        latencyJitterMs: 900,
        seed: 42,
      },
    }));
    // The client's budget is above the sandbox's, so bursts meet 429s; its time-out is below the latency spikes.
    desk = await createDesk({ baseUrl: sandbox.url, sandbox, rateLimitPerSec: 100, fetchTimeoutMs: 700 });
    const engine = await desk.engine();
    const rows = payoutRows(300, 'fault');
    const batch = await engine.submitBatch({ fileName: 'faults.json', sha256: 'faults', rows });
    const afterRun = await engine.waitForBatch(batch.id);
    expect(afterRun.state).toBe('COMPLETED');

    sandbox.setFaults({ latencyJitterMs: 0, failAfterStoreProbability: 0, dropAfterStoreProbability: 0, failBeforeStoreProbability: 0 });
    await until(() => engine.journal.batchCounts(batch.id).final === 300, 90_000, 'all 300 final');

    const state = sandbox.state();
    const stored = state.payouts.filter((p) => p.idPayout.startsWith('fault-'));
    expect(stored).toHaveLength(300);
    expect(new Set(stored.map((p) => p.idPayout))).toEqual(new Set(rows.map((r) => r.idPayout)));
    const attempts = Object.values(state.createAttempts.payouts);
    // The faults really happened: some ids needed more than one create.
    expect(attempts.some((n) => n > 1)).toBe(true);
    expect(state.rateLimitedCount).toBeGreaterThan(0);

    const bySandbox = new Map(stored.map((p) => [p.idPayout, p]));
    for (const p of engine.journal.batchPayments(batch.id)) {
      const truth = bySandbox.get(p.id)!;
      expect({ id: p.id, status: p.status, amount: p.amountMinor }).toEqual({ id: p.id, status: truth.status, amount: truth.amountMinor });
      expect(p.status).toBe(p.accountNumber.endsWith('0000') ? 'FAILED' : 'SUCCESS');
    }
    console.log(`fault test: ${attempts.reduce((a, b) => a + b, 0)} create attempts for 300 payouts, ${state.rateLimitedCount} answered 429`);
  });
});
