// The app context: the services one data folder needs, built once and shared by the Electron main
// process, the CLI, the tests and the benchmarks. No singletons: each context owns its database
// connection, its key store and one rate limiter per merchant.
import type { AxiosAdapter } from 'axios';
import { GatewayClient } from './gateway/client';
import { RateLimiterRegistry, type RateLimiter } from './gateway/rate-limiter';
import type { TokenCredentials } from './gateway/token-manager';
import { createProfileContext, type ProfileContext, type ProfileContextOptions } from './profile-context';
import { profileRuleProblem, type Profile } from './profiles/profile-schema';
import { ProfileError } from './profiles/profile-store';

/** A gateway request is aborted after this long unless the context says otherwise. */
export const DEFAULT_FETCH_TIMEOUT_MS = 15_000;

export interface AppContextOptions extends ProfileContextOptions {
  /**
   * The profile half already made (the CLI makes it first for its light commands): the app context shares
   * its profile store, keychain and trail, and closing the app context closes it. Default: a new one.
   */
  base?: ProfileContext;
  fetchTimeoutMs?: number;
  /** What carries gateway requests; default real HTTP. The simulation's in-process gateway goes here. */
  httpAdapter?: AxiosAdapter;
  /**
   * The limiter of a profile whose rate budget is shared with other desks (a team desk: main/team), or
   * undefined for this process's own limiter of the merchant.
   */
  sharedLimiterFor?: (profile: Profile) => RateLimiter | undefined;
}

export interface AppContext extends ProfileContext {
  /** The client of a profile (cached; rebuilt when the profile or its active key changed). */
  gatewayFor(profileId: string): GatewayClient;
  /** The rate limiter shared by every client of this merchant. */
  limiterFor(profile: Profile): RateLimiter;
  /** How long a gateway request may take before it is aborted (ms). */
  readonly fetchTimeoutMs: number;
  /**
   * From now on the profile's requests take their slots from `limiter` (a desk of a team: the merchant's
   * budget kept in the team database), or, with null, from this process's own limiter again.
   */
  shareLimiter(profileId: string, limiter: RateLimiter | null): void;
}

export function createAppContext(options: AppContextOptions): AppContext {
  const base = options.base ?? createProfileContext(options);
  const { profiles, keys, logger } = base;
  const limiters = new RateLimiterRegistry();
  const clients = new Map<string, { client: GatewayClient; stamp: string }>();
  const shared = new Map<string, RateLimiter>();
  const fetchTimeoutMs = options.fetchTimeoutMs ?? DEFAULT_FETCH_TIMEOUT_MS;

  const limiterFor = (profile: Profile) =>
    shared.get(profile.id) ?? options.sharedLimiterFor?.(profile) ?? limiters.for(profile.baseUrl, profile.merchantCode, profile.rateLimitPerSec);

  const credentialsFor = (profileId: string) => async (): Promise<TokenCredentials> => {
    // Read the profile each time: an opt-in change or a key rotation applies to the next token.
    const profile = profiles.get(profileId);
    if (profile.useDeprecatedSecret) return { kind: 'secret', secret: await keys.deprecatedSecret(profile) };
    return { kind: 'signature', signer: await keys.signerFor(profileId) };
  };

  return {
    home: base.home,
    profiles,
    keys,
    keyStore: base.keyStore,
    trail: base.trail,
    logger,
    limiterFor,
    fetchTimeoutMs,
    shareLimiter(profileId, limiter) {
      if (limiter) shared.set(profileId, limiter);
      else shared.delete(profileId);
      // The next request builds a client on the limiter now in force.
      clients.delete(profileId);
    },
    gatewayFor(profileId) {
      const profile = profiles.get(profileId);
      // A profile stored before the rule (or edited in the file) is refused here, before any request leaves.
      const rule = profileRuleProblem(profile);
      if (rule) throw new ProfileError('PROFILE_INVALID', `Profile "${profile.name}": ${rule}; change its base URL (profiles edit) before using it`);
      // Any change to the profile (settings, active key) means a new client and so a new token.
      const stamp = `${profile.updatedAt}|${profile.activeKeyId ?? ''}`;
      const cached = clients.get(profileId);
      if (cached && cached.stamp === stamp) return cached.client;
      const client = new GatewayClient({
        profile,
        credentials: credentialsFor(profileId),
        limiter: limiterFor(profile),
        logger,
        timeoutMs: fetchTimeoutMs,
        ...(options.httpAdapter ? { adapter: options.httpAdapter } : {}),
      });
      clients.set(profileId, { client, stamp });
      return client;
    },
    close() {
      clients.clear();
      base.close();
    },
  };
}
