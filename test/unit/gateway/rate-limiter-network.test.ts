// Property tests of the rate limiter against simulated networks (test/unit/gateway/network-sim.ts): a fake
// clock, seeded delay distributions of the kinds the sandbox produces (latency, jitter, answer legs apart,
// stalls) and a gateway applying the sandbox's sliding window. Replay a failure with its seed:
// simulate(randomNetwork(seed)). Rates here are in simulated time: deterministic, not timed.
import { describe, expect, it } from 'vitest';
import { RateLimiter } from '../../../main/gateway/rate-limiter';
import { randomNetwork, simulate, type NetworkSpec } from './network-sim';

const describeSpec = (s: NetworkSpec) =>
  `seed ${s.seed}: request ${s.reqBaseMs}+${s.reqJitterMs} ms, answer ${s.ansBaseMs}+${s.ansJitterMs} ms, stall ${s.stallForMs} of every ${s.stallEveryMs} ms, processing ≤ ${s.processingMs} ms, ${s.createCallers} create + ${s.statusCallers} status callers`;

describe('rate limiter on simulated networks', () => {
  it('across 200 seeded networks: 429s within 0.5 % in all, never more than one per network, and close to the limit', async () => {
    let arrivals = 0;
    let refused = 0;
    for (let seed = 1; seed <= 200; seed++) {
      const spec = randomNetwork(seed);
      const result = await simulate(spec);
      arrivals += result.arrivals;
      refused += result.refused;
      // The gateway model itself: refused requests never enter its window.
      expect(result.maxInWindow, describeSpec(spec)).toBeLessThanOrEqual(10);
      expect(result.stamps.length, describeSpec(spec)).toBe(spec.requests);
      // No storm: a wrong estimate costs one 429 (slow start), then the margin grows and every lane pauses.
      expect(result.refused, describeSpec(spec)).toBeLessThanOrEqual(1);
      if (spec.stallEveryMs === 0) {
        // Not timid: within 15 % of limit / (window + mean jitter of both legs + processing), start-up included
        // (the worst-case rule would be limit / (window + the whole round trip)).
        const bound = 10_000 / (1_000 + (spec.reqJitterMs + spec.ansJitterMs) / 2 + 2 * spec.processingMs);
        expect(result.perSec, describeSpec(spec)).toBeGreaterThanOrEqual(0.85 * bound);
      }
    }
    expect(refused / arrivals).toBeLessThanOrEqual(0.005);
  });

  it('reaches the bench networks’ rates with no 429 (1,000 requests each)', async () => {
    const base = { processingMs: 1, createCallers: 20, statusCallers: 0, requests: 1_000, stallEveryMs: 0, stallForMs: 0, stallPhaseMs: 0 };
    const settings: [string, Partial<NetworkSpec>, number][] = [
      ['loopback', { reqBaseMs: 0, reqJitterMs: 1, ansBaseMs: 0, ansJitterMs: 1 }, 9.9],
      ['100 + 50 ms', { reqBaseMs: 100, reqJitterMs: 50, ansBaseMs: 100, ansJitterMs: 50 }, 9.35],
      ['300 + 100 ms', { reqBaseMs: 300, reqJitterMs: 100, ansBaseMs: 300, ansJitterMs: 100 }, 8.75],
      ['300 ms, 2 s stall every 20 s', { reqBaseMs: 300, reqJitterMs: 0, ansBaseMs: 300, ansJitterMs: 0, stallEveryMs: 20_000, stallForMs: 2_000 }, 8.9],
    ];
    for (const [name, network, atLeast] of settings) {
      for (const seed of [1, 2, 3]) {
        const result = await simulate({ ...base, ...network, seed } as NetworkSpec);
        expect(result.refused, `${name}, seed ${seed}`).toBe(0);
        expect(result.perSec, `${name}, seed ${seed}`).toBeGreaterThanOrEqual(atLeast);
      }
    }
  });

  it('a session starting inside a long stall does not take the stall for the round trip', async () => {
    // Every request of the first seconds waits for the stall; the first clean ones must not be sent on that estimate.
    const spec: NetworkSpec = {
      seed: 5, reqBaseMs: 5, reqJitterMs: 0, ansBaseMs: 100, ansJitterMs: 200, stallEveryMs: 20_000, stallForMs: 2_000,
      stallPhaseMs: 18_100, processingMs: 0.5, createCallers: 14, statusCallers: 4, requests: 300,
    };
    const result = await simulate(spec);
    expect(result.refused).toBe(0);
  });
});

/** A limiter on a hand-moved clock, its wake-ups run by `advance`. */
function manualLimiter(limit: number) {
  let t = 0;
  let timers: { at: number; fn: () => void; cancelled: boolean }[] = [];
  const limiter = new RateLimiter({
    limit,
    windowMs: 1_000,
    marginMs: 0,
    now: () => t,
    timers: {
      set: (fn, ms) => {
        const timer = { at: t + ms, fn, cancelled: false };
        timers.push(timer);
        return timer;
      },
      clear: (handle) => void ((handle as { cancelled: boolean }).cancelled = true),
    },
  });
  const advance = async (to: number) => {
    for (;;) {
      const due = timers.filter((x) => !x.cancelled && x.at <= to).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      timers = timers.filter((x) => x !== due);
      t = due.at;
      due.fn();
      await new Promise((r) => setImmediate(r));
    }
    t = to;
    await new Promise((r) => setImmediate(r));
  };
  return { limiter, advance, at: (to: number) => (t = to) };
}

describe('rate limiter: floors learned from round trips', () => {
  it('with a learned floor of F ms, a slot answered at a is free again at a − F + window, not a + window', async () => {
    const { limiter, advance, at } = manualLimiter(1);
    // Teach a steady 200 ms round trip: 4 (at least 3 × limit) answered requests.
    let t = 0;
    for (let i = 0; i < 4; i++) {
      const done = await limiter.acquire('create');
      at((t += 200));
      done('answered');
      await advance((t += 1_000));
    }
    expect(limiter.stats().floorMs).toBe(200);
    const done = await limiter.acquire('create');
    at((t += 200));
    done('answered');
    let released = false;
    void limiter.acquire('create').then(() => (released = true));
    await advance(t + 799);
    expect(released).toBe(false);
    await advance(t + 800); // answered at t, floor 200: free at t − 200 + 1000
    expect(released).toBe(true);
  });

  it('a request in flight holds its slot however long; one ended without an answer holds it a whole window after', async () => {
    const { limiter, advance, at } = manualLimiter(1);
    const first = await limiter.acquire('create');
    let released = false;
    const second = limiter.acquire('create').then((d) => {
      released = true;
      return d;
    });
    await advance(60_000);
    expect(released).toBe(false);
    at(60_000);
    first('no-answer');
    await advance(60_999);
    expect(released).toBe(false);
    await advance(61_000);
    expect(released).toBe(true);
    (await second)('answered');
  });

  it('a 429 pauses every lane and grows the margin once per burst; clean answers shrink it again', async () => {
    const { limiter, advance, at } = manualLimiter(2);
    let t = 0;
    const answerAfter = async (ms: number, outcome: 'answered' | 'rate-limited') => {
      const done = await limiter.acquire('create');
      at((t += ms));
      done(outcome);
      await advance((t += 1_000));
    };
    for (let i = 0; i < 6; i++) await answerAfter(300, 'answered');
    expect(limiter.stats().floorMs).toBe(300);
    const done = await limiter.acquire('create');
    at((t += 300));
    done('rate-limited');
    limiter.rateLimited(1_000);
    limiter.rateLimited(1_000); // another 429 of the same burst: no second lesson
    expect(limiter.stats()).toMatchObject({ rateLimited: 2, extraMarginMs: 10, floorMs: 290 });
    expect(limiter.usage().pausedForMs).toBe(1_000);
    let listDone: ((outcome: 'answered') => void) | undefined;
    void limiter.acquire('list').then((d) => (listDone = d));
    await advance(t + 999);
    expect(listDone).toBeUndefined();
    await advance((t += 1_000));
    expect(listDone).toBeDefined();
    at((t += 300));
    listDone!('answered');
    await advance((t += 1_000));
    // A later 429 (after the pause) is a new lesson: 10 → 30.
    const again = await limiter.acquire('create');
    at((t += 300));
    again('rate-limited');
    limiter.rateLimited(1_000);
    expect(limiter.stats().extraMarginMs).toBe(30);
    await advance((t += 1_000));
    // Every `limit` (2) clean answers take a tenth off.
    for (let i = 0; i < 4; i++) await answerAfter(300, 'answered');
    expect(limiter.stats().extraMarginMs).toBe(30 - 3 - 2);
  });
});
