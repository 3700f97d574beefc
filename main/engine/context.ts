// Builds each profile's journal and engine from an AppContext, once, and closes them together. The
// journal lives in the profile's data folder; the engine talks to the gateway through whatever
// client the context currently holds for the profile (a changed profile or key means a new client).
import { join } from 'node:path';
import type { AppContext } from '../context';
import { openJournal, type Journal, type JournalOptions } from '../journal';
import type { Profile } from '../profiles/profile-schema';
import { PayoutEngine, type PayoutEngineOptions } from './payout-engine';
import type { PayoutGatewayPort } from './ports';

export const DEFAULT_BALANCES_INTERVAL_MS = 60_000;

export function journalPath(home: string, profileId: string): string {
  return join(home, 'profiles', profileId, 'journal.db');
}

/** The gateway port over the context's current client of the profile. */
export function gatewayPortFor(ctx: AppContext, profileId: string): PayoutGatewayPort {
  // Looking the client up reads the profile; at hundreds of calls a second, once a second is enough
  // to pick up a changed profile or key.
  let cached: { client: ReturnType<AppContext['gatewayFor']>; at: number } | undefined;
  const client = () => {
    const now = Date.now();
    if (!cached || now - cached.at > 1_000) cached = { client: ctx.gatewayFor(profileId), at: now };
    return cached.client;
  };
  return {
    createPayout: (id, request, options) => client().createPayout(id, request, options),
    getPayout: (id) => client().getPayout(id),
    getPayin: (id) => client().getPayin(id),
    balances: (codes) => client().balances(codes),
    limiter: { usage: () => client().limiter.usage() },
  };
}

/** Engine settings that come from the profile. */
export function engineOptionsFromProfile(profile: Profile): Omit<PayoutEngineOptions, 'journal' | 'gateway'> {
  return {
    finalStatuses: profile.finalStatuses,
    maxAmountMinor: profile.maxAmountMinor,
    pollIntervalMs: profile.pollIntervalSecs * 1000,
    callbackListen: profile.callbackEnabled ? { host: profile.callbackHost, port: profile.callbackPort } : null,
    callbackUrl: profile.callbackEnabled ? profile.callbackUrl : null,
    balancesIntervalMs: DEFAULT_BALANCES_INTERVAL_MS,
  };
}

export interface EngineRegistryOptions {
  journal?: JournalOptions;
  /** Test and bench hook: adjust the engine options built from the profile. */
  engineOverrides?: (profile: Profile) => Partial<PayoutEngineOptions>;
}

export class EngineRegistry {
  private readonly journals = new Map<string, Journal>();
  private readonly engines = new Map<string, PayoutEngine>();

  constructor(
    private readonly ctx: AppContext,
    private readonly options: EngineRegistryOptions = {},
  ) {}

  journalFor(profileId: string): Journal {
    let journal = this.journals.get(profileId);
    if (!journal) {
      this.ctx.profiles.get(profileId); // throws a clear error for an unknown profile
      journal = openJournal(journalPath(this.ctx.home, profileId), this.options.journal);
      this.journals.set(profileId, journal);
    }
    return journal;
  }

  /** The profile's engine (not started: call start() to resume interrupted work and poll). */
  engineFor(profileId: string): PayoutEngine {
    let engine = this.engines.get(profileId);
    if (!engine) {
      const profile = this.ctx.profiles.get(profileId);
      engine = new PayoutEngine({
        ...engineOptionsFromProfile(profile),
        ...this.options.engineOverrides?.(profile),
        journal: this.journalFor(profileId),
        gateway: gatewayPortFor(this.ctx, profileId),
      });
      this.engines.set(profileId, engine);
    }
    return engine;
  }

  async close(): Promise<void> {
    await Promise.allSettled([...this.engines.values()].map((e) => e.stop()));
    this.engines.clear();
    for (const j of this.journals.values()) j.close();
    this.journals.clear();
  }
}

export function createEngineRegistry(ctx: AppContext, options?: EngineRegistryOptions): EngineRegistry {
  return new EngineRegistry(ctx, options);
}
