// One contract (repository-contract.ts), two adapters here: the in-memory payee book and the journal's
// SQLite tables (migration 7); the PostgreSQL adapter keeps it in test/integration/postgres/.
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryPayeeRepository, type PayeeRepository } from '../../../main/payees/repository';
import { SqlitePayeeRepository } from '../../../main/store/sqlite/payees';
import { payout, tempJournal, type TempJournal } from '../journal/helpers';
import { T0, version } from './helpers';
import { payeeRepositoryContract } from './repository-contract';

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

for (const [name, make] of adapters) payeeRepositoryContract(name, make);

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
