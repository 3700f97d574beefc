// A simulated network and gateway for the rate limiter, on a fake clock: deterministic and replayable by
// seed. Each request's legs are drawn as the sandbox draws them (sandbox/faults.ts: latency + uniform
// 0..jitter per leg, answer legs apart, stalls holding requests until they end) plus a little processing on
// either side; the gateway applies the sandbox's own sliding window (sandbox/rate-limit.ts) to integer-ms
// stamps, and answers 429 with Retry-After in whole seconds, as the sandbox does. Callers behave as the
// transport does: a 429 reports rateLimited(Retry-After) to the limiter and the request is tried again.
import { RateLimiter, type Lane } from '../../../main/gateway/rate-limiter';
import { SlidingWindowLimiter } from '../../../sandbox/rate-limit';
import { Prng } from '../../simulation/prng';

export interface NetworkSpec {
  seed: number;
  reqBaseMs: number;
  reqJitterMs: number;
  ansBaseMs: number;
  ansJitterMs: number;
  /** 0 = no stalls. */
  stallEveryMs: number;
  stallForMs: number;
  /** Where the stall cycle stands at time 0. */
  stallPhaseMs: number;
  /** Up to this much processing (uniform, fractional ms) before the stamp and again after it. */
  processingMs: number;
  createCallers: number;
  statusCallers: number;
  /** Requests the callers make in all (retries after a 429 not counted). */
  requests: number;
}

export interface SimResult {
  spec: NetworkSpec;
  /** Requests that reached the gateway (retries included). */
  arrivals: number;
  refused: number;
  /** Accepted stamps (gateway ms). */
  stamps: number[];
  /** Largest number of accepted stamps in any window (the gateway's own rule: never above the limit). */
  maxInWindow: number;
  /** Accepted requests per second between the first and the last stamp. */
  perSec: number;
}

/** The simulation's seeded generator (mulberry32, as the sandbox's faults), as a function. */
export function prng(seed: number): () => number {
  const generator = new Prng(seed);
  return () => generator.next();
}

const pick = <T>(random: () => number, items: readonly T[]): T => items[Math.floor(random() * items.length)]!;

/** A network of the kinds the sandbox can produce, chosen by seed. */
export function randomNetwork(seed: number, requests = 300): NetworkSpec {
  const random = prng(seed * 7919 + 17);
  const reqBaseMs = pick(random, [0, 0, 1, 2, 5, 20, 50, 100, 100, 150, 300, 300, 500]);
  const reqJitterMs = pick(random, [0, 0, 1, 5, 20, 50, 50, 100, 100, 200]);
  const apart = random() < 0.4;
  const stalls = random() < 0.3;
  const stallEveryMs = stalls ? pick(random, [3_000, 5_000, 20_000]) : 0;
  return {
    seed,
    reqBaseMs,
    reqJitterMs,
    ansBaseMs: apart ? pick(random, [0, 1, 20, 100, 300]) : reqBaseMs,
    ansJitterMs: apart ? pick(random, [0, 5, 50, 100, 200]) : reqJitterMs,
    stallEveryMs,
    stallForMs: stalls ? pick(random, [100, 500, 2_000]) : 0,
    stallPhaseMs: Math.floor(random() * 20_000),
    processingMs: pick(random, [0, 0.5, 1, 3]),
    createCallers: 11 + Math.floor(random() * 20),
    statusCallers: Math.floor(random() * 6),
    requests,
  };
}

interface Event {
  at: number;
  seq: number;
  fn: () => void;
  cancelled?: boolean;
}

/** A binary min-heap of events by (time, sequence). */
class EventQueue {
  private heap: Event[] = [];
  private seq = 0;

  get size(): number {
    return this.heap.length;
  }

  push(at: number, fn: () => void): Event {
    const event: Event = { at, seq: this.seq++, fn };
    const h = this.heap;
    h.push(event);
    let i = h.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(h[i]!, h[parent]!)) break;
      [h[i], h[parent]] = [h[parent]!, h[i]!];
      i = parent;
    }
    return event;
  }

  pop(): Event | undefined {
    const h = this.heap;
    const top = h[0];
    const last = h.pop();
    if (h.length > 0 && last) {
      h[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < h.length && before(h[l]!, h[m]!)) m = l;
        if (r < h.length && before(h[r]!, h[m]!)) m = r;
        if (m === i) break;
        [h[i], h[m]] = [h[m]!, h[i]!];
        i = m;
      }
    }
    return top;
  }
}

function before(a: Event, b: Event): boolean {
  return a.at < b.at || (a.at === b.at && a.seq < b.seq);
}

const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

export async function simulate(spec: NetworkSpec, limit = 10, windowMs = 1_000): Promise<SimResult> {
  const random = prng(spec.seed);
  let t = 0;
  const events = new EventQueue();
  const limiter = new RateLimiter({
    limit,
    windowMs,
    now: () => t,
    timers: {
      set: (fn, ms) => events.push(t + ms, fn),
      clear: (handle) => void ((handle as Event).cancelled = true),
    },
  });
  const gateway = new SlidingWindowLimiter(limit, () => Math.floor(t));
  const stamps: number[] = [];
  let arrivals = 0;
  let refused = 0;

  const leg = (base: number, jitter: number) => base + (jitter > 0 ? Math.floor(random() * (jitter + 1)) : 0) + random() * spec.processingMs;
  const stallWait = (at: number): number => {
    if (spec.stallEveryMs <= 0 || spec.stallForMs <= 0) return 0;
    const phase = (at + spec.stallPhaseMs) % spec.stallEveryMs;
    return phase >= spec.stallEveryMs - spec.stallForMs ? spec.stallEveryMs - phase : 0;
  };

  /** One try through the network: resolves with the gateway's decision when the answer arrives. */
  const send = () =>
    new Promise<{ ok: true } | { ok: false; retryAfterMs: number }>((resolve) => {
      events.push(t + leg(spec.reqBaseMs, spec.reqJitterMs), () => {
        const decide = () => {
          arrivals++;
          const decision = gateway.take('M');
          if (decision.allowed) stamps.push(Math.floor(t));
          else refused++;
          const answer = decision.allowed ? ({ ok: true } as const) : ({ ok: false, retryAfterMs: Math.max(1, Math.ceil(decision.retryAfterMs / 1000)) * 1000 } as const);
          events.push(t + leg(spec.ansBaseMs, spec.ansJitterMs), () => resolve(answer));
        };
        const wait = stallWait(t);
        if (wait > 0) events.push(t + wait, decide);
        else decide();
      });
    });

  const request = async (lane: Lane): Promise<void> => {
    for (;;) {
      const done = await limiter.acquire(lane);
      const answer = await send();
      done(answer.ok ? 'answered' : 'rate-limited');
      if (answer.ok) return;
      limiter.rateLimited(answer.retryAfterMs);
    }
  };

  let remaining = spec.requests;
  const caller = async (lane: Lane) => {
    while (remaining > 0) {
      remaining--;
      await request(lane);
    }
  };
  const callers = [
    ...Array.from({ length: spec.createCallers }, () => caller('create')),
    ...Array.from({ length: spec.statusCallers }, () => caller('status')),
  ];
  const all = Promise.all(callers);
  let finished = false;
  void all.then(() => (finished = true));
  await flush();
  while (!finished) {
    const event = events.pop();
    if (!event) throw new Error(`simulation of seed ${spec.seed} stalled with nothing scheduled`);
    if (event.cancelled) continue;
    t = Math.max(t, event.at);
    event.fn();
    await flush();
  }
  await all;

  let maxInWindow = 0;
  for (let i = 0, j = 0; i < stamps.length; i++) {
    while (stamps[i]! - stamps[j]! >= windowMs) j++;
    maxInWindow = Math.max(maxInWindow, i - j + 1);
  }
  const span = stamps.at(-1)! - stamps[0]!;
  return { spec, arrivals, refused, stamps, maxInWindow, perSec: span > 0 ? ((stamps.length - 1) * 1000) / span : 0 };
}
