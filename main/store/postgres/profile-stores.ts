// A profile's stores on its team database (profile.teamDatabase): the team journal, the dual-control
// records and the payee book shared by the team's desks, this desk process's lease, and the merchant's
// rate budget shared through the same database. The desk runtime opens it for a profile that points at a
// team database, so every screen and CLI command of that profile works on the team's records.
// Each desk keeps its own keychain: the password to the database, the merchant's key (sender desks only)
// and each person's key stay on the machines they belong to.
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Pool } from 'pg';
import { PgDualControlRepository } from './dual-control';
import type { AppContext } from '../../context';
import type { ProfileStores } from '../profile-stores';
import { openTeamPool, TeamDatabaseError, teamWhere } from './connect';
import { PgJournal } from './journal';
import { TeamRateBudget } from './rate-budget';
import type { Logger } from '../../log';
import { PgPayeeRepository } from './payees';
import { PgRecurringStore } from './recurring';
import type { Profile } from '../../profiles/profile-schema';
import { TeamPasswords } from '../../keys/team-password';
import { TeamAuditSeal } from './audit-seal';
import { TeamChangeFeed } from './change-feed';
import { TeamRateLimiter } from './team-limiter';

export interface TeamStoresOptions {
  ctx: AppContext;
  profile: Profile;
  log: Logger;
  /** This desk's name among the team (default PAYOUT_DESK_NAME, else the host name); a process adds a UUID. */
  deskName?: string;
  /** The desk's lease on its claims (default 60 s): a desk that dies leaves its sends to others after it. */
  leaseMs?: number;
  /** Connections to the database (default 8: the journal's work, and one each for the change listeners). */
  poolSize?: number;
  /** Whether the gateway budget is the team's (default true); false only to measure what it costs (bench). */
  shareRateBudget?: boolean;
}

export const defaultDeskName = (): string => process.env['PAYOUT_DESK_NAME']?.trim() || hostname();

/** Connects to the profile's team database (migrating it), takes this desk's lease and opens its stores. */
export async function openTeamStores(options: TeamStoresOptions): Promise<ProfileStores> {
  const { ctx, profile, log } = options;
  const team = profile.teamDatabase;
  if (!team) throw new Error(`Profile ${profile.id} has no team database`);
  const deskName = options.deskName ?? defaultDeskName();
  const deskId = `${deskName}:${randomUUID()}`;
  const pool = await connect(options, deskId);
  const opened: { close(): Promise<void> }[] = [];
  try {
    const journal = await PgJournal.open(pool, {
      deskId,
      maxRequestMs: ctx.fetchTimeoutMs,
      ...(options.leaseMs ? { leaseMs: options.leaseMs } : {}),
      // A SENDING mark that could not be written: the claim, written before, already says the payout may be in flight.
      onBackgroundError: (error) => log.warn('team journal: a SENDING mark was not written', { message: error instanceof Error ? error.message : String(error) }),
    });
    opened.push(journal);
    // Audit entries wait for this desk's signing key (openSeal); other writes do not.
    journal.requireAuditSigner();
    const dualControl = await PgDualControlRepository.open(pool);
    opened.push(dualControl);
    const payees = await PgPayeeRepository.open(pool);
    opened.push({ close: () => payees.end() });
    const changes = await TeamChangeFeed.open(pool, deskId);
    opened.push(changes);
    const limiter = options.shareRateBudget === false
      ? null
      : new TeamRateLimiter(
        new TeamRateBudget({ pool, deskId, baseUrl: profile.baseUrl, merchantCode: profile.merchantCode, limit: profile.rateLimitPerSec, maxRequestMs: ctx.fetchTimeoutMs + 5_000 }),
        { requestTimeoutMs: ctx.fetchTimeoutMs },
      );
    return {
      journal,
      dualControl,
      payees,
      recurring: new PgRecurringStore(pool),
      team: { deskId, limiter, where: teamWhere(team) },
      // This desk's key for the team's audit log, from its own keychain (team-audit.ts).
      openSeal: (keyStore, sealLog, context) => TeamAuditSeal.open({ pool, journal, keyStore, log: sealLog, deskName, registeredDesks: context.registeredDesks }),
      sealFailed: (reason) => journal.requireAuditSigner(reason),
      onRemoteChange: (listener) => changes.subscribe(listener),
      // The listening connection is the first to notice the database gone, and tries again every 2 s.
      onReachability: (listener) => changes.onListening(listener),
      reportUnreachable: (message) => changes.lost(message),
      async close() {
        for (const part of opened.reverse()) await part.close().catch((error: unknown) => log.warn('team store did not close cleanly', { error }));
        await pool.end().catch(() => undefined);
      },
    };
  } catch (error) {
    for (const part of opened.reverse()) await part.close().catch(() => undefined);
    await pool.end().catch(() => undefined);
    throw error;
  }
}

async function connect(options: TeamStoresOptions, deskId: string): Promise<Pool> {
  const { ctx, profile, log } = options;
  const password = await new TeamPasswords({ keyStore: ctx.keyStore, profiles: ctx.profiles, audit: ctx.trail }).reveal(profile.id);
  const { pool, privileged, user } = await openTeamPool(profile.teamDatabase!, password, {
    max: options.poolSize ?? 8,
    deskId,
    // An idle connection the server ended is reported on the pool; the next query takes a new one.
    onError: (error) => log.warn('team database connection lost', { message: error.message }),
  });
  // A LIVE desk does not hold a password that can drop a trigger, truncate or rewrite a signed row (threat model).
  if (profile.environment === 'LIVE' && privileged) {
    await pool.end().catch(() => undefined);
    throw new TeamDatabaseError(
      'TEAM_DB_PRIVILEGED',
      `User ${user} may change the team database's schema (it owns it, or is a superuser): a LIVE desk connects as a member role instead. Its owner runs \`payout-desk profiles team init ${profile.id} --owner-url …\` once and gives this desk the member login`,
    );
  }
  return pool;
}
