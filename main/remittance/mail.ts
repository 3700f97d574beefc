// Sending one remittance advice mail through the profile's SMTP server (nodemailer, loaded when a mail is first sent,
// so neither the app nor the CLI loads it to start). The password comes from the keychain (keys/smtp-password.ts) and
// goes only to the server's AUTH; an error's text is kept as the server's reply with the password cut out, in case a
// server ever echoes it. What a failed send means for the next step is decided here, once:
//   transient  connection errors, time-outs and 4xx replies: tried again after a pause;
//   refused    a 5xx reply to the mail (550 recipient unknown, 554 rejected): the server said no for good;
//   failed     anything else no retry fixes: the desk's settings (the server's certificate not trusted, STARTTLS not
//              offered, the login refused), whatever the reply code.
import type { SmtpSettings } from '../profiles/profile-schema';

export interface AdviceMail {
  to: { name: string; address: string };
  subject: string;
  text: string;
  /** The advice's PDF (a test mail has none). */
  attachment?: { fileName: string; content: Buffer };
  /** Set by the desk, recorded before the send, so a mail can be found in the server's logs whatever happens. */
  messageId: string;
  /** The payouts this mail advises, as a header for whoever reads the mail's source. */
  payoutIds: readonly string[];
}

export interface MailSent {
  /** The server's answer to the message ("250 2.0.0 Ok: queued as …"). */
  reply: string;
}

export type MailFailureKind = 'transient' | 'refused' | 'failed';

export class MailSendError extends Error {
  constructor(
    readonly kind: MailFailureKind,
    /** The server's reply, or the connection's error, in words; never the password. */
    readonly reply: string,
  ) {
    super(reply);
    this.name = 'MailSendError';
  }
}

/** An SMTP session source: one mail at a time, closed when the sender is done. */
export interface MailTransport {
  send(mail: AdviceMail): Promise<MailSent>;
  close(): void;
}

/** How long the desk waits on a server before the attempt counts as a transient failure. */
const TIMEOUTS = { connectionTimeout: 15_000, greetingTimeout: 15_000, socketTimeout: 60_000, dnsTimeout: 15_000 };

/** Codes nodemailer gives a failure that may pass on its own: the network, a time-out, a dropped connection. */
const TRANSIENT_CODES = new Set(['ECONNECTION', 'ETIMEDOUT', 'ESOCKET', 'EDNS', 'ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);

/** Codes of a failure of the desk's settings (TLS, login): failed, never retried, whatever the server's reply code. */
const SETUP_CODES = new Set(['ETLS', 'EREQUIRETLS', 'EAUTH', 'ENOAUTH', 'ECONFIG']);

/** What a send's error means, and its words for the record (the server's reply when it gave one). */
export function classifyMailError(error: unknown, secret: string | null): MailSendError {
  if (error instanceof MailSendError) return error;
  const e = (error ?? {}) as { responseCode?: unknown; response?: unknown; code?: unknown; message?: unknown };
  const responseCode = typeof e.responseCode === 'number' ? e.responseCode : null;
  const response = typeof e.response === 'string' && e.response.trim() ? e.response.trim() : null;
  const message = typeof e.message === 'string' ? e.message : String(error);
  let reply = response ?? message;
  if (!response && typeof e.code === 'string' && !reply.includes(e.code)) reply = `${e.code}: ${reply}`;
  if (secret) reply = reply.split(secret).join('(hidden)');
  reply = reply.replace(/\s+/g, ' ').trim().slice(0, 1000);
  // The desk's own set-up, whatever the reply code: TLS that did not happen, a login refused. Not the payee's doing.
  if (typeof e.code === 'string' && SETUP_CODES.has(e.code)) return new MailSendError('failed', reply);
  if (responseCode !== null && responseCode >= 500) return new MailSendError('refused', reply);
  if (responseCode !== null && responseCode >= 400) return new MailSendError('transient', reply);
  if (typeof e.code === 'string' && TRANSIENT_CODES.has(e.code)) return new MailSendError('transient', reply);
  return new MailSendError('failed', reply);
}

/** The display name of the From address: the payer, as the advice names them. */
export interface SenderIdentity {
  payerName: string;
}

/**
 * An SMTP transport on the profile's settings. `security` decides TLS and nothing else can weaken it: tls is TLS from
 * the start, starttls refuses a server that does not upgrade (requireTLS), none (loopback only, profile-schema.ts)
 * never tries. Certificates are checked against the system's trusted CAs; file and URL access is off, so a message can
 * only carry what the desk put in it.
 */
export async function openSmtpTransport(settings: SmtpSettings, password: string | null, sender: SenderIdentity): Promise<MailTransport> {
  const nodemailer = await import('nodemailer');
  const transporter = nodemailer.createTransport({
    host: settings.host,
    port: settings.port,
    secure: settings.security === 'tls',
    requireTLS: settings.security === 'starttls',
    ignoreTLS: settings.security === 'none',
    auth: settings.username !== null ? { user: settings.username, pass: password ?? '' } : undefined,
    ...TIMEOUTS,
    tls: { rejectUnauthorized: true, minVersion: 'TLSv1.2' },
    disableFileAccess: true,
    disableUrlAccess: true,
    logger: false,
    debug: false,
  });
  return {
    async send(mail) {
      try {
        const info = await transporter.sendMail({
          from: { name: sender.payerName, address: settings.from },
          ...(settings.replyTo ? { replyTo: settings.replyTo } : {}),
          to: { name: mail.to.name, address: mail.to.address },
          // The envelope is named outright: the recipient is this one address, never a list parsed out of it.
          envelope: { from: settings.from, to: [mail.to.address] },
          subject: mail.subject,
          text: mail.text,
          messageId: mail.messageId,
          ...(mail.payoutIds.length > 0 ? { headers: { 'X-Payout-Desk-Payouts': mail.payoutIds.join(', ') } } : {}),
          attachments: mail.attachment ? [{ filename: mail.attachment.fileName, content: mail.attachment.content, contentType: 'application/pdf' }] : [],
        });
        if (info.rejected.length > 0) throw new MailSendError('refused', `the server refused ${info.rejected.join(', ')}: ${info.response}`);
        return { reply: info.response };
      } catch (error) {
        throw classifyMailError(error, password);
      }
    },
    close() {
      transporter.close();
    },
  };
}
