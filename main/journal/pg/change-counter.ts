// A counter of writes on the team database, followed from one desk without polling: the database bumps one
// row on every write to a group of tables and NOTIFYs the new value on a channel (migrations 1 and 6); this
// LISTENs, keeps the highest value seen, and is told the value its own writes reached. marker() answers
// synchronously (the send path asks it right before a create leaves), so while the listening connection is
// gone it is a fresh value at every call: nothing that rests on it holds. A lost connection is replaced
// every relistenMs until the database answers (a desk must not stay unable to send after a blip).
import { randomUUID } from 'node:crypto';
import type { Pool, PoolClient } from 'pg';

export interface ChangeCounterOptions {
  /** The NOTIFY channel carrying the new value. */
  channel: string;
  /** The one-row table holding the value in column n. */
  table: string;
  /** Wait before listening again after the listening connection was lost (default 2 s). */
  relistenMs?: number;
}

export class ChangeCounter {
  private seen = -1n;
  /** The connection LISTENing; null while there is none. */
  private listener: PoolClient | null = null;
  private relisten: NodeJS.Timeout | null = null;
  private closed = false;
  private readonly relistenMs: number;

  private constructor(
    private readonly pool: Pool,
    private readonly options: ChangeCounterOptions,
  ) {
    this.relistenMs = options.relistenMs ?? 2_000;
  }

  /** Starts following the counter; the first LISTEN must succeed. */
  static async open(pool: Pool, options: ChangeCounterOptions): Promise<ChangeCounter> {
    const counter = new ChangeCounter(pool, options);
    await counter.listen();
    return counter;
  }

  marker(): string {
    return this.listener ? `pg.${this.seen}` : `pg.unsure.${randomUUID()}`;
  }

  /** A value this desk's own write reached (read in its transaction): taken in before the write returns. */
  advance(n: bigint): void {
    if (n > this.seen) this.seen = n;
  }

  /** Reads the value again (after a write whose outcome is not known); when that fails, the marker stops holding. */
  async refresh(): Promise<void> {
    try {
      this.advance(await this.read(this.pool));
    } catch {
      if (this.listener) this.lost(this.listener);
    }
  }

  /** Stops following; the listening connection is closed, not given back to the pool still listening. */
  async end(): Promise<void> {
    this.closed = true;
    if (this.relisten) clearTimeout(this.relisten);
    this.relisten = null;
    const listener = this.listener;
    this.listener = null;
    listener?.release(true);
  }

  private async read(db: Pick<Pool, 'query'> | PoolClient): Promise<bigint> {
    const r = await db.query<{ n: string }>(`SELECT n FROM ${this.options.table}`);
    return BigInt(r.rows[0]?.n ?? 0);
  }

  /** LISTEN first, then read the counter: a change between the two is in one or the other. */
  private async listen(): Promise<void> {
    const client = await this.pool.connect();
    client.on('notification', (m) => {
      if (m.channel === this.options.channel && m.payload) this.advance(BigInt(m.payload));
    });
    // Kept attached for the client's life: an 'error' without a listener would throw in the process.
    client.on('error', () => this.lost(client));
    client.on('end', () => this.lost(client));
    try {
      await client.query(`LISTEN ${this.options.channel}`);
      this.advance(await this.read(client));
    } catch (error) {
      client.release(true);
      throw error;
    }
    if (this.closed) client.release(true);
    else this.listener = client;
  }

  /** The listening connection failed or ended: the marker stops holding until a new one listens. */
  private lost(client: PoolClient): void {
    if (this.listener !== client) return;
    this.listener = null;
    client.release(true);
    this.scheduleRelisten();
  }

  private scheduleRelisten(): void {
    if (this.closed || this.relisten) return;
    this.relisten = setTimeout(() => {
      this.listen().then(
        () => {
          this.relisten = null;
        },
        () => {
          this.relisten = null;
          this.scheduleRelisten();
        },
      );
    }, this.relistenMs);
    this.relisten.unref();
  }
}
