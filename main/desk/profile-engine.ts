// How a profile's journal and engine are made: where the journal file lives, which engine settings
// come from the profile, and the gateway port the engine talks through.
import { join } from 'node:path';
import type { AppContext } from '../context';
import type { PayoutEngineOptions, PayoutGatewayPort } from '../engine';
import { publicCallbackUrl } from '../engine/callback-listener';
import type { Profile } from '../profiles/profile-schema';

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

/**
 * The callbackUrl a payment of this profile is sent with by default when callbacks reach the desk through a
 * public URL: that URL with the profile's path secret. Without one the engine announces its loopback
 * listener itself; with callbacks off, none.
 */
export function announcedCallbackUrl(profile: Profile): string | null {
  if (!profile.callbackEnabled || !profile.callbackUrl || !profile.callbackSecret) return null;
  return publicCallbackUrl(profile.callbackUrl, profile.callbackSecret);
}

/** Engine settings that come from the profile. */
export function engineOptionsFromProfile(profile: Profile): Omit<PayoutEngineOptions, 'journal' | 'gateway'> {
  return {
    finalStatuses: profile.finalStatuses,
    maxAmountMinor: profile.maxAmountMinor,
    pollIntervalMs: profile.pollIntervalSecs * 1000,
    callbackListen: profile.callbackEnabled
      ? { host: profile.callbackHost, port: profile.callbackPort, publicBaseUrl: profile.callbackUrl, ...(profile.callbackSecret ? { pathSecret: profile.callbackSecret } : {}) }
      : null,
    callbackUrl: announcedCallbackUrl(profile),
    balancesIntervalMs: DEFAULT_BALANCES_INTERVAL_MS,
    lateReleaseWindowMs: profile.lateReleaseWindowMinutes * 60_000,
  };
}
