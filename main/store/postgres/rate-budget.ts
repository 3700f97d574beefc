// One gateway rate budget per merchant, shared by every desk of a team through the team database (issue 15).
//
// Why a budget in the database rather than one active sender per merchant (a session advisory lock):
//  - Every desk talks to the gateway, not only the sender: token calls, status polls, lists, a viewer's
//    "check status". The gateway counts them all (spec §7–8), so they must all be counted; a single-sender
//    lock would force every other desk off the gateway entirely.
//  - A session lock that dies with its connection does not stop the old holder's HTTP requests: a desk whose
//    database connection broke (or half-opened) keeps sending until it notices, so a takeover is only safe
//    after a time-based fence, which is the same reasoning about bounded request lifetimes as below, without
//    the sharing.
//  - A budget has no takeover at all: a desk that dies simply stops reserving; what it held comes back on the
//    database's clock, at most `maxRequestMs + windowMs + marginMs` after it reserved.
//
// The rule of which slot may be granted (decide) lives beside the desk limiter: main/gateway/rate-budget-rule.ts.
import type { Pool, PoolClient } from 'pg';
import type { Lane } from '../../gateway/rate-limiter';
import { budgetKey, decide, endedLifeMs, inFlightLifeMs, liveUntil, type BudgetRules } from '../../gateway/rate-budget-rule';
import { isConnectionError } from './connection-error';

/** Class of the advisory locks of the budget (the two-key form: its own key space, apart from migrations). */
const LOCK_CLASS = 0x7262; // "rb"

export type BudgetOutcome = 'answered' | 'rate-limited' | 'no-answer' | 'not-sent';

export interface BudgetSlot {
  readonly id: string;
  readonly lane: Lane;
  /** Aborts at the request's deadline (maxRequestMs after reserve() was called): pass it to the HTTP call. */
  readonly signal: AbortSignal;
  /**
   * Ends the slot: 'answered' / 'rate-limited' (any answer, a 429 with its Retry-After pausing every desk),
   * 'no-answer' (time-out, dropped connection), 'not-sent' (never left the desk: the slot is given back).
   * Retries on a broken connection; false if the database could not be reached (the slot then expires on
   * its own). Calling it again does nothing.
   */
  end(outcome: BudgetOutcome, retryAfterMs?: number): Promise<boolean>;
}

export interface TeamRateBudgetOptions {
  /** The desk's pool on the team database; give it an 'error' listener (killed idle connections land there). */
  pool: Pool;
  /** Who holds a slot: unique per desk (a desk's floor applies to the slots under its id). */
  deskId: string;
  baseUrl: string;
  merchantCode: string;
  limit: number;
  windowMs?: number;
  marginMs?: number;
  /** Default 20 s: the gateway client's time-out (15 s) and some slack. */
  maxRequestMs?: number;
  readHeadroom?: number;
  /** Attempts of one database step before its error is thrown (connections can be killed: default 8). */
  attempts?: number;
  sleep?: (ms: number) => Promise<void>;
}

export interface BudgetUsage {
  inWindow: number;
  limit: number;
  pausedForMs: number;
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** `wait`, or the abort of `signal` if that comes first (then rejects with its reason). */
function abortable(wait: Promise<void>, signal: AbortSignal | undefined): Promise<void> {
  if (!signal) return wait;
  signal.throwIfAborted();
  return new Promise<void>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    void wait.then(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    });
  });
}


interface ReadRow {
  now_ms: number;
  paused_ms: number | null;
  /** [live until (ms), ended, this desk's and answered, this desk's]. */
  live: [number, boolean, boolean, boolean][];
  /** Other desks refused a slot within the last two windows. */
  others_waiting: number;
}

export class TeamRateBudget {
  readonly rules: BudgetRules;
  readonly key: string;
  private readonly pool: Pool;
  private readonly deskId: string;
  private readonly attempts: number;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(options: TeamRateBudgetOptions) {
    if (!Number.isInteger(options.limit) || options.limit < 1) throw new RangeError('rate limit must be a positive integer');
    this.rules = {
      limit: options.limit,
      windowMs: options.windowMs ?? 1000,
      marginMs: options.marginMs ?? 5,
      maxRequestMs: options.maxRequestMs ?? 20_000,
      readHeadroom: options.readHeadroom ?? 2,
    };
    this.pool = options.pool;
    this.deskId = options.deskId;
    this.key = budgetKey(options.baseUrl, options.merchantCode);
    this.attempts = Math.max(1, options.attempts ?? 8);
    this.sleep = options.sleep ?? defaultSleep;
  }

  /**
   * Waits until the team's budget has a slot for `lane` and takes it. `ownFloorMs`: a lower bound on this
   * desk's request + answer legs (see decide()); 0, the default, is the worst-case rule.
   */
  async reserve(lane: Lane, options: { signal?: AbortSignal; ownFloorMs?: number } = {}): Promise<BudgetSlot> {
    for (;;) {
      options.signal?.throwIfAborted();
      const askedAt = performance.now();
      const outcome = await this.withRetry((client) => this.tryReserve(client, lane, options.ownFloorMs ?? 0));
      if ('id' in outcome) {
        const left = Math.max(0, Math.floor(askedAt + this.rules.maxRequestMs - performance.now()));
        return this.slot(outcome.id, lane, AbortSignal.timeout(left));
      }
      await abortable(this.sleep(outcome.waitMs), options.signal);
    }
  }

  /** Runs `fn` in a slot: resolving = answered, throwing = no answer (use reserve() to report a 429). */
  async run<T>(lane: Lane, fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const slot = await this.reserve(lane);
    let outcome: BudgetOutcome = 'no-answer';
    try {
      const result = await fn(slot.signal);
      outcome = 'answered';
      return result;
    } finally {
      await slot.end(outcome);
    }
  }

  /** Slots live now across the team (for this desk, with its floor), and how long every desk is paused. */
  async usage(options: { ownFloorMs?: number } = {}): Promise<BudgetUsage> {
    const row = await this.withRetry((client) => this.read(client));
    return {
      inWindow: row.live.filter(([until, ended, ownAnswered]) => liveUntil({ liveUntil: until, ended, ownAnswered }, options.ownFloorMs ?? 0) > row.now_ms).length,
      limit: this.rules.limit,
      pausedForMs: Math.max(0, Math.round((row.paused_ms ?? 0) - row.now_ms)),
    };
  }

  private async tryReserve(client: PoolClient, lane: Lane, ownFloorMs: number): Promise<{ id: string } | { waitMs: number }> {
    await client.query('BEGIN');
    try {
      // Its own statement: in READ COMMITTED the next statement's snapshot then sees every slot committed
      // by the desk that held the lock before us.
      await client.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [LOCK_CLASS, this.key]);
      const row = await this.read(client);
      const live = row.live.map(([liveUntil, ended, ownAnswered, own]) => ({ liveUntil, ended, ownAnswered, own }));
      const decision = decide(row.now_ms, live, row.paused_ms, lane, this.rules, ownFloorMs, { otherDesksWaiting: row.others_waiting });
      if (!decision.grant) {
        // Seen waiting by the other desks, which then keep to their share.
        await client.query(
          `INSERT INTO rate_budget_waiters (budget_key, desk_id, seen_at) VALUES ($1, $2, clock_timestamp())
           ON CONFLICT (budget_key, desk_id) DO UPDATE SET seen_at = EXCLUDED.seen_at`,
          [this.key, this.deskId],
        );
        await client.query('COMMIT');
        return { waitMs: decision.waitMs };
      }
      // reserved_at is taken now, after the read: later than the `now` the decision used, which only makes
      // the slot live longer; and before COMMIT, so before the desk can send.
      const inserted = await client.query<{ id: string }>(
        `INSERT INTO rate_budget_slots (budget_key, desk_id, lane, reserved_at, live_until)
         VALUES ($1, $2, $3, clock_timestamp(), clock_timestamp() + $4 * interval '1 millisecond') RETURNING id`,
        [this.key, this.deskId, lane, inFlightLifeMs(this.rules)],
      );
      // Slots dead for a minute are only history: drop them here, where the lock already serialises writers.
      await client.query(`DELETE FROM rate_budget_slots WHERE budget_key = $1 AND live_until < clock_timestamp() - interval '1 minute'`, [this.key]);
      await client.query('COMMIT');
      return { id: inserted.rows[0]!.id };
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
  }

  private async read(client: PoolClient): Promise<ReadRow> {
    const result = await client.query<ReadRow>(
      `WITH n AS (SELECT clock_timestamp() AS t)
       SELECT (extract(epoch FROM n.t) * 1000)::float8 AS now_ms,
              (SELECT (extract(epoch FROM p.paused_until) * 1000)::float8 FROM rate_budget_pauses p WHERE p.budget_key = $1) AS paused_ms,
              COALESCE((SELECT json_agg(json_build_array((extract(epoch FROM s.live_until) * 1000)::float8, s.ended_at IS NOT NULL,
                                               COALESCE(s.desk_id = $2 AND s.outcome IN ('answered', 'rate-limited'), false), s.desk_id = $2))
                        FROM rate_budget_slots s WHERE s.budget_key = $1 AND s.live_until > n.t), '[]'::json) AS live,
              (SELECT count(*)::int FROM rate_budget_waiters w
                WHERE w.budget_key = $1 AND w.desk_id <> $2 AND w.seen_at > n.t - $3 * interval '1 millisecond') AS others_waiting
       FROM n`,
      [this.key, this.deskId, 2 * this.rules.windowMs],
    );
    return result.rows[0]!;
  }

  private slot(id: string, lane: Lane, signal: AbortSignal): BudgetSlot {
    let ended: Promise<boolean> | undefined;
    return {
      id,
      lane,
      signal,
      end: (outcome, retryAfterMs) => (ended ??= this.end(id, outcome, retryAfterMs)),
    };
  }

  private async end(id: string, outcome: BudgetOutcome, retryAfterMs: number | undefined): Promise<boolean> {
    try {
      await this.withRetry(async (client) => {
        if (outcome === 'not-sent') {
          await client.query('DELETE FROM rate_budget_slots WHERE id = $1', [id]);
          return;
        }
        await client.query(
          `UPDATE rate_budget_slots SET ended_at = clock_timestamp(), outcome = $2, live_until = clock_timestamp() + $3 * interval '1 millisecond'
           WHERE id = $1 AND ended_at IS NULL`,
          [id, outcome, endedLifeMs(this.rules)],
        );
        if (outcome === 'rate-limited') {
          // Retry-After absent → 1 s, as the desk's transport does.
          const pauseMs = retryAfterMs !== undefined && retryAfterMs > 0 ? retryAfterMs : 1000;
          await client.query(
            `INSERT INTO rate_budget_pauses (budget_key, paused_until) VALUES ($1, clock_timestamp() + $2 * interval '1 millisecond')
             ON CONFLICT (budget_key) DO UPDATE SET paused_until = GREATEST(rate_budget_pauses.paused_until, EXCLUDED.paused_until)`,
            [this.key, pauseMs],
          );
        }
      });
      return true;
    } catch {
      return false;
    }
  }

  /**
   * One database step on a pooled connection; a broken connection (terminated backend, network) is thrown
   * away and the step tried again on a new one, with growing pauses. A step is a whole transaction, so a
   * retry never sees half of one; a reservation committed just before its connection broke is held until it
   * expires (it is only ever conservative).
   */
  private async withRetry<T>(step: (client: PoolClient) => Promise<T>): Promise<T> {
    let lastError: unknown;
    for (let attempt = 0; attempt < this.attempts; attempt++) {
      if (attempt > 0) await this.sleep(Math.min(1000, 25 * 2 ** attempt));
      let client: PoolClient;
      try {
        client = await this.pool.connect();
      } catch (error) {
        lastError = error;
        continue;
      }
      // A connection killed between two statements is reported on the client: without a listener it would
      // crash the process.
      let broken: unknown;
      const onError = (error: unknown) => (broken = error);
      client.on('error', onError);
      try {
        const result = await step(client);
        client.off('error', onError);
        client.release();
        return result;
      } catch (error) {
        client.off('error', onError);
        client.release(error instanceof Error ? error : new Error(String(broken ?? error)));
        lastError = error;
        if (!isConnectionError(error)) throw error;
      }
    }
    throw lastError;
  }
}
