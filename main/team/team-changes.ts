// What the other desks of a team change, as the team database announces it (LISTEN/NOTIFY): payments whose
// state or status moved, batches stored or changed, dual-control records and the payee book. The desk runtime
// turns these into the same events its own engine raises, so a screen shows another desk's work as it
// happens, without asking the gateway itself. The triggers are in main/journal/pg/migrations.ts; a desk's
// own writes carry its desk id (set on each of its connections) and are not announced back to it.
import type { Pool, PoolClient } from 'pg';
import type { RemoteChange } from '../desk/profile-stores';

const CHANNELS = ['journal_changes', 'dual_control', 'payees'] as const;
/** How soon a lost listening connection is tried again. */
const RECONNECT_MS = 2_000;

interface JournalPayload {
  desk?: string | null;
  payments?: { kind: 'payout' | 'payin'; id: string; batch: string | null }[] | null;
  batches?: (string | null)[] | null;
}

/** The changes a journal_changes payload names, or none when it is this desk's own write or not one. */
export function journalChanges(payload: string, ownDeskId: string): RemoteChange[] {
  let parsed: JournalPayload;
  try {
    parsed = JSON.parse(payload) as JournalPayload;
  } catch {
    return [];
  }
  if (parsed.desk === ownDeskId) return [];
  const out: RemoteChange[] = [];
  for (const p of parsed.payments ?? []) {
    if ((p.kind === 'payout' || p.kind === 'payin') && typeof p.id === 'string') out.push({ kind: 'payment', paymentKind: p.kind, id: p.id, batchId: p.batch ?? null });
  }
  for (const b of parsed.batches ?? []) if (typeof b === 'string') out.push({ kind: 'batch', id: b });
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
