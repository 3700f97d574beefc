// A batch larger than one slice of the check (its keys, the payouts read and the flags are each taken a slice at a
// time, a turn of the event loop between) is flagged as the same rows checked a slice at a time, and as the
// in-memory book flags them. The SQLite book reads its tables whole when asked more keys than they have rows,
// and looks each key up otherwise: both give the same versions and payouts, in the same order.
import { afterEach, describe, expect, it } from 'vitest';
import { payeeKey } from '../../../main/domain/payee-key';
import type { BookControl, BookReading } from '../../../main/payees/book';
import { flagPayeeRows, type PayeeFlag, type PayeeRow } from '../../../main/payees/match';
import { MemoryPayeeRepository, type PaidAccount, type PayeeRepository } from '../../../main/payees/repository';
import { SqlitePayeeRepository } from '../../../main/store/sqlite/payees';
import { tempJournal, type TempJournal } from '../journal/helpers';
import { version } from './helpers';

const IBANS = ['DE89370400440532013000', 'FR1420041010050500013M02606', 'ES9121000418450200051332', 'NL91ABNA0417164300'];
const EARLIER = 5_000;
const ROWS = 4_500;
const PIECE = 1_000;

const temps: TempJournal[] = [];
afterEach(() => {
  for (const t of temps.splice(0)) t.dispose();
});

interface Earlier {
  id: string;
  name: string;
  email: string;
  account: string;
  went: boolean;
}

/** Payee k (0-2,499) is paid twice; a third of them to two accounts, in either order of the numbers; every 11th payout shares one of five e-mails; ids ending in 7 stay queued. */
const earlier: Earlier[] = Array.from({ length: EARLIER }, (_, j) => {
  const k = j % 2_500;
  const second = j >= 2_500 && k % 3 === 0;
  return {
    id: `old-${j}`, name: `Payee ${k}`, email: j % 11 === 0 ? `shared${j % 5}@example.com` : `p${k}@example.com`,
    account: IBANS[(k + (second ? 1 + (k % 2) : 0)) % IBANS.length]!, went: !String(j).endsWith('7'),
  };
});

/** Rows 0-2,999 by name (upper case: the key folds it), 2,500 and over never paid; every 13th by an e-mail only. */
const rows: PayeeRow[] = Array.from({ length: ROWS }, (_, i) => {
  const k = i % 3_000;
  return {
    id: `row-${i}`, payeeName: i % 13 === 0 ? `Someone ${i}` : `PAYEE ${k}`, email: i % 13 === 0 ? `p${k}@example.com` : `P${k}@Example.com`,
    account: IBANS[(k + (i % 5 === 0 ? 1 : 0)) % IBANS.length]!, operator: i % 97 === 0 ? 'EU_INSTANT' : 'EU_SEPA',
  };
});

/** 400 saved payees: in force (some at another account), some never paid, some with a change waiting. */
function book(): Parameters<PayeeRepository['addVersions']>[0] {
  return Array.from({ length: 400 }, (_, b) => {
    const k = b * 7;
    const v = version(`payee-${b}`, 1, { name: `Payee ${k}`, emailAddress: `p${k}@example.com`, accountNumber: IBANS[(k + (b % 4 === 0 ? 2 : 0)) % IBANS.length]! });
    return b % 9 === 0 ? [v, version(`payee-${b}`, 2, { name: `Payee ${k}`, emailAddress: `p${k}@example.com`, accountNumber: IBANS[(k + 3) % IBANS.length]! }, { waiting: true })] : [v];
  }).flat();
}

async function sqliteBook(): Promise<{ repo: SqlitePayeeRepository; t: TempJournal }> {
  const t = tempJournal();
  temps.push(t);
  t.journal.createBatch({
    fileName: 'earlier.csv', sha256: 'e'.repeat(64),
    rows: earlier.map((e, j) => ({ id: e.id, amountMinor: 100 + j, currencyCode: 'EUR', accountName: e.name, accountNumber: e.account, paymentOperatorCode: 'EU_SEPA', paymentMethodCode: 'BANK_TRANSFER', emailAddress: e.email })),
  });
  // Setup only: the payouts went to the gateway, but those left queued.
  t.journal.db.exec(`UPDATE payments SET state = 'ACCEPTED' WHERE batch_id IS NOT NULL AND id NOT LIKE '%7'`);
  const repo = new SqlitePayeeRepository(t.journal);
  await repo.addVersions(book());
  return { repo, t };
}

async function memoryBook(): Promise<MemoryPayeeRepository> {
  const paid = earlier.filter((e) => e.went).map((e): PaidAccount & { paymentId: string } => ({ paymentId: e.id, nameKey: payeeKey(e.name), emailKey: payeeKey(e.email), accountNumber: e.account, operatorCode: 'EU_SEPA' }));
  const repo = new MemoryPayeeRepository(paid);
  await repo.addVersions(book());
  return repo;
}

const enforced: BookControl = {
  enforced: true, problem: null, people: [], policy: { profileId: 'prof-1', version: 1, rules: { bands: {}, newOrChangedPayee: 1 }, setBy: 'ada', setAt: 0, signature: null }, policies: [],
};
const readings: [string, BookReading | undefined][] = [
  ['without dual control', undefined],
  ['with dual control (each first version checked against what was paid)', { profileId: 'prof-1', control: async () => enforced }],
];

async function inPieces(repo: PayeeRepository, reading: BookReading | undefined): Promise<PayeeFlag[]> {
  const flags: PayeeFlag[] = [];
  for (let i = 0; i < rows.length; i += PIECE) flags.push(...(await flagPayeeRows(repo, rows.slice(i, i + PIECE), reading)));
  return flags;
}

describe('a batch larger than one slice of the check', () => {
  for (const [label, reading] of readings) {
    it(`flags the same rows for the same reasons as when checked a slice at a time, and as the in-memory book does, ${label}`, async () => {
      const { repo } = await sqliteBook();
      const whole = await flagPayeeRows(repo, rows, reading);
      expect(whole).toEqual(await inPieces(repo, reading));
      expect(whole).toEqual(await flagPayeeRows(await memoryBook(), rows, reading));
      // The check has every kind of answer to keep: new payees, changed accounts in and out of the book, and
      // payees paid to two accounts, listed in the order they were paid.
      const kinds = new Set(whole.map((f) => `${f.flag}/${f.payeeId === null ? 'not in book' : 'in book'}`));
      expect(kinds).toEqual(new Set(['new/not in book', 'new/in book', 'changed/not in book', 'changed/in book']));
      expect(whole.some((f) => /was paid to …\w{4}, …\w{4} before/.test(f.reason))).toBe(true);
    });
  }

  it('leaves out the rows being checked from "paid before", read whole (a whole batch) or looked up (one row)', async () => {
    const { repo, t } = await sqliteBook();
    // Payee 3 was paid to the row's account (old-3) and to another one (old-2503). Had old-3 been row 3 of this
    // batch, resumed after it went, only the other account counts as paid before.
    t.journal.db.exec(`UPDATE payments SET id = 'row-3' WHERE id = 'old-3'`);
    const changed = { rowId: 'row-3', flag: 'changed', payeeId: null, reason: 'bank details changed: PAYEE 3 <P3@Example.com> was paid to …2606 before; this row pays …4300' };
    expect((await flagPayeeRows(repo, rows)).find((f) => f.rowId === 'row-3')).toEqual(changed);
    expect(await flagPayeeRows(repo, [rows[3]!])).toEqual([changed]);
    // Checked in another batch, old-3 counts: paid to this account before, nothing to flag.
    expect(await flagPayeeRows(repo, [{ ...rows[3]!, id: 'elsewhere-3' }])).toEqual([]);
  });
});

describe('the SQLite payee book asked more keys than its tables have rows', () => {
  it('answers "paid before" and the open versions as when it looks each key up', async () => {
    const { repo } = await sqliteBook();
    const names = ['payee 0', 'payee 3', 'payee 7', 'payee 2499', 'nobody'];
    const emails = ['shared1@example.com', 'p14@example.com', ''];
    const excluding = ['old-3', 'old-14'];
    // Keys no payout or version has: enough of them that the book reads its tables whole instead.
    const padding = Array.from({ length: EARLIER }, (_, i) => `padding ${i}`);
    const looked = await repo.paidBefore(names, emails, excluding);
    const read = await repo.paidBefore([...names, ...padding], new Set([...emails, ...padding]), new Set(excluding));
    expect(read).toEqual(looked);
    // In the order paid, each payout once, the queued one (old-7) and the excluded ones left out.
    const expected = earlier.filter((e) => e.went && !excluding.includes(e.id) && (names.includes(payeeKey(e.name)) || emails.includes(e.email)));
    expect(looked).toEqual(expected.map((e) => ({ nameKey: payeeKey(e.name), emailKey: e.email, accountNumber: e.account, operatorCode: 'EU_SEPA' })));
    expect(looked.length).toBeGreaterThan(10);

    const open = await repo.openByKeys(names, emails);
    expect(await repo.openByKeys(new Set([...names, ...padding]), [...emails, ...padding])).toEqual(open);
    expect(open.map((v) => `${v.payeeId}/${v.version}`)).toEqual(['payee-0/1', 'payee-0/2', 'payee-1/1', 'payee-2/1', 'payee-357/1']);
  });
});
