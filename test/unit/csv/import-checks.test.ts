// Row checks that depend on options: gateway code lists, the profile limit, the journal; plus file limits
// and the promise that a big import lets the event loop run.
import { describe, expect, it } from 'vitest';
import { importPayoutCsv } from '../../../main/csv/import';
import { MAX_CSV_BYTES, MAX_CSV_ROWS, type CsvJournalLookup } from '../../../main/csv/types';
import { payout, tempJournal } from '../journal/helpers';

const enc = (text: string): Uint8Array => new TextEncoder().encode(text);
const HEADER = 'idPayout,amount,currencyCode,accountName,accountNumber,paymentOperatorCode,paymentMethodCode,emailAddress';
const file = (...rows: string[]): Uint8Array => enc([HEADER, ...rows].join('\r\n') + '\r\n');

function journal(overrides: Partial<CsvJournalLookup> = {}): CsvJournalLookup & { asked: { ids: string[][]; keys: number } } {
  const asked = { ids: [] as string[][], keys: 0 };
  return {
    asked,
    existingPayoutIds: (ids) => {
      asked.ids.push(ids);
      return new Set(ids.filter((id) => id === 'PAID-1'));
    },
    batchFileSubmitted: () => false,
    knownBeneficiaryAccounts: (keys) => {
      asked.keys += keys.length;
      return [
        { accountName: 'Jane Example', emailAddress: 'jane@old.example', accountNumber: 'DE89 3704 0044 0532 0130 00' },
        { accountName: 'Someone Else', emailAddress: 'bob@example.com', accountNumber: 'GB82WEST12345698765432' },
      ];
    },
    ...overrides,
  };
}

describe('row checks with gateway lists and the profile limit', () => {
  it('refuses currencies the gateway does not offer and uses the gateway decimals', async () => {
    const currencies = new Map([
      ['EUR', 2],
      ['KWD', 3],
    ]);
    const r = await importPayoutCsv(
      file(
        'A-1,1.234,KWD,Jane,DE89370400440532013000,EU_SEPA,BANK_TRANSFER,j@example.com',
        'A-2,10.00,USD,Jane,DE89370400440532013000,EU_SEPA,BANK_TRANSFER,j@example.com',
        'A-3,10.00,eur,Jane,DE89370400440532013000,EU_SEPA,,j@example.com',
      ),
      { currencies },
    );
    expect(r.rows.map((row) => [row.payout.idPayout, row.payout.amountMinor, row.payout.currencyCode, row.payout.paymentMethodCode])).toEqual([
      ['A-1', 1234, 'KWD', 'BANK_TRANSFER'],
      ['A-3', 1000, 'EUR', 'BANK_TRANSFER'],
    ]);
    expect(r.errors.map((e) => [e.rowNumber, e.column, e.code])).toEqual([[3, 'currencyCode', 'CURRENCY_UNKNOWN']]);
    expect(r.errors[0]?.message).toContain('use one of EUR, KWD');
  });

  it('checks the operator against currency and method', async () => {
    const operators = [
      { code: 'EU_SEPA', paymentMethodCode: 'BANK_TRANSFER', currencyCodes: ['EUR'] },
      { code: 'VAPAY', paymentMethodCode: 'WALLET', currencyCodes: ['EUR'] },
    ];
    const r = await importPayoutCsv(
      file(
        'O-1,10.00,EUR,Jane,DE89370400440532013000,EU_SEPA,BANK_TRANSFER,j@example.com',
        'O-2,10.00,EUR,Jane,DE89370400440532013000,NOPE,BANK_TRANSFER,j@example.com',
        'O-3,10.00,EUR,Jane,DE89370400440532013000,VAPAY,BANK_TRANSFER,j@example.com',
      ),
      { operators },
    );
    expect(r.errors.map((e) => [e.rowNumber, e.code])).toEqual([
      [3, 'OPERATOR_UNKNOWN'],
      [4, 'OPERATOR_METHOD'],
    ]);
  });

  it('applies the profile maximum per row', async () => {
    const r = await importPayoutCsv(file('M-1,500.00,EUR,Jane,DE89370400440532013000,EU_SEPA,,j@example.com'), { maxAmountMinor: 40000 });
    expect(r.errors.map((e) => [e.rowNumber, e.column, e.code])).toEqual([[2, 'amount', 'AMOUNT_OVER_LIMIT']]);
  });

  it('reports every problem of a row, each with its column', async () => {
    const r = await importPayoutCsv(file('bad id!,,EUR,,DE89370400440532013000,,,nope'));
    expect(r.errors.map((e) => [e.column, e.code])).toEqual([
      ['amount', 'REQUIRED'],
      ['accountName', 'REQUIRED'],
      ['paymentOperatorCode', 'REQUIRED'],
      ['emailAddress', 'EMAIL_FORMAT'],
      ['idPayout', 'ID_FORMAT'],
    ]);
    expect(r.counts).toEqual({ rows: 1, valid: 0, invalid: 1, warnings: 0 });
  });

  it('strips the export\'s formula guard from imported cells, and keeps other leading quotes', async () => {
    const r = await importPayoutCsv(file("F-1,10.00,EUR,'=Jane,DE89370400440532013000,EU_SEPA,,'-j@example.com", "F-2,10.00,EUR,'Quote,GB82WEST12345698765432,EU_SEPA,,k@example.com"));
    expect(r.rows.map((row) => [row.payout.accountName, row.payout.emailAddress])).toEqual([
      ['=Jane', '-j@example.com'],
      ["'Quote", 'k@example.com'],
    ]);
  });

  it('warns, without refusing the row, about a payee name a spreadsheet would run as a formula', async () => {
    const r = await importPayoutCsv(file(
      'W-1,10.00,EUR,=cmd|calc,DE89370400440532013000,EU_SEPA,,a@example.com',
      'W-2,10.00,EUR,+Plus Ltd,GB82WEST12345698765432,EU_SEPA,,b@example.com',
      'W-3,10.00,EUR,-Minus,FR1420041010050500013M02606,EU_SEPA,,c@example.com',
      'W-4,10.00,EUR,@handle,DE44500105175407324931,EU_SEPA,,d@example.com',
      'W-5,10.00,EUR,Anna-Lena Meyer,DE02120300000000202051,EU_SEPA,,e@example.com',
    ));
    expect(r.errors).toEqual([]);
    expect(r.counts.valid).toBe(5);
    expect(r.warnings.map((w) => [w.rowNumber, w.column, w.code])).toEqual([2, 3, 4, 5].map((n) => [n, 'accountName', 'NAME_LOOKS_LIKE_FORMULA']));
    expect(r.warnings[0]?.message).toBe('the beneficiary name "=cmd|calc" starts with "=", which a spreadsheet runs as a formula; check it is the payee\'s real name');
  });
});

describe('checks against the journal', () => {
  it('refuses ids the journal already holds, warns on changed bank details and on a file submitted before', async () => {
    const j = journal({ batchFileSubmitted: () => true });
    const r = await importPayoutCsv(
      file(
        'PAID-1,10.00,EUR,Someone,DE89370400440532013000,EU_SEPA,,someone@example.com',
        'NEW-1,10.00,EUR,jane  example,FR1420041010050500013M02606,EU_SEPA,,jane@new.example',
        'NEW-2,11.00,EUR,Jane Example,DE89370400440532013000,EU_SEPA,,jane@new.example',
        'NEW-3,12.00,EUR,Robert,DE89370400440532013000,EU_SEPA,,BOB@example.com',
      ),
      { journal: j },
    );
    expect(r.errors.map((e) => [e.rowNumber, e.column, e.code])).toEqual([[2, 'idPayout', 'ID_EXISTS']]);
    expect(r.warnings.map((w) => [w.rowNumber, w.column, w.code])).toEqual([
      [0, null, 'FILE_ALREADY_SUBMITTED'],
      [3, 'accountNumber', 'BANK_DETAILS_CHANGED'],
      [5, 'accountNumber', 'BANK_DETAILS_CHANGED'],
    ]);
    expect(r.warnings[1]?.message).toMatch(/^bank details changed: .*…3000 before, this row pays to …2606/);
    expect(r.counts).toEqual({ rows: 4, valid: 3, invalid: 1, warnings: 3 });
    expect(r.totals).toEqual([{ currencyCode: 'EUR', amountMinor: 3300, count: 3 }]);
    // Generated ids are not looked up; given ones are.
    expect(j.asked.ids).toEqual([['PAID-1', 'NEW-1', 'NEW-2', 'NEW-3']]);
  });
});

describe('limits and responsiveness', () => {
  const row = (i: number): string => `R-${i},${i + 1}.00,EUR,Name ${i},DE89370400440532013000,EU_SEPA,BANK_TRANSFER,n${i}@example.com`;

  it(`refuses more than ${MAX_CSV_ROWS} rows with a clear message`, async () => {
    const rows = Array.from({ length: MAX_CSV_ROWS + 1 }, (_, i) => row(i));
    await expect(importPayoutCsv(file(...rows))).rejects.toMatchObject({
      code: 'TOO_MANY_ROWS',
      rowNumber: MAX_CSV_ROWS + 2,
      message: expect.stringContaining('more than 100,000 payout rows') as unknown,
    });
  }, 30_000);

  it('refuses a file over 50 MB before reading it', async () => {
    await expect(importPayoutCsv(new Uint8Array(MAX_CSV_BYTES + 1))).rejects.toMatchObject({ code: 'FILE_TOO_LARGE' });
  });

  it('lets timers run while importing 100,000 rows (it yields to the event loop)', async () => {
    const bytes = file(...Array.from({ length: MAX_CSV_ROWS }, (_, i) => row(i)));
    let ticks = 0;
    const timer = setInterval(() => ticks++, 1);
    const result = await importPayoutCsv(bytes);
    clearInterval(timer);
    expect(result.counts.valid).toBe(MAX_CSV_ROWS);
    expect(result.warnings).toHaveLength(0);
    // Sum of 1.00 … 100000.00 in cents: 100 * n(n+1)/2.
    expect(result.totals).toEqual([{ currencyCode: 'EUR', amountMinor: 100 * ((MAX_CSV_ROWS * (MAX_CSV_ROWS + 1)) / 2), count: MAX_CSV_ROWS }]);
    // A blocking import would let the interval fire at most once; the importer yields after every 64K characters.
    expect(ticks).toBeGreaterThan(20);
  }, 30_000);
});

describe('file-level edge cases', () => {
  const HEAD = 'amount,currencyCode,accountName,accountNumber,paymentOperatorCode,emailAddress';
  const good = (i: number): string => `${i}.00,EUR,N${i},DE89370400440532013000,EU_SEPA,a${i}@example.com`;

  it('names the exact row of a malformed quote, also deep in a large file', async () => {
    for (const bad of [3, 4000]) {
      const lines = [HEAD];
      for (let row = 2; row <= 5000; row++) lines.push(row === bad ? `1.00,EUR,"Bad"x,DE89370400440532013000,EU_SEPA,x@example.com` : good(row));
      await expect(importPayoutCsv(enc(lines.join('\n')))).rejects.toMatchObject({ code: 'MALFORMED_QUOTE', rowNumber: bad });
    }
  });

  it('reads UTF-16 without a BOM, refuses a bad UTF-8 BOM file, spreadsheets and undefined Windows-1252 bytes', async () => {
    const bomless = new Uint8Array(Buffer.from(`${HEAD}\r\n${good(1)}\r\n`, 'utf16le'));
    const r = await importPayoutCsv(bomless);
    expect([r.encoding, r.counts.valid]).toEqual(['utf-16le', 1]);

    const badUtf8 = new Uint8Array([0xef, 0xbb, 0xbf, ...enc(`${HEAD}\n`), 0xc3, 0x28]);
    await expect(importPayoutCsv(badUtf8)).rejects.toMatchObject({ code: 'ENCODING' });
    const xlsx = new Uint8Array([0x50, 0x4b, 0x03, 0x04, 1, 2, 3]);
    await expect(importPayoutCsv(xlsx)).rejects.toMatchObject({ code: 'BINARY_FILE', message: expect.stringContaining('Excel workbook') as unknown });
    const undefined1252 = new Uint8Array([...enc(`${HEAD}\n1.00,EUR,A`), 0x81, ...enc(',DE89370400440532013000,EU_SEPA,a@example.com\n')]);
    await expect(importPayoutCsv(undefined1252)).rejects.toMatchObject({ code: 'BINARY_FILE' });
  });

  it('an IBAN written with spaces is sent in compact form; other account numbers are kept as written', async () => {
    const r = await importPayoutCsv(enc(`${HEAD}\n1.00,EUR,A,de89 3704 0044 0532 0130 00,EU_SEPA,a@example.com\n2.00,EUR,B,0012-3456 78,EU_SEPA,b@example.com\n`));
    expect(r.rows.map((row) => row.payout.accountNumber)).toEqual(['DE89370400440532013000', '0012-3456 78']);
  });

  it('only blank lines is an empty file; a blank-only data area has no rows', async () => {
    await expect(importPayoutCsv(enc('\r\n\r\n  \r\n'))).rejects.toMatchObject({ code: 'EMPTY_FILE' });
    await expect(importPayoutCsv(enc(`${HEAD}\n,,,,,\n\n`))).rejects.toMatchObject({ code: 'NO_ROWS' });
  });
});

describe('bank details changed, against a real journal', () => {
  it('warns when a known name or a known e-mail comes with another account, whatever the case and spacing', async () => {
    const t = tempJournal();
    try {
      t.journal.insertPayment('payout', payout('paid-1', { accountName: 'Jane Example', emailAddress: 'jane@example.com', accountNumber: 'DE89370400440532013000' }));
      const r = await importPayoutCsv(
        file(
          // Same person, new e-mail and new account: the invoice-fraud pattern.
          'N-1,10.00,EUR,jane example ,DE44500105175407324931,EU_SEPA,BANK_TRANSFER,jane@fraud.example',
          // Another name, the known e-mail, a new account.
          'N-2,11.00,EUR,J. Example,DE44500105175407324931,EU_SEPA,BANK_TRANSFER,JANE@example.com',
          // Same person, same account as before: nothing to say.
          'N-3,12.00,EUR,Jane Example,DE89 3704 0044 0532 0130 00,EU_SEPA,BANK_TRANSFER,jane@example.com',
        ),
        { journal: t.journal },
      );
      expect(r.errors).toEqual([]);
      expect(r.warnings.map((w) => [w.rowNumber, w.column, w.code])).toEqual([
        [2, 'accountNumber', 'BANK_DETAILS_CHANGED'],
        [3, 'accountNumber', 'BANK_DETAILS_CHANGED'],
      ]);
    } finally {
      t.dispose();
    }
  });

  it('knows a payee whatever the Unicode case or form of the name, and compares with every account used before', async () => {
    const t = tempJournal();
    try {
      // Élodie was paid to A, then to B; "Zoë" was written with a combining diaeresis (NFD).
      t.journal.insertPayment('payout', payout('paid-a', { accountName: 'Élodie Brontë', emailAddress: 'e1@example.com', accountNumber: 'DE89370400440532013000' }));
      t.journal.insertPayment('payout', payout('paid-b', { accountName: 'élodie brontë', emailAddress: 'e2@example.com', accountNumber: 'FR1420041010050500013M02606' }));
      t.journal.insertPayment('payout', payout('paid-z', { accountName: 'Zoe\u0308 Straße', emailAddress: 'z@example.com', accountNumber: 'GB82WEST12345698765432' }));
      const r = await importPayoutCsv(
        file(
          // Back to account A: paid there before, nothing changed.
          'U-1,10.00,EUR,ÉLODIE BRONTË,DE89370400440532013000,EU_SEPA,,e3@example.com',
          // Upper case, NFD written as NFC, "ß" as "SS", and a new account: changed.
          'U-2,11.00,EUR,ZO\u00cb STRASSE,DE44500105175407324931,EU_SEPA,,z2@example.com',
          // A third account for Élodie: changed, naming both earlier ones.
          'U-3,12.00,EUR,ÉLODIE  brontë,NL91ABNA0417164300,EU_SEPA,,e4@example.com',
        ),
        { journal: t.journal },
      );
      expect(r.errors).toEqual([]);
      expect(r.warnings.map((w) => [w.rowNumber, w.code])).toEqual([[3, 'BANK_DETAILS_CHANGED'], [4, 'BANK_DETAILS_CHANGED']]);
      expect(r.warnings[0]?.message).toMatch(/was paid to account …5432 before/);
      expect(r.warnings[1]?.message).toMatch(/was paid to account …3000, …2606 before/);
    } finally {
      t.dispose();
    }
  });

  it('one with an accent and one without are different names ("elodie" is not "élodie")', async () => {
    const t = tempJournal();
    try {
      t.journal.insertPayment('payout', payout('paid-1', { accountName: 'Élodie', emailAddress: 'a@example.com', accountNumber: 'DE89370400440532013000' }));
      const r = await importPayoutCsv(file('V-1,10.00,EUR,ÉLODIE,FR1420041010050500013M02606,EU_SEPA,,b@example.com', 'V-2,10.00,EUR,Elodie,NL91ABNA0417164300,EU_SEPA,,c@example.com'), { journal: t.journal });
      expect(r.warnings.map((w) => [w.rowNumber, w.code])).toEqual([[2, 'BANK_DETAILS_CHANGED']]);
    } finally {
      t.dispose();
    }
  });
});

describe('possible duplicates across history', () => {
  it('a row like a payout of the last 30 days (same account, amount, currency) is a warning naming it; older, other amounts and failed ones are not', async () => {
    const t = tempJournal();
    try {
      const day = 86_400_000;
      const now = Date.now();
      t.journal.createBatch({ id: 'B-OLD', fileName: 'last-week.csv', sha256: 'sha-last-week', rows: [payout('inv-1', { accountNumber: 'DE89370400440532013000', amountMinor: 1_250_000 })] });
      t.journal.insertPayment('payout', payout('inv-2', { accountNumber: 'FR1420041010050500013M02606', amountMinor: 99_00 }));
      const r = await importPayoutCsv(
        file(
          // last week's invoice in this week's run
          'D-1,12500.00,EUR,Jane Doe,DE89 3704 0044 0532 0130 00,EU_SEPA,,jane@example.com',
          // same account, another amount
          'D-2,12500.01,EUR,Jane Doe,DE89370400440532013000,EU_SEPA,,jane@example.com',
          // a single payout entered by hand
          'D-3,99.00,EUR,John Roe,FR1420041010050500013M02606,EU_SEPA,,john@example.com',
        ),
        { journal: t.journal },
      );
      expect(r.errors).toEqual([]);
      expect(r.warnings.filter((w) => w.code === 'POSSIBLE_DUPLICATE').map((w) => w.rowNumber)).toEqual([2, 4]);
      const first = r.warnings.find((w) => w.rowNumber === 2)!;
      expect(first.message).toMatch(new RegExp(`^possible duplicate of payout inv-1 of ${new Date(now).toISOString().slice(0, 10)} \\(file last-week\\.csv\\): the same amount in EUR to the same account …3000; paying it again pays twice`));
      expect(r.warnings.find((w) => w.rowNumber === 4)!.message).toMatch(/^possible duplicate of payout inv-2 of \d{4}-\d{2}-\d{2}: the same amount/);
      // Switched off, or looking back less far than the earlier payouts: nothing.
      const off = await importPayoutCsv(file('D-1,12500.00,EUR,Jane Doe,DE89370400440532013000,EU_SEPA,,jane@example.com'), { journal: t.journal, repeatWindowDays: 0 });
      expect(off.warnings.filter((w) => w.code === 'POSSIBLE_DUPLICATE')).toEqual([]);
      const lookup: CsvJournalLookup = { ...journal(), earliestLikePayouts: (_keys, since) => (since > now - 2 * day ? [] : [{ id: 'x', accountNumber: 'DE89370400440532013000', amountMinor: 1_250_000, currencyCode: 'EUR', createdAt: now - 3 * day, batchId: null, fileName: null, fileSha256: null }]) };
      const oneDay = await importPayoutCsv(file('D-1,12500.00,EUR,Jane Doe,DE89370400440532013000,EU_SEPA,,jane@example.com'), { journal: lookup, repeatWindowDays: 1 });
      expect(oneDay.warnings.filter((w) => w.code === 'POSSIBLE_DUPLICATE')).toEqual([]);
      const fiveDays = await importPayoutCsv(file('D-1,12500.00,EUR,Jane Doe,DE89370400440532013000,EU_SEPA,,jane@example.com'), { journal: lookup, repeatWindowDays: 5 });
      expect(fiveDays.warnings.filter((w) => w.code === 'POSSIBLE_DUPLICATE').map((w) => w.message)).toEqual([expect.stringContaining('payout x of')]);
    } finally {
      t.dispose();
    }
  });

  it('the same file again is one file warning, not a warning per row', async () => {
    const t = tempJournal();
    try {
      const bytes = file('S-3,10.00,EUR,Jane Doe,DE89370400440532013000,EU_SEPA,,jane@example.com', 'S-4,11.00,EUR,John Roe,FR1420041010050500013M02606,EU_SEPA,,john@example.com');
      const first = await importPayoutCsv(bytes, { journal: t.journal });
      t.journal.createBatch({ id: 'B-S', fileName: 'same.csv', sha256: first.sha256, rows: [payout('S-1', { accountNumber: 'DE89370400440532013000', amountMinor: 1_000 }), payout('S-2', { accountNumber: 'FR1420041010050500013M02606', amountMinor: 1_100 })] });
      const again = await importPayoutCsv(bytes, { journal: t.journal });
      expect(again.warnings.map((w) => w.code)).toEqual(['FILE_ALREADY_SUBMITTED']);
    } finally {
      t.dispose();
    }
  });
});
