// The dual-control records on the team database: the PostgreSQL adapter keeps the same contract as the
// in-memory and SQLite ones (test/unit/approvals/repository-contract.ts), and what only a shared database
// adds: one desk's write moves another desk's change marker, append-only tables, racing policy writers.
import pg from 'pg';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { PgDualControlRepository } from '../../../main/approvals/pg-repository';
import { signPolicy } from '../../../main/approvals/policy';
import { migratePg, PG_SCHEMA_VERSION } from '../../../main/journal/pg/migrations';
import { repositoryContract } from '../../unit/approvals/repository-contract';
import { approve, manifest, member, row, T0 } from '../../unit/approvals/helpers';
import { freshDatabase } from './cluster';

const pools: pg.Pool[] = [];
const repos: PgDualControlRepository[] = [];
afterAll(async () => {
  for (const r of repos.splice(0)) await r.close();
  for (const p of pools.splice(0)) await p.end();
});

async function teamDatabase(): Promise<string> {
  const url = await freshDatabase(inject('postgresUrl'));
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  pools.push(pool);
  await migratePg(pool);
  return url;
}

/** A desk's adapter on the team database at `url` (its own pool, as a second machine would have). */
async function desk(url: string, options: { relistenMs?: number } = {}): Promise<PgDualControlRepository> {
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  pools.push(pool);
  const repo = await PgDualControlRepository.open(pool, () => T0, options);
  repos.push(repo);
  return repo;
}

repositoryContract('postgres', async () => desk(await teamDatabase()));

describe('the team database', () => {
  const admin = member('ada', ['admin']);
  const alice = member('alice', ['approver']);

  it('migrates once, even with two desks starting together, and says so when it is newer than the desk', async () => {
    const url = await freshDatabase(inject('postgresUrl'));
    const a = new pg.Pool({ connectionString: url, max: 2 });
    const b = new pg.Pool({ connectionString: url, max: 2 });
    pools.push(a, b);
    const froms = await Promise.all([migratePg(a), migratePg(b)]);
    expect(froms.sort()).toEqual([0, PG_SCHEMA_VERSION]);
    await a.query('UPDATE schema_version SET version = version + 1');
    await expect(migratePg(b)).rejects.toThrow(/newer than this desk knows/);
  });

  it("moves one desk's change marker when another desk writes (LISTEN/NOTIFY), without polling", async () => {
    const url = await teamDatabase();
    const here = await desk(url);
    const there = await desk(url);
    const before = here.changeMarker();
    await there.addPerson(alice.person, ['approver'], 100, null);
    const deadline = Date.now() + 10_000;
    while (here.changeMarker() === before && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(here.changeMarker()).not.toBe(before);
    expect(here.changeMarker()).toBe(there.changeMarker());
  });

  it('keeps approvals and policy versions append-only for anyone with a connection', async () => {
    const url = await teamDatabase();
    const repo = await desk(url);
    await repo.addApproval(approve(admin, manifest([row('p1', 100)])));
    await repo.addPolicy(signPolicy(admin.session, { profileId: 'prof-1', version: 1, rules: { bands: {}, newOrChangedPayee: 0 }, setAt: T0 }));
    const pool = pools.at(-1)!;
    await expect(pool.query(`UPDATE approvals SET decision = 'reject'`)).rejects.toThrow(/approvals is append-only/);
    await expect(pool.query('DELETE FROM approvals')).rejects.toThrow(/approvals is append-only/);
    await expect(pool.query(`UPDATE policies SET rules_json = '{}'`)).rejects.toThrow(/policies is append-only/);
  });

  it('lets exactly one of two admins racing on two desks store the next policy version', async () => {
    const url = await teamDatabase();
    const [one, two] = [await desk(url), await desk(url)];
    const v1 = (setAt: number) => signPolicy(admin.session, { profileId: 'prof-1', version: 1, rules: { bands: {}, newOrChangedPayee: 0 }, setAt });
    const results = await Promise.allSettled([one.addPolicy(v1(T0)), two.addPolicy(v1(T0 + 1))]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(results.find((r) => r.status === 'rejected')).toMatchObject({ reason: expect.objectContaining({ code: 'POLICY_VERSION' }) });
    expect((await one.listPolicies()).map((p) => p.version)).toEqual([1]);
  });

  it('answers a change marker that never holds while it cannot follow changes (closed listener)', async () => {
    const repo = await desk(await teamDatabase());
    await repo.close();
    repos.splice(repos.indexOf(repo), 1);
    expect(repo.changeMarker()).not.toBe(repo.changeMarker());
  });

  it('follows other desks again after its listening connection was lost (a database restart or network cut), so sends can be cleared again', async () => {
    const url = await teamDatabase();
    const here = await desk(url, { relistenMs: 300 });
    const there = await desk(url);
    const sql = new pg.Pool({ connectionString: url, max: 1 });
    pools.push(sql);
    // The listening session is the one whose last statement read the counter (the other desk's too: kill both).
    const killed = await sql.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND query = 'SELECT n FROM dual_control_changes' AND pid <> pg_backend_pid()`);
    expect(killed.rowCount).toBeGreaterThanOrEqual(1);
    const wait = async (ok: () => boolean, what: string) => {
      for (const deadline = Date.now() + 10_000; !ok(); ) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    await wait(() => here.changeMarker() !== here.changeMarker(), 'the marker to stop holding');
    await wait(() => here.changeMarker() === here.changeMarker(), 'the desk to listen again');
    const before = here.changeMarker();
    await there.addPerson(alice.person, ['approver'], 100, null);
    await wait(() => here.changeMarker() !== before, "the other desk's write to reach it");
  });
});
