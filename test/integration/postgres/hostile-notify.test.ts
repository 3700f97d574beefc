// Any role connected to the team database can NOTIFY the channels the desks listen on, with any payload. A
// notification is only a hint to look again: a forged counter value must not freeze the dual-control change
// marker (a running batch's clearance would then outlive a revocation), junk must not throw in pg's socket
// handler (uncaught in main), and the desks keep following real changes afterwards.
import pg from 'pg';
import { afterAll, afterEach, beforeEach, describe, expect, inject, it } from 'vitest';
import { PgDualControlRepository } from '../../../main/store/postgres/dual-control';
import type { RemoteChange } from '../../../main/store/profile-stores';
import { migratePg } from '../../../main/store/postgres/migrations';
import { TeamChangeFeed } from '../../../main/store/postgres/change-feed';
import { approve, manifest, member, row } from '../../unit/approvals/helpers';
import { freshDatabase } from './cluster';

const pools: pg.Pool[] = [];
const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const close of closers.splice(0).reverse()) await close();
  for (const p of pools.splice(0)) await p.end();
});

// What would be thrown in pg's socket handler: uncaught in main, it takes the desk down.
const uncaught: unknown[] = [];
const record = (error: unknown): void => {
  uncaught.push(error);
};
beforeEach(() => {
  uncaught.length = 0;
  process.on('uncaughtException', record);
});
afterEach(() => {
  process.off('uncaughtException', record);
});

function poolOf(url: string): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  pools.push(pool);
  return pool;
}

async function teamDatabase(): Promise<string> {
  const url = await freshDatabase(inject('postgresUrl'));
  await migratePg(poolOf(url));
  return url;
}

/** A desk's dual-control adapter on the team database (its own pool, as a second machine would have). */
async function desk(url: string): Promise<PgDualControlRepository> {
  const repo = await PgDualControlRepository.open(poolOf(url), { relistenMs: 200 });
  closers.push(() => repo.close());
  return repo;
}

/** Waits for something this test caused (a notification reaching the desk), up to 10 s. */
async function until(ok: () => boolean, what: string): Promise<void> {
  for (const deadline = Date.now() + 10_000; !ok(); ) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** The marker once the counter was read back after the last notification (not a changing one, which moves anyway). */
async function settledMarker(repo: PgDualControlRepository): Promise<string> {
  await until(() => /^pg\.\d/.test(repo.changeMarker()) && repo.changeMarker() === repo.changeMarker(), 'the counter to be read back');
  return repo.changeMarker();
}

/** NOTIFY from a connection of its own (a role that can do nothing else would do). */
async function notify(url: string, channel: string, payload: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('SELECT pg_notify($1, $2)', [channel, payload]);
  } finally {
    await client.end();
  }
}

const admin = member('ada', ['admin']);
let approvals = 0;
const realWrite = (repo: PgDualControlRepository) => repo.addApproval(approve(admin, manifest([row(`p${++approvals}`, 100)], { subject: { kind: 'batch', id: `batch-${approvals}` } })));

describe('notifications on the team database are only hints', () => {
  it('a forged counter value does not freeze the change marker: the next real write still moves it', async () => {
    const url = await teamDatabase();
    const here = await desk(url);
    const there = await desk(url);
    const before = await settledMarker(here);
    await notify(url, 'dual_control', '9223372036854775807');
    await until(() => here.changeMarker() !== before, 'the forged notification to reach the desk');
    // What a running batch's clearance would rest on, taken once the forged notification has been dealt with.
    const cleared = await settledMarker(here);
    expect(cleared).not.toBe(before);
    await realWrite(there);
    await until(() => here.changeMarker() !== cleared, "the other desk's write to move the marker");
    // Its own writes still move it, before they return.
    const mine = here.changeMarker();
    await realWrite(here);
    expect(here.changeMarker()).not.toBe(mine);
    expect(uncaught).toEqual([]);
  });

  it('moves the marker on every notification, whatever it carries, without throwing, and keeps listening', async () => {
    const url = await teamDatabase();
    const here = await desk(url);
    const there = await desk(url);
    for (const payload of ['not a number', '', '-1', '1e400', '{"n":5}', '9'.repeat(7_000)]) {
      const before = await settledMarker(here);
      await notify(url, 'dual_control', payload);
      await until(() => here.changeMarker() !== before, `the notification ${JSON.stringify(payload.slice(0, 20))} to move the marker`);
    }
    // Still listening (a lost listener answers a new marker at every call), and still following real writes.
    const cleared = await settledMarker(here);
    await realWrite(there);
    await until(() => here.changeMarker() !== cleared, "the other desk's write to move the marker");
    expect(uncaught).toEqual([]);
  });

  it('moves the marker when a writer sets the counter back in the same transaction as its write', async () => {
    const url = await teamDatabase();
    const here = await desk(url);
    const cleared = await settledMarker(here);
    const sql = poolOf(url);
    const c = await sql.connect();
    try {
      await c.query('BEGIN');
      const n = (await c.query<{ n: string }>('SELECT n FROM dual_control_changes')).rows[0]!.n;
      await c.query(`INSERT INTO control_proposals (hash, record_json) VALUES ('forged', '{}')`);
      await c.query('UPDATE dual_control_changes SET n = $1', [n]);
      await c.query('COMMIT');
    } finally {
      c.release();
    }
    await until(() => here.changeMarker() !== cleared, 'the write to move the marker');
    // For good: the counter read back is the one the clearance was taken at, but the trigger announced more.
    expect(await settledMarker(here)).not.toBe(cleared);
    expect(uncaught).toEqual([]);
  });

  it('comes back to the same marker as the other desks after a notification the trigger could have sent', async () => {
    const url = await teamDatabase();
    const here = await desk(url);
    const there = await desk(url);
    await realWrite(there);
    await until(() => here.changeMarker() === there.changeMarker(), 'both desks to agree');
    const agreed = here.changeMarker();
    // A repeat of the counter value: a hint to look again, which finds nothing new.
    await notify(url, 'dual_control', '1');
    await realWrite(there);
    await until(() => here.changeMarker() !== agreed && here.changeMarker() === there.changeMarker(), 'both desks to agree again');
    expect(uncaught).toEqual([]);
  });

  it('tells of a statement writing hundreds of batches in notices under the payload limit, naming every one', async () => {
    const url = await teamDatabase();
    const feed = await TeamChangeFeed.open(poolOf(url), 'desk-here');
    closers.push(() => feed.close());
    const seen = new Set<string>();
    feed.subscribe((change) => {
      if (change.kind === 'batch') seen.add(change.id);
    });
    const writer = new pg.Client({ connectionString: url });
    await writer.connect();
    try {
      await writer.query(`SELECT set_config('payout_desk.desk_id', 'desk-there', false)`);
      // 300 batch ids of 80 characters: one notice naming them all would be about 25,000 bytes.
      await writer.query(
        `INSERT INTO batches (id, file_name, sha256, row_count, totals_json, state, created_at, updated_at)
           SELECT lpad(n::text, 80, 'b'), 'f.csv', $1, 0, '{}', 'RUNNING', 0, 0 FROM generate_series(1, 300) AS n`,
        ['a'.repeat(64)],
      );
      await writer.query(`UPDATE batches SET state = 'PAUSED'`);
    } finally {
      await writer.end();
    }
    await until(() => seen.size === 300, 'all 300 batches to reach the feed');
    expect(feed.listening).toBe(true);
  });

  it("keeps delivering other desks' changes after junk on every channel, and still drops its own", async () => {
    const url = await teamDatabase();
    const feed = await TeamChangeFeed.open(poolOf(url), 'desk-here');
    closers.push(() => feed.close());
    const seen: RemoteChange[] = [];
    feed.subscribe((change) => seen.push(change));
    const junk = [
      'null', 'not json', '', '5', '"x"', '[]', '{"payments":5}', '{"payments":[null]}', '{"payments":[{"kind":"payout","id":5}]}',
      '{"batches":7}', '{"batches":"b1"}', '{"desk":5,"batches":["b1"]}', '{"payments":[{"kind":"refund","id":"p1","batch":null}]}',
      `{"batches":[${'['.repeat(3_000)}${']'.repeat(3_000)}]}`,
    ];
    for (const payload of junk) await notify(url, 'journal_changes', payload);

    // Real writes, in order after the junk (notifications reach a listener in commit order): one by this desk
    // (dropped), then one by another desk.
    const writer = new pg.Client({ connectionString: url });
    await writer.connect();
    try {
      const insertBatch = (id: string) =>
        writer.query(`INSERT INTO batches (id, file_name, sha256, row_count, totals_json, state, created_at, updated_at) VALUES ($1, 'f.csv', $2, 0, '{}', 'PENDING', 0, 0)`, [id, 'a'.repeat(64)]);
      await writer.query(`SELECT set_config('payout_desk.desk_id', 'desk-here', false)`);
      await insertBatch('batch-mine');
      await writer.query(`SELECT set_config('payout_desk.desk_id', 'desk-there', false)`);
      await insertBatch('batch-theirs');
    } finally {
      await writer.end();
    }
    await until(() => seen.length > 0, "the other desk's batch to reach the feed");
    expect(seen).toEqual([{ kind: 'batch', id: 'batch-theirs' }]);
    expect(feed.listening).toBe(true);

    // Junk on the other channels is a hint as well; the feed still follows the journal after it.
    await notify(url, 'dual_control', 'not a number');
    await notify(url, 'payees', '{"payments":[null]}');
    await notify(url, 'journal_changes', JSON.stringify({ desk: 'desk-there', payments: [{ kind: 'payout', id: 'p-real', batch: null }] }));
    await until(() => seen.length >= 4, 'the notifications after the junk to reach the feed');
    expect(seen.slice(1)).toEqual([{ kind: 'dual-control' }, { kind: 'payees' }, { kind: 'payment', paymentKind: 'payout', id: 'p-real', batchId: null }]);
    expect(uncaught).toEqual([]);
  });
});
