// One contract (repository-contract.ts), two adapters here: the in-memory repository and the journal's
// SQLite tables (migration 6); the PostgreSQL adapter keeps it in test/integration/postgres/.
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryDualControlRepository, type DualControlRepository } from '../../../main/approvals/repository';
import { repositoryContract } from './repository-contract';
import { SqliteDualControlRepository } from '../../../main/approvals/sqlite-repository';
import { signPolicy } from '../../../main/approvals/policy';
import { tempJournal, type TempJournal } from '../journal/helpers';
import { approve, manifest, member, row, T0 } from './helpers';

const temps: TempJournal[] = [];
afterEach(() => {
  for (const t of temps.splice(0)) t.dispose();
});

const adapters: [string, () => DualControlRepository][] = [
  ['memory', () => new MemoryDualControlRepository()],
  ['sqlite', () => {
    const t = tempJournal();
    temps.push(t);
    return new SqliteDualControlRepository(t.journal, () => T0);
  }],
];

for (const [name, make] of adapters) repositoryContract(name, make);

describe('the journal tables', () => {
  it('refuse changing or deleting an approval or a policy version', async () => {
    const t = tempJournal();
    temps.push(t);
    const repo = new SqliteDualControlRepository(t.journal);
    const admin = member('ada', ['admin']);
    await repo.addApproval(approve(admin, manifest([row('p1', 100)])));
    await repo.addPolicy(signPolicy(admin.session, { profileId: 'prof-1', version: 1, rules: { bands: {}, newOrChangedPayee: 0 }, setAt: T0 }));
    expect(() => t.journal.db.prepare(`UPDATE approvals SET decision = 'reject'`).run()).toThrow(/append-only/);
    expect(() => t.journal.db.prepare('DELETE FROM approvals').run()).toThrow(/append-only/);
    expect(() => t.journal.db.prepare(`UPDATE policies SET rules_json = '{}'`).run()).toThrow(/append-only/);
    expect(() => t.journal.db.prepare('DELETE FROM policies').run()).toThrow(/append-only/);
  });

  it('record who prepared a batch or a payout, and when', () => {
    const t = tempJournal({ now: () => T0 });
    temps.push(t);
    t.journal.createBatch({ id: 'b1', fileName: 'f.csv', sha256: 'a'.repeat(64), preparedBy: 'paula', rows: [{ ...row('p1', 100), paymentOperatorCode: 'X', paymentMethodCode: 'BANK_TRANSFER', accountName: 'A', accountNumber: '1', emailAddress: 'a@b.c', currencyCode: 'EUR', amountMinor: 100, id: 'p1' }] });
    t.journal.insertPayment('payout', { ...row('p2', 100), preparedBy: 'pete' });
    t.journal.insertPayment('payout', row('p3', 100));
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
    const { openJournal } = await import('../../../main/journal');
    const t = tempJournal();
    temps.push(t);
    t.journal.insertPayment('payout', row('p1', 100));
    rollBackToSchema5(t.journal.db);
    t.journal.close();
    t.journal = openJournal(t.file);
    expect(t.journal.getPayment('payout', 'p1')?.amountMinor).toBe(100);
    expect(t.journal.preparation('payout', 'p1')?.preparedBy).toBeNull();
    expect(await new SqliteDualControlRepository(t.journal).listPeople()).toEqual([]);
  });
});
