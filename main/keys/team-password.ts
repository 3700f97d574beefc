// The team database password of a profile: in this desk's keychain (each desk keeps its own), never in the profile,
// a log, an error message, the audit log or an IPC answer (profile-password.ts). Only main reads it, to connect
// (main/store/postgres/connect.ts).
//   profile:<profileId>:team-db-password   (next to profile:<id>:wrap-key and :deprecated-secret)
import { CodedError } from '../domain/coded-error';
import { MAX_PROFILE_PASSWORD_LENGTH, ProfilePasswords, type ProfilePasswordDeps } from './profile-password';

export const teamPasswordAccount = (profileId: string) => `profile:${profileId}:team-db-password`;

export class TeamPasswordError extends CodedError<'TEAM_PASSWORD_INVALID'> {
  constructor(message: string) {
    super('TEAM_PASSWORD_INVALID', message);
  }
}

/** libpq's limit is far higher; this one keeps a pasted file or key out of the keychain. */
export const MAX_TEAM_PASSWORD_LENGTH = MAX_PROFILE_PASSWORD_LENGTH;

export class TeamPasswords extends ProfilePasswords {
  constructor(deps: ProfilePasswordDeps) {
    super({ slot: 'team-db-password', what: 'team database password', refuse: (message) => new TeamPasswordError(message) }, deps);
  }
}
