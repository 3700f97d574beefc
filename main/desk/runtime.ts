// The desk's per-profile runtime, the one the app, the CLI, the tests and the benches run on: one
// journal and one started engine per profile, built from factories (options may swap the journal
// or add engine options), engine events turned into contract events, and the visible connection state. Offline
// is a normal state: journals answer history, batches and keys without the gateway; the engine
// keeps queued work until the gateway answers again.
import type { ConnectionState, Environment } from '../../preload/api';
import type { AppContext } from '../context';
import { PayoutEngine, type PayoutEngineOptions } from '../engine';
import { openJournal, type Journal } from '../journal';
import type { Logger } from '../log';
import type { Profile } from '../profiles/profile-schema';
import type { DeskEvents } from './events';
import { engineOptionsFromProfile, gatewayPortFor, journalPath } from './profile-engine';

export interface DeskRuntimeOptions {
  ctx: AppContext;
  events: DeskEvents;
  log: Logger;
  /** Opens a profile's journal; default openJournal(journalPath(ctx.home, profileId)). */
  openJournal?: (profileId: string) => Journal;
  /** Extra engine options for a profile (tests, benches, the simulation), applied over the profile's own. */
  engineOptions?: (profile: Profile) => Partial<PayoutEngineOptions>;
}

export interface DeskRuntime {
  readonly ctx: AppContext;
  readonly events: DeskEvents;
  readonly log: Logger;
  journalFor(profileId: string): Journal;
  /** The started engine of a profile (started on first use, restarted after settings change). */
  engineFor(profileId: string): Promise<PayoutEngine>;
  /** The engine of a profile if it is started (or starting), without starting one; null otherwise. */
  startedEngine(profileId: string): Promise<PayoutEngine | null>;
  /** Stops a profile's engine so the next use picks up changed settings. */
  reset(profileId: string): Promise<void>;
  connection(): ConnectionState;
  setConnection(profileId: string, patch: Partial<Omit<ConnectionState, 'profileId' | 'since'>>): void;
  close(): Promise<void>;
}

export function createDeskRuntime(options: DeskRuntimeOptions): DeskRuntime {
  const { ctx, events, log } = options;
  const open = options.openJournal ?? ((profileId: string) => openJournal(journalPath(ctx.home, profileId)));
  const journals = new Map<string, Journal>();
  const engines = new Map<string, Promise<PayoutEngine>>();
  let connection: ConnectionState = {
    status: 'no-profile', profileId: null, environment: null, channelName: null, since: new Date().toISOString(), lastError: null, queued: 0,
  };

  const journalFor = (profileId: string): Journal => {
    let journal = journals.get(profileId);
    if (!journal) {
      journal = open(profileId);
      journals.set(profileId, journal);
    }
    return journal;
  };

  /** The state with its profile's payouts still waiting to be sent (they wait while offline). */
  const withQueued = (state: ConnectionState): ConnectionState => {
    if (!state.profileId || !ctx.profiles.find(state.profileId)) return state;
    try {
      return { ...state, queued: journalFor(state.profileId).unsentPayments('payout').length };
    } catch {
      return state;
    }
  };

  const setConnection: DeskRuntime['setConnection'] = (profileId, patch) => {
    const profile = ctx.profiles.find(profileId);
    const environment: Environment | null = profile?.environment ?? null;
    const next: ConnectionState = { ...connection, ...patch, profileId, environment };
    if (connection.profileId !== profileId) next.channelName = patch.channelName ?? null;
    if (next.status !== connection.status || connection.profileId !== profileId) next.since = new Date().toISOString();
    connection = next;
    if (ctx.profiles.currentId() === profileId) events.emit('connectionChanged', withQueued(connection));
  };

  const wire = (profileId: string, engine: PayoutEngine): void => {
    engine.on('status-changed', (e) => events.emit('paymentStatusChanged', { ...e, observedAt: new Date(e.observedAt).toISOString() }));
    engine.on('batch-progress', (e) => {
      const { counts: _counts, ...progress } = e;
      events.emit('batchProgress', progress);
    });
    engine.on('connection', (e) =>
      setConnection(profileId, { status: e.state, lastError: e.message ? { code: e.state === 'offline' ? 'OFFLINE' : 'ONLINE', message: e.message } : null }),
    );
    engine.on('background-error', (error) => log.error('engine background error', { profileId, error }));
  };

  const buildEngine = async (profileId: string): Promise<PayoutEngine> => {
    const profile = ctx.profiles.get(profileId);
    const engine = new PayoutEngine({
      ...engineOptionsFromProfile(profile),
      ...options.engineOptions?.(profile),
      journal: journalFor(profileId),
      gateway: gatewayPortFor(ctx, profileId),
    });
    wire(profileId, engine);
    await engine.start();
    return engine;
  };

  return {
    ctx,
    events,
    log,
    journalFor,
    engineFor(profileId) {
      let engine = engines.get(profileId);
      if (!engine) {
        engine = buildEngine(profileId);
        engines.set(profileId, engine);
        // A failed start is not cached: the next call tries again.
        engine.catch(() => engines.delete(profileId));
      }
      return engine;
    },
    async startedEngine(profileId) {
      return (await engines.get(profileId)?.catch(() => null)) ?? null;
    },
    async reset(profileId) {
      const engine = engines.get(profileId);
      engines.delete(profileId);
      if (engine) await (await engine.catch(() => null))?.stop();
    },
    connection: () => withQueued(connection),
    setConnection,
    async close() {
      for (const id of [...engines.keys()]) await this.reset(id);
      for (const journal of journals.values()) journal.close();
      journals.clear();
    },
  };
}
