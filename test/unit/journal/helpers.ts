// Shared builders for journal and engine unit tests: a temp-dir journal and valid payouts.
import type Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DeskRuntime } from '../../../main/desk/runtime';
import { type NewPayment } from '../../../main/journal';
import { Journal, openJournal, type JournalOptions } from '../../../main/store/sqlite';

export interface TempJournal {
  journal: Journal;
  file: string;
  dispose(): void;
}

export function tempJournal(options: JournalOptions = {}): TempJournal {
  const dir = mkdtempSync(join(tmpdir(), 'desk-journal-'));
  const file = join(dir, 'journal.db');
  const journal = openJournal(file, { synchronous: 'NORMAL', ...options });
  return {
    journal,
    file,
    dispose() {
      journal.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export function payout(id: string, overrides: Partial<NewPayment> = {}): NewPayment {
  return {
    id,
    amountMinor: 12_550,
    currencyCode: 'EUR',
    accountName: 'Ada Lovelace',
    accountNumber: 'DE89370400440532013000',
    paymentOperatorCode: 'EU_SEPA',
    paymentMethodCode: 'BANK_TRANSFER',
    emailAddress: 'ada@example.com',
    ...overrides,
  };
}

/**
 * Undoes schema steps 16 (the History sorts' indexes), 15 (recurring payouts), 14 (the calendar), 13 (payment run references), 12 (remittance mails), 11 (closing a period), 10 (the Overview's indexes), 9 (possible
 * duplicates), 8 (control chain), 7 (payee book) and 6 (dual control): the journal as the app before people and
 * approvals left it.
 */
export function rollBackToSchema5(db: Database.Database): void {
  db.exec(`
    DROP TABLE IF EXISTS recurring_occurrences;
    DROP TABLE IF EXISTS recurring_templates;
    DROP TABLE IF EXISTS schedules;
    DROP TABLE IF EXISTS payment_run_refs;
    DROP TABLE IF EXISTS remittance_mails;
    DROP TABLE issued_statements;
    DROP TABLE exported_movements;
    DROP TABLE accounting_accounts;
    DROP INDEX payments_amount;
    DROP INDEX payments_status_pk;
    DROP INDEX payments_accepted;
    DROP INDEX payments_pending;
    DROP INDEX payments_like;
    DROP TABLE preparations;
    DROP TABLE control_proposals;
    DROP TABLE control_chain;
    DROP TABLE payee_approvals;
    DROP TABLE payees;
    DROP TABLE approvals;
    DROP TABLE policies;
    DROP TABLE role_grants;
    DROP TABLE people;
    ALTER TABLE batches DROP COLUMN prepared_by;
    ALTER TABLE payments DROP COLUMN prepared_by;
    PRAGMA user_version = 5;
  `);
}

/**
 * Turns a fresh journal back into one as schema step 3 left it (before sealed audit entries and payee keys),
 * so opening it again runs the later migrations over old data.
 */
export function rollBackToSchema3(db: Database.Database): void {
  rollBackToSchema5(db);
  db.exec(`
    DROP INDEX payments_payee_name_key;
    DROP INDEX payments_payee_email_key;
    ALTER TABLE payments DROP COLUMN payee_name_key;
    ALTER TABLE payments DROP COLUMN payee_email_key;
    CREATE INDEX payments_payee_name ON payments (lower(trim(account_name)), created_at) WHERE kind = 'payout';
    CREATE INDEX payments_payee_email ON payments (lower(trim(email_address)), created_at) WHERE kind = 'payout';
    ALTER TABLE audit_log DROP COLUMN key_id;
    DELETE FROM meta WHERE key = 'journal_id';
    PRAGMA user_version = 3;
  `);
}

/** A single desk profile's journal as the runtime opened it: its own SQLite file, read synchronously by tests. */
export async function sqliteJournalOf(rt: DeskRuntime, profileId: string): Promise<Journal> {
  const journal = await rt.journalFor(profileId);
  if (!(journal instanceof Journal)) throw new Error(`profile ${profileId} is not on its own SQLite journal`);
  return journal;
}
