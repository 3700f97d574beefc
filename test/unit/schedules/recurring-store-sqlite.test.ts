// The recurring payouts' store contract on a single desk's SQLite journal (PostgreSQL: test/integration/postgres/recurring-store.test.ts).
import { afterEach, expect, it } from 'vitest';
import { openJournal, type Journal } from '../../../main/store/sqlite';
import { SqliteRecurringStore } from '../../../main/store/sqlite/recurring';
import { recurringStoreContract, template } from './recurring-contract';

const open: Journal[] = [];
afterEach(() => {
  for (const j of open.splice(0)) j.close();
});

const journal = (): Journal => {
  const j = openJournal(':memory:');
  open.push(j);
  return j;
};

recurringStoreContract('SQLite', async () => new SqliteRecurringStore(journal()));

it('never forgets an occurrence: the journal refuses to delete one', async () => {
  const j = journal();
  const s = new SqliteRecurringStore(j);
  await s.addTemplate(template('t-1'));
  await s.recordOccurrence({ templateId: 't-1', date: '2027-01-25', payoutId: 'p', state: 'CREATING', reason: null, actor: 'desk', createdAt: 1 });
  expect(() => j.db.prepare('DELETE FROM recurring_occurrences').run()).toThrow(/stays recorded/);
});
