// Loops over a whole file's rows (100,000 of them) run in time slices: after a few milliseconds of work
// they give the event loop a turn, so the main process never stalls anywhere near the 50 ms.
import { performance } from 'node:perf_hooks';
import { setImmediate as nextTurn } from 'node:timers/promises';

/** One turn of the event loop (timers and I/O callbacks run before the work goes on). */
export async function yieldToEventLoop(): Promise<void> {
  await nextTurn();
}

/** Work per slice. Well under 50 ms, so a garbage-collector pause on top of a slice still fits. */
export const SLICE_MS = 8;
/** Iterations between two clock reads in per-row loops (one iteration takes about a microsecond). */
const CHECK_EVERY_ROWS = 256;

export class TimeSlicer {
  private started = performance.now();
  private count = 0;

  /**
   * @param checkEvery read the clock every this many calls of due(): 256 for per-row loops, 1 when each
   * step is already a sizeable piece of work (a 16K-character parser write, a 256 KB decode).
   */
  constructor(
    private readonly yieldNow: () => Promise<void>,
    private readonly checkEvery = CHECK_EVERY_ROWS,
    private readonly budgetMs = SLICE_MS,
  ) {}

  /**
   * Call once per iteration: `if (slicer.due()) await slicer.pause();`. True when the slice has used its
   * budget. Synchronous, so the common case costs no promise.
   */
  due(): boolean {
    if (++this.count < this.checkEvery) return false;
    this.count = 0;
    return performance.now() - this.started >= this.budgetMs;
  }

  /** Yields now and starts a new slice (also after a step that is known to be long, like a database query). */
  async pause(): Promise<void> {
    await this.yieldNow();
    this.started = performance.now();
    this.count = 0;
  }
}

/** `items.map(fn)` in time slices. */
export async function mapInSlices<T, U>(items: readonly T[], fn: (item: T) => U, yieldNow: () => Promise<void>): Promise<U[]> {
  const slicer = new TimeSlicer(yieldNow);
  const out = new Array<U>(items.length);
  for (let i = 0; i < items.length; i++) {
    out[i] = fn(items[i] as T);
    if (slicer.due()) await slicer.pause();
  }
  return out;
}
