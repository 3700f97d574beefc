// One request budget per merchant: 300 mixed calls from 8 concurrent callers through the shared
// limiter all succeed, never draw a 429 from the sandbox, and keep within 5 % of the 10/s limit,
// measured both by the limiter and by what the sandbox actually received over the wall time.
import diagnostics from 'node:diagnostics_channel';
import type { IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxFixture, samplePayout, type SandboxFixture } from './sandbox-fixture';

let f: SandboxFixture;
beforeAll(async () => {
  f = await sandboxFixture({ config: { rateLimitPerSecond: 10, timings: { payoutPendingMs: 50, payoutProcessingMs: 50 } } });
});
afterAll(async () => f.close());

/** Arrival time and route of every request the HTTP server on `port` receives, from inside this process. */
function arrivalsOn(port: number) {
  const arrivals: { at: number; what: string }[] = [];
  const onStart = (message: unknown) => {
    const { server, request } = message as { server: Server; request: IncomingMessage };
    if ((server.address() as AddressInfo | null)?.port === port) arrivals.push({ at: performance.now(), what: `${request.method} ${request.url}` });
  };
  diagnostics.subscribe('http.server.request.start', onStart);
  return { arrivals, stop: () => diagnostics.unsubscribe('http.server.request.start', onStart) };
}

describe('shared rate limiter against the sandbox', () => {
  it('300 mixed calls from 8 callers: all succeed, no 429, sustained rate within 5 % of the limit', async () => {
    const profile = f.ctx.profiles.get(f.profileId);
    // Two clients of the same merchant share one limiter (as the engine and the UI would).
    const a = f.ctx.gatewayFor(f.profileId);
    const limiter = f.ctx.limiterFor(profile);
    expect(a.limiter).toBe(limiter);
    await a.decodedTokenClaims();
    await a.decimals('EUR');
    // Let the warm-up requests leave the window, so the run starts from an empty budget.
    await new Promise((r) => setTimeout(r, 1_100));
    const before = limiter.stats().released;

    const creates = new Map<string, Promise<unknown>>();
    const calls: (() => Promise<unknown>)[] = [];
    for (let i = 0; i < 300; i++) {
      const kind = i % 6;
      if (kind === 0) {
        const id = `rl-${i}`;
        calls.push(() => {
          const created = a.createPayout(id, { ...samplePayout, amountMinor: 100 + i });
          creates.set(id, created);
          return created;
        });
      } else if (kind === 1 || kind === 2) {
        // Read the payout created just before; a caller waits for that create, it does not race it.
        const id = `rl-${i - kind}`;
        calls.push(async () => {
          await creates.get(id);
          const read = await a.getPayout(id);
          expect(read.idPayout).toBe(id);
          return read;
        });
      } else if (kind === 3) calls.push(() => a.balances(['EUR', 'USD']));
      else if (kind === 4) calls.push(() => a.merchantInfo());
      else calls.push(() => a.paymentOperators());
    }

    const received = arrivalsOn(f.sandbox.port);
    let next = 0;
    let completed = 0;
    const worker = async () => {
      while (next < calls.length) {
        const call = calls[next++]!;
        await call(); // any failure fails the test: every call must succeed
        completed++;
      }
    };
    const started = performance.now();
    try {
      await Promise.all(Array.from({ length: 8 }, worker));
    } finally {
      received.stop();
    }
    const wallMs = performance.now() - started;

    const state = f.sandbox.state();
    expect(state.rateLimitedCount).toBe(0);
    expect(completed).toBe(300);
    expect(Object.keys(state.createAttempts.payouts).filter((id) => id.startsWith('rl-'))).toHaveLength(50);
    // Each call was exactly one request (no retries, no token refresh), as the limiter and the sandbox both count.
    const stats = limiter.stats();
    expect(stats.released - before).toBe(300);
    expect(received.arrivals).toHaveLength(300);

    const limiterRate = stats.sustainedPerSec!;
    const sandboxRate = (received.arrivals.length * 1000) / wallMs;
    console.log(
      `limiter: ${stats.released - before} requests, sustained ${limiterRate.toFixed(2)} req/s; ` +
        `sandbox: ${received.arrivals.length} received in ${(wallMs / 1000).toFixed(2)} s = ${sandboxRate.toFixed(2)} req/s; 429s: ${state.rateLimitedCount}`,
    );
    expect(limiterRate).toBeLessThanOrEqual(10);
    expect(limiterRate).toBeGreaterThanOrEqual(9.5);
    expect(sandboxRate).toBeGreaterThanOrEqual(9.5);
    expect(sandboxRate).toBeLessThanOrEqual(10.5);
  }, 90_000);
});
