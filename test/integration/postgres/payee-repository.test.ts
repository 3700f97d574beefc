// The payee book on the team database: the PostgreSQL adapter keeps the same contract as the in-memory and
// SQLite ones (test/unit/payees/repository-contract.ts), and what only a shared database adds: one desk's
// write moves another desk's change marker, two desks racing on one rule get one yes and the refusal a
// sequential write gets, the tables refuse rewrites for anyone with a connection, and "paid before" reads
// the payouts every desk stored. Waits are on conditions with a deadline, never sleeps of a guessed length.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { PgJournal } from '../../../main/store/postgres/journal';
import { migratePg } from '../../../main/store/postgres/migrations';
import { PAYMENT_STATES } from '../../../main/journal/types';
import { PgPayeeRepository } from '../../../main/store/postgres/payees';
import { PayeeError, stateOf } from '../../../main/payees/payee';
import { payout } from '../../unit/journal/helpers';
import { T0, version } from '../../unit/payees/helpers';
import { payeeRepositoryContract } from '../../unit/payees/repository-contract';
import { freshDatabase } from './cluster';

const pools: pg.Pool[] = [];
const repos: PgPayeeRepository[] = [];
const journals: PgJournal[] = [];
afterEach(async () => {
  // Listeners and journals first: a pool ends only once its clients are back.
  for (const r of repos.splice(0)) await r.end();
  for (const j of journals.splice(0)) await j.close();
  for (const p of pools.splice(0)) await p.end();
});

function poolFor(url: string): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  pools.push(pool);
  return pool;
}

async function teamDatabase(url?: string): Promise<string> {
  const at = url ?? (await freshDatabase(inject('postgresUrl')));
  await migratePg(poolFor(at));
  return at;
}

/** A desk's payee book on the team database at `url` (its own pool, as a second machine would have). */
async function desk(url: string, options: { relistenMs?: number } = {}): Promise<PgPayeeRepository> {
  const repo = await PgPayeeRepository.open(poolFor(url), () => T0, options);
  repos.push(repo);
  return repo;
}

/** Polls `check` until it holds, or fails after `ms`. */
async function eventually(check: () => boolean, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Two writes started together: exactly one succeeds; the other's refusal is returned with its index. */
async function oneWins(writes: [Promise<void>, Promise<void>]): Promise<{ winner: number; refusal: PayeeError }> {
  const results = await Promise.allSettled(writes);
  expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
  const loser = results.findIndex((r) => r.status === 'rejected');
  const reason = (results[loser] as PromiseRejectedResult).reason as unknown;
  expect(reason).toBeInstanceOf(PayeeError);
  return { winner: 1 - loser, refusal: reason as PayeeError };
}

payeeRepositoryContract('postgres', async () => desk(await teamDatabase()));

describe('the payee book shared by the desks of a team', () => {
  it("moves one desk's change marker when another desk writes (LISTEN/NOTIFY), without reading the database", async () => {
    const url = await teamDatabase();
    const here = await desk(url);
    const there = await desk(url);
    for (const write of [
      () => there.addVersions([version('g', 1), version('g', 2, { accountNumber: 'DE89370400440532013000' }, { waiting: true })]),
      () => there.activate('g', 2, T0 + 100, 'alice'),
      () => there.addVersions([version('h', 1, { name: 'Hedy Lamarr' }, { waiting: true })]),
      () => there.close('h', 1, T0 + 100, 'alice', 'withdrawn'),
    ]) {
      const before = here.changeMarker();
      await write();
      await eventually(() => here.changeMarker() !== before, "the other desk's write to reach this desk");
      await eventually(() => here.changeMarker() === there.changeMarker(), 'both desks to agree');
      expect(here.changeMarker()).toBe(here.changeMarker());
    }
  });

  it('gives one of two desks adding the same payee version the yes, and the other the refusal of a sequential add', async () => {
    const url = await teamDatabase();
    const [a, b] = [await desk(url), await desk(url)];
    for (let i = 0; i < 8; i++) {
      const id = `p${i}`;
      const { refusal } = await oneWins([a.addVersions([version(id, 1, { name: `Payee ${i}` })]), b.addVersions([version(id, 1, { name: `Payee ${i}`, emailAddress: 'b@example.com' })])]);
      expect(refusal).toMatchObject({ code: 'DUPLICATE', message: `payee ${id} version 1 already exists` });
      expect((await a.versions(id)).map((v) => `${v.version}:${stateOf(v)}`)).toEqual(['1:in force']);
    }
  });

  it('gives one of two desks adding two payees under one name key the yes; the other is told the name is taken', async () => {
    const url = await teamDatabase();
    const [a, b] = [await desk(url), await desk(url)];
    for (let i = 0; i < 8; i++) {
      const names = [`Élodie Durand ${i}`, `E\u0301LODIE  durand ${i}`];
      const { winner, refusal } = await oneWins([a.addVersions([version(`a${i}`, 1, { name: names[0] })]), b.addVersions([version(`b${i}`, 1, { name: names[1] })])]);
      expect(refusal).toMatchObject({ code: 'DUPLICATE', message: `a payee named "${names[1 - winner]}" is already in the book` });
    }
    expect((await a.list()).map((v) => v.payeeId[0]).join('')).toMatch(/^[ab]{8}$/);
    expect(await a.list()).toHaveLength(8);
  });

  it('lets one change of a payee wait at a time when two desks propose one together', async () => {
    const url = await teamDatabase();
    const [a, b] = [await desk(url), await desk(url)];
    for (let i = 0; i < 8; i++) {
      const id = `g${i}`;
      await a.addVersions([version(id, 1, { name: `Grace ${i}` })]);
      const { refusal } = await oneWins([
        a.addVersions([version(id, 2, { name: `Grace ${i}`, accountNumber: 'DE89370400440532013000' }, { waiting: true })]),
        b.addVersions([version(id, 3, { name: `Grace ${i}`, accountNumber: 'DE02120300000000202051' }, { waiting: true })]),
      ]);
      expect(refusal).toMatchObject({ code: 'CHANGE_WAITING', message: `a change of payee ${id} already awaits approval` });
      expect((await a.versions(id)).filter((v) => stateOf(v) === 'awaiting approval')).toHaveLength(1);
    }
  });

  it('puts a change in force or rejects it, never both, when two desks decide it together', async () => {
    const url = await teamDatabase();
    const [a, b] = [await desk(url), await desk(url)];
    for (let i = 0; i < 8; i++) {
      const id = `g${i}`;
      await a.addVersions([version(id, 1, { name: `Grace ${i}` }), version(id, 2, { name: `Grace ${i}`, accountNumber: 'DE89370400440532013000' }, { waiting: true })]);
      const { winner, refusal } = await oneWins([a.activate(id, 2, T0 + 100, 'alice'), b.close(id, 2, T0 + 100, 'bob', 'rejected')]);
      const states = (await a.versions(id)).map((v) => `${v.version}:${stateOf(v)}`);
      if (winner === 0) {
        expect(states).toEqual(['1:superseded', '2:in force']);
        expect(refusal).toMatchObject({ code: 'NOT_WAITING', message: `payee ${id} version 2 is in force, not awaiting approval` });
      } else {
        expect(states).toEqual(['1:in force', '2:rejected']);
        expect(refusal).toMatchObject({ code: 'NOT_WAITING', message: `payee ${id} version 2 is rejected, not awaiting approval` });
      }
    }
  });

  it('keeps payee approvals append-only and payee versions unrewritten for anyone with a connection', async () => {
    const url = await teamDatabase();
    const repo = await desk(url);
    await repo.addVersions([version('g', 1), version('g', 2, { accountNumber: 'DE89370400440532013000' }, { waiting: true })]);
    await repo.addApproval({
      id: 'ap-1', profileId: 'prof-1', payeeId: 'g', payeeVersion: 2, changeDigest: 'd', policyVersion: 1, decision: 'approve', reason: null, signerId: 'alice', signedAt: T0, signature: 's',
    });
    const sql = poolFor(url);
    await expect(sql.query(`UPDATE payee_approvals SET decision = 'reject'`)).rejects.toThrow(/payee_approvals is append-only/);
    await expect(sql.query('DELETE FROM payee_approvals')).rejects.toThrow(/payee_approvals is append-only/);
    await expect(sql.query('TRUNCATE payee_approvals')).rejects.toThrow(/payee_approvals is append-only/);
    await expect(sql.query(`UPDATE payees SET account_number = 'DE02120300000000202051' WHERE payee_id = 'g'`)).rejects.toThrow(/never rewritten/);
    await expect(sql.query('DELETE FROM payees')).rejects.toThrow(/never deleted/);
    await expect(sql.query('TRUNCATE payees')).rejects.toThrow(/never deleted/);
    await expect(sql.query(`UPDATE payees SET effective_at = 5 WHERE payee_id = 'g' AND version = 1`)).rejects.toThrow(/in force once/);
    await repo.close('g', 2, T0 + 1, 'alice', 'withdrawn');
    await expect(sql.query(`UPDATE payees SET effective_at = 5 WHERE payee_id = 'g' AND version = 2`)).rejects.toThrow(/in force once/);
    // A closed version is not opened again.
    await expect(sql.query(`UPDATE payees SET closed_at = NULL, close_reason = NULL WHERE payee_id = 'g' AND version = 2`)).rejects.toThrow(/in force once/);
    expect((await sql.query('SELECT count(*)::int AS n FROM payee_approvals')).rows[0]).toEqual({ n: 1 });
  });

  it('answers "paid before" from the payouts any desk stored that went (or may have gone) to the gateway', async () => {
    const url = await teamDatabase();
    const repo = await desk(url);
    const other = await PgJournal.open(poolFor(url), { deskId: `desk:${randomUUID()}`, now: () => T0 });
    journals.push(other);
    // One payout in each state, stored by the other desk under one payee written two ways; an account each.
    const accountOf = (state: string) => `DE00000000000000${String(PAYMENT_STATES.indexOf(state as (typeof PAYMENT_STATES)[number])).padStart(6, '0')}`;
    for (const [i, state] of PAYMENT_STATES.entries()) {
      await other.insertPayment('payout', payout(`p-${state}`, { accountName: i % 2 ? 'ÉLODIE Durand' : 'élodie  durand', emailAddress: 'E@Example.com', accountNumber: accountOf(state) }));
    }
    await other.insertPayment('payout', payout('someone-else', { accountName: 'Other Person', emailAddress: 'other@example.com' }));
    const sql = poolFor(url);
    for (const state of PAYMENT_STATES) await sql.query('UPDATE payments SET state = $1 WHERE id = $2', [state, `p-${state}`]);
    await sql.query(`UPDATE payments SET state = 'ACCEPTED' WHERE id = 'someone-else'`);

    const went = PAYMENT_STATES.filter((s) => !['QUEUED', 'HELD', 'DISCARDED'].includes(s));
    expect(went).toHaveLength(PAYMENT_STATES.length - 3);
    const accounts = (paid: { accountNumber: string }[]) => paid.map((p) => p.accountNumber).sort();
    const expected = went.map(accountOf).sort();
    const byName = await repo.paidBefore(['élodie durand'], [], []);
    expect(accounts(byName)).toEqual(expected);
    expect(byName[0]).toEqual({ nameKey: 'élodie durand', emailKey: 'e@example.com', accountNumber: expect.any(String), operatorCode: 'EU_SEPA' });
    expect(accounts(await repo.paidBefore([], ['e@example.com'], []))).toEqual(expected);
    expect(accounts(await repo.paidBefore(['élodie durand'], ['e@example.com'], []))).toEqual(expected);
    expect(accounts(await repo.paidBefore(['élodie durand'], [], ['p-SENDING', 'p-ACCEPTED', 'someone-else']))).toEqual(
      expected.filter((a) => a !== accountOf('SENDING') && a !== accountOf('ACCEPTED')),
    );
    expect(await repo.paidBefore(['nobody'], [''], [])).toEqual([]);
    expect(accounts(await repo.paidBefore([], ['other@example.com'], []))).toEqual(['DE89370400440532013000']);
  });

  it('orders and compares ids and keys by bytes, whatever the database collation', async () => {
    // A database whose default collation is ICU's English one sorts "a" before "B"; the memory book does not.
    const cluster = inject('postgresUrl');
    const name = `t_icu_${Math.random().toString(36).slice(2, 10)}`;
    const admin = new pg.Client({ connectionString: cluster });
    await admin.connect();
    try {
      await admin.query(`CREATE DATABASE ${name} TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE 'en-US' LOCALE 'C' ENCODING 'UTF8'`);
    } finally {
      await admin.end();
    }
    const url = await teamDatabase(cluster.replace(/\/[^/]*$/, `/${name}`));
    const repo = await desk(url);
    await repo.addVersions([version('b', 1, { name: 'One' }), version('B', 1, { name: 'Two' }), version('a', 1, { name: 'Three' }), version('A', 1, { name: 'Four' })]);
    expect((await repo.list()).map((v) => v.payeeId)).toEqual(['A', 'B', 'a', 'b']);
    expect((await poolFor(url).query(`SELECT 'a' < 'B' AS icu`)).rows[0]).toEqual({ icu: true });
  });

  it('answers a change marker that never holds while it cannot follow changes, and follows them again once it can', async () => {
    const url = await teamDatabase();
    const here = await desk(url, { relistenMs: 500 });
    const held = here.changeMarker();
    expect(here.changeMarker()).toBe(held);
    // The database drops this desk's listening connection (a restart, a network cut): nothing may rest on the
    // marker. It is the only session so far whose last statement read the counter.
    const sql = poolFor(url);
    const killed = await sql.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND query = 'SELECT n FROM payee_changes'`);
    expect(killed.rowCount).toBe(1);
    await eventually(() => here.changeMarker() !== here.changeMarker(), 'the marker to stop holding');
    // A write while it is away is taken in when it listens again.
    const there = await desk(url);
    await there.addVersions([version('g', 1)]);
    await eventually(() => here.changeMarker() === here.changeMarker(), 'the desk to listen again');
    expect(here.changeMarker()).toBe(there.changeMarker());
    expect(here.changeMarker()).not.toBe(held);
    const before = here.changeMarker();
    await there.addVersions([version('h', 1, { name: 'Hedy Lamarr' })]);
    await eventually(() => here.changeMarker() !== before, 'a later write to reach the desk');
  });

  it('answers a change marker that never holds once ended', async () => {
    const repo = await desk(await teamDatabase());
    await repo.end();
    expect(repo.changeMarker()).not.toBe(repo.changeMarker());
  });
});
