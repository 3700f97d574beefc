// What makes a simulated history on the team database replay exactly. PostgreSQL answers on real sockets
// while the desk's timers run on the fake clock, so node-postgres is watched (its Client prototype, for the
// length of one history) and time is let pass only around it:
//  - Fake time moves one timer at a time, and only once everything is quiet (tick): no query or connect of
//    any connection in flight, no real setImmediate or file request pending (the CSV import yields on
//    node:timers/promises), the notifications of every commit so far handed over. So a query never sees its
//    own time-out fire, and a heartbeat's lease write lands at the fake instant it was sent.
//  - The desk works on one connection (run.ts gives its pool room for its three LISTEN connections and one
//    more), so its queries run one after the other in the order asked, their answers come back in that order,
//    and what the desk's promise chains do between two answers depends on the history only.
//  - Notifications (LISTEN/NOTIFY: the dual-control and payee markers, other desks' changes) are held and
//    handed over at those quiet points, in a fixed order. Before that, every listening connection makes one
//    round trip: the server sends a session the notifications committed before it answers (postgres.c
//    processes pending notifies before ReadyForQuery), so the set handed over is every commit's so far.
//  - A desk that crashes is cut off (cut): nothing it asks afterwards reaches the database (refused on this
//    side), and what it had already sent is carried out by the server but answered to nobody (the process is
//    gone). Which statement was on the wire at that instant follows from the history, as everything else.
// The real setImmediate and setTimeout are taken when this module loads, before any fake clock is installed;
// node-postgres itself only needs process.nextTick and sockets, which the fake clock leaves alone (its
// connect and query time-outs are fake timers, which then never fire while the database is working).
import type { Clock } from '@sinonjs/fake-timers';
import pg from 'pg';

const realSetImmediate = setImmediate;
const realSetTimeout = setTimeout;
const realClearTimeout = clearTimeout;

/** Real time a quiet point may take before the history fails as stuck (a query that never ends, a deadlock). */
const STUCK_MS = 60_000;

type Callback = (error: Error | null, result?: unknown) => void;

/** The parts of a pg Client patched here (the typings know query's overloads, not these). */
interface ClientMethods {
  query(config: unknown, values?: unknown, callback?: unknown): unknown;
  connect(callback?: (error?: Error) => void): unknown;
  _handleNotification(message: unknown): void;
}

type Watched = pg.Client & { connectionParameters?: { options?: string } };

const GONE = 'the desk process is gone (simulated crash): nothing more of it reaches the database';

/**
 * Whether a statement that succeeded may have committed something (and so notified: every NOTIFY of the team
 * schema comes from a trigger on a write). Reads, BEGIN and the like do not; a multi-statement text might.
 */
function mayHaveCommitted(result: unknown): boolean {
  const command = Array.isArray(result) ? null : (result as { command?: unknown } | undefined)?.command;
  return !(typeof command === 'string' && ['SELECT', 'BEGIN', 'ROLLBACK', 'SHOW', 'SET', 'LISTEN', 'UNLISTEN'].includes(command));
}

/** Real work a quiet point also waits for: a real setImmediate (node:timers/promises) or a file request. */
function realWorkPending(): boolean {
  for (const resource of process.getActiveResourcesInfo()) if (resource === 'Immediate' || resource.startsWith('FSReq')) return true;
  return false;
}

/** The fake clock's next timer, if any (fake-timers keeps them in a heap; there is no public peek). */
function nextTimerAt(clock: Clock): number | null {
  const heap = (clock as unknown as { timerHeap?: { peek(): { callAt: number } | undefined } }).timerHeap;
  if (!heap || typeof heap.peek !== 'function') throw new Error('@sinonjs/fake-timers no longer keeps clock.timerHeap: tick() must find the next timer another way');
  return heap.peek()?.callAt ?? null;
}

export class PgTraffic {
  private inFlight = 0;
  private onQuiet: (() => void) | null = null;
  /** An answer came since the listening connections last made their round trip: something may be committed. */
  private answered = false;
  private readonly held: { client: Watched; seq: number; message: unknown }[] = [];
  private seq = 0;
  /** Clients in the order they first connected (notifications are handed over in that order, then as they came). */
  private readonly order = new Map<Watched, number>();
  private clientsSeen = 0;
  /** Startup options (desk id prefixes) of desks cut off: their clients are refused. */
  private readonly cutPrefixes: string[] = [];
  private original: ClientMethods | null = null;

  /** Watches every pg Client until uninstall(); one history at a time per process. */
  install(): void {
    if (this.original) throw new Error('PgTraffic is installed already');
    const proto = pg.Client.prototype as unknown as ClientMethods;
    const original: ClientMethods = { query: proto.query, connect: proto.connect, _handleNotification: proto._handleNotification };
    this.original = original;
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const traffic = this;
    proto.query = function (this: Watched, config: unknown, values?: unknown, callback?: unknown): unknown {
      if (typeof (config as { submit?: unknown } | null)?.submit === 'function') throw new Error('the simulation does not watch submittable queries (cursors, COPY streams)');
      const given = (typeof values === 'function' ? values : typeof callback === 'function' ? callback : null) as Callback | null;
      let settle: Callback = () => undefined;
      const promise = given ? undefined : new Promise<unknown>((resolve, reject) => (settle = (error, result) => (error ? reject(error) : resolve(result))));
      const answer: Callback = given ?? ((error, result) => settle(error, result));
      if (traffic.isCut(this)) {
        process.nextTick(() => answer(new Error(GONE)));
        return promise;
      }
      traffic.begin();
      try {
        original.query.call(this, config, typeof values === 'function' ? undefined : values, (error: Error | null, result?: unknown) => {
          traffic.end(!error && mayHaveCommitted(result));
          if (traffic.isCut(this)) answer(new Error(GONE));
          else answer(error, result);
        });
      } catch (error) {
        traffic.end(false);
        throw error;
      }
      return promise;
    };
    proto.connect = function (this: Watched, callback?: (error?: Error) => void): unknown {
      if (traffic.isCut(this)) {
        const error = new Error(GONE);
        if (callback) return void process.nextTick(() => callback(error));
        return Promise.reject(error);
      }
      traffic.order.set(this, traffic.clientsSeen++);
      this.once('end', () => traffic.order.delete(this));
      traffic.begin();
      if (callback) {
        return original.connect.call(this, (error?: Error) => {
          traffic.end(false);
          callback(error);
        });
      }
      const connecting = original.connect.call(this) as Promise<unknown>;
      connecting.then(() => traffic.end(false), () => traffic.end(false));
      return connecting;
    };
    proto._handleNotification = function (this: Watched, message: unknown): void {
      traffic.held.push({ client: this, seq: traffic.seq++, message });
    };
  }

  uninstall(): void {
    if (!this.original) return;
    Object.assign(pg.Client.prototype, this.original);
    this.original = null;
  }

  private begin(): void {
    this.inFlight++;
  }

  private end(answered: boolean): void {
    this.inFlight--;
    if (answered) this.answered = true;
    if (this.inFlight === 0) this.onQuiet?.();
  }

  private isCut(client: Watched): boolean {
    const options = client.connectionParameters?.options ?? '';
    return this.cutPrefixes.some((prefix) => options.startsWith(prefix));
  }

  /**
   * A desk process crashed: every connection whose startup options begin with `optionsPrefix` (its desk id,
   * main/store/postgres/connect.ts deskIdOption) is cut off from now on.
   */
  cut(optionsPrefix: string): void {
    this.cutPrefixes.push(optionsPrefix);
  }

  /** Ends the connections of desks cut off (their server sessions end, open transactions roll back). */
  async endCut(): Promise<void> {
    await Promise.all([...this.order.keys()].filter((c) => this.isCut(c)).map((c) => c.end().catch(() => undefined)));
  }

  /** Waits (in real time) until the database and real work are quiet and held notifications handed over. */
  async settle(): Promise<void> {
    const started = process.hrtime.bigint();
    const stuck = () => Number(process.hrtime.bigint() - started) / 1e6 > STUCK_MS;
    for (;;) {
      await new Promise<void>((resolve) => realSetImmediate(resolve));
      if (this.inFlight > 0) {
        await this.quiet();
        if (this.inFlight > 0 && stuck()) throw new Error(`the database did not answer ${this.inFlight} request(s) within ${STUCK_MS / 1000} s of real time (a deadlock, or a connection gone silent)`);
        continue;
      }
      if (realWorkPending()) {
        if (stuck()) throw new Error(`real work (immediates, file requests) still pending after ${STUCK_MS / 1000} s of real time`);
        continue;
      }
      if (this.answered) {
        this.answered = false;
        this.roundTrips();
        continue;
      }
      if (this.held.length > 0) {
        const held = this.held.splice(0).filter((n) => !this.isCut(n.client));
        held.sort((a, b) => (this.order.get(a.client) ?? Infinity) - (this.order.get(b.client) ?? Infinity) || a.seq - b.seq);
        for (const n of held) this.original?._handleNotification.call(n.client, n.message);
        continue;
      }
      return;
    }
  }

  /** Resolves once nothing is in flight, or after a while of real time (settle then says if it is stuck). */
  private quiet(): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = realSetTimeout(() => {
        this.onQuiet = null;
        resolve();
      }, 1_000);
      this.onQuiet = () => {
        realClearTimeout(timer);
        this.onQuiet = null;
        resolve();
      };
    });
  }

  /** One round trip on every connection that listens, so the server sends what was notified before it. */
  private roundTrips(): void {
    const original = this.original;
    if (!original) return;
    for (const client of this.order.keys()) {
      if (client.listenerCount('notification') === 0 || this.isCut(client)) continue;
      this.begin();
      try {
        original.query.call(client, 'SELECT 1', undefined, () => this.end(false));
      } catch {
        this.end(false);
      }
    }
  }

  /**
   * Lets `ms` of fake time pass: each timer due fires alone, once everything is quiet (settle), and time ends
   * quiet too. As the fake clock's tickAsync, but waiting for the database instead of one real timer turn.
   */
  async tick(clock: Clock, ms: number): Promise<void> {
    const until = clock.now + ms;
    await this.settle();
    for (;;) {
      const next = nextTimerAt(clock);
      if (next === null || next > until) break;
      clock.next();
      await this.settle();
    }
    if (clock.now < until) clock.tick(until - clock.now);
  }
}
