// One contract (repository-contract.ts), two adapters here: the in-memory repository and the journal's
// SQLite tables (migration 6); the PostgreSQL adapter keeps it in test/integration/postgres/.
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryDualControlRepository, type DualControlRepository } from '../../../main/trust/repository';
import { repositoryContract } from './repository-contract';
import { SqliteDualControlRepository } from '../../../main/store/sqlite/dual-control';
import { signPolicy } from '../../../main/approvals/policy';
import { signPreparation } from '../../../main/approvals/preparation';
import type { NewPayment } from '../../../main/journal';
import { draftRecord, signRecord } from '../../../main/trust/chain-record';
import { tempJournal, type TempJournal } from '../journal/helpers';
import { approve, chainOf, manifest, member, row, T0 } from './helpers';

/** A manifest row as the journal takes it (no callback address). */
const payment = (id: string, amountMinor: number, overrides: Partial<NewPayment> = {}): NewPayment => ({ ...row(id, amountMinor), callbackUrl: undefined, ...overrides });

const temps: TempJournal[] = [];
afterEach(() => {
  for (const t of temps.splice(0)) t.dispose();
});

const adapters: [string, () => DualControlRepository][] = [
  ['memory', () => new MemoryDualControlRepository(() => T0)],
  ['sqlite', () => {
    const t = tempJournal();
    temps.push(t);
    return new SqliteDualControlRepository(t.journal, () => T0);
  }],
];

for (const [name, make] of adapters) repositoryContract(name, make, { recordsAt: T0 });

describe('the journal tables', () => {
  it('refuse changing or deleting an approval, a control record, a proposal, a preparation or a policy version from before the chain', async () => {
    const t = tempJournal();
    temps.push(t);
    const repo = new SqliteDualControlRepository(t.journal);
    const admin = member('ada', ['admin', 'preparer']);
    const m = manifest([row('p1', 100)]);
    await repo.addApproval(approve(admin, m));
    const [genesis] = chainOf('prof-1', [admin]);
    await repo.appendChain(genesis!);
    await repo.addProposal(signRecord(draftRecord({ head: genesis!, at: T0, body: { kind: 'policy', version: 1, rules: { bands: {}, newOrChangedPayee: 0 } } }), admin.session));
    await repo.addPreparation(signPreparation(admin.session, { id: 'prep-1', manifest: m, signedAt: T0 }));
    // Policy versions are no longer written by the desk (they are chain records); rows from before stay append-only.
    const legacy = signPolicy(admin.session, { profileId: 'prof-1', version: 1, rules: { bands: {}, newOrChangedPayee: 0 }, setAt: T0 });
    t.journal.db
      .prepare('INSERT INTO policies (version, profile_id, rules_json, set_by, set_at, signature, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?)')
      .run(legacy.version, legacy.profileId, JSON.stringify(legacy.rules), legacy.setBy, legacy.setAt, legacy.signature, T0);
    expect(() => t.journal.db.prepare(`UPDATE approvals SET decision = 'reject'`).run()).toThrow(/append-only/);
    expect(() => t.journal.db.prepare('DELETE FROM approvals').run()).toThrow(/append-only/);
    expect(() => t.journal.db.prepare(`UPDATE control_chain SET record_json = '{}'`).run()).toThrow(/append-only/);
    expect(() => t.journal.db.prepare('DELETE FROM control_chain').run()).toThrow(/append-only/);
    expect(() => t.journal.db.prepare(`UPDATE control_proposals SET record_json = '{}'`).run()).toThrow(/append-only/);
    expect(() => t.journal.db.prepare('DELETE FROM control_proposals').run()).toThrow(/append-only/);
    expect(() => t.journal.db.prepare(`UPDATE preparations SET signer_id = 'mallory'`).run()).toThrow(/append-only/);
    expect(() => t.journal.db.prepare('DELETE FROM preparations').run()).toThrow(/append-only/);
    expect(() => t.journal.db.prepare(`UPDATE policies SET rules_json = '{}'`).run()).toThrow(/append-only/);
    expect(() => t.journal.db.prepare('DELETE FROM policies').run()).toThrow(/append-only/);
    expect((await repo.legacy())?.policies).toEqual([legacy]);
  });

  it('record who prepared a batch or a payout, and when', () => {
    const t = tempJournal({ now: () => T0 });
    temps.push(t);
    t.journal.createBatch({ id: 'b1', fileName: 'f.csv', sha256: 'a'.repeat(64), preparedBy: 'paula', rows: [payment('p1', 100, { paymentOperatorCode: 'X', accountName: 'A', accountNumber: '1', emailAddress: 'a@b.c' })] });
    t.journal.insertPayment('payout', payment('p2', 100, { preparedBy: 'pete' }));
    t.journal.insertPayment('payout', payment('p3', 100));
    expect(t.journal.preparation('batch', 'b1')).toEqual({ preparedBy: 'paula', preparedAt: T0 });
    expect(t.journal.preparation('payout', 'p1')).toEqual({ preparedBy: 'paula', preparedAt: T0 });
    expect(t.journal.preparation('payout', 'p2')).toEqual({ preparedBy: 'pete', preparedAt: T0 });
    expect(t.journal.preparation('payout', 'p3')).toEqual({ preparedBy: null, preparedAt: T0 });
    expect(t.journal.preparation('batch', 'nope')).toBeUndefined();
  });
});

describe('migration 6', () => {
  it('brings a schema-5 journal forward with its payments and batches kept, nobody as their preparer', async () => {
    const { rollBackToSchema5 } = await import('../journal/helpers');
    const { openJournal } = await import('../../../main/store/sqlite');
    const t = tempJournal();
    temps.push(t);
    t.journal.insertPayment('payout', payment('p1', 100));
    rollBackToSchema5(t.journal.db);
    t.journal.close();
    t.journal = openJournal(t.file);
    expect(t.journal.getPayment('payout', 'p1')?.amountMinor).toBe(100);
    expect(t.journal.preparation('payout', 'p1')?.preparedBy).toBeNull();
    const repo = new SqliteDualControlRepository(t.journal);
    expect(await repo.legacy()).toBeNull();
    expect(await repo.chain()).toEqual([]);
  });
});
