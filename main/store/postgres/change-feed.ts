// What the other desks of a team change, as the team database announces it (LISTEN/NOTIFY): payments whose
// state or status moved, batches stored or changed, dual-control records and the payee book. The desk runtime
// turns these into the same events its own engine raises, so a screen shows another desk's work as it
// happens, without asking the gateway itself. The triggers are in main/store/postgres/migrations.ts; a desk's
// own writes carry its desk id (set on each of its connections) and are not announced back to it.
import type { Pool, PoolClient } from 'pg';
import { z } from 'zod';
import type { RemoteChange } from '../profile-stores';
import { PAYMENT_ID_PATTERN } from '../../domain/ids';

const CHANNELS = ['journal_changes', 'dual_control', 'payees'] as const;
/** How soon a lost listening connection is tried again. */
const RECONNECT_MS = 2_000;
/**
 * Any role connected to the team database can NOTIFY anything on these channels: a payload is read as the
 * triggers write it or not at all. The triggers name at most 50 payments and PostgreSQL caps a payload at
 * 8000 bytes; the caps below only keep a hostile caller of journalChanges from flooding the screens.
 */
const MAX_PAYLOAD_CHARS = 256_000;
const MAX_CHANGES = 1_000;
/** A payment id as the house allows it; a batch id is a UUID or one given at import: anything much longer is not ours. */
const PaymentId = z.string().regex(PAYMENT_ID_PATTERN);
const BatchId = z.string().min(1).max(128);

const Payload = z.object({
  desk: z.string().nullish(),
  payments: z.array(z.unknown()).nullish(),
  batches: z.array(z.unknown()).nullish(),
});
const Payment = z.object({ kind: z.enum(['payout', 'payin']), id: PaymentId, batch: BatchId.nullish() });

/** The changes a journal_changes payload names, or none when it is this desk's own write or not one (never throws). */
export function journalChanges(payload: string, ownDeskId: string): RemoteChange[] {
  if (typeof payload !== 'string' || payload.length > MAX_PAYLOAD_CHARS) return [];
  let json: unknown;
  try {
    json = JSON.parse(payload);
  } catch {
    return [];
  }
  const parsed = Payload.safeParse(json);
  if (!parsed.success || parsed.data.desk === ownDeskId) return [];
  const out: RemoteChange[] = [];
  // An entry that is not a payment or a batch id names nothing; the well-formed ones around it still count.
  for (const entry of parsed.data.payments ?? []) {
    if (out.length >= MAX_CHANGES) return out;
    const p = Payment.safeParse(entry);
    if (p.success) out.push({ kind: 'payment', paymentKind: p.data.kind, id: p.data.id, batchId: p.data.batch ?? null });
  }
  for (const entry of parsed.data.batches ?? []) {
    if (out.length >= MAX_CHANGES) return out;
    const b = BatchId.safeParse(entry);
    if (b.success) out.push({ kind: 'batch', id: b.data });
  }
  return out;
}

export class TeamChangeFeed {
  private readonly listeners = new Set<(change: RemoteChange) => void>();
  private readonly stateListeners = new Set<(listening: boolean, message: string | null) => void>();
  private client: PoolClient | null = null;
  private retry: NodeJS.Timeout | null = null;
  /** Gives the listening connection back (true: it was lost, so listen again). */
  private dropClient: ((lost: boolean, why?: string | null) => void) | null = null;
  private closed = false;

  private constructor(
    private readonly pool: Pool,
    private readonly deskId: string,
  ) {}

  /** Starts listening; the first connection must succeed (the stores are being opened on a reachable database). */
  static async open(pool: Pool, deskId: string): Promise<TeamChangeFeed> {
    const feed = new TeamChangeFeed(pool, deskId);
    await feed.listen();
    return feed;
  }

  /** True while changes reach this desk; false from a lost connection until it is listening again. */
  get listening(): boolean {
    return this.client !== null;
  }

  subscribe(listener: (change: RemoteChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Told when listening is lost (with why) or comes back. */
  onListening(listener: (listening: boolean, message: string | null) => void): () => void {
    this.stateListeners.add(listener);
    return () => this.stateListeners.delete(listener);
  }

  /**
   * Another connection found the database gone: this one is given up too (it may not have noticed yet), which
   * says so once and tries again every RECONNECT_MS until the database answers.
   */
  lost(message: string): void {
    if (this.client) this.dropClient?.(true, message);
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.retry) clearTimeout(this.retry);
    this.client = null;
    this.dropClient?.(false);
  }

  private async listen(): Promise<void> {
    const client = await this.pool.connect();
    let released = false;
    // Given back once: a closed feed hands it back listening-free (destroyed), a lost one is thrown away.
    const drop = (lost: boolean, why: string | null = null) => {
      if (released) return;
      released = true;
      if (this.client === client) this.client = null;
      client.removeAllListeners('notification');
      client.release(true);
      if (lost && !this.closed) {
        this.announce(false, why ?? 'the connection to it ended');
        this.scheduleRetry();
      }
    };
    client.on('error', (error) => drop(true, error.message));
    client.on('end', () => drop(true));
    client.on('notification', (m) => {
      if (m.channel === 'journal_changes') for (const change of journalChanges(m.payload ?? '', this.deskId)) this.emit(change);
      else if (m.channel === 'dual_control') this.emit({ kind: 'dual-control' });
      else if (m.channel === 'payees') this.emit({ kind: 'payees' });
    });
    try {
      for (const channel of CHANNELS) await client.query(`LISTEN ${channel}`);
    } catch (error) {
      drop(false);
      throw error;
    }
    if (this.closed) {
      drop(false);
      return;
    }
    this.client = client;
    this.dropClient = drop;
  }

  private scheduleRetry(): void {
    if (this.closed || this.retry) return;
    this.retry = setTimeout(() => {
      this.retry = null;
      this.listen().then(
        () => {
          if (this.client) this.announce(true, null);
        },
        () => this.scheduleRetry(),
      );
    }, RECONNECT_MS);
    this.retry.unref();
  }

  private emit(change: RemoteChange): void {
    for (const listener of this.listeners) listener(change);
  }

  private announce(listening: boolean, message: string | null): void {
    for (const listener of this.stateListeners) listener(listening, message);
  }
}
