// A password a profile needs at this desk (the team database's, the SMTP server's), in this desk's keychain and
// nowhere else: never in the profile, a log, an error message, the audit log or an IPC answer. Only main reads it,
// to connect or to log in. One account per profile and kind: profile:<profileId>:<slot>.
import type { SecurityActionReporter } from '../audit/security-action';
import type { KeyStore } from './key-store';
import type { ProfileStore } from '../profiles/profile-store';

/** Far above a real password's length; keeps a pasted file or key out of the keychain. */
export const MAX_PROFILE_PASSWORD_LENGTH = 1024;

export interface ProfilePasswordKind {
  /** The keychain account's last part, also the audit action's stem ("team-db-password" → team-db-password.set). */
  slot: string;
  /** In messages: "The <what> must be …". */
  what: string;
  /** The error a refused password throws (each kind has its own code). */
  refuse: (message: string) => Error;
}

export interface ProfilePasswordDeps {
  keyStore: KeyStore;
  profiles: ProfileStore;
  audit?: SecurityActionReporter;
}

export class ProfilePasswords {
  constructor(
    private readonly kind: ProfilePasswordKind,
    private readonly deps: ProfilePasswordDeps,
  ) {}

  account(profileId: string): string {
    return `profile:${profileId}:${this.kind.slot}`;
  }

  /** Stores (or replaces) the password; audited as "<slot>.set", without the password. */
  async set(profileId: string, password: string): Promise<void> {
    this.deps.profiles.get(profileId);
    if (password.length === 0 || password.length > MAX_PROFILE_PASSWORD_LENGTH) {
      throw this.kind.refuse(`The ${this.kind.what} must be 1-${MAX_PROFILE_PASSWORD_LENGTH} characters`);
    }
    // Both a connection string's parameter and SMTP AUTH take it on one line: a line break would start another.
    if (/[\r\n\0]/.test(password)) throw this.kind.refuse(`The ${this.kind.what} must be one line (no line breaks or NUL characters)`);
    await this.deps.keyStore.set(this.account(profileId), password);
    await this.deps.audit?.record({ profileId, action: `${this.kind.slot}.set`, subject: profileId, details: {} });
  }

  /** Removes the password; true when one was stored. Audited either way. */
  async clear(profileId: string): Promise<boolean> {
    const removed = await this.deps.keyStore.delete(this.account(profileId));
    await this.deps.audit?.record({ profileId, action: `${this.kind.slot}.cleared`, subject: profileId, details: { removed } });
    return removed;
  }

  async has(profileId: string): Promise<boolean> {
    return (await this.deps.keyStore.get(this.account(profileId))) !== null;
  }

  /** For main's connection or mail code only; never to a log, a message or the renderer. */
  async reveal(profileId: string): Promise<string | null> {
    return this.deps.keyStore.get(this.account(profileId));
  }
}
