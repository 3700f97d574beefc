// Receives the gateway's status-change callbacks. Callbacks only say "something changed" (interface
// §6), so every request is answered 200 at once and the named payment is then read with GET. Event
// types the desk does not know are recorded in the audit log, never treated as errors; payloads are
// never trusted for status.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import type { Journal, PaymentKind } from '../journal';

const MAX_BODY_BYTES = 64 * 1024;

const CallbackBody = z.looseObject({
  eventType: z.string().max(100).optional(),
  idPayout: z.string().max(64).optional(),
  idPayin: z.string().max(64).optional(),
});

const KNOWN_EVENTS: Record<string, PaymentKind> = {
  PAYOUT_STATUS_CHANGED: 'payout',
  PAYIN_STATUS_CHANGED: 'payin',
};

export interface CallbackListenerDeps {
  journal: Journal;
  /** Has the payment read with GET (soon, within the free rate budget) and recorded with source 'callback'. */
  refresh: (kind: PaymentKind, id: string) => Promise<unknown>;
  onError: (e: Error) => void;
}

export class CallbackListener {
  private server: Server | undefined;
  private readonly pending = new Set<Promise<void>>();

  constructor(private readonly deps: CallbackListenerDeps) {}

  /** Starts listening; port 0 picks a free one. Returns the URL to hand to the gateway. */
  async start(host: string, port: number): Promise<string> {
    if (this.server) return this.url();
    const server = createServer((req, res) => {
      void readBody(req).then((body) => {
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}');
        const work = this.handle(req.method ?? '', req.url ?? '', body).catch((e: unknown) => this.deps.onError(e instanceof Error ? e : new Error(String(e))));
        this.pending.add(work);
        void work.finally(() => this.pending.delete(work));
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => resolve());
    });
    this.server = server;
    return this.url();
  }

  url(): string {
    const address = this.server?.address() as AddressInfo | null | undefined;
    if (!address) throw new Error('callback listener is not running');
    const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    return `http://${host}:${address.port}/callbacks`;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
    await Promise.allSettled([...this.pending]);
  }

  private async handle(method: string, path: string, body: Buffer | null): Promise<void> {
    const { journal } = this.deps;
    let json: unknown;
    try {
      json = body && body.length > 0 ? (JSON.parse(body.toString('utf8')) as unknown) : undefined;
    } catch {
      json = undefined;
    }
    const parsed = CallbackBody.safeParse(json);
    if (!parsed.success) {
      journal.audit({ actor: 'gateway', action: 'callback.unreadable', details: { method, path: path.slice(0, 200), bytes: body?.length ?? null } });
      return;
    }
    const { eventType, idPayout, idPayin } = parsed.data;
    const knownKind = eventType ? KNOWN_EVENTS[eventType] : undefined;
    if (!knownKind) {
      journal.audit({ actor: 'gateway', action: 'callback.unknown-event', subject: idPayout ?? idPayin ?? null, details: { eventType: eventType ?? null, fields: Object.keys(parsed.data).slice(0, 20) } });
    }
    // Whatever the event type, a payment we know that it names is read again: that is always safe.
    const targets: [PaymentKind, string | undefined][] = [['payout', idPayout], ['payin', idPayin]];
    for (const [kind, id] of targets) {
      if (!id) continue;
      if (!journal.paymentState(kind, id)) {
        journal.audit({ actor: 'gateway', action: 'callback.unknown-payment', subject: id, details: { kind, eventType: eventType ?? null } });
        continue;
      }
      await this.deps.refresh(kind, id);
    }
  }
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
