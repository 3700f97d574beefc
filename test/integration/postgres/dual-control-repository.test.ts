// The dual-control records on the team database: the PostgreSQL adapter keeps the same contract as the
// in-memory and SQLite ones (test/unit/approvals/repository-contract.ts), and what only a shared database
// adds: one desk's write moves another desk's change marker, append-only tables, admins racing on the chain.
import pg from 'pg';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { PgDualControlRepository } from '../../../main/store/postgres/dual-control';
import { signPolicy } from '../../../main/approvals/policy';
import { signPreparation } from '../../../main/approvals/preparation';
import { migratePg, PG_SCHEMA_VERSION } from '../../../main/store/postgres/migrations';
import { draftRecord, signRecord } from '../../../main/trust/chain-record';
import { replayChain } from '../../../main/trust/chain-state';
import { repositoryContract } from '../../unit/approvals/repository-contract';
import { approve, chainOf, manifest, member, row, T0 } from '../../unit/approvals/helpers';
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
  const repo = await PgDualControlRepository.open(pool, options);
  repos.push(repo);
  return repo;
}

// Its recording clock is the database's own (an approval's recordedAt is not the writer's to choose).
repositoryContract('postgres', async () => desk(await teamDatabase()));

describe('the team database', () => {
  const admin = member('ada', ['admin', 'preparer']);
  const alice = member('alice', ['approver']);
  const [genesis] = chainOf('prof-1', [admin, alice]);

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
    await there.appendChain(genesis!);
    const deadline = Date.now() + 10_000;
    // A notification moves the marker at once; the desks agree again once this one has read the counter.
    while ((here.changeMarker() === before || here.changeMarker() !== there.changeMarker()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(here.changeMarker()).not.toBe(before);
    expect(here.changeMarker()).toBe(there.changeMarker());
  });

  it('keeps approvals, control records, proposals, preparations and policy versions append-only for anyone with a connection (TRUNCATE too)', async () => {
    const url = await teamDatabase();
    const repo = await desk(url);
    const m = manifest([row('p1', 100)]);
    await repo.addApproval(approve(alice, m));
    await repo.appendChain(genesis!);
    await repo.addProposal(signRecord(draftRecord({ head: genesis!, at: T0, body: { kind: 'policy', version: 1, rules: { bands: {}, newOrChangedPayee: 0 } } }), admin.session));
    await repo.addPreparation(signPreparation(admin.session, { id: 'prep-1', manifest: m, signedAt: T0 }));
    const pool = pools.at(-1)!;
    // Policy versions are chain records now; the rows from before the chain stay append-only.
    const legacy = signPolicy(admin.session, { profileId: 'prof-1', version: 1, rules: { bands: {}, newOrChangedPayee: 0 }, setAt: T0 });
    await pool.query('INSERT INTO policies (version, profile_id, rules_json, set_by, set_at, signature, recorded_at) VALUES ($1, $2, $3, $4, $5, $6, $7)', [
      legacy.version, legacy.profileId, JSON.stringify(legacy.rules), legacy.setBy, legacy.setAt, legacy.signature, T0,
    ]);
    await expect(pool.query(`UPDATE approvals SET decision = 'reject'`)).rejects.toThrow(/approvals is append-only/);
    await expect(pool.query('DELETE FROM approvals')).rejects.toThrow(/approvals is append-only/);
    await expect(pool.query(`UPDATE policies SET rules_json = '{}'`)).rejects.toThrow(/policies is append-only/);
    await expect(pool.query(`UPDATE control_chain SET record_json = '{}'`)).rejects.toThrow(/control_chain is append-only/);
    await expect(pool.query('DELETE FROM control_chain')).rejects.toThrow(/control_chain is append-only/);
    await expect(pool.query(`UPDATE control_proposals SET record_json = '{}'`)).rejects.toThrow(/control_proposals is append-only/);
    await expect(pool.query(`UPDATE preparations SET signer_id = 'mallory'`)).rejects.toThrow(/preparations is append-only/);
    await expect(pool.query('DELETE FROM preparations')).rejects.toThrow(/preparations is append-only/);
    for (const table of ['approvals', 'policies', 'control_chain', 'control_proposals', 'preparations']) {
      await expect(pool.query(`TRUNCATE ${table}`)).rejects.toThrow(new RegExp(`${table} is append-only`));
    }
    expect(await repo.chain()).toEqual([genesis]);
    expect((await repo.legacy())?.policies).toEqual([legacy]);
  });

  it('lets exactly one of two admins racing on two desks append the next control record', async () => {
    const url = await teamDatabase();
    const [one, two] = [await desk(url), await desk(url)];
    await one.appendChain(genesis!);
    const v1 = (at: number) => signRecord(draftRecord({ head: genesis!, at, body: { kind: 'policy', version: 1, rules: { bands: {}, newOrChangedPayee: 0 } } }), admin.session);
    const results = await Promise.allSettled([one.appendChain(v1(T0)), two.appendChain(v1(T0 + 1))]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(results.find((r) => r.status === 'rejected')).toMatchObject({ reason: expect.objectContaining({ code: 'CHAIN_MOVED' }) });
    const stored = await two.chain();
    expect(stored.map((r) => r.seq)).toEqual([1, 2]);
    const { replay, problem } = replayChain(stored);
    expect(problem).toBeNull();
    expect(replay.state()!.policies.map((p) => p.version)).toEqual([1]);
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
    await there.appendChain(genesis!);
    await wait(() => here.changeMarker() !== before, "the other desk's write to reach it");
  });
});
