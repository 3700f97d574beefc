// Only the answer to the latest request reaches the screen. Answers from main come back in any order: a
// slow answer to an older request (the previous file, the previous search, the payout shown before)
// that lands after a newer one would otherwise replace it, and the screen would show results for
// something that is no longer chosen. Each request takes a ticket; a newer ticket makes older ones stale.

/** A ticket of one request: true while no newer request began (and nothing dropped it). */
export type IsLatest = () => boolean;

export interface LatestRequests {
  /** Starts a request; every request begun before it is stale from now on. */
  begin(): IsLatest;
  /** Makes every request in flight stale (the screen was reset or left); their answers are dropped. */
  dropAll(): void;
  /**
   * Runs `call` as the latest request and resolves to its answer, or to `stale` when a newer request
   * began (or dropAll ran) before the answer came.
   */
  run<T>(call: (isLatest: IsLatest) => Promise<T>): Promise<{ stale: false; value: T } | { stale: true }>;
}

export function latestRequests(): LatestRequests {
  let newest = 0;
  const begin = (): IsLatest => {
    const mine = ++newest;
    return () => mine === newest;
  };
  return {
    begin,
    dropAll() {
      newest++;
    },
    async run(call) {
      const isLatest = begin();
      const value = await call(isLatest);
      return isLatest() ? { stale: false, value } : { stale: true };
    },
  };
}
