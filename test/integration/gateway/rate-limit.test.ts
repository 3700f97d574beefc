// One request budget per merchant: 300 mixed calls from 8 concurrent callers through the shared
// limiter never draw a 429 from the sandbox, and keep within 5 % of the 10/s limit.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxFixture, samplePayout, type SandboxFixture } from './sandbox-fixture';

let f: SandboxFixture;
beforeAll(async () => {
  f = await sandboxFixture({ config: { rateLimitPerSecond: 10, timings: { payoutPendingMs: 50, payoutProcessingMs: 50 } } });
});
afterAll(async () => f.close());

describe('shared rate limiter against the sandbox', () => {
  it('300 mixed calls from 8 callers: no 429, sustained rate within 5 % of the limit', async () => {
    const profile = f.ctx.profiles.get(f.profileId);
    // Two clients of the same merchant share one limiter (as the engine and the UI would).
    const a = f.ctx.gatewayFor(f.profileId);
    const limiter = f.ctx.limiterFor(profile);
    expect(a.limiter).toBe(limiter);
    await a.decodedTokenClaims();
    await a.decimals('EUR');
    const before = limiter.stats().released;

    let created = 0;
    const calls: (() => Promise<unknown>)[] = [];
    for (let i = 0; i < 300; i++) {
      const kind = i % 6;
      if (kind === 0) {
        const id = `rl-${i}`;
        calls.push(async () => {
          await a.createPayout(id, { ...samplePayout, amountMinor: 100 + i });
          created++;
        });
      } else if (kind === 1 || kind === 2) {
        calls.push(() => a.getPayout(`rl-${i - kind}`).catch(() => a.getPayout('rl-0')));
      } else if (kind === 3) calls.push(() => a.balances(['EUR', 'USD']));
      else if (kind === 4) calls.push(() => a.merchantInfo());
      else calls.push(() => a.paymentOperators());
    }

    let next = 0;
    const worker = async () => {
      while (next < calls.length) {
        const call = calls[next++]!;
        await call();
      }
    };
    await Promise.all(Array.from({ length: 8 }, worker));

    const state = f.sandbox.state();
    expect(state.rateLimitedCount).toBe(0);
    expect(created).toBe(50);
    const stats = limiter.stats();
    const sent = stats.released - before;
    // Every call is one request, except a status read that raced its create and read rl-0 instead.
    expect(sent).toBeGreaterThanOrEqual(300);
    const rate = stats.sustainedPerSec!;
    console.log(`limiter: ${sent} requests, sustained ${rate.toFixed(2)} req/s, 429s from sandbox: ${state.rateLimitedCount}`);
    expect(rate).toBeLessThanOrEqual(10);
    expect(rate).toBeGreaterThanOrEqual(9.5);
  }, 90_000);
});
