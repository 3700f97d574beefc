// The JournalPort and DeskJournal contracts on the SQLite journal of a single desk (the PostgreSQL run is in
// test/integration/postgres/journal.test.ts).
import { afterEach } from 'vitest';
import { openJournal, type Journal } from '../../../main/store/sqlite';
import { deskJournalContract } from './desk-contract';
import { journalPortContract } from './port-contract';
import { paymentRunRefsContract } from './payment-run-refs-contract';
import { schedulesContract } from './schedules-contract';

const open: Journal[] = [];
afterEach(() => {
  for (const j of open.splice(0)) j.close();
});

journalPortContract('SQLite', async (clock) => {
  const journal = openJournal(':memory:', { now: clock.now });
  open.push(journal);
  return {
    journal,
    timeline: async (kind, id) => journal.timeline(kind, id).map((e) => ({ status: e.status, source: e.source })),
    auditLog: async () => journal.listAudit(10_000).sort((a, b) => a.seq - b.seq),
  };
});

deskJournalContract('SQLite', async (clock) => {
  const journal = openJournal(':memory:', { now: clock.now });
  open.push(journal);
  return journal;
});

paymentRunRefsContract('SQLite', async (clock) => {
  const journal = openJournal(':memory:', { now: clock.now });
  open.push(journal);
  return journal;
});

schedulesContract('SQLite', async (clock) => {
  const journal = openJournal(':memory:', { now: clock.now });
  open.push(journal);
  return journal;
});
