// The team database password of a profile: in this desk's keychain (each desk keeps its own), never in
// the profile, a log, an error message, the audit log or an IPC answer. Only main reads it, to connect.
//   profile:<profileId>:team-db-password   (next to profile:<id>:wrap-key and :deprecated-secret)
import type { SecurityActionReporter } from '../audit/security-action';
import type { KeyStore } from './key-store';
import type { ProfileStore } from '../profiles/profile-store';
import { CodedError } from '../domain/coded-error';

export const teamPasswordAccount = (profileId: string) => `profile:${profileId}:team-db-password`;

export class TeamPasswordError extends CodedError<'TEAM_PASSWORD_INVALID'> {
  constructor(message: string) {
    super('TEAM_PASSWORD_INVALID', message);
  }
}

/** libpq's limit is far higher; this one keeps a pasted file or key out of the keychain. */
export const MAX_TEAM_PASSWORD_LENGTH = 1024;

export class TeamPasswords {
  constructor(private readonly deps: { keyStore: KeyStore; profiles: ProfileStore; audit?: SecurityActionReporter }) {}

  /** Stores (or replaces) the password; audited as "team-db-password.set", without the password. */
  async set(profileId: string, password: string): Promise<void> {
    this.deps.profiles.get(profileId);
    if (password.length === 0 || password.length > MAX_TEAM_PASSWORD_LENGTH) {
      throw new TeamPasswordError(`The team database password must be 1-${MAX_TEAM_PASSWORD_LENGTH} characters`);
    }
    if (/[\r\n\0]/.test(password)) throw new TeamPasswordError('The team database password must be one line (no line breaks or NUL characters)');
    await this.deps.keyStore.set(teamPasswordAccount(profileId), password);
    await this.deps.audit?.record({ profileId, action: 'team-db-password.set', subject: profileId, details: {} });
  }

  /** Removes the password; true when one was stored. Audited either way. */
  async clear(profileId: string): Promise<boolean> {
    const removed = await this.deps.keyStore.delete(teamPasswordAccount(profileId));
    await this.deps.audit?.record({ profileId, action: 'team-db-password.cleared', subject: profileId, details: { removed } });
    return removed;
  }

  async has(profileId: string): Promise<boolean> {
    return (await this.deps.keyStore.get(teamPasswordAccount(profileId))) !== null;
  }

  /** For main's connection code only (main/store/postgres/connect.ts); never to a log, a message or the renderer. */
  async reveal(profileId: string): Promise<string | null> {
    return this.deps.keyStore.get(teamPasswordAccount(profileId));
  }
}
