// The half of the app context that needs no network: one data folder's profile store, the keychain, key
// custody and the security trail. The CLI's profile and key commands work on it alone, so they start without
// the gateway client and what it loads (issue 26); createAppContext (main/context.ts) adds the gateway on top.
import { join } from 'node:path';
import { SecurityTrail } from './audit/security-trail';
import { KeyCustody } from './keys/key-custody';
import { KeytarKeyStore, type KeyStore } from './keys/key-store';
import { silentLogger, type Logger } from './log';
import { ProfileStore } from './profiles/profile-store';

export interface ProfileContextOptions {
  /** The data folder: `desk.db` and `profiles/<id>/keys/*.key.enc` live here. */
  home: string;
  /** Default: the OS keychain through keytar (service from PAYOUT_DESK_KEYCHAIN_SERVICE, else `payout-desk`). */
  keyStore?: KeyStore;
  logger?: Logger;
}

export interface ProfileContext {
  readonly home: string;
  readonly profiles: ProfileStore;
  readonly keys: KeyCustody;
  /** The keychain: key custody's wrap keys, and each journal's audit key and head anchor (main/store/sqlite/audit-seal.ts). */
  readonly keyStore: KeyStore;
  /** Security actions of key custody and the profile store on their way to the audit log. */
  readonly trail: SecurityTrail;
  readonly logger: Logger;
  close(): void;
}

export function createProfileContext(options: ProfileContextOptions): ProfileContext {
  const { home } = options;
  const trail = new SecurityTrail();
  const profiles = new ProfileStore(join(home, 'desk.db'), trail);
  // PAYOUT_DESK_KEYCHAIN_SERVICE lets tests and a second install keep their keys apart from the default service.
  const keyStore = options.keyStore ?? new KeytarKeyStore(process.env['PAYOUT_DESK_KEYCHAIN_SERVICE'] || undefined);
  const keys = new KeyCustody({ home, keyStore, profiles, audit: trail });
  return {
    home,
    profiles,
    keys,
    keyStore,
    trail,
    logger: options.logger ?? silentLogger,
    close() {
      profiles.close();
    },
  };
}
