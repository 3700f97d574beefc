// One request budget per merchant, shared by every caller (token manager, engine, poller, UI).
// Sliding window: a request occupies a slot from the moment it is released until `windowMs +
// marginMs` later, so however the network delays individual requests, the gateway never sees more
// than `limit` arrivals in any 1000 ms. Waiting requests are released by lane priority:
// token > create > status > list, so the poller only gets what creates leave free.

export const LANES = ['token', 'create', 'status', 'list'] as const;
export type Lane = (typeof LANES)[number];

export interface RateLimiterOptions {
  /** Requests allowed per window (the gateway says 10 per second). */
  limit: number;
  windowMs?: number;
  /** Extra time each slot stays taken, absorbing clock and network jitter. */
  marginMs?: number;
  now?: () => number;
}

export interface RateLimiterUsage {
  inWindow: number;
  limit: number;
  queued: Record<Lane, number>;
  pausedForMs: number;
}

export interface RateLimiterStats {
  /** Requests released since the limiter was created. */
  released: number;
  /** performance.now() of the first and last release (undefined before the first). */
  firstReleaseAt?: number;
  lastReleaseAt?: number;
  /** Sustained rate: releases after the first full window, per second of release time. */
  sustainedPerSec?: number;
}

interface Waiter {
  release: () => void;
}

export class RateLimiter {
  readonly limit: number;
  readonly windowMs: number;
  readonly marginMs: number;
  private readonly now: () => number;
  /** Release times of the slots still inside the window, oldest first. */
  private readonly slots: number[] = [];
  private readonly queues: Record<Lane, Waiter[]> = { token: [], create: [], status: [], list: [] };
  private pausedUntil = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private timerAt = 0;
  private released = 0;
  private firstReleaseAt: number | undefined;
  private lastReleaseAt: number | undefined;

  constructor(options: RateLimiterOptions) {
    if (!Number.isInteger(options.limit) || options.limit < 1) throw new RangeError('rate limit must be a positive integer');
    this.limit = options.limit;
    this.windowMs = options.windowMs ?? 1000;
    this.marginMs = options.marginMs ?? 25;
    this.now = options.now ?? (() => performance.now());
  }

  /** Runs `fn` once a slot is free in its lane's turn. The slot is taken when `fn` starts. */
  async run<T>(lane: Lane, fn: () => Promise<T>): Promise<T> {
    await this.acquire(lane);
    return fn();
  }

  /** Waits for a slot without running anything (the slot is counted from the moment this resolves). */
  acquire(lane: Lane): Promise<void> {
    return new Promise<void>((resolve) => {
      this.queues[lane].push({ release: resolve });
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
      inWindow: this.slots.length,
      limit: this.limit,
      queued: { token: this.queues.token.length, create: this.queues.create.length, status: this.queues.status.length, list: this.queues.list.length },
      pausedForMs: Math.max(0, Math.round(this.pausedUntil - now)),
    };
  }

  /** Counters for benchmarks and tests: how fast the limiter actually let requests through. */
  stats(): RateLimiterStats {
    const { released, firstReleaseAt, lastReleaseAt } = this;
    const span = firstReleaseAt !== undefined && lastReleaseAt !== undefined ? lastReleaseAt - firstReleaseAt : 0;
    // The first window's burst is free; the steady rate is what the rest achieved over the time they took.
    const sustainedPerSec = span > 0 && released > this.limit ? ((released - this.limit) / span) * 1000 : undefined;
    return { released, firstReleaseAt, lastReleaseAt, ...(sustainedPerSec !== undefined ? { sustainedPerSec } : {}) };
  }

  private expire(now: number): void {
    const span = this.windowMs + this.marginMs;
    while (this.slots.length > 0 && this.slots[0]! + span <= now) this.slots.shift();
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
      if (this.slots.length >= this.limit) return this.wakeAt(this.slots[0]! + this.windowMs + this.marginMs);
      const waiter = this.nextWaiter()!;
      this.slots.push(now);
      this.released += 1;
      this.firstReleaseAt ??= now;
      this.lastReleaseAt = now;
      waiter.release();
      now = this.now();
    }
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
