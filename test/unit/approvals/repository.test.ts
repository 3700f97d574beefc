// One contract, two adapters: the in-memory repository and the journal's SQLite tables (migration 6).
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryDualControlRepository, RepositoryError, type DualControlRepository } from '../../../main/approvals/repository';
import { SqliteDualControlRepository } from '../../../main/approvals/sqlite-repository';
import { signPolicy } from '../../../main/approvals/policy';
import { verifyApprovals } from '../../../main/approvals/verify';
import { heldRoleAt } from '../../../main/people/roles';
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

describe.each(adapters)('the %s repository', (_name, make) => {
  const alice = member('alice', ['approver']);
  const bob = member('bob', ['approver']);
  const admin = member('ada', ['admin']);

  it('keeps people with their role history: grants are closed, never rewritten', async () => {
    const repo = make();
    await repo.addPerson(alice.person, ['approver', 'viewer'], 100, null);
    await repo.setRoles('alice', ['viewer', 'preparer'], 200, 'ada');
    const p = (await repo.getPerson('alice'))!;
    expect(p.publicKey).toBe(alice.person.publicKey);
    expect(heldRoleAt(p, 'approver', 150)).toBe(true);
    expect(heldRoleAt(p, 'approver', 200)).toBe(false);
    expect(heldRoleAt(p, 'preparer', 200)).toBe(true);
    expect(heldRoleAt(p, 'viewer', 250)).toBe(true);
    await repo.revokePerson('alice', 300, 'ada', 'left the company');
    const revoked = (await repo.getPerson('alice'))!;
    expect(revoked).toMatchObject({ revokedAt: 300, revokedBy: 'ada', revokeReason: 'left the company' });
    expect(revoked.grants.every((g) => g.removedAt !== null)).toBe(true);
    await expect(repo.setRoles('alice', ['approver'], 400, 'ada')).rejects.toThrow(RepositoryError);
    await expect(repo.addPerson(alice.person, [], 0, null)).rejects.toThrow(/already exists/);
    expect((await repo.listPeople()).map((x) => x.id)).toEqual(['alice']);
  });

  it('stores approvals exactly as signed, so they still verify when read back', async () => {
    const repo = make();
    const m = manifest([row('p1', 100)]);
    const a = approve(alice, m);
    const r = approve(bob, m, 'reject', 'wrong IBAN');
    await repo.addApproval(a);
    await repo.addApproval(r);
    await repo.addApproval(approve(bob, manifest([row('p1', 100)], { subject: { kind: 'payout', id: 'p1' } })));
    const stored = await repo.approvalsFor(m.subject);
    expect(stored).toEqual([a, r]);
    await expect(repo.addApproval(a)).rejects.toThrow(/already exists/);
    expect((await repo.listApprovals(2)).map((x) => x.id)).toHaveLength(2);
  });

  it('keeps policy versions in order and refuses a skipped or repeated version', async () => {
    const repo = make();
    expect(await repo.currentPolicy()).toBeNull();
    const rules = { bands: { EUR: [{ atLeast: '10.50', approvals: 2 }] }, newOrChangedPayee: 1 };
    const v1 = signPolicy(admin.session, { profileId: 'prof-1', version: 1, rules, setAt: T0 });
    await repo.addPolicy(v1);
    await expect(repo.addPolicy(v1)).rejects.toThrow(/next policy version is 2/);
    await expect(repo.addPolicy({ ...v1, version: 3 })).rejects.toThrow(/next policy version is 2/);
    const back = (await repo.currentPolicy())!;
    expect(back).toEqual(v1);
    // Read back, the signature still holds (the stored rules give the same canonical bytes).
    await repo.addPerson(admin.person, ['admin'], T0 - 1000, null);
    const m = manifest([row('p1', 100)], { policyVersion: 1 });
    expect(verifyApprovals(m, [], await repo.listPeople(), back, { now: T0 + 1 })).toMatchObject({ ok: true });
  });
});

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
