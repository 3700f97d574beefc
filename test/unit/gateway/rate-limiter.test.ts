// The limiter's promises: never more than `limit` releases in any window (+ margin), higher lanes
// first, a Retry-After pause holds everyone, and usage() reports what the UI shows.
import { describe, expect, it } from 'vitest';
import { RateLimiter, RateLimiterRegistry, type Lane } from '../../../main/gateway/rate-limiter';

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Largest number of release times inside any half-open window of `span` ms. */
function maxInAnyWindow(times: number[], span: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let best = 0;
  for (let i = 0, j = 0; i < sorted.length; i++) {
    while (sorted[i]! - sorted[j]! >= span) j++;
    best = Math.max(best, i - j + 1);
  }
  return best;
}

describe('RateLimiter', () => {
  it('never releases more than the limit in any window, and keeps close to the limit', async () => {
    const limiter = new RateLimiter({ limit: 5, windowMs: 200, marginMs: 10 });
    const released: number[] = [];
    const started = performance.now();
    await Promise.all(Array.from({ length: 30 }, () => limiter.run('list', async () => void released.push(performance.now()))));
    const elapsed = performance.now() - started;
    expect(maxInAnyWindow(released, 200)).toBeLessThanOrEqual(5);
    expect(maxInAnyWindow(released, 210)).toBeLessThanOrEqual(5);
    // 30 requests at 5 per 210 ms: the last batch starts after 5 full spans (≈1050 ms); not much later.
    expect(elapsed).toBeGreaterThanOrEqual(1040);
    expect(elapsed).toBeLessThan(1400);
  });

  it('releases waiting requests by lane priority: token > create > status > list', async () => {
    const limiter = new RateLimiter({ limit: 1, windowMs: 100, marginMs: 0 });
    const order: string[] = [];
    const done = await limiter.acquire('list'); // fills the window
    const lanes: Lane[] = ['list', 'status', 'create', 'token', 'status', 'create'];
    const all = Promise.all(lanes.map((lane, i) => limiter.run(lane, async () => void order.push(`${lane}${i}`))));
    done();
    await all;
    expect(order).toEqual(['token3', 'create2', 'create5', 'status1', 'status4', 'list0']);
  });

  it('holds a slot while its request is in flight, and one window after its answer', async () => {
    const limiter = new RateLimiter({ limit: 1, windowMs: 100, marginMs: 0 });
    const starts: number[] = [];
    const t0 = performance.now();
    await Promise.all([
      limiter.run('create', async () => {
        starts.push(performance.now() - t0);
        await sleep(150);
      }),
      limiter.run('create', async () => void starts.push(performance.now() - t0)),
    ]);
    // A gateway stamping the first request at any moment up to its answer (150 ms) still sees the
    // second one more than a window later.
    expect(starts[1]! - starts[0]!).toBeGreaterThanOrEqual(249);
  });

  it('pauses every lane for Retry-After and never shortens a longer pause', async () => {
    const limiter = new RateLimiter({ limit: 100 });
    limiter.pauseFor(300);
    limiter.pauseFor(50);
    const started = performance.now();
    await limiter.run('token', async () => undefined);
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
  });

  it('reports slots in the window, the limit and queued requests per lane', async () => {
    const limiter = new RateLimiter({ limit: 2, windowMs: 150, marginMs: 0 });
    const first = [await limiter.acquire('create'), await limiter.acquire('create')];
    const pending = [limiter.acquire('status'), limiter.acquire('list'), limiter.acquire('list')];
    const usage = limiter.usage();
    expect(usage).toMatchObject({ inWindow: 2, limit: 2, queued: { token: 0, create: 0, status: 1, list: 2 } });
    first.forEach((done) => done());
    for (const p of pending) (await p)();
    await sleep(320);
    expect(limiter.usage()).toMatchObject({ inWindow: 0, queued: { status: 0, list: 0 } });
  });

  it('measures the steady rate as limit per window actually taken', async () => {
    let t = 0;
    const limiter = new RateLimiter({ limit: 2, windowMs: 1000, marginMs: 10, now: () => t });
    for (const at of [0, 1010, 2020]) {
      t = at;
      (await limiter.acquire('list'))();
      (await limiter.acquire('list'))();
    }
    expect(limiter.stats()).toMatchObject({ released: 6, firstReleaseAt: 0, lastReleaseAt: 2020 });
    expect(limiter.stats().sustainedPerSec).toBeCloseTo(2000 / 1010, 6);
  });

  it('tells per lane how long ago it last let a request go (the poller waits while creates flow)', async () => {
    let t = 0;
    const limiter = new RateLimiter({ limit: 10, windowMs: 1000, marginMs: 10, now: () => t });
    expect(limiter.usage().msSinceRelease).toEqual({ token: null, create: null, status: null, list: null });
    t = 100;
    (await limiter.acquire('create'))();
    t = 250;
    (await limiter.acquire('status'))();
    t = 400;
    expect(limiter.usage().msSinceRelease).toEqual({ token: null, create: 300, status: 150, list: null });
    // Answers do not count as releases: only a new request of the lane resets its figure.
    t = 1_500;
    expect(limiter.usage().msSinceRelease.create).toBe(1_400);
  });

  it('counts a high limit exactly: a full window holds the next request until answers leave it, however many leave at once', async () => {
    let t = 0;
    const limiter = new RateLimiter({ limit: 2000, windowMs: 1000, marginMs: 10, now: () => t });
    for (let i = 0; i < 1100; i++) (await limiter.acquire('create'))(); // answered at 0
    t = 5;
    for (let i = 0; i < 900; i++) (await limiter.acquire('create'))(); // answered at 5
    expect(limiter.usage().inWindow).toBe(2000);
    let released = false;
    void limiter.acquire('create').then((done) => {
      released = true;
      done();
    });
    await sleep(10);
    expect(released).toBe(false);
    expect(limiter.usage().queued.create).toBe(1);

    // The 1,100 answers of t = 0 leave together (the limiter drops them from its list in one go).
    t = 1010;
    const next = await limiter.acquire('create');
    await sleep(0);
    expect(released).toBe(true);
    expect(limiter.usage()).toMatchObject({ inWindow: 902, queued: { create: 0 } }); // 900 of t = 5, two since
    next();
    t = 1015;
    expect(limiter.usage().inWindow).toBe(2);
  });

  it('rejects a limit that is not a positive integer', () => {
    expect(() => new RateLimiter({ limit: 0 })).toThrow(/positive integer/);
  });

  it('shares one limiter per merchant and base URL', () => {
    const registry = new RateLimiterRegistry();
    const a = registry.for('http://gw/', 'M1', 10);
    expect(registry.for('http://gw', 'M1', 10)).toBe(a);
    expect(registry.for('http://gw', 'M2', 10)).not.toBe(a);
    expect(registry.for('http://other', 'M1', 10)).not.toBe(a);
  });
});
