// A real SMTP server for the tests (the smtp-server package) on 127.0.0.1, port 0, that keeps every mail it takes,
// every login, and answers RCPT TO as a test asks (421 once, 550 always…); and a small MIME reader, enough to take a
// mail apart into its headers, its text and its PDF attachment. The PDF is read back with poppler's pdftotext.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';

export interface ReceivedMail {
  from: string;
  to: string[];
  raw: string;
}

/** An SMTP reply a test wants for one RCPT TO, or null to accept it. */
export type RcptAnswer = { code: number; message: string } | null;

export interface SmtpFixture {
  port: number;
  mails: ReceivedMail[];
  logins: { username: string; password: string }[];
  /** Every RCPT TO the server was asked, in order (a refused one too). */
  rcpts: string[];
  /** Number of connections the server took. */
  connections(): number;
  close(): Promise<void>;
}

export async function startSmtpFixture(options: {
  /** The login the server takes; absent: no login needed. */
  login?: { username: string; password: string };
  /** Asked for each RCPT TO with its number (1, 2…): a reply to refuse it with, or null. */
  rcpt?: (address: string, n: number) => RcptAnswer;
  /** Options of smtp-server to override (disabledCommands…). */
  server?: Partial<SMTPServerOptions>;
} = {}): Promise<SmtpFixture> {
  const mails: ReceivedMail[] = [];
  const logins: { username: string; password: string }[] = [];
  const rcpts: string[] = [];
  let connections = 0;
  const server = new SMTPServer({
    // Loopback, no TLS: the profiles of these tests use security "none" (allowed for a server on this machine).
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    authOptional: !options.login,
    logger: false,
    // The tests close it while nodemailer's connections are gone already; no 30 s wait for stragglers.
    closeTimeout: 1_000,
    onConnect(_session, callback) {
      connections++;
      callback();
    },
    onAuth(auth, _session, callback) {
      logins.push({ username: auth.username ?? '', password: auth.password ?? '' });
      if (options.login && auth.username === options.login.username && auth.password === options.login.password) return callback(null, { user: auth.username });
      return callback(Object.assign(new Error('Authentication failed'), { responseCode: 535 }));
    },
    onRcptTo(address, _session, callback) {
      rcpts.push(address.address);
      const answer = options.rcpt?.(address.address, rcpts.length) ?? null;
      if (answer) return callback(Object.assign(new Error(answer.message), { responseCode: answer.code }));
      return callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        mails.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('latin1'),
        });
        callback();
      });
    },
    ...options.server,
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.server.address() as AddressInfo).port;
  return {
    port,
    mails,
    logins,
    rcpts,
    connections: () => connections,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

// ---- reading a mail ----

export interface MimePart {
  headers: Map<string, string>;
  body: Buffer;
}

function splitHeaders(text: string): { headers: Map<string, string>; body: string } {
  const at = text.indexOf('\r\n\r\n');
  const head = at === -1 ? text : text.slice(0, at);
  const body = at === -1 ? '' : text.slice(at + 4);
  const headers = new Map<string, string>();
  // Folded lines (a line starting with white space) continue the header before them.
  for (const line of head.replace(/\r\n[ \t]+/g, ' ').split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  return { headers, body };
}

function decode(body: string, encoding: string | undefined): Buffer {
  switch ((encoding ?? '7bit').toLowerCase()) {
    case 'base64':
      return Buffer.from(body.replace(/\s+/g, ''), 'base64');
    case 'quoted-printable':
      return Buffer.from(body.replace(/=\r\n/g, '').replace(/=([0-9A-F]{2})/gi, (_m, h: string) => String.fromCharCode(parseInt(h, 16))), 'latin1');
    default:
      return Buffer.from(body, 'latin1');
  }
}

/** A mail's headers and its parts (one level of multipart, as nodemailer writes a text with an attachment). */
export function parseMail(raw: string): { headers: Map<string, string>; parts: MimePart[] } {
  const { headers, body } = splitHeaders(raw);
  const boundary = /boundary="?([^";]+)"?/i.exec(headers.get('content-type') ?? '')?.[1];
  if (!boundary) return { headers, parts: [{ headers, body: decode(body, headers.get('content-transfer-encoding')) }] };
  const parts = body
    .split(`--${boundary}`)
    .slice(1)
    .filter((chunk) => !chunk.startsWith('--'))
    .map((chunk) => {
      const part = splitHeaders(chunk.replace(/^\r\n/, ''));
      return { headers: part.headers, body: decode(part.body.replace(/\r\n$/, ''), part.headers.get('content-transfer-encoding')) };
    });
  return { headers, parts };
}

/** The mail's plain text, its PDF attachment (name and bytes) and that PDF as text. */
export function readAdviceMail(raw: string): { headers: Map<string, string>; text: string; pdfName: string | null; pdf: Buffer | null; pdfText: string } {
  const { headers, parts } = parseMail(raw);
  const text = parts.find((p) => (p.headers.get('content-type') ?? '').startsWith('text/plain'))?.body.toString('utf8') ?? '';
  const attachment = parts.find((p) => (p.headers.get('content-type') ?? '').startsWith('application/pdf'));
  const pdfName = attachment ? (/filename="?([^";]+)"?/i.exec(attachment.headers.get('content-disposition') ?? '')?.[1] ?? null) : null;
  return { headers, text, pdfName, pdf: attachment?.body ?? null, pdfText: attachment ? pdfToText(attachment.body) : '' };
}

export function pdfToText(pdf: Buffer): string {
  const dir = mkdtempSync(join(tmpdir(), 'advice-mail-'));
  try {
    const file = join(dir, 'advice.pdf');
    writeFileSync(file, pdf);
    return execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
