// The team journal (PgJournal) on a real PostgreSQL: the JournalPort and DeskJournal contracts the SQLite
// journal keeps (test/unit/journal/port-contract.ts, desk-contract.ts), and what only desks sharing one
// database add: exactly one desk holds the right to send a payment, a desk that stops is taken over as of
// unknown outcome (never as new work), due status reads are taken by one desk, ids and the audit chain stay
// unique across desks.
// Waits are on conditions (with a deadline), never sleeps of a guessed length.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { paymentTimelinePg, UnsafeIntegerError } from '../../../main/store/postgres/history';
import { migratePg } from '../../../main/store/postgres/migrations';
import { PgJournal, type PgJournalOptions } from '../../../main/store/postgres/journal';
import { payout } from '../../unit/journal/helpers';
import { deskJournalContract } from '../../unit/journal/desk-contract';
import { paymentRunRefsBackfillContract, paymentRunRefsContract } from '../../unit/journal/payment-run-refs-contract';
import { journalPortContract, T0, testClock } from '../../unit/journal/port-contract';
import { schedulesContract } from '../../unit/journal/schedules-contract';
import { freshDatabase } from './cluster';

const pools: pg.Pool[] = [];
const journals: PgJournal[] = [];
afterEach(async () => {
  for (const j of journals.splice(0)) await j.close({ releaseClaims: false });
  for (const p of pools.splice(0)) await p.end();
});

function poolFor(url: string): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max: 8 });
  pools.push(pool);
  return pool;
}

/** One desk process on the team database at `url`: its own pool (as another machine would have) and desk id. */
async function desk(url: string, options: Partial<PgJournalOptions> = {}): Promise<{ journal: PgJournal; pool: pg.Pool }> {
  const pool = poolFor(url);
  const journal = await PgJournal.open(pool, { deskId: `desk:${randomUUID()}`, now: () => T0, ...options });
  journals.push(journal);
  return { journal, pool };
}

/** Polls `check` until it returns something other than null/undefined/false, or fails after `ms`. */
/**
 * A lease that runs out soon after its desk stops, yet leaves a claim taken right after a heartbeat 1.2 s to be
 * confirmed: 300 ms (150 ms to confirm) failed a confirm on a loaded CI machine whose heartbeat came late.
 */
const SHORT_LEASE = { leaseMs: 1_500, marginMs: 100, maxRequestMs: 200 };

async function eventually<T>(check: () => Promise<T | null | undefined | false>, what: string, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== null && value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

journalPortContract('PostgreSQL', async (clock) => {
  const url = await freshDatabase(inject('postgresUrl'));
  const { journal, pool } = await desk(url, { now: clock.now });
  return {
    journal,
    timeline: async (kind, id) => (await paymentTimelinePg(pool, kind, id)).map((e) => ({ status: e.status, source: e.source })),
    auditLog: async () => (await pool.query('SELECT seq, action, subject, prev_hash, hash FROM audit_log ORDER BY seq')).rows.map((r) => ({
      seq: Number(r.seq), action: r.action as string, subject: r.subject as string | null, prevHash: r.prev_hash as string, hash: r.hash as string,
    })),
  };
});

deskJournalContract('PostgreSQL', async (clock) => {
  const url = await freshDatabase(inject('postgresUrl'));
  return (await desk(url, { now: clock.now })).journal;
});

paymentRunRefsContract('PostgreSQL', async (clock) => {
  const url = await freshDatabase(inject('postgresUrl'));
  return (await desk(url, { now: clock.now })).journal;
});

paymentRunRefsBackfillContract('PostgreSQL', async () => {
  const clock = testClock();
  const { journal, pool } = await desk(await freshDatabase(inject('postgresUrl')), { now: clock.now });
  return {
    journal,
    clock,
    forget: async () => {
      await pool.query('DROP TABLE payment_run_refs; CREATE TABLE payment_run_refs (kind text, ref text, batch_id text, payout_id text, pmt_inf_id text, recorded_at bigint)');
    },
    clear: async () => {
      await pool.query('DELETE FROM payment_run_refs');
    },
    migrateAgain: async () => {
      // Back to before migration 14, the one that makes the table (the later steps, undone too, run again).
      await pool.query('DROP TABLE payment_run_refs; DROP TABLE schedules; DROP TABLE recurring_occurrences; DROP TABLE recurring_templates; DROP INDEX payments_amount; DROP INDEX payments_status_pk; UPDATE schema_version SET version = 13');
      await migratePg(pool);
      return journal;
    },
  };
});

schedulesContract('PostgreSQL', async (clock) => {
  const url = await freshDatabase(inject('postgresUrl'));
  return (await desk(url, { now: clock.now })).journal;
});

describe('two sender desks at one release moment', () => {
  it('exactly one releases each schedule, and its subject changes once', async () => {
    const url = await freshDatabase(inject('postgresUrl'));
    const { journal: a, pool } = await desk(url);
    const { journal: b } = await desk(url);
    const due = { at: T0 - 60_000, zone: 'UTC', local: new Date(T0 - 60_000).toISOString().slice(0, 16) };
    for (let i = 0; i < 10; i++) await a.insertPayment('payout', { ...payout(`s-${i}`), schedule: due });
    await a.createBatch({ id: 'SB', fileName: 'run.csv', sha256: 'h', rows: [payout('sb-1')], schedule: due });
    const subjects = [...Array.from({ length: 10 }, (_, i) => ['payout', `s-${i}`] as const), ['batch', 'SB'] as const];
    const outcomes = await Promise.all(subjects.flatMap(([kind, id]) => [a, b].map((j, n) => j.releaseSchedule(kind, id, { actor: `desk-${n}`, from: 'SCHEDULED' }))));
    expect(outcomes.filter((o) => o !== null)).toHaveLength(subjects.length);
    for (let i = 0; i < 10; i++) expect(await paymentTimelinePg(pool, 'payout', `s-${i}`).then((t) => t.map((e) => e.status))).toEqual(['QUEUED', 'HELD', 'QUEUED']);
    expect((await a.getBatch('SB'))?.state).toBe('RUNNING');
  });
});

describe('two desks storing the same pain.001 run at once', () => {
  it('one stores it; the other is refused, naming its batch, and stores nothing', async () => {
    const url = await freshDatabase(inject('postgresUrl'));
    const { journal: a } = await desk(url);
    const { journal: b } = await desk(url);
    const row = (id: string, endToEndId: string) => payout(id, { details: { extra: { EndToEndId: endToEndId, PmtInfId: 'PI-1', MsgId: 'RUN-RACE', MsgNmId: 'pain.001.001.03' } } });
    // Other payout ids on each desk (the EndToEndIds did not fit the id rule): only the run's ids tie them.
    const outcomes = await Promise.allSettled([
      a.createBatch({ id: 'BA', fileName: 'run.xml', sha256: 'h', rows: [row('a-1', 'E/1'), row('a-2', 'E/2')] }),
      b.createBatch({ id: 'BB', fileName: 'run.xml', sha256: 'h', rows: [row('b-1', 'E/1'), row('b-2', 'E/2')] }),
    ]);
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    const lost = outcomes.find((o) => o.status === 'rejected') as PromiseRejectedResult;
    expect(lost.reason).toMatchObject({ code: 'DUPLICATE_PAYMENT_RUN_REF' });
    const kept = (outcomes.find((o) => o.status === 'fulfilled') as PromiseFulfilledResult<{ id: string }>).value.id;
    expect((lost.reason as Error).message).toContain(`MsgId "RUN-RACE" was imported before, as batch ${kept}`);
    expect((await a.listBatches()).map((x) => x.id)).toEqual([kept]);
    expect((await b.paymentRunRefs('EndToEndId', ['E/1', 'E/2'])).map((r) => r.batchId)).toEqual([kept, kept]);
  });
});

describe("the team journal's desk reads", () => {
  it('refuses a pending total a number cannot keep exactly, rather than rounding it', async () => {
    const { journal } = await desk(await freshDatabase(inject('postgresUrl')));
    await journal.insertPayment('payout', payout('a', { amountMinor: Number.MAX_SAFE_INTEGER }));
    await journal.insertPayment('payout', payout('b', { amountMinor: 2 }));
    // 9007199254740993 has no number: the SQLite journal's SUM comes back as 9007199254740992.
    await expect(journal.pendingPayoutTotals()).rejects.toBeInstanceOf(UnsafeIntegerError);
    await journal.cancelUnsent('payout', ['b']);
    expect(await journal.pendingPayoutTotals()).toEqual([{ currencyCode: 'EUR', amountMinor: Number.MAX_SAFE_INTEGER, count: 1 }]);
  });
});

describe('desks sharing the team journal', () => {
  it('gives the claim on a payout to one desk at a time; the other gets it once it is given back', async () => {
    const url = await freshDatabase(inject('postgresUrl'));
    const { journal: a } = await desk(url);
    const { journal: b } = await desk(url);
    await a.insertPayment('payout', payout('p-1'));
    const claim = await a.claimSend('payout', 'p-1');
    expect(claim).not.toBeNull();
    expect(await b.claimSend('payout', 'p-1')).toBeNull();
    // One claim per desk too: the engine must give it back before claiming again.
    expect(await a.claimSend('payout', 'p-1')).toBeNull();
    expect(claim!.confirm()).toBe(true);
    await a.markRetrying('payout', 'p-1', '429');
    await claim!.release();
    const other = await b.claimSend('payout', 'p-1');
    expect(other).not.toBeNull();
    expect((await b.getPayment('payout', 'p-1'))!.state).toBe('QUEUED');
    await other!.release();
  });

  it("does not cancel a payout another desk has claimed (it may be leaving now)", async () => {
    const url = await freshDatabase(inject('postgresUrl'));
    const { journal: a } = await desk(url);
    const { journal: b } = await desk(url);
    await a.insertPayment('payout', payout('p-1'));
    const claim = await a.claimSend('payout', 'p-1');
    expect(await b.cancelUnsent('payout', ['p-1'])).toBe(0);
    expect(claim!.confirm()).toBe(true);
    await a.recordObservationSoon('payout', 'p-1', { status: 'PENDING', source: 'create', isFinal: false });
    await claim!.release();
    expect((await b.getPayment('payout', 'p-1'))!.state).toBe('ACCEPTED');
  });

  it('lets exactly one of 50 concurrent claims from two desks on one payout through', async () => {
    const url = await freshDatabase(inject('postgresUrl'));
    const { journal: a } = await desk(url);
    const { journal: b } = await desk(url);
    await a.insertPayment('payout', payout('p-1'));
    const claims = await Promise.all(Array.from({ length: 50 }, (_, i) => (i % 2 === 0 ? a : b).claimSend('payout', 'p-1')));
    expect(claims.filter((c) => c !== null)).toHaveLength(1);
  });

  it('takes over a payout claimed by a desk whose lease ran out as UNKNOWN, never as new', async () => {
    const url = await freshDatabase(inject('postgresUrl'));
    const { journal: dead, pool } = await desk(url, SHORT_LEASE);
    const { journal: live } = await desk(url);
    await live.createBatch({ id: 'B1', fileName: 'x.csv', sha256: 'h', rows: [payout('p-1'), payout('p-2')] });
    const claim = await dead.claimSend('payout', 'p-1');
    expect(claim!.confirm()).toBe(true);
    expect((await dead.getPayment('payout', 'p-1'))!.state).toBe('SENDING');
    await dead.close({ releaseClaims: false }); // it crashed mid-send: claim and lease stay until the lease runs out

    const taken = await eventually(() => live.claimSend('payout', 'p-1'), 'the claim of a desk whose lease ran out');
    expect(await live.getPayment('payout', 'p-1')).toMatchObject({ state: 'UNKNOWN', status: 'UNKNOWN', unknownSince: T0, nextPollAt: T0, attempts: 1 });
    expect((await paymentTimelinePg(pool, 'payout', 'p-1')).map((e) => [e.status, e.source])).toEqual([['QUEUED', 'local'], ['UNKNOWN', 'local']]);
    await taken.release();
    // The other payout was never claimed: still new work.
    expect((await live.getPayment('payout', 'p-2'))!.state).toBe('QUEUED');
  });

  it('treats a SENDING payout nobody claims (left by a desk that gave its claim back without an outcome, or copied in) as UNKNOWN first', async () => {
    const url = await freshDatabase(inject('postgresUrl'));
    const { journal: j, pool } = await desk(url);
    await j.insertPayment('payout', payout('p-1'));
    await j.insertPayment('payout', payout('p-2'));
    await pool.query(`UPDATE payments SET state = 'SENDING', status = 'SENDING', attempts = 1 WHERE id IN ('p-1', 'p-2')`);
    const claim = await j.claimSend('payout', 'p-1');
    expect(await j.getPayment('payout', 'p-1')).toMatchObject({ state: 'UNKNOWN', unknownSince: T0, attempts: 1 });
    await claim!.release();
    expect(await j.takeOverExpiredClaims()).toBe(1);
    expect(await j.getPayment('payout', 'p-2')).toMatchObject({ state: 'UNKNOWN', nextPollAt: T0 });
  });

  it("refuses a live desk's claim to markInterruptedSendsUnknown, and turns a dead desk's into UNKNOWN with the claim cleared", async () => {
    const url = await freshDatabase(inject('postgresUrl'));
    const { journal: alive } = await desk(url);
    const { journal: dying, pool } = await desk(url, SHORT_LEASE);
    const { journal: restarted } = await desk(url);
    await alive.createBatch({ id: 'B1', fileName: 'x.csv', sha256: 'h', rows: [payout('p-1'), payout('p-2')] });
    const held = await alive.claimSend('payout', 'p-1');
    expect(held!.confirm()).toBe(true);
    const lost = await dying.claimSend('payout', 'p-2');
    expect(lost!.confirm()).toBe(true);
    await dying.close({ releaseClaims: false });

    await eventually(async () => (await restarted.markInterruptedSendsUnknown('payout', 'the desk stopped while it was being sent')) === 1, "the dead desk's send");
    expect(await restarted.getPayment('payout', 'p-2')).toMatchObject({ state: 'UNKNOWN', lastError: 'the desk stopped while it was being sent', nextPollAt: T0 });
    expect((await pool.query(`SELECT claimed_by FROM payments WHERE id = 'p-2'`)).rows[0].claimed_by).toBeNull();
    // The live desk's send is untouched.
    expect(await restarted.getPayment('payout', 'p-1')).toMatchObject({ state: 'SENDING' });
    expect(await restarted.claimSend('payout', 'p-1')).toBeNull();
    await held!.release();
  });

  it("takes over a dead desk's claims from the heartbeat, with no call from the engine", async () => {
    const url = await freshDatabase(inject('postgresUrl'));
    const { journal: dying } = await desk(url, SHORT_LEASE);
    const { journal: watcher } = await desk(url, SHORT_LEASE);
    await watcher.insertPayment('payout', payout('p-1'));
    const claim = await dying.claimSend('payout', 'p-1');
    expect(claim!.confirm()).toBe(true);
    await dying.close({ releaseClaims: false });
    const p = await eventually(async () => {
      const row = await watcher.getPayment('payout', 'p-1');
      return row?.state === 'UNKNOWN' ? row : undefined;
    }, 'the heartbeat to take the payout over');
    expect(p.lastError).toMatch(/lease ran out/);
  });

  it('lets no request leave once the local lease has less margin than a request may last', async () => {
    const url = await freshDatabase(inject('postgresUrl'));
    const { journal: j } = await desk(url, { leaseMs: 2_000, marginMs: 100, maxRequestMs: 1_000 });
    await j.insertPayment('payout', payout('p-1'));
    await j.insertPayment('payout', payout('p-2'));
    await j.insertPayment('payout', payout('p-3'));
    const claim = await j.claimSend('payout', 'p-1');
    await j.renewLease();
    expect(claim!.confirm()).toBe(true);
    j.stopHeartbeat(); // the desk hangs: its lease is no longer renewed
    const late = await j.claimSend('payout', 'p-2');
    await eventually(async () => !late!.confirm(), 'the lease margin to run out');
    expect(late!.confirm()).toBe(false);
    await eventually(async () => (await j.claimSend('payout', 'p-3')) === null, 'claims to stop');
  });

  it('voids the claims of a desk that hung past its lease, even once its heartbeat comes back', async () => {
    const url = await freshDatabase(inject('postgresUrl'));
    const { journal: hung } = await desk(url, SHORT_LEASE);
    const { journal: other } = await desk(url);
    await other.insertPayment('payout', payout('p-1'));
    const stale = await hung.claimSend('payout', 'p-1');
    expect(stale).not.toBeNull();
    hung.stopHeartbeat();
    const taken = await eventually(() => other.claimSend('payout', 'p-1'), 'the hung desk to be taken over');
    await hung.renewLease(); // it wakes up: its lease is alive again
    expect(stale!.confirm()).toBe(false);
    expect(taken.confirm()).toBe(true);
    expect(await other.getPayment('payout', 'p-1')).toMatchObject({ state: 'SENDING', attempts: 1 });
    await taken.release();
  });

  it('never hands one due status read to two desks', async () => {
    const url = await freshDatabase(inject('postgresUrl'));
    const { journal: a } = await desk(url);
    const { journal: b } = await desk(url);
    const ids = Array.from({ length: 40 }, (_, i) => `p-${i}`);
    await a.createBatch({ id: 'B1', fileName: 'x.csv', sha256: 'h', rows: ids.map((id) => payout(id)) });
    for (const id of ids) await a.recordObservationSoon('payout', id, { status: 'PENDING', source: 'callback', isFinal: false, nextPollAt: T0 });
    const rounds = await Promise.all([a, b, a, b, a, b].map((j) => j.duePolls(T0, 15)));
    const seen = rounds.flat().map((p) => p.id);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.sort()).toEqual([...ids].sort());
    expect(await a.duePolls(T0, 15)).toEqual([]);
  });

  it('refuses one of two desks storing the same payout ids at once', async () => {
    const url = await freshDatabase(inject('postgresUrl'));
    const { journal: a } = await desk(url);
    const { journal: b } = await desk(url);
    const rows = Array.from({ length: 500 }, (_, i) => payout(`p-${i}`));
    const results = await Promise.allSettled([
      a.createBatch({ id: 'B-a', fileName: 'x.csv', sha256: 'h', rows }),
      b.createBatch({ id: 'B-b', fileName: 'x.csv', sha256: 'h', rows: [...rows].reverse() }),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(results.find((r) => r.status === 'rejected')).toMatchObject({ reason: expect.objectContaining({ code: 'DUPLICATE_ID' }) });
    expect((await a.unsentPayments('payout')).length).toBe(500);
  });

  it('stores a batch of 20,000 payouts with one intent and one QUEUED event each', async () => {
    const url = await freshDatabase(inject('postgresUrl'));
    const { journal: j, pool } = await desk(url);
    const rows = Array.from({ length: 20_000 }, (_, i) => payout(`p-${i}`, { amountMinor: i + 1 }));
    const b = await j.createBatch({ id: 'B1', fileName: 'big.csv', sha256: 'h', rows });
    expect(b.totals).toEqual([{ currencyCode: 'EUR', amountMinor: (20_000 * 20_001) / 2, count: 20_000 }]);
    const counts = (await pool.query(
      `SELECT (SELECT COUNT(*) FROM payments) AS payments, (SELECT COUNT(DISTINCT intent_id) FROM payments) AS intents,
              (SELECT COUNT(*) FROM intents WHERE source = 'batch') AS intent_rows, (SELECT COUNT(*) FROM status_events) AS events`,
    )).rows[0];
    expect(counts).toEqual({ payments: '20000', intents: '20000', intent_rows: '20000', events: '20000' });
    expect((await j.unsentPayments('payout', 'B1')).at(-1)).toMatchObject({ id: 'p-19999', rowNumber: 20_000, amountMinor: 20_000 });
  });

  it('keeps one audit chain when desks write at once, and the log append-only', async () => {
    const url = await freshDatabase(inject('postgresUrl'));
    const { journal: a, pool } = await desk(url);
    const { journal: b } = await desk(url);
    await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).audit({ actor: 'x', action: `act.${i}` })));
    const log = (await pool.query('SELECT seq, prev_hash, hash FROM audit_log ORDER BY seq')).rows as { seq: string; prev_hash: string; hash: string }[];
    expect(log.map((r) => Number(r.seq))).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    log.slice(1).forEach((r, i) => expect(r.prev_hash).toBe(log[i]!.hash));
    await expect(pool.query(`UPDATE audit_log SET actor = 'y'`)).rejects.toThrow(/audit_log is append-only/);
    await expect(pool.query('DELETE FROM audit_log')).rejects.toThrow(/audit_log is append-only/);
  });

  it('claims, marks SENDING and records answers of many payouts at once from two desks: one claim each, every row its own fields and events', async () => {
    // Under load the team journal puts the claims, the SENDING writes and the observations that wait for a
    // statement into one (main/store/postgres/grouped.ts); nothing of one payout may leak into another's row.
    const url = await freshDatabase(inject('postgresUrl'));
    const { journal: a, pool } = await desk(url);
    const { journal: b } = await desk(url);
    const ids = Array.from({ length: 120 }, (_, i) => `g-${String(i).padStart(3, '0')}`);
    for (const id of ids) await a.insertPayment('payout', payout(id, { amountMinor: 1000 + ids.indexOf(id) }));

    const claims = await Promise.all(ids.flatMap((id) => [a, b].map(async (j) => ({ id, j, claim: await j.claimSend('payout', id) }))));
    const won = claims.filter((c) => c.claim !== null);
    expect(won.map((c) => c.id).sort()).toEqual(ids);
    // Each claim hands back its own row, as it was when claimed.
    for (const { id, claim } of won) expect(claim!.payment).toMatchObject({ id, state: 'QUEUED', amountMinor: 1000 + ids.indexOf(id) });
    // The database names, for every payout, the desk whose claim won (which desk wins which is the race's).
    const holders = new Map((await pool.query<{ id: string; claimed_by: string }>('SELECT id, claimed_by FROM payments')).rows.map((r) => [r.id, r.claimed_by]));
    expect(Object.fromEntries(ids.map((id) => [id, holders.get(id)]))).toEqual(Object.fromEntries(won.map((c) => [c.id, c.j.deskId])));

    for (const { claim } of won) expect(claim!.confirm()).toBe(true);
    await Promise.all(won.map(({ id, j }, i) => j.recordObservationSoon('payout', id, {
      status: i % 2 === 0 ? 'PAID' : 'PROCESSING', source: 'create', isFinal: i % 2 === 0, feeMinor: i, feeCurrencyCode: 'EUR', raw: { idPayout: id },
    })));
    for (const [i, { id }] of won.entries()) {
      expect(await a.getPayment('payout', id)).toMatchObject({ state: 'ACCEPTED', status: i % 2 === 0 ? 'PAID' : 'PROCESSING', feeMinor: i, attempts: 1 });
      // SENDING is a state of the row (attempts counts it), not an event, as in the SQLite journal.
      expect((await paymentTimelinePg(pool, 'payout', id)).map((e) => e.status)).toEqual(['QUEUED', i % 2 === 0 ? 'PAID' : 'PROCESSING']);
    }
    // The answer gave each desk's claim back already; releasing afterwards changes nothing and fails nothing.
    expect((await pool.query('SELECT COUNT(*) AS n FROM payments WHERE claimed_by IS NOT NULL')).rows[0].n).toBe('0');
    await Promise.all(won.map(({ claim }) => claim!.release()));
    // A second, identical answer is folded into the event already there.
    await a.recordObservationSoon('payout', won[0]!.id, { status: 'PAID', source: 'create', isFinal: true });
    expect((await paymentTimelinePg(pool, 'payout', won[0]!.id)).map((e) => e.status)).toEqual(['QUEUED', 'PAID']);
  });

  it('gives back its claims and its lease when it closes cleanly', async () => {
    const url = await freshDatabase(inject('postgresUrl'));
    const { journal: a, pool } = await desk(url);
    const { journal: b } = await desk(url);
    await a.insertPayment('payout', payout('p-1'));
    expect(await a.claimSend('payout', 'p-1')).not.toBeNull();
    await a.close();
    expect((await pool.query('SELECT COUNT(*) AS n FROM desk_leases WHERE desk_id = $1', [a.deskId])).rows[0].n).toBe('0');
    const claim = await b.claimSend('payout', 'p-1');
    expect(claim).not.toBeNull();
    expect((await b.getPayment('payout', 'p-1'))!.state).toBe('QUEUED');
    await claim!.release();
  });
});
