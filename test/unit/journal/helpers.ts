// Shared builders for journal and engine unit tests: a temp-dir journal and valid payouts.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openJournal, type Journal, type JournalOptions, type NewPayment } from '../../../main/journal';

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
