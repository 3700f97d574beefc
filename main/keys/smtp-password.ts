// The SMTP password of a profile (remittance advice by e-mail, issue 28): in this desk's keychain, never in the
// profile, a log, an error message, the audit log or an IPC answer. Only main reads it, to log in to the server
// (main/remittance/mail.ts). Kept as the team database password is (team-password.ts):
//   profile:<profileId>:smtp-password   (next to profile:<id>:wrap-key and :team-db-password)
import type { SecurityActionReporter } from '../audit/security-action';
import type { KeyStore } from './key-store';
import type { ProfileStore } from '../profiles/profile-store';
import { CodedError } from '../domain/coded-error';

export const smtpPasswordAccount = (profileId: string) => `profile:${profileId}:smtp-password`;

export class SmtpPasswordError extends CodedError<'SMTP_PASSWORD_INVALID'> {
  constructor(message: string) {
    super('SMTP_PASSWORD_INVALID', message);
  }
}

/** Far above what a mail provider's password or app password is; keeps a pasted file out of the keychain. */
export const MAX_SMTP_PASSWORD_LENGTH = 1024;

export class SmtpPasswords {
  constructor(private readonly deps: { keyStore: KeyStore; profiles: ProfileStore; audit?: SecurityActionReporter }) {}

  /** Stores (or replaces) the password; audited as "smtp-password.set", without the password. */
  async set(profileId: string, password: string): Promise<void> {
    this.deps.profiles.get(profileId);
    if (password.length === 0 || password.length > MAX_SMTP_PASSWORD_LENGTH) {
      throw new SmtpPasswordError(`The SMTP password must be 1-${MAX_SMTP_PASSWORD_LENGTH} characters`);
    }
    // SMTP AUTH sends it on one line: a line break would end the command and start another.
    if (/[\r\n\0]/.test(password)) throw new SmtpPasswordError('The SMTP password must be one line (no line breaks or NUL characters)');
    await this.deps.keyStore.set(smtpPasswordAccount(profileId), password);
    await this.deps.audit?.record({ profileId, action: 'smtp-password.set', subject: profileId, details: {} });
  }

  /** Removes the password; true when one was stored. Audited either way. */
  async clear(profileId: string): Promise<boolean> {
    const removed = await this.deps.keyStore.delete(smtpPasswordAccount(profileId));
    await this.deps.audit?.record({ profileId, action: 'smtp-password.cleared', subject: profileId, details: { removed } });
    return removed;
  }

  async has(profileId: string): Promise<boolean> {
    return (await this.deps.keyStore.get(smtpPasswordAccount(profileId))) !== null;
  }

  /** For main's mail code only (main/remittance/mail.ts); never to a log, a message or the renderer. */
  async reveal(profileId: string): Promise<string | null> {
    return this.deps.keyStore.get(smtpPasswordAccount(profileId));
  }
}
