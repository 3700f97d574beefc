// The rate limiter of a desk in a team: this desk's own limiter (lanes, creates before reads, the pacing the
// poller reads) and then a slot of the merchant's budget in the team database (main/store/postgres/rate-budget.ts),
// so the gateway's 10 requests a second are shared by every desk of the team, not granted to each.
import { RateLimiter, type Lane, type RateLimiterOptions, type SlotOutcome } from '../../gateway/rate-limiter';
import { isConnectionError } from './connection-error';
import type { TeamRateBudget } from './rate-budget';

export class TeamRateLimiter extends RateLimiter {
  constructor(
    private readonly budget: TeamRateBudget,
    options: Omit<RateLimiterOptions, 'limit'> & { requestTimeoutMs: number },
  ) {
    super({ ...options, limit: budget.rules.limit });
    // A slot's life in the budget assumes the request is over by maxRequestMs after it was reserved.
    if (options.requestTimeoutMs > budget.rules.maxRequestMs) {
      throw new RangeError(`the gateway time-out (${options.requestTimeoutMs} ms) must not be longer than a budget slot's request life (${budget.rules.maxRequestMs} ms)`);
    }
  }

  /**
   * The team's slot first, then this desk's own (which then hardly waits: the team grants at most `limit` a
   * window to all desks together). The other way round, this desk's reads waiting for the team's budget (reads
   * leave headroom to creates, which may all be another desk's) held every local slot, and this desk's own
   * creates could not start. If the team database cannot grant a slot, nothing is sent: the error reaches the
   * caller.
   */
  override async acquire(lane: Lane): Promise<(outcome?: SlotOutcome) => void> {
    // This desk's own floor (a lower bound on its request and answer legs) shortens its own answered slots:
    // over a slow network the team then sends nearly at the limit (docs/gateway-notes.md). The budget is first
    // come at each slot's end, so a desk with creates waiting takes most slots; the others' wait their turn.
    const slot = await this.budget.reserve(lane, { ownFloorMs: Math.max(0, this.floor()) }).catch((error: unknown) => {
      if (!isConnectionError(error)) throw error;
      throw new Error(`the team database cannot be reached (${(error as Error).message}): no request goes to the gateway until it is back`, { cause: error });
    });
    const local = await super.acquire(lane);
    let ended = false;
    return (outcome: SlotOutcome = 'no-answer') => {
      if (ended) return;
      ended = true;
      local(outcome);
      // A 429 pauses every desk of the team (for 1 s: the Retry-After is read after this, by rateLimited()).
      void slot.end(outcome);
    };
  }
}
