// A desk of a team: the profile's engine on the team's journal in PostgreSQL (main/journal/pg/journal.ts),
// its gateway requests within the merchant's budget shared through the same database (team-limiter.ts).
// Each desk process is its own desk id (its name and a fresh UUID): its claims and lease are its own, so a
// restarted desk never mistakes what its previous life left in flight for its own work; it is taken over as
// of unknown outcome once that life's lease has run out.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { createAppContext, type AppContext } from '../context';
import { PayoutEngine, type PayoutEngineOptions } from '../engine';
import type { KeyStore } from '../keys/key-store';
import type { Logger } from '../log';
import { PgJournal } from '../journal/pg/journal';
import { TeamRateBudget } from '../journal/pg/rate-budget';
import { engineOptionsFromProfile, gatewayPortFor } from '../desk/profile-engine';
import { TeamRateLimiter } from './team-limiter';

export interface TeamDeskOptions {
  /** The desk's data folder (its profiles and sealed key files); the journal is the team's. */
  home: string;
  keyStore?: KeyStore;
  logger?: Logger;
  profileId: string;
  /** The team database: a pool config (main/journal/pg/connect.ts builds it from the profile) or a URL. */
  database: pg.PoolConfig | string;
  /** This desk's name among the team (default the host name); a process adds a UUID to it. */
  deskName: string;
  /** Gateway time-out (default 15 s); a team slot and a claim are held at least this long. */
  fetchTimeoutMs?: number;
  /** The desk's lease on its claims (default 60 s): a desk that dies leaves its sends to others after it. */
  leaseMs?: number;
  engineOptions?: Partial<Omit<PayoutEngineOptions<PgJournal>, 'journal' | 'gateway'>>;
  /** Whether the gateway budget is the team's (default true); false only to measure what it costs (bench). */
  shareRateBudget?: boolean;
}

export interface TeamDesk {
  readonly deskId: string;
  readonly ctx: AppContext;
  readonly journal: PgJournal;
  readonly engine: PayoutEngine<PgJournal>;
  /** Stops sending (requests on the wire finish and are recorded), gives back claims, closes the database. */
  close(): Promise<void>;
}

/** Opens the team journal, the shared budget and the profile's engine, and starts the engine. */
export async function openTeamDesk(options: TeamDeskOptions): Promise<TeamDesk> {
  const deskId = `${options.deskName}:${randomUUID()}`;
  const fetchTimeoutMs = options.fetchTimeoutMs ?? 15_000;
  const pool = new pg.Pool(typeof options.database === 'string' ? { connectionString: options.database, max: 8 } : { max: 8, ...options.database });
  // An idle connection the server ended is reported on the pool; the next query takes a new one.
  pool.on('error', (error) => options.logger?.warn('team database connection lost', { message: error.message }));
  let journal: PgJournal | undefined;
  let ctx: AppContext | undefined;
  try {
    journal = await PgJournal.open(pool, {
      deskId,
      maxRequestMs: fetchTimeoutMs,
      ...(options.leaseMs ? { leaseMs: options.leaseMs } : {}),
      // A SENDING mark that could not be written: the claim, written before, already says the payout may be in flight.
      onBackgroundError: (error) => options.logger?.warn('team journal: a SENDING mark was not written', { message: error instanceof Error ? error.message : String(error) }),
    });
    const limiters = new Map<string, TeamRateLimiter>();
    ctx = createAppContext({
      home: options.home,
      fetchTimeoutMs,
      ...(options.keyStore ? { keyStore: options.keyStore } : {}),
      ...(options.logger ? { logger: options.logger } : {}),
      sharedLimiterFor: (profile) => {
        if (options.shareRateBudget === false) return undefined;
        const key = `${profile.baseUrl} ${profile.merchantCode} ${profile.rateLimitPerSec}`;
        let limiter = limiters.get(key);
        if (!limiter) {
          const budget = new TeamRateBudget({ pool, deskId, baseUrl: profile.baseUrl, merchantCode: profile.merchantCode, limit: profile.rateLimitPerSec, maxRequestMs: fetchTimeoutMs + 5_000 });
          limiter = new TeamRateLimiter(budget, { requestTimeoutMs: fetchTimeoutMs });
          limiters.set(key, limiter);
        }
        return limiter;
      },
    });
    const profile = ctx.profiles.get(options.profileId);
    const engine = new PayoutEngine<PgJournal>({ ...engineOptionsFromProfile(profile), journal, gateway: gatewayPortFor(ctx, profile.id), ...options.engineOptions });
    await engine.start();
    const opened = { journal, ctx };
    return {
      deskId,
      ctx,
      journal,
      engine,
      async close() {
        await engine.stop();
        await opened.journal.close();
        opened.ctx.close();
        await pool.end();
      },
    };
  } catch (error) {
    await journal?.close().catch(() => undefined);
    ctx?.close();
    await pool.end().catch(() => undefined);
    throw error;
  }
}
