// Receives the gateway's status-change callbacks. Callbacks only say "something changed" (interface
// §6), so the named payment is then read with GET; payloads are never trusted for status.
// The listener is reachable by anyone who can reach its port, so it only answers what the gateway
// sends: POST with a JSON body to /callbacks/<path secret> (the secret is in the callbackUrl the
// gateway is given and nowhere else). Anything else is refused before its body is read and leaves no
// trace in the audit log. Reads it triggers are throttled per payment, and a stranger's ids are
// audited once, so a flood of callbacks costs neither rate budget nor audit rows.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { isIP, type AddressInfo } from 'node:net';
import { z } from 'zod';
import type { JournalPort, PaymentKind } from '../journal';

const MAX_BODY_BYTES = 64 * 1024;
/**
 * Callback-triggered reads of one payment are at least this far apart (the poller keeps its own schedule).
 * Two seconds: a flood naming one payment costs half a read a second, while the sandbox's
 * status changes (two seconds apart by default) are still each read as it comes.
 */
export const DEFAULT_CALLBACK_READ_INTERVAL_MS = 2_000;
/** How many "already audited" keys are remembered (oldest forgotten first). */
const AUDITED_MEMORY = 10_000;
const PATH_SECRET_PATTERN = /^[A-Za-z0-9_-]{22,128}$/;

const CallbackBody = z.looseObject({
  eventType: z.string().max(100).optional(),
  idPayout: z.string().max(64).optional(),
  idPayin: z.string().max(64).optional(),
});

const KNOWN_EVENTS: Record<string, PaymentKind> = {
  PAYOUT_STATUS_CHANGED: 'payout',
  PAYIN_STATUS_CHANGED: 'payin',
};

/** A fresh unguessable path secret (256 bits, URL-safe). */
export function newCallbackPathSecret(): string {
  return randomBytes(32).toString('base64url');
}

export function isCallbackPathSecret(text: string): boolean {
  return PATH_SECRET_PATTERN.test(text);
}

/** The path the listener answers on; a public URL's own path may come before it (a reverse proxy). */
export function callbackPath(secret: string): string {
  return `/callbacks/${secret}`;
}

/** The callbackUrl handed to the gateway for a public base URL such as https://desk.example.com/hooks. */
export function publicCallbackUrl(publicBaseUrl: string, secret: string): string {
  return `${publicBaseUrl.replace(/\/+$/, '')}${callbackPath(secret)}`;
}

/** True for addresses only this machine can reach. */
export function isLoopbackHost(host: string): boolean {
  const h = host.trim().toLowerCase().replace(/^\[|\]$/g, '');
  if (h === 'localhost' || h === '::1') return true;
  return isIP(h) === 4 && h.startsWith('127.');
}

/** True for "every interface" addresses, which are where to listen, never where to send. */
export function isUnspecifiedHost(host: string): boolean {
  const h = host.trim().toLowerCase().replace(/^\[|\]$/g, '');
  return h === '0.0.0.0' || h === '::' || h === '0:0:0:0:0:0:0:0';
}

/** What the settings screen shows about a profile's listener. */
export interface CallbackListenerState {
  /** off: callbacks are not enabled; failed: it could not listen (sending and polling go on without it). */
  state: 'off' | 'listening' | 'failed' | 'stopped';
  /** Where it listens, e.g. "127.0.0.1:43121". */
  boundTo: string | null;
  /** The callbackUrl given to the gateway with each payment (path secret included). */
  announcedUrl: string | null;
  /** Why it failed, or a note on how it listens. */
  message: string | null;
}

export interface CallbackListenerDeps {
  journal: JournalPort;
  /** Has the payment read with GET (soon, within the free rate budget) and recorded with source 'callback'. */
  refresh: (kind: PaymentKind, id: string) => Promise<unknown>;
  onError: (e: Error) => void;
  /** The secret path segment; default: a fresh one for this listener. */
  pathSecret?: string;
  /** Minimum time between callback-triggered reads of one payment (default 2 s). */
  readIntervalMs?: number;
  now?: () => number;
}

export class CallbackListener {
  private server: Server | undefined;
  private readonly pending = new Set<Promise<void>>();
  readonly pathSecret: string;
  private readonly lastRead = new Map<string, number>();
  private readonly trailing = new Map<string, ReturnType<typeof setTimeout>>();
  private readonly audited = new Set<string>();
  private readonly now: () => number;

  constructor(private readonly deps: CallbackListenerDeps) {
    this.pathSecret = deps.pathSecret ?? newCallbackPathSecret();
    if (!isCallbackPathSecret(this.pathSecret)) throw new Error('callback path secret must be 22-128 URL-safe characters');
    this.now = deps.now ?? Date.now;
  }

  /** Starts listening; port 0 picks a free one. Rejects when it cannot (port busy, no such address). */
  async start(host: string, port: number): Promise<void> {
    if (this.server) return;
    const server = createServer((req, res) => this.answer(req, res));
    // A client that trickles its request is cut off instead of holding a socket open.
    server.requestTimeout = 10_000;
    server.headersTimeout = 5_000;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    server.on('error', (e) => this.deps.onError(e));
    this.server = server;
  }

  /** Where it listens, e.g. "127.0.0.1:43121"; null when not running. */
  boundTo(): string | null {
    const address = this.server?.address() as AddressInfo | null | undefined;
    if (!address) return null;
    return `${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`;
  }

  /** The listener's own URL (the secret path included). Never an "every interface" address: that is no place to send to. */
  url(): string {
    const bound = this.boundTo();
    if (!bound) throw new Error('callback listener is not running');
    const address = this.server!.address() as AddressInfo;
    if (isUnspecifiedHost(address.address)) throw new Error('the callback listener listens on every interface; its URL is the public callback URL, not its address');
    return `http://${bound}${callbackPath(this.pathSecret)}`;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const timer of this.trailing.values()) clearTimeout(timer);
    this.trailing.clear();
    if (server) {
      server.closeIdleConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
    await Promise.allSettled([...this.pending]);
  }

  private answer(req: IncomingMessage, res: ServerResponse): void {
    const refuse = (status: number, headers: Record<string, string> = {}) => {
      req.resume(); // the body, if any, is discarded unread
      res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify({ error: status }));
    };
    const pathname = (req.url ?? '').split('?')[0] ?? '';
    // Suffix: a reverse proxy in front of a public URL may keep its own path prefix.
    if (!pathname.endsWith(callbackPath(this.pathSecret))) return refuse(404);
    if (req.method !== 'POST') return refuse(405, { allow: 'POST' });
    if (!isJsonContentType(req.headers['content-type'])) return refuse(415, { accept: 'application/json' });
    if (Number(req.headers['content-length'] ?? 0) > MAX_BODY_BYTES) return refuse(413);
    void readBody(req).then((body) => {
      if (body === null) return refuse(413);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}');
      this.track(this.handle(body));
    });
  }

  private track(work: Promise<unknown>): void {
    const done = work.then(
      () => undefined,
      (e: unknown) => this.deps.onError(e instanceof Error ? e : new Error(String(e))),
    );
    this.pending.add(done);
    void done.finally(() => this.pending.delete(done));
  }

  private async handle(body: Buffer): Promise<void> {
    const { journal } = this.deps;
    let json: unknown;
    try {
      json = body.length > 0 ? (JSON.parse(body.toString('utf8')) as unknown) : undefined;
    } catch {
      json = undefined;
    }
    const parsed = CallbackBody.safeParse(json);
    if (!parsed.success) {
      // At most one row a minute: the sender knows the secret, but a broken one may send many.
      if (this.firstTime(`unreadable:${Math.floor(this.now() / 60_000)}`)) {
        await journal.audit({ actor: 'gateway', action: 'callback.unreadable', details: { bytes: body.length } });
      }
      return;
    }
    const { eventType, idPayout, idPayin } = parsed.data;
    const knownKind = eventType ? KNOWN_EVENTS[eventType] : undefined;
    if (!knownKind && this.firstTime(`event:${eventType ?? ''}`)) {
      await journal.audit({ actor: 'gateway', action: 'callback.unknown-event', subject: idPayout ?? idPayin ?? null, details: { eventType: eventType ?? null, fields: Object.keys(parsed.data).slice(0, 20) } });
    }
    // Whatever the event type, a payment we know that it names is read again: that is always safe.
    const targets: [PaymentKind, string | undefined][] = [['payout', idPayout], ['payin', idPayin]];
    for (const [kind, id] of targets) {
      if (!id) continue;
      if (!(await journal.paymentState(kind, id))) {
        if (this.firstTime(`unknown:${kind}:${id}`)) {
          await journal.audit({ actor: 'gateway', action: 'callback.unknown-payment', subject: id, details: { kind, eventType: eventType ?? null } });
        }
        continue;
      }
      this.requestRead(kind, id);
    }
  }

  /**
   * At most one callback-triggered read per payment per interval. A callback inside the interval is not
   * dropped: one read is kept for the interval's end, so the last change a burst announces is still read.
   */
  private requestRead(kind: PaymentKind, id: string): void {
    const key = `${kind}:${id}`;
    if (this.trailing.has(key)) return;
    const interval = this.deps.readIntervalMs ?? DEFAULT_CALLBACK_READ_INTERVAL_MS;
    const last = this.lastRead.get(key);
    const wait = last === undefined ? 0 : last + interval - this.now();
    const read = () => {
      this.lastRead.delete(key); // re-inserted last, so the map's order is oldest first
      this.lastRead.set(key, this.now());
      forgetOldest(this.lastRead, AUDITED_MEMORY);
      this.track(this.deps.refresh(kind, id));
    };
    if (wait <= 0) return read();
    const timer = setTimeout(() => {
      this.trailing.delete(key);
      if (this.server) read();
    }, wait);
    timer.unref?.();
    this.trailing.set(key, timer);
  }

  /** True the first time a key is seen (within the bounded memory). */
  private firstTime(key: string): boolean {
    if (this.audited.has(key)) return false;
    this.audited.add(key);
    forgetOldest(this.audited, AUDITED_MEMORY);
    return true;
  }
}

function forgetOldest(collection: Set<string> | Map<string, unknown>, max: number): void {
  while (collection.size > max) {
    const oldest = collection.keys().next().value;
    if (oldest === undefined) return;
    collection.delete(oldest);
  }
}

/** application/json or any application/…+json, parameters (charset) allowed. */
function isJsonContentType(header: string | undefined): boolean {
  const type = (header ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));
}

/** The request body up to MAX_BODY_BYTES; null when larger (the rest is discarded). */
function readBody(req: IncomingMessage): Promise<Buffer | null> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) tooLarge = true;
      else chunks.push(chunk);
    });
    req.on('end', () => resolve(tooLarge ? null : Buffer.concat(chunks)));
    req.on('error', () => resolve(null));
  });
}
