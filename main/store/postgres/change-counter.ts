// A counter of writes on the team database, followed from one desk without polling: the database bumps one
// row on every write to a group of tables and NOTIFYs on a channel (migrations 1 and 6); this LISTENs and
// gives a marker of what it has seen. marker() answers synchronously (the send path asks it right before a
// create leaves), so while the listening connection is gone it is a fresh value at every call: nothing that
// rests on it holds. A lost connection is replaced every relistenMs until the database answers (a desk must
// not stay unable to send after a blip).
//
// Any role connected to the database can NOTIFY the channel with any payload: a notification is only a hint
// to look again, and the counter is read again on the listening connection. The value read is taken as it
// is (compared for inequality, not "only grows": a counter set back must not freeze the marker), and the
// marker is that value, the same on every desk. Until the read answers, a notification moves the marker at
// once to a value never given before ("changing"), unless it names a counter value this desk has already
// read or written itself (a write already in the marker, such as this desk's own). A payload the trigger
// could not have sent (not a counter value, or more than the counter read after it: a forged end value, a
// counter set back by the write that announced it) moves the marker for good. Desks connected as the member
// role cannot write the counters (member-role.ts): only the triggers move them, one up per write, which is
// why a notification naming a value already read announces nothing new.
import { randomUUID } from 'node:crypto';
import type { Pool, PoolClient } from 'pg';

export interface ChangeCounterOptions {
  /** The NOTIFY channel the writes are announced on (its payload is not read: anyone can send one). */
  channel: string;
  /** The one-row table holding the value in column n. */
  table: string;
  /** Wait before listening again after the listening connection was lost (default 2 s). */
  relistenMs?: number;
}

/** What the trigger's payload is: the counter it reached, as text. */
const COUNTER_TEXT = /^(0|[1-9][0-9]{0,18})$/;

export class ChangeCounter {
  /** The counter as last read (or as this desk's own write reached it). */
  private value = -1n;
  /** Moves on every notification not already in `value`: while it differs from `settled`, the marker is a changing one. */
  private epoch = 0;
  private settled = 0;
  /** The highest counter the notifications since the marker settled name; null once one named none (only a read settles it then). */
  private named: bigint | null = -1n;
  /** Moves on every write of this desk, so a changing marker moves with them too. */
  private ownWrites = 0;
  /** Notifications whose payload the trigger could not have sent: each moves the marker for good. */
  private forged = 0;
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
    if (!this.listener) return `pg.unsure.${randomUUID()}`;
    if (this.epoch !== this.settled) return `pg.changing.${this.epoch}.${this.ownWrites}`;
    return this.forged === 0 ? `pg.${this.value}` : `pg.${this.value}.forged.${this.forged}`;
  }

  /**
   * A value this desk's own write reached (read in its transaction): the marker moves before the write
   * returns. An older one than already read says nothing new (a read after the write already moved it).
   */
  advance(n: bigint): void {
    this.ownWrites += 1;
    if (n > this.value) this.value = n;
    this.settleIfKnown();
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
    const hint = this.readerOn(client);
    // Nothing here may throw: it runs in pg's socket handler.
    client.on('notification', (m) => {
      if (m.channel === this.options.channel) hint(m.payload);
    });
    // Kept attached for the client's life: an 'error' without a listener would throw in the process.
    client.on('error', () => this.lost(client));
    client.on('end', () => this.lost(client));
    try {
      await client.query(`LISTEN ${this.options.channel}`);
      const since = this.since();
      this.take(await this.read(client), since);
    } catch (error) {
      client.release(true);
      throw error;
    }
    if (this.closed) client.release(true);
    else this.listener = client;
  }

  /**
   * What the listening connection does with a notification: move the marker unless the counter it names is
   * already known, then read the counter on that connection, one read at a time (a burst of notifications is
   * a few reads, not one each). A read that fails means the connection is no longer sure.
   */
  private readerOn(client: PoolClient): (payload: string | undefined) => void {
    let reading = false;
    let again = false;
    /** The highest counter the payloads since the last read started name; null once one named none. */
    let named: bigint | null = -1n;
    const read = (): void => {
      reading = true;
      again = false;
      const since = this.since();
      const claims = named;
      named = -1n;
      // Started in a then(): a query refused at once (a connection being closed) rejects instead of throwing.
      Promise.resolve()
        .then(() => this.read(client))
        .then(
          (n) => {
            reading = false;
            // A connection since replaced has nothing more to say.
            if (this.listener !== null && this.listener !== client) return;
            if (claims === null || claims > n) this.forged += 1;
            this.take(n, since);
            if (again && !this.closed) read();
          },
          () => {
            reading = false;
            this.lost(client);
          },
        );
    };
    return (payload) => {
      const text = payload ?? '';
      const claim = COUNTER_TEXT.test(text) ? BigInt(text) : null;
      named = claim === null || named === null ? null : claim > named ? claim : named;
      if (claim === null || claim > this.value || this.epoch !== this.settled) {
        this.epoch += 1;
        this.named = claim === null || this.named === null ? null : claim > this.named ? claim : this.named;
      }
      if (reading) again = true;
      else read();
    };
  }

  /** Where things stand as a read of the counter starts on the listening connection. */
  private since(): { epoch: number; ownWrites: number } {
    return { epoch: this.epoch, ownWrites: this.ownWrites };
  }

  /**
   * Takes a value read on the listening connection as it is, unless this desk's own write reached more while
   * it was being read (it is older then). A read begun after the last notification settles the marker.
   */
  private take(n: bigint, since: { epoch: number; ownWrites: number }): void {
    if (this.ownWrites === since.ownWrites || n >= this.value) this.value = n;
    if (this.epoch === since.epoch) this.settle();
    else this.settleIfKnown();
  }

  /** A changing marker settles once every notification since names a counter this desk has read or reached. */
  private settleIfKnown(): void {
    if (this.epoch !== this.settled && this.named !== null && this.named <= this.value) this.settle();
  }

  private settle(): void {
    this.settled = this.epoch;
    this.named = -1n;
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
