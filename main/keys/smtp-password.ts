// The SMTP password of a profile (remittance advice and alert digests by e-mail): in this desk's keychain, never in
// the profile, a log, an error message, the audit log or an IPC answer (profile-password.ts). Only main reads it, to
// log in to the server (main/remittance/mail.ts).
//   profile:<profileId>:smtp-password   (next to profile:<id>:wrap-key and :team-db-password)
import { CodedError } from '../domain/coded-error';
import { MAX_PROFILE_PASSWORD_LENGTH, ProfilePasswords, type ProfilePasswordDeps } from './profile-password';

export const smtpPasswordAccount = (profileId: string) => `profile:${profileId}:smtp-password`;

export class SmtpPasswordError extends CodedError<'SMTP_PASSWORD_INVALID'> {
  constructor(message: string) {
    super('SMTP_PASSWORD_INVALID', message);
  }
}

/** Far above what a mail provider's password or app password is; keeps a pasted file out of the keychain. */
export const MAX_SMTP_PASSWORD_LENGTH = MAX_PROFILE_PASSWORD_LENGTH;

export class SmtpPasswords extends ProfilePasswords {
  constructor(deps: ProfilePasswordDeps) {
    super({ slot: 'smtp-password', what: 'SMTP password', refuse: (message) => new SmtpPasswordError(message) }, deps);
  }
}
