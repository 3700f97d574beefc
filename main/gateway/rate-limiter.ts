// One request budget per merchant, shared by every caller (token manager, engine, poller, UI).
//
// What the gateway counts: at most `limit` accepted requests in any `windowMs`, by the moment it stamps
// each one (somewhere between our send and its answer). We never see that moment, but we can bound it.
// For request k, released at r_k and answered at a_k, the stamp t_k lies in
//     [r_k + A, a_k − B]
// where A is the least time any request spends before its stamp (request leg) and B the least time any
// answer spends after it (answer leg). Requests m and n can share a window only if t_n − t_m < windowMs,
// which needs a_m − B > r_n + A − windowMs, i.e. a_m > r_n − windowMs + (A + B). So a new request may be
// released once fewer than `limit` earlier requests are still "live" by that rule, a request with no
// answer yet (in flight: it may be stamped at any time, however long a stall lasts) always being live.
// Only the sum F = A + B matters, and the least round trip measured (answer time − release time, over
// recent answered requests) is an upper estimate of it; we use
//     F = (least round trip of the last 10 minutes) − 1.5 × (its gap to the 4th least: its estimation error) − margin
// (≤ 0 = the worst case). margin is AIMD: a 429 grows it at once (and pauses every lane for Retry-After), every
// `limit` clean answers shrink it by a tenth. With F = 0 this is the old worst-case rule
// (a slot held from release to answer plus a window). A request that failed without an answer (time-out,
// dropped connection) keeps that worst-case rule: its stamp may still be to come.
//
// What it cannot know: where inside [r_k + A, a_k − B] the stamp fell. With jitter of J ms on each leg the
// slots cycle every windowMs + (jitter of the answer leg of m) + (jitter of the request leg of n), so the
// rate is about limit / (windowMs + J) — 9.1/s at 300 + 100 ms, 9.5/s at 100 + 50 ms — unless we accept 429s.
// See docs/gateway-notes.md (rate limit).
//
// Waiting requests are released by lane priority: token > create > status > list, so the poller only gets
// what creates leave free.

export const LANES = ['token', 'create', 'status', 'list'] as const;
export type Lane = (typeof LANES)[number];

/**
 * How a released request ended: with an answer ('rate-limited' for a 429, 'answered' for any other status),
 * or without one (its stamp may still be to come).
 */
export type SlotOutcome = 'answered' | 'rate-limited' | 'no-answer';

export interface LimiterTimers {
  set(fn: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

export interface RateLimiterOptions {
  /** Requests allowed per window (the gateway says 10 per second). */
  limit: number;
  windowMs?: number;
  /** Least safety margin (ms) on every estimate, absorbing clock granularity on either side. */
  marginMs?: number;
  now?: () => number;
  /** Where wake-ups are scheduled (default setTimeout): simulations put their own clock here. */
  timers?: LimiterTimers;
  /** How long a round trip counts for the floor estimate (default 10 minutes). */
  floorHorizonMs?: number;
}

export interface RateLimiterUsage {
  inWindow: number;
  limit: number;
  queued: Record<Lane, number>;
  pausedForMs: number;
  /** Milliseconds since the lane last had a request released; null if it never had one. */
  msSinceRelease: Record<Lane, number | null>;
}

export interface RateLimiterStats {
  /** Requests released since the limiter was created. */
  released: number;
  /** performance.now() of the first and last release (undefined before the first). */
  firstReleaseAt?: number;
  lastReleaseAt?: number;
  /**
   * Steady rate: `limit` divided by the mean time between a release and the release `limit` later
   * (the span one full window of requests took). Undefined until more than `limit` releases.
   */
  sustainedPerSec?: number;
  /** 429s reported (rateLimited) since the limiter was created. */
  rateLimited: number;
  /** The estimate of the two legs' floors together (ms) now in use, after the margin; ≤ 0 = worst case. */
  floorMs: number;
  /** The adaptive part of the margin now (grown by 429s, shrunk by clean answers). */
  extraMarginMs: number;
}

interface Waiter {
  lane: Lane;
  release: (done: (outcome?: SlotOutcome) => void) => void;
}

/** The floor horizon is kept as this many buckets of its 4 least round trips. */
const FLOOR_BUCKETS = 10;

const DEFAULT_TIMERS: LimiterTimers = {
  set: (fn, ms) => setTimeout(fn, ms),
  clear: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/** Sorted (append-only) times with a moving head: O(1) appends and expiry, binary search for counts. */
class TimeQueue {
  private times: number[] = [];
  private head = 0;

  push(at: number): void {
    this.times.push(at);
  }

  /** Forgets times at or before `at`. */
  dropThrough(at: number): void {
    while (this.head < this.times.length && this.times[this.head]! <= at) this.head++;
    // Drop the expired front now and then rather than shifting on every expiry.
    if (this.head > 1024 && this.head * 2 > this.times.length) {
      this.times = this.times.slice(this.head);
      this.head = 0;
    }
  }

  /** Index of the first time after `at` (binary search). */
  private firstAfter(at: number): number {
    let lo = this.head;
    let hi = this.times.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.times[mid]! <= at) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  countAfter(at: number): number {
    return this.times.length - this.firstAfter(at);
  }

  /** The earliest time after `at`, if any. */
  firstTimeAfter(at: number): number | undefined {
    return this.times[this.firstAfter(at)];
  }
}

export class RateLimiter {
  readonly limit: number;
  readonly windowMs: number;
  readonly marginMs: number;
  private readonly now: () => number;
  private readonly timers: LimiterTimers;
  /** Requests released and not yet finished: each holds a slot. */
  private inFlight = 0;
  /** Answer times of answered requests (live while answer − floor is within a window of a new request's earliest stamp). */
  private readonly answered = new TimeQueue();
  /** Finish times of requests that ended without an answer: live for a whole window + margin after. */
  private readonly unanswered = new TimeQueue();
  /** The 4 least round trips (ms) of each bucket of the floor horizon, oldest bucket first. */
  private readonly rttBuckets: { start: number; least: number[] }[] = [];
  private rttCount = 0;
  private readonly floorHorizonMs: number;
  /** Floor estimate from the round trips (before the margin); recomputed on each new sample. */
  private floorEstimate = 0;
  private extraMargin = 0;
  private cleanAnswers = 0;
  /**
   * Slow start for the estimate: requests released earlier than the worst-case rule allows ("early") may be
   * in flight at most `earlyAllowance` at a time. It doubles (up to limit) with each early request answered
   * without 429 and drops to 1 on any 429, so a wrong estimate (a stall taken for the round trip) costs one
   * 429, not a window of them.
   */
  private earlyInFlight = 0;
  private earlyAllowance = 1;
  private rateLimitedCount = 0;
  private readonly queues: Record<Lane, Waiter[]> = { token: [], create: [], status: [], list: [] };
  private pausedUntil = 0;
  private timer: unknown;
  private timerAt = 0;
  private released = 0;
  private readonly laneReleasedAt: Record<Lane, number | null> = { token: null, create: null, status: null, list: null };
  private firstReleaseAt: number | undefined;
  private lastReleaseAt: number | undefined;
  /** Release times of the first `limit` requests (with the latest ones below: the steady-rate figure). */
  private readonly firstReleases: number[] = [];
  /** Ring buffer of the latest `limit` release times; `latestNext` is where the next one goes. */
  private readonly latestReleases: number[] = [];
  private latestNext = 0;

  constructor(options: RateLimiterOptions) {
    if (!Number.isInteger(options.limit) || options.limit < 1) throw new RangeError('rate limit must be a positive integer');
    this.limit = options.limit;
    this.windowMs = options.windowMs ?? 1000;
    this.marginMs = options.marginMs ?? 5;
    this.now = options.now ?? (() => performance.now());
    this.timers = options.timers ?? DEFAULT_TIMERS;
    this.floorHorizonMs = Math.max(FLOOR_BUCKETS, options.floorHorizonMs ?? 10 * 60_000);
  }

  /**
   * Runs `fn` once a slot is free in its lane's turn. `fn` resolving means an answer arrived (whatever its
   * status); throwing means none did (time-out, network), and the slot is then held the worst-case way.
   */
  async run<T>(lane: Lane, fn: () => Promise<T>): Promise<T> {
    const done = await this.acquire(lane);
    let outcome: SlotOutcome = 'no-answer';
    try {
      const result = await fn();
      outcome = 'answered';
      return result;
    } finally {
      done(outcome);
    }
  }

  /**
   * Waits for a slot and takes it. Call the returned function when the request has ended: 'answered'
   * when its answer arrived (the round trip teaches the floor), else (the default) the slot is held a
   * whole window + margin from that moment, as for a request whose stamp may still be to come.
   */
  acquire(lane: Lane): Promise<(outcome?: SlotOutcome) => void> {
    return new Promise<(outcome?: SlotOutcome) => void>((resolve) => {
      this.queues[lane].push({ lane, release: resolve });
      this.pump();
    });
  }

  /** Holds every lane for `ms` (a Retry-After from the gateway). Extends, never shortens, a pause. */
  pauseFor(ms: number): void {
    if (!(ms > 0)) return;
    this.pausedUntil = Math.max(this.pausedUntil, this.now() + ms);
    this.pump();
  }

  /**
   * The gateway answered 429: our estimate was too bold. Every lane waits Retry-After and the margin
   * grows at once (doubled + 10 ms, up to the whole estimate: the worst-case rule); every `limit` clean
   * answers shrink it by a tenth (at least 1 ms).
   */
  rateLimited(retryAfterMs: number): void {
    this.rateLimitedCount += 1;
    this.cleanAnswers = 0;
    // The 429s of one burst (answers to requests sent before the first arrived) are one lesson, not many.
    if (this.now() >= this.pausedUntil) {
      this.extraMargin = Math.min(Math.max(this.windowMs, this.floorEstimate), this.extraMargin * 2 + 10);
    }
    this.pauseFor(retryAfterMs);
  }

  usage(): RateLimiterUsage {
    const now = this.now();
    return {
      inWindow: this.taken(now),
      limit: this.limit,
      queued: { token: this.queues.token.length, create: this.queues.create.length, status: this.queues.status.length, list: this.queues.list.length },
      pausedForMs: Math.max(0, Math.round(this.pausedUntil - now)),
      msSinceRelease: {
        token: this.sinceRelease('token', now),
        create: this.sinceRelease('create', now),
        status: this.sinceRelease('status', now),
        list: this.sinceRelease('list', now),
      },
    };
  }

  private sinceRelease(lane: Lane, now: number): number | null {
    const at = this.laneReleasedAt[lane];
    return at === null ? null : Math.max(0, now - at);
  }

  /** Counters for benchmarks and tests: how fast the limiter actually let requests through. */
  stats(): RateLimiterStats {
    const { released, firstReleaseAt, lastReleaseAt } = this;
    // Sum over i of (t[i + limit] - t[i]) telescopes to (sum of the latest `limit`) - (sum of the first `limit`).
    const pairs = released - this.limit;
    const total = sum(this.latestReleases) - sum(this.firstReleases);
    const sustainedPerSec = pairs > 0 && total > 0 ? (this.limit * pairs * 1000) / total : undefined;
    return {
      released,
      firstReleaseAt,
      lastReleaseAt,
      ...(sustainedPerSec !== undefined ? { sustainedPerSec } : {}),
      rateLimited: this.rateLimitedCount,
      floorMs: this.floor(),
      extraMarginMs: this.extraMargin,
    };
  }

  /** A + B as used now: the estimate less the margin; negative means a margin beyond the worst case. */
  protected floor(): number {
    return this.floorEstimate - this.marginMs - this.extraMargin;
  }

  /** Slots in flight, or finished but still able to share a window with a request released now. */
  private taken(now: number): number {
    this.expire(now);
    const answeredLive = this.answered.countAfter(now - this.windowMs + this.floor());
    const unansweredLive = this.unanswered.countAfter(now - this.windowMs - this.marginMs);
    return this.inFlight + answeredLive + unansweredLive;
  }

  /** Slots taken by the worst-case rule (every finished request live a whole window + margin after it ended). */
  private worstCaseTaken(now: number): number {
    const since = now - this.windowMs - this.marginMs;
    return this.inFlight + this.answered.countAfter(since) + this.unanswered.countAfter(since);
  }

  private nextWorstCaseExpiry(now: number): number | undefined {
    const since = now - this.windowMs - this.marginMs;
    const a = this.answered.firstTimeAfter(since);
    const u = this.unanswered.firstTimeAfter(since);
    const first = a === undefined ? u : u === undefined ? a : Math.min(a, u);
    return first === undefined ? undefined : first + this.windowMs + this.marginMs;
  }

  private expire(now: number): void {
    // The margin can grow (a 429) or the estimate shrink later, so answered times are kept while any
    // margin up to its cap (one window) could still make them live.
    this.answered.dropThrough(now - 2 * this.windowMs - this.marginMs);
    this.unanswered.dropThrough(now - this.windowMs - this.marginMs);
  }

  /** When the next finished slot stops being live; undefined if every taken slot is in flight. */
  private nextExpiry(now: number): number | undefined {
    const a = this.answered.firstTimeAfter(now - this.windowMs + this.floor());
    const u = this.unanswered.firstTimeAfter(now - this.windowMs - this.marginMs);
    const times = [a === undefined ? undefined : a + this.windowMs - this.floor(), u === undefined ? undefined : u + this.windowMs + this.marginMs];
    const defined = times.filter((t): t is number => t !== undefined);
    return defined.length > 0 ? Math.min(...defined) : undefined;
  }

  private nextWaiter(): Waiter | undefined {
    for (const lane of LANES) {
      const waiter = this.queues[lane].shift();
      if (waiter) return waiter;
    }
    return undefined;
  }

  private hasWaiters(): boolean {
    return LANES.some((lane) => this.queues[lane].length > 0);
  }

  private pump(): void {
    let now = this.now();
    while (this.hasWaiters()) {
      if (now < this.pausedUntil) return this.wakeAt(this.pausedUntil);
      if (this.taken(now) >= this.limit) {
        // All slots busy: wake when a finished one stops being live; an in-flight one calls pump() when it finishes.
        const at = this.nextExpiry(now);
        if (at !== undefined) this.wakeAt(at);
        return;
      }
      const early = this.worstCaseTaken(now) >= this.limit;
      if (early && this.earlyInFlight >= this.earlyAllowance) {
        // Only the estimate would allow it and enough early requests are unconfirmed: wait for one of them,
        // or for the worst-case rule to allow it.
        const at = this.nextWorstCaseExpiry(now);
        if (at !== undefined) this.wakeAt(at);
        return;
      }
      const waiter = this.nextWaiter()!;
      const releasedAt = now;
      this.inFlight += 1;
      if (early) this.earlyInFlight += 1;
      this.released += 1;
      this.firstReleaseAt ??= now;
      this.lastReleaseAt = now;
      this.laneReleasedAt[waiter.lane] = now;
      if (this.firstReleases.length < this.limit) this.firstReleases.push(now);
      this.latestReleases[this.latestNext] = now;
      this.latestNext = (this.latestNext + 1) % this.limit;
      let finished = false;
      waiter.release((outcome) => {
        if (finished) return;
        finished = true;
        this.finish(releasedAt, early, outcome ?? 'no-answer');
      });
      now = this.now();
    }
  }

  private finish(releasedAt: number, early: boolean, outcome: SlotOutcome): void {
    const now = this.now();
    this.inFlight -= 1;
    if (early) this.earlyInFlight -= 1;
    if (outcome === 'no-answer') {
      this.unanswered.push(now);
    } else {
      this.answered.push(now);
      this.learnRoundTrip(now - releasedAt);
      if (outcome === 'rate-limited') {
        this.earlyAllowance = 1;
        this.cleanAnswers = 0;
      } else {
        if (early) this.earlyAllowance = Math.min(this.limit, this.earlyAllowance * 2);
        if (this.extraMargin > 0 && ++this.cleanAnswers >= this.limit) {
          this.cleanAnswers = 0;
          this.extraMargin = Math.max(0, this.extraMargin - Math.max(1, Math.floor(this.extraMargin / 10)));
        }
      }
    }
    this.pump();
  }

  /**
   * The floor estimate from the round trips of the last `floorHorizonMs`: the least one less 1.5 × its gap
   * to the 4th least. The least of n draws overshoots the true least, most when the jitter of two legs adds
   * up (few sums land near the bottom), about as far as the gap to the next few. Stalls only add long round
   * trips; a long horizon (minutes, not a count of requests) keeps a clean round trip in view however many
   * stalled ones follow. Until 3 × limit samples (at least 4) → 0, the worst-case rule: a session starting in
   * a stall would otherwise take the stall for the network's round trip.
   */
  private learnRoundTrip(ms: number): void {
    const rtt = Math.max(0, ms);
    this.rttCount += 1;
    const bucketMs = this.floorHorizonMs / FLOOR_BUCKETS;
    const start = Math.floor(this.now() / bucketMs) * bucketMs;
    let bucket = this.rttBuckets.at(-1);
    if (!bucket || bucket.start !== start) {
      bucket = { start, least: [] };
      this.rttBuckets.push(bucket);
      while (this.rttBuckets[0]!.start <= start - this.floorHorizonMs) this.rttBuckets.shift();
    }
    insertSorted(bucket.least, rtt);
    if (bucket.least.length > 4) bucket.least.pop();
    if (this.rttCount < warmUpSamples(this.limit)) return;
    const least = this.rttBuckets.flatMap((b) => b.least).sort((a, b) => a - b);
    if (least.length < 4) return;
    this.floorEstimate = Math.max(0, least[0]! - 1.5 * (least[3]! - least[0]!));
  }

  private wakeAt(at: number): void {
    if (this.timer !== undefined && this.timerAt <= at) return;
    if (this.timer !== undefined) this.timers.clear(this.timer);
    this.timerAt = at;
    this.timer = this.timers.set(() => {
      this.timer = undefined;
      this.pump();
    }, Math.max(0, Math.ceil(at - this.now())));
  }
}

/**
 * Round trips answered before the floor estimate is used: until then every request holds its slot from release
 * to answer + a window (the worst case), so a session that starts inside a stall does not take the stall for the
 * network's round trip (test/unit/gateway/rate-limiter-network.test.ts shows 429s with a third as many).
 */
export function warmUpSamples(limit: number): number {
  return Math.max(4, 3 * limit);
}

/** Index of the first element ≥ value in an ascending array. */
function lowerBound(sorted: number[], value: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function insertSorted(sorted: number[], value: number): void {
  sorted.splice(lowerBound(sorted, value), 0, value);
}

function sum(values: number[]): number {
  return values.reduce((a, b) => a + b, 0);
}

/** Shares one limiter per merchant (base URL + merchant code) within an app context. */
export class RateLimiterRegistry {
  private readonly limiters = new Map<string, RateLimiter>();

  for(baseUrl: string, merchantCode: string, limit: number): RateLimiter {
    const key = `${baseUrl.replace(/\/+$/, '')}\u0000${merchantCode}`;
    let limiter = this.limiters.get(key);
    if (!limiter || limiter.limit !== limit) {
      limiter = new RateLimiter({ limit });
      this.limiters.set(key, limiter);
    }
    return limiter;
  }
}
