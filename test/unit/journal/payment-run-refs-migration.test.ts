// SQLite migration 13 on a journal that already holds pain.001 batches (the contract: payment-run-refs-contract.ts;
// the PostgreSQL run is in test/integration/postgres/journal.test.ts), and the lookup's plan: one key seek per
// reference asked, never a walk of every reference kept (a run checked against a year of runs).
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { openJournal, type Journal } from '../../../main/store/sqlite';
import { LOOKUP_SQL } from '../../../main/store/sqlite/payment-run-refs';
import { paymentRunRefsBackfillContract } from './payment-run-refs-contract';
import { testClock } from './port-contract';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0).reverse()) c();
});

paymentRunRefsBackfillContract('SQLite', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'desk-run-refs-'));
  const file = join(dir, 'journal.db');
  const clock = testClock();
  const journals: Journal[] = [openJournal(file, { now: clock.now })];
  const raw = new Database(file);
  cleanups.push(() => {
    raw.close();
    for (const j of journals) j.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return {
    journal: journals[0]!,
    clock,
    forget: async () => {
      raw.exec('DROP TABLE payment_run_refs; CREATE TABLE payment_run_refs (kind TEXT, ref TEXT, batch_id TEXT, payout_id TEXT, pmt_inf_id TEXT, recorded_at INTEGER)');
    },
    clear: async () => {
      raw.exec('DELETE FROM payment_run_refs');
    },
    migrateAgain: async () => {
      journals[0]!.close();
      journals.length = 0;
      raw.exec('DROP TABLE payment_run_refs; DROP TABLE schedules; DROP TABLE recurring_occurrences; DROP TABLE recurring_templates; DROP INDEX payments_amount; DROP INDEX payments_status_pk');
      // Back to before migration 13, the one that makes the table (the later steps, undone too, run again).
      raw.pragma('user_version = 12');
      const after = openJournal(file, { now: clock.now });
      journals.push(after);
      return after;
    },
  };
});

it('looks each reference up by the key, with the refs asked as the outer loop', () => {
  const dir = mkdtempSync(join(tmpdir(), 'desk-run-refs-'));
  const file = join(dir, 'journal.db');
  openJournal(file).close();
  const raw = new Database(file);
  cleanups.push(() => {
    raw.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const plan = (raw.prepare(`EXPLAIN QUERY PLAN ${LOOKUP_SQL}`).all({ refs: '[]', kind: 'EndToEndId' }) as { detail: string }[]).map((r) => r.detail);
  expect(plan.slice(0, 2)).toEqual(['SCAN k VIRTUAL TABLE INDEX 1:', 'SEARCH r USING PRIMARY KEY (kind=? AND ref=?)']);
});
