// Desks sharing one gateway budget, for the team rate-budget test and bench: a fake gateway that stamps every
// request on one clock with the sandbox's own sliding window (a 429 past the limit), and desks (each its own
// pg.Pool, as separate machines) whose workers send their share of requests through TeamRateBudget.
import pg from 'pg';
import type { Lane } from '../../../main/gateway/rate-limiter';
import { TeamRateBudget, type TeamRateBudgetOptions } from '../../../main/store/postgres/rate-budget';
import { SlidingWindowLimiter } from '../../../sandbox/rate-limit';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export interface Arrival {
  at: number;
  desk: string;
  accepted: boolean;
}

/** The gateway's side: each request waits its request leg, is stamped (or refused), waits its answer leg. */
export class FakeGateway {
  readonly arrivals: Arrival[] = [];
  private readonly window: SlidingWindowLimiter;

  constructor(
    readonly limit: number,
    private readonly legMs: () => number = () => Math.random() * 3,
  ) {
    this.window = new SlidingWindowLimiter(limit, () => performance.now());
  }

  async request(desk: string): Promise<'ok' | { retryAfterMs: number }> {
    await sleep(this.legMs());
    const decision = this.window.take('merchant');
    this.arrivals.push({ at: performance.now(), desk, accepted: decision.allowed });
    await sleep(this.legMs());
    return decision.allowed ? 'ok' : { retryAfterMs: decision.retryAfterMs };
  }

  get accepted(): number[] {
    return this.arrivals.filter((a) => a.accepted).map((a) => a.at);
  }

  get rateLimited(): number {
    return this.arrivals.filter((a) => !a.accepted).length;
  }
}

/** Most stamps inside any window of `span` ms, as the gateway counts (a stamp `span` ms old is out). */
export function maxInAnyWindow(times: readonly number[], span = 1000): number {
  const sorted = [...times].sort((a, b) => a - b);
  let best = 0;
  for (let i = 0, j = 0; i < sorted.length; i++) {
    while (sorted[i]! - sorted[j]! >= span) j++;
    best = Math.max(best, i - j + 1);
  }
  return best;
}

export class Desk {
  readonly pool: pg.Pool;
  readonly budget: TeamRateBudget;
  sent = 0;

  constructor(
    readonly name: string,
    url: string,
    options: Partial<Omit<TeamRateBudgetOptions, 'pool' | 'deskId'>> = {},
  ) {
    this.pool = new pg.Pool({ connectionString: url, max: 3, application_name: name });
    // An idle connection killed by the server is reported on the pool: the next step gets a new one.
    this.pool.on('error', () => undefined);
    this.budget = new TeamRateBudget({ pool: this.pool, deskId: name, baseUrl: 'https://gateway.test', merchantCode: 'M-1', limit: 10, ...options });
  }

  /** Sends `count` requests through the budget with `workers` callers in parallel. */
  async send(gateway: FakeGateway, count: number, workers: number, lane: Lane = 'create', ownFloorMs = 0): Promise<void> {
    let left = count;
    const worker = async () => {
      while (left > 0) {
        left -= 1;
        const slot = await this.budget.reserve(lane, { ownFloorMs });
        const answer = await gateway.request(this.name);
        this.sent += 1;
        await slot.end(answer === 'ok' ? 'answered' : 'rate-limited', answer === 'ok' ? undefined : answer.retryAfterMs);
      }
    };
    await Promise.all(Array.from({ length: workers }, worker));
  }

  close(): Promise<void> {
    return this.pool.end();
  }
}

/** Ends every session of a desk from the server side (pg_terminate_backend); how many there were. */
export async function killSessions(admin: pg.Pool, desk: string): Promise<number> {
  // In the target list, so it runs only on the rows the WHERE kept (inside an AND the planner may call it first).
  const result = await admin.query<{ killed: boolean }>('SELECT pg_terminate_backend(pid) AS killed FROM pg_stat_activity WHERE application_name = $1', [desk]);
  return result.rows.filter((r) => r.killed).length;
}
