// profiles:smtp|setSmtp|clearSmtp|testSmtp: the SMTP server a profile e-mails remittance advice through (issue 28).
// Host, port, security, username, From and Reply-to are kept in the profile; the password, sent once by the page or
// read from standard input by the CLI, in this desk's keychain (keys/smtp-password.ts), never answered back. Once dual
// control is on, only an unlocked admin points a profile at another mail server: it is where every payee's advice goes.
import type { SmtpSettingsUpdate, SmtpSettingsView, SmtpTestResult } from '../../contract/api';
import { assertKeychainReachable } from '../keys/key-store';
import { SmtpPasswords } from '../keys/smtp-password';
import { SMTP_DEFAULT_PORT, isMailAddress, type Profile, type SmtpSettings } from '../profiles/profile-schema';
import { openSmtpTransport, type MailTransport } from '../remittance/mail';
import { newMessageId } from '../remittance/message';
import { actedBy, changeAdmin } from './keys';
import type { DeskRuntime } from './runtime';
import { DeskError } from './services';

export const smtpPasswords = (rt: DeskRuntime) => new SmtpPasswords({ keyStore: rt.ctx.keyStore, profiles: rt.ctx.profiles, audit: rt.ctx.trail });

export async function smtpView(rt: DeskRuntime, p: Profile): Promise<SmtpSettingsView> {
  const s = p.smtp;
  return {
    config: s ? { host: s.host, port: s.port, security: s.security, username: s.username, from: s.from, replyTo: s.replyTo } : null,
    // A keychain that cannot be read must not hide the rest of the card.
    passwordStored: await smtpPasswords(rt).has(p.id).catch(() => false),
  };
}

/** The settings an update gives, the rest kept from what is saved: the profile store checks them (profile-schema.ts). */
export function smtpSettingsFrom(update: Omit<SmtpSettingsUpdate, 'profileId' | 'password'>, saved: SmtpSettings | null): SmtpSettings {
  return {
    host: update.host.trim(),
    port: update.port ?? (saved && saved.security === update.security ? saved.port : SMTP_DEFAULT_PORT[update.security]),
    security: update.security,
    username: update.username === undefined ? (saved?.username ?? null) : update.username === null || update.username.trim() === '' ? null : update.username.trim(),
    from: update.from.trim(),
    replyTo: update.replyTo === undefined ? (saved?.replyTo ?? null) : update.replyTo === null || update.replyTo.trim() === '' ? null : update.replyTo.trim(),
  };
}

/** Saves the settings (and the password, when given); shared by profiles:setSmtp and `profiles smtp set`. */
export async function saveSmtp(rt: DeskRuntime, profile: Profile, next: SmtpSettings, password: string | undefined): Promise<Profile> {
  if (password !== undefined && next.username === null) {
    throw new DeskError('SMTP_INVALID', 'A password without a username is never used: give the username the server logs in with, or leave the password out');
  }
  const admin = await changeAdmin(rt, profile.id, 'changing the SMTP server remittance advice is e-mailed through');
  // The change and the password are audited in a journal sealed with a key from the keychain: check it first.
  await assertKeychainReachable(rt.ctx.keyStore);
  const updated = rt.ctx.profiles.update(profile.id, { smtp: next }, actedBy(admin));
  if (password !== undefined) await smtpPasswords(rt).set(profile.id, password);
  await rt.ctx.trail.flush();
  return updated;
}

export async function clearSmtp(rt: DeskRuntime, profile: Profile): Promise<{ profile: Profile; passwordRemoved: boolean }> {
  const admin = await changeAdmin(rt, profile.id, 'removing the SMTP server');
  await assertKeychainReachable(rt.ctx.keyStore);
  const updated = profile.smtp ? rt.ctx.profiles.update(profile.id, { smtp: null }, actedBy(admin)) : profile;
  const passwordRemoved = await smtpPasswords(rt).clear(profile.id);
  await rt.ctx.trail.flush();
  return { profile: updated, passwordRemoved };
}

/**
 * The profile's SMTP settings and a transport opened on first use, or why there is none. Checked before any payout's
 * mail is claimed, so a desk without a server (or without the password its login needs) claims nothing.
 */
export async function smtpSession(rt: DeskRuntime, profile: Profile): Promise<{ settings: SmtpSettings; transport: () => Promise<MailTransport>; close: () => void }> {
  const settings = profile.smtp;
  if (!settings) {
    throw new DeskError('SMTP_NOT_SET', `Profile "${profile.name}" has no SMTP server to e-mail remittance advice through: set one in Settings › E-mail, or with: profiles smtp set ${profile.id} --host … --from …`);
  }
  const password = settings.username !== null ? await smtpPasswords(rt).reveal(profile.id) : null;
  if (settings.username !== null && password === null) {
    throw new DeskError('SMTP_PASSWORD_MISSING', `The SMTP login ${settings.username} of profile "${profile.name}" has no password in this desk's keychain: type it in Settings › E-mail, or: … | profiles smtp set ${profile.id} --password-stdin`);
  }
  let opened: Promise<MailTransport> | null = null;
  return {
    settings,
    transport: () => {
      // nodemailer is loaded here, when a mail is first sent (main/remittance/mail.ts).
      opened ??= openSmtpTransport(settings, password, { payerName: profile.name });
      return opened;
    },
    close: () => void opened?.then((t) => t.close(), () => undefined),
  };
}

/** A short mail through the saved settings, to check them; nothing is recorded but the audit entry. */
export async function testSmtp(rt: DeskRuntime, profile: Profile, to: string | undefined): Promise<SmtpTestResult> {
  const session = await smtpSession(rt, profile);
  const recipient = (to ?? session.settings.from).trim();
  if (!isMailAddress(recipient)) throw new DeskError('INVALID_ARGUMENT', `"${recipient}" is not one e-mail address such as finance@example.com`);
  try {
    const sent = await (await session.transport()).send({
      to: { name: '', address: recipient },
      subject: `Payout Desk test e-mail (${profile.name})`,
      text: `This is a test e-mail from Payout Desk, profile "${profile.name}", through ${session.settings.host}:${session.settings.port} (${session.settings.security}).\nRemittance advice will be e-mailed to payees from ${session.settings.from} this way.\n`,
      messageId: newMessageId(session.settings.from),
      payoutIds: [],
    });
    await rt.audit(profile.id, { action: 'smtp.tested', subject: profile.id, details: { to: recipient, host: session.settings.host, ok: true } });
    return { to: recipient, reply: sent.reply, sentAt: new Date().toISOString() };
  } catch (error) {
    const reply = error instanceof Error ? error.message : String(error);
    await rt.audit(profile.id, { action: 'smtp.tested', subject: profile.id, details: { to: recipient, host: session.settings.host, ok: false, reply } });
    const transient = (error as { kind?: unknown }).kind === 'transient';
    throw new DeskError('SMTP_TEST_FAILED', `The test e-mail to ${recipient} was not sent through ${session.settings.host}:${session.settings.port}: ${reply}`, transient);
  } finally {
    session.close();
  }
}
