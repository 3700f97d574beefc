// The change marker of a team database counter (main/store/postgres/change-counter.ts), on a database played by
// the test: its counter, and when the reads of it answer. Any role connected to the team database can NOTIFY
// the channel with any payload; the marker must move on every notification, never freeze on a forged value,
// never throw in the notification handler, and come back to the counter read (the same on every desk).
import { EventEmitter } from 'node:events';
import type { Pool } from 'pg';
import { describe, expect, it } from 'vitest';
import { ChangeCounter } from '../../../main/store/postgres/change-counter';

/** Lets the reads answered so far reach the counter (the microtask queue runs dry before setImmediate). */
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

interface Read {
  /** The counter as the read's snapshot saw it (when it was sent). */
  n: bigint;
  answer(): void;
  fail(): void;
}

/** The team database as this test plays it: one counter row, reads answered at once or when the test says. */
class Database {
  counter = 0n;
  /** While true, reads wait in `waiting` until answered. */
  hold = false;
  readonly waiting: Read[] = [];
  reads = 0;
  /** The next read on a listening connection throws at once (a connection being closed). */
  refuseNext = false;
  readonly clients: FakeClient[] = [];
  /** While true, a new connection waits until connectsGo(): the test looks at the marker before one can listen. */
  holdConnects = false;
  private readonly connectsWaiting: (() => void)[] = [];

  connectsGo(): void {
    this.holdConnects = false;
    for (const go of this.connectsWaiting.splice(0)) go();
  }

  read(): Promise<{ rows: { n: string }[] }> {
    this.reads += 1;
    const n = this.counter;
    return new Promise((resolve, reject) => {
      const read: Read = { n, answer: () => resolve({ rows: [{ n: String(n) }] }), fail: () => reject(new Error('connection lost')) };
      if (this.hold) this.waiting.push(read);
      else read.answer();
    });
  }

  /** Answers the reads sent so far (a notification's read is sent on the next turn), and lets them land. */
  async answerAll(): Promise<void> {
    await settle();
    for (const read of this.waiting.splice(0)) read.answer();
    await settle();
  }

  async failAll(): Promise<void> {
    await settle();
    for (const read of this.waiting.splice(0)) read.fail();
    await settle();
  }

  pool(): Pool {
    return {
      connect: async () => {
        if (this.holdConnects) await new Promise<void>((go) => this.connectsWaiting.push(go));
        const client = new FakeClient(this);
        this.clients.push(client);
        return client;
      },
      query: () => this.read(),
    } as unknown as Pool;
  }
}

class FakeClient extends EventEmitter {
  released = false;
  constructor(private readonly db: Database) {
    super();
  }

  query(sql: string): Promise<unknown> {
    if (sql.startsWith('LISTEN')) return Promise.resolve({ rows: [] });
    if (this.db.refuseNext) {
      this.db.refuseNext = false;
      throw new Error('Client was closed and is not queryable');
    }
    return this.db.read();
  }

  release(): void {
    this.released = true;
  }

  notify(payload: string | undefined): void {
    this.emit('notification', { processId: 1, channel: 'dual_control', payload });
  }
}

async function until(ok: () => boolean, what: string): Promise<void> {
  for (const deadline = Date.now() + 5_000; !ok(); ) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

async function opened(counter = 5n): Promise<{ db: Database; changes: ChangeCounter; listener: () => FakeClient }> {
  const db = new Database();
  db.counter = counter;
  const changes = await ChangeCounter.open(db.pool(), { channel: 'dual_control', table: 'dual_control_changes', relistenMs: 10 });
  return { db, changes, listener: () => db.clients.at(-1)! };
}

describe('ChangeCounter', () => {
  it('moves the marker at once on every notification, whatever it carries, to a value never given before', async () => {
    for (const first of ['6', '9223372036854775807', 'not a number', '', undefined, '-1', '1e3', '05', ' 6', '{"n":6}', '9'.repeat(7_000)]) {
      const { db, changes, listener } = await opened(5n);
      db.hold = true;
      const seen = [changes.marker()];
      // The first moves it (before any read answers); every one after it too, even one naming a counter already read.
      for (const payload of [first, '5', '6', 'not a number', undefined]) {
        expect(() => listener().notify(payload)).not.toThrow();
        const now = changes.marker();
        expect(seen, `after ${JSON.stringify(first)}`).not.toContain(now);
        seen.push(now);
      }
      // Nothing rests on a changing marker: it moves with this desk's writes too.
      changes.advance(5n);
      expect(seen).not.toContain(changes.marker());
    }
  });

  it('comes back to the counter read after a notification the trigger could have sent: the same marker as every desk', async () => {
    const { db, changes, listener } = await opened(5n);
    expect(changes.marker()).toBe('pg.5');
    db.hold = true;
    db.counter = 6n;
    listener().notify('6');
    expect(changes.marker()).not.toBe('pg.6');
    await db.answerAll();
    expect(changes.marker()).toBe('pg.6');
    db.counter = 8n;
    listener().notify('7');
    listener().notify('8');
    await db.answerAll();
    await db.answerAll();
    expect(changes.marker()).toBe('pg.8');
  });

  it('leaves the marker where it is on a notification naming a counter this desk has already read (its own write, announced back)', async () => {
    const { db, changes, listener } = await opened(5n);
    db.hold = true;
    listener().notify('5');
    listener().notify('3');
    expect(changes.marker()).toBe('pg.5');
    // It is read again all the same, and the value read is taken.
    db.counter = 9n;
    listener().notify('4');
    expect(changes.marker()).toBe('pg.5');
    await db.answerAll();
    await db.answerAll();
    expect(changes.marker()).toBe('pg.9');
  });

  it('moves the marker for good on a payload the trigger could not have sent (a forged end value, junk, a counter set back by the same write)', async () => {
    for (const payload of ['9223372036854775807', '6', 'not a number', '', undefined, '-1', '05', '1e3']) {
      const { db, changes, listener } = await opened(5n);
      const cleared = changes.marker();
      db.hold = true;
      listener().notify(payload);
      await db.answerAll();
      expect(changes.marker(), `after ${JSON.stringify(payload)}`).not.toBe(cleared);
      expect(changes.marker()).toBe(changes.marker());
    }
  });

  it('is not frozen by a forged end value: the next real write still moves it', async () => {
    const { db, changes, listener } = await opened(5n);
    listener().notify('9223372036854775807');
    await settle();
    const cleared = changes.marker();
    db.counter = 6n;
    listener().notify('6');
    await settle();
    expect(changes.marker()).not.toBe(cleared);
  });

  it('takes the counter as it is read, also when it went down (a counter set back must not freeze it)', async () => {
    const { db, changes, listener } = await opened(9n);
    db.counter = 3n;
    listener().notify('3');
    await settle();
    expect(changes.marker()).toBe('pg.3');
    db.counter = 4n;
    listener().notify('4');
    await settle();
    expect(changes.marker()).toBe('pg.4');
  });

  it("moves with this desk's own writes before they return, and not on a read that finds nothing new", async () => {
    const { db, changes, listener } = await opened(5n);
    changes.advance(6n);
    expect(changes.marker()).toBe('pg.6');
    db.counter = 7n;
    await changes.refresh();
    expect(changes.marker()).toBe('pg.7');
    await changes.refresh();
    expect(changes.marker()).toBe('pg.7');
    // Its own notification arrives after the write returned: the marker stays where the write left it.
    listener().notify('7');
    expect(changes.marker()).toBe('pg.7');
    await settle();
    expect(changes.marker()).toBe('pg.7');
    // Or before the write returned: the value the write reached settles the marker, without waiting for the read.
    db.hold = true;
    db.counter = 8n;
    listener().notify('8');
    expect(changes.marker()).not.toBe('pg.7');
    changes.advance(8n);
    expect(changes.marker()).toBe('pg.8');
    await db.answerAll();
    expect(changes.marker()).toBe('pg.8');
  });

  it("does not go back to a value read before this desk's own write reached a newer one", async () => {
    const { db, changes, listener } = await opened(5n);
    db.hold = true;
    listener().notify('5');
    await settle();
    // The read after the notification saw 5; this desk's write reaches 6 before it answers.
    db.counter = 6n;
    changes.advance(6n);
    await db.answerAll();
    expect(changes.marker()).toBe('pg.6');
  });

  it('reads the counter once per burst of notifications, not once each', async () => {
    const { db, changes, listener } = await opened(5n);
    const before = db.reads;
    db.hold = true;
    for (let i = 0; i < 1000; i++) listener().notify('5');
    await settle();
    db.hold = false;
    await db.answerAll();
    expect(db.reads - before).toBe(2);
    expect(changes.marker()).toBe('pg.5');
  });

  it('throws nothing in the notification handler when the read fails; the marker stops holding until it listens again', async () => {
    const { db, changes, listener } = await opened(5n);
    const first = listener();
    // No new connection may listen before the marker is looked at (its 10 ms retry could, on a loaded machine).
    db.holdConnects = true;
    db.refuseNext = true;
    expect(() => first.notify('6')).not.toThrow();
    await settle();
    expect(changes.marker()).not.toBe(changes.marker());
    expect(first.released).toBe(true);
    db.connectsGo();
    await until(() => db.clients.length === 2 && changes.marker() === changes.marker(), 'a new listening connection');
    expect(changes.marker()).toBe('pg.5');

    db.hold = true;
    db.holdConnects = true;
    listener().notify('5');
    await db.failAll();
    expect(changes.marker()).not.toBe(changes.marker());
    db.hold = false;
    db.connectsGo();
    await until(() => db.clients.length === 3 && changes.marker() === changes.marker(), 'a new listening connection');
    await changes.end();
    expect(changes.marker()).not.toBe(changes.marker());
  });
});
