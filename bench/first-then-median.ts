// What a person waits for the first time (the first call after the journal is opened, its statements and pages
// still cold) and every time after (the median of the calls that follow), as the overview and statement benches
// print it.
import { performance } from 'node:perf_hooks';

export interface FirstThenMedian {
  first: number;
  median: number;
  min: number;
  max: number;
}

/** Calls `fn` once and then `runs` more times; the first call's time and the others' median, min and max (ms). */
export async function firstThenMedian(runs: number, fn: () => Promise<unknown>): Promise<FirstThenMedian> {
  const times: number[] = [];
  for (let r = 0; r <= runs; r++) {
    const started = performance.now();
    await fn();
    times.push(performance.now() - started);
  }
  const [first, ...rest] = times;
  const sorted = [...rest].sort((a, b) => a - b);
  return { first: first!, median: sorted[Math.floor(sorted.length / 2)]!, min: sorted[0]!, max: sorted.at(-1)! };
}

/** "first 120 ms (target < 500 ms: met)  then median 80 ms [75–90]" */
export function firstThenMedianText(t: FirstThenMedian, targetMs: number, width = 5): string {
  const ms = (x: number) => x.toFixed(0).padStart(width);
  return `first ${ms(t.first)} ms (target < ${targetMs} ms: ${t.first < targetMs ? 'met' : 'missed'})  then median ${ms(t.median)} ms [${t.min.toFixed(0)}–${t.max.toFixed(0)}]`;
}
