// The app context: the services one data folder needs, built once and shared by the Electron main
// process, the CLI, the tests and the benchmarks. No singletons: each context owns its database
// connection, its key store and one rate limiter per merchant.
import { join } from 'node:path';
import type { AxiosAdapter } from 'axios';
import { GatewayClient } from './gateway/client';
import { RateLimiterRegistry, type RateLimiter } from './gateway/rate-limiter';
import type { TokenCredentials } from './gateway/token-manager';
import { KeyCustody } from './keys/key-custody';
import { KeytarKeyStore, type KeyStore } from './keys/key-store';
import { silentLogger, type Logger } from './log';
import { profileRuleProblem, type Profile } from './profiles/profile-schema';
import { ProfileError, ProfileStore } from './profiles/profile-store';
import { SecurityTrail } from './audit/security-trail';

/** A gateway request is aborted after this long unless the context says otherwise. */
export const DEFAULT_FETCH_TIMEOUT_MS = 15_000;

export interface AppContextOptions {
  /** The data folder: `desk.db` and `profiles/<id>/keys/*.key.enc` live here. */
  home: string;
  /** Default: the OS keychain through keytar (service `payout-desk`). */
  keyStore?: KeyStore;
  fetchTimeoutMs?: number;
  logger?: Logger;
  /** What carries gateway requests; default real HTTP. The simulation's in-process gateway goes here. */
  httpAdapter?: AxiosAdapter;
  /**
   * The limiter of a profile whose rate budget is shared with other desks (a team desk: main/team), or
   * undefined for this process's own limiter of the merchant.
   */
  sharedLimiterFor?: (profile: Profile) => RateLimiter | undefined;
}

export interface AppContext {
  readonly home: string;
  readonly profiles: ProfileStore;
  readonly keys: KeyCustody;
  /** The keychain: key custody's wrap keys, and each journal's audit key and head anchor (main/store/sqlite/audit-seal.ts). */
  readonly keyStore: KeyStore;
  /** Security actions of key custody and the profile store on their way to the audit log. */
  readonly trail: SecurityTrail;
  readonly logger: Logger;
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
  close(): void;
}

export function createAppContext(options: AppContextOptions): AppContext {
  const home = options.home;
  const logger = options.logger ?? silentLogger;
  const trail = new SecurityTrail();
  const profiles = new ProfileStore(join(home, 'desk.db'), trail);
  // PAYOUT_DESK_KEYCHAIN_SERVICE lets tests and a second install keep their keys apart from the default service.
  const keyStore = options.keyStore ?? new KeytarKeyStore(process.env['PAYOUT_DESK_KEYCHAIN_SERVICE'] || undefined);
  const keys = new KeyCustody({ home, keyStore, profiles, audit: trail });
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
    home,
    profiles,
    keys,
    keyStore,
    trail,
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
      profiles.close();
    },
  };
}
