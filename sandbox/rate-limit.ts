// Sliding-window rate limit per merchant: at most `limit` accepted requests in any 1000 ms window.
// Refused requests do not enter the window (they were not processed).
const WINDOW_MS = 1_000;

export type RateDecision = { allowed: true } | { allowed: false; retryAfterMs: number };

export class SlidingWindowLimiter {
  private readonly windows = new Map<string, number[]>();

  constructor(
    private readonly limit: number | null,
    private readonly now: () => number = Date.now,
  ) {}

  get enabled(): boolean {
    return this.limit !== null && this.limit > 0;
  }

  take(key: string): RateDecision {
    if (this.limit === null || this.limit <= 0) return { allowed: true };
    const now = this.now();
    const stamps = this.windows.get(key) ?? [];
    // Drop stamps that left the window; the array stays sorted because time only moves forward.
    let firstInside = 0;
    while (firstInside < stamps.length && (stamps[firstInside] as number) <= now - WINDOW_MS) firstInside += 1;
    const inWindow = firstInside > 0 ? stamps.slice(firstInside) : stamps;
    if (inWindow.length >= this.limit) {
      this.windows.set(key, inWindow);
      const oldest = inWindow[0] as number;
      return { allowed: false, retryAfterMs: Math.max(1, oldest + WINDOW_MS - now) };
    }
    inWindow.push(now);
    this.windows.set(key, inWindow);
    return { allowed: true };
  }
}
