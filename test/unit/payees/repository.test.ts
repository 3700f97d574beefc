// One contract, two adapters: the in-memory payee book and the journal's SQLite tables (migration 7).
// Versions are only added, put in force once or closed once; one version in force and one waiting per
// payee; one payee in force per name key.
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryPayeeRepository, type PayeeRepository } from '../../../main/payees/repository';
import { SqlitePayeeRepository } from '../../../main/payees/sqlite-repository';
import { stateOf } from '../../../main/payees/payee';
import { payout, tempJournal, type TempJournal } from '../journal/helpers';
import { T0, version } from './helpers';

const temps: TempJournal[] = [];
afterEach(() => {
  for (const t of temps.splice(0)) t.dispose();
});

const adapters: [string, () => PayeeRepository][] = [
  ['memory', () => new MemoryPayeeRepository()],
  ['sqlite', () => {
    const t = tempJournal();
    temps.push(t);
    return new SqlitePayeeRepository(t.journal, () => T0);
  }],
];

const states = async (repo: PayeeRepository, id: string) => (await repo.versions(id)).map((v) => `${v.version}:${stateOf(v)}`);

describe.each(adapters)('the %s payee book', (_name, make) => {
  it('keeps every version: a version in force supersedes the one before, which stays', async () => {
    const repo = make();
    await repo.addVersions([version('g', 1)]);
    await repo.addVersions([version('g', 2, { emailAddress: 'grace@navy.example' })]);
    expect(await states(repo, 'g')).toEqual(['1:superseded', '2:in force']);
    expect((await repo.list()).map((v) => v.version)).toEqual([2]);
    expect((await repo.list({ all: true })).map((v) => v.version)).toEqual([1, 2]);
  });

  it('stores a change awaiting approval without putting it in force, and allows one at a time', async () => {
    const repo = make();
    await repo.addVersions([version('g', 1)]);
    await repo.addVersions([version('g', 2, { accountNumber: 'DE89370400440532013000' }, { waiting: true })]);
    expect(await states(repo, 'g')).toEqual(['1:in force', '2:awaiting approval']);
    await expect(repo.addVersions([version('g', 3, { accountNumber: 'DE02120300000000202051' }, { waiting: true })])).rejects.toMatchObject({ code: 'CHANGE_WAITING' });
    await repo.activate('g', 2, T0 + 100, 'alice');
    expect(await states(repo, 'g')).toEqual(['1:superseded', '2:in force']);
    expect((await repo.versions('g'))[0]).toMatchObject({ closedAt: T0 + 100, closedBy: 'alice' });
    await expect(repo.activate('g', 2, T0 + 200, 'alice')).rejects.toMatchObject({ code: 'NOT_WAITING' });
  });

  it('closes a rejected change and leaves the version in force as it was', async () => {
    const repo = make();
    await repo.addVersions([version('g', 1), version('g', 2, { accountNumber: 'DE89370400440532013000' }, { waiting: true })]);
    await repo.close('g', 2, T0 + 100, 'alice', 'rejected');
    expect(await states(repo, 'g')).toEqual(['1:in force', '2:rejected']);
    await expect(repo.close('g', 2, T0 + 200, 'alice', 'withdrawn')).rejects.toMatchObject({ code: 'NOT_WAITING' });
  });

  it('refuses a second payee in force under the same name key (case and Unicode form ignored), adding nothing of the batch', async () => {
    const repo = make();
    await repo.addVersions([version('a', 1, { name: 'Élodie Durand' })]);
    await expect(repo.addVersions([version('x', 1, { name: 'Other' }), version('b', 1, { name: 'E\u0301LODIE  durand' })])).rejects.toMatchObject({ code: 'DUPLICATE' });
    expect((await repo.list()).map((v) => v.payeeId)).toEqual(['a']);
    await expect(repo.addVersions([version('a', 1, { name: 'Élodie Durand' })])).rejects.toMatchObject({ code: 'DUPLICATE' });
  });

  it('finds open versions by name key or e-mail key', async () => {
    const repo = make();
    await repo.addVersions([version('g', 1), version('h', 1, { name: 'Hedy Lamarr', emailAddress: 'hedy@example.com' })]);
    expect((await repo.openByKeys(['grace hopper'], [])).map((v) => v.payeeId)).toEqual(['g']);
    expect((await repo.openByKeys([], ['hedy@example.com'])).map((v) => v.payeeId)).toEqual(['h']);
    expect(await repo.openByKeys(['nobody'], [''])).toEqual([]);
  });
});

describe('the SQLite payee book', () => {
  it('never rewrites or deletes a version, and puts one in force only once', async () => {
    const t = tempJournal();
    temps.push(t);
    const repo = new SqlitePayeeRepository(t.journal);
    await repo.addVersions([version('g', 1)]);
    expect(() => t.journal.db.prepare(`UPDATE payees SET account_number = 'DE89370400440532013000' WHERE payee_id = 'g'`).run()).toThrow(/never rewritten/);
    expect(() => t.journal.db.prepare(`DELETE FROM payees`).run()).toThrow(/never deleted/);
    expect(() => t.journal.db.prepare(`UPDATE payees SET effective_at = 5 WHERE payee_id = 'g'`).run()).toThrow(/in force once/);
  });

  it('answers "paid before" from payouts that went to the gateway, leaving out queued ones and the rows checked', async () => {
    const t = tempJournal();
    temps.push(t);
    const repo = new SqlitePayeeRepository(t.journal);
    t.journal.insertPayment('payout', payout('sent-1', { accountName: 'ÉLODIE Durand', emailAddress: 'e@example.com' }));
    t.journal.markSending('payout', 'sent-1');
    t.journal.insertPayment('payout', payout('queued-1', { accountName: 'élodie durand', accountNumber: 'DE02120300000000202051' }));
    expect(await repo.paidBefore(['élodie durand'], [], [])).toEqual([{ nameKey: 'élodie durand', emailKey: 'e@example.com', accountNumber: 'DE89370400440532013000', operatorCode: 'EU_SEPA' }]);
    expect(await repo.paidBefore([], ['e@example.com'], [])).toHaveLength(1);
    expect(await repo.paidBefore(['élodie durand'], [], ['sent-1'])).toEqual([]);
  });
});
