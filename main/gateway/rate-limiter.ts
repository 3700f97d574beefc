// One request budget per merchant, shared by every caller (token manager, engine, poller, UI).
// Sliding window measured from the safe end: a request holds its slot from the moment it is released
// until its answer (or failure) arrives, plus `windowMs + marginMs`. The gateway stamps a request
// somewhere between our send and its answer, so however the network or event loop delays individual
// requests, the gateway never sees more than `limit` of ours in any 1000 ms. Waiting requests are
// released by lane priority: token > create > status > list, so the poller only gets what creates
// leave free.

export const LANES = ['token', 'create', 'status', 'list'] as const;
export type Lane = (typeof LANES)[number];

export interface RateLimiterOptions {
  /** Requests allowed per window (the gateway says 10 per second). */
  limit: number;
  windowMs?: number;
  /** Extra time each slot stays taken after the window, absorbing clock granularity on either side. */
  marginMs?: number;
  now?: () => number;
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
}

interface Waiter {
  lane: Lane;
  release: (done: () => void) => void;
}

export class RateLimiter {
  readonly limit: number;
  readonly windowMs: number;
  readonly marginMs: number;
  private readonly now: () => number;
  /** Requests released and not yet answered: each holds a slot. */
  private inFlight = 0;
  /**
   * Answer times of finished requests still inside the window, oldest first from `doneHead`. The
   * clock only moves forward, so appending keeps them sorted and expiry pops from the front: O(1)
   * per request however high the limit (a limit of 1,000/s keeps about a thousand here).
   */
  private doneAt: number[] = [];
  private doneHead = 0;
  private readonly queues: Record<Lane, Waiter[]> = { token: [], create: [], status: [], list: [] };
  private pausedUntil = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
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
    this.marginMs = options.marginMs ?? 10;
    this.now = options.now ?? (() => performance.now());
  }

  /** Runs `fn` once a slot is free in its lane's turn; the slot is held until `fn` settles, then one window more. */
  async run<T>(lane: Lane, fn: () => Promise<T>): Promise<T> {
    const done = await this.acquire(lane);
    try {
      return await fn();
    } finally {
      done();
    }
  }

  /**
   * Waits for a slot and takes it. Call the returned function when the request's answer (or failure)
   * has arrived; the window of the slot counts from then.
   */
  acquire(lane: Lane): Promise<() => void> {
    return new Promise<() => void>((resolve) => {
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

  usage(): RateLimiterUsage {
    const now = this.now();
    this.expire(now);
    return {
      inWindow: this.taken(),
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
    return { released, firstReleaseAt, lastReleaseAt, ...(sustainedPerSec !== undefined ? { sustainedPerSec } : {}) };
  }

  /** Slots in flight or still inside the window after their answer. */
  private taken(): number {
    return this.inFlight + this.doneAt.length - this.doneHead;
  }

  private expire(now: number): void {
    const span = this.windowMs + this.marginMs;
    while (this.doneHead < this.doneAt.length && this.doneAt[this.doneHead]! + span <= now) this.doneHead++;
    // Drop the expired front now and then rather than shifting on every expiry.
    if (this.doneHead > 1024 && this.doneHead * 2 > this.doneAt.length) {
      this.doneAt = this.doneAt.slice(this.doneHead);
      this.doneHead = 0;
    }
  }

  /** When the next finished slot leaves the window; undefined if every slot is still in flight. */
  private nextExpiry(): number | undefined {
    const earliest = this.doneAt[this.doneHead];
    return earliest === undefined ? undefined : earliest + this.windowMs + this.marginMs;
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
      this.expire(now);
      if (this.taken() >= this.limit) {
        // All slots busy: wake when a finished one expires; an in-flight one calls pump() when it finishes.
        const at = this.nextExpiry();
        if (at !== undefined) this.wakeAt(at);
        return;
      }
      const waiter = this.nextWaiter()!;
      this.inFlight += 1;
      this.released += 1;
      this.firstReleaseAt ??= now;
      this.lastReleaseAt = now;
      this.laneReleasedAt[waiter.lane] = now;
      if (this.firstReleases.length < this.limit) this.firstReleases.push(now);
      this.latestReleases[this.latestNext] = now;
      this.latestNext = (this.latestNext + 1) % this.limit;
      let finished = false;
      waiter.release(() => {
        if (finished) return;
        finished = true;
        this.finish();
      });
      now = this.now();
    }
  }

  private finish(): void {
    this.inFlight -= 1;
    this.doneAt.push(this.now());
    this.pump();
  }

  private wakeAt(at: number): void {
    if (this.timer && this.timerAt <= at) return;
    if (this.timer) clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.pump();
    }, Math.max(0, Math.ceil(at - this.now())));
  }
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
