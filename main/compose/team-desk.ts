// A desk of a team as one process (the CLI's `team send`, the benches, tests): the desk runtime of a data
// folder whose profile points at a team database, so the engine is the app's own (the approval gate
// included) on the team's stores (team-stores.ts). Each desk process is its own desk id (its name and a
// fresh UUID): its claims and lease are its own, so a restarted desk never mistakes what its previous life
// left in flight for its own work; it is taken over as of unknown outcome once that life's lease has run out.
import { createAppContext, type AppContext } from '../context';
import { createDeskEvents } from '../desk/events';
import { composeDesk } from './desk';
import type { DeskRuntime } from '../desk/runtime';
import type { PayoutEngine, PayoutEngineOptions } from '../engine';
import type { DeskJournal } from '../journal';
import type { KeyStore } from '../keys/key-store';
import { silentLogger, type Logger } from '../log';

export interface TeamDeskOptions {
  /** The desk's data folder (its profiles and sealed key files); the profile's team database holds the rest. */
  home: string;
  keyStore?: KeyStore;
  logger?: Logger;
  profileId: string;
  /** This desk's name among the team (default the host name); a process adds a UUID to it. */
  deskName?: string;
  /** Gateway time-out (default 15 s); a team slot and a claim are held at least this long. */
  fetchTimeoutMs?: number;
  /** The desk's lease on its claims (default 60 s): a desk that dies leaves its sends to others after it. */
  leaseMs?: number;
  engineOptions?: Partial<Omit<PayoutEngineOptions<DeskJournal>, 'journal' | 'gateway'>>;
  /** Whether the gateway budget is the team's (default true); false only to measure what it costs (bench). */
  shareRateBudget?: boolean;
}

export interface TeamDesk {
  readonly deskId: string;
  readonly ctx: AppContext;
  readonly runtime: DeskRuntime;
  readonly journal: DeskJournal;
  readonly engine: PayoutEngine<DeskJournal>;
  /** Stops sending (requests on the wire finish and are recorded), gives back claims, closes the database. */
  close(): Promise<void>;
}

/** Opens the profile's team stores and starts its engine; the profile must point at a team database. */
export async function openTeamDesk(options: TeamDeskOptions): Promise<TeamDesk> {
  const log = options.logger ?? silentLogger;
  const ctx = createAppContext({
    home: options.home, fetchTimeoutMs: options.fetchTimeoutMs ?? 15_000, logger: log, ...(options.keyStore ? { keyStore: options.keyStore } : {}),
  });
  const runtime = composeDesk({
    ctx,
    events: createDeskEvents((error) => log.error('team desk event listener failed', { error })),
    log,
    engineOptions: () => options.engineOptions ?? {},
    team: {
      ...(options.deskName ? { deskName: options.deskName } : {}),
      ...(options.leaseMs ? { leaseMs: options.leaseMs } : {}),
      ...(options.shareRateBudget === false ? { shareRateBudget: false } : {}),
    },
  });
  try {
    const stores = await runtime.storesFor(options.profileId);
    if (!stores.team) throw new Error(`Profile ${options.profileId} has no team database: point it at one with "profiles team set ${options.profileId} --url …"`);
    const engine = await runtime.engineFor(options.profileId);
    return {
      deskId: stores.team.deskId,
      ctx,
      runtime,
      journal: stores.journal,
      engine,
      async close() {
        await runtime.close();
        ctx.close();
      },
    };
  } catch (error) {
    await runtime.close().catch(() => undefined);
    ctx.close();
    throw error;
  }
}
