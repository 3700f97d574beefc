// An accounting export's lines and files from a month of movements: every movement balanced (a debit and a credit
// of the same amount), the accounts of the mapping, Xero's and QuickBooks' layouts and dates, exact amounts in a
// three-decimal currency, a failed payout posting nothing, and text cells still guarded against formulas.
import { describe, expect, it } from 'vitest';
import { accountingFile, accountingRowCount, GENERIC_COLUMNS, QUICKBOOKS_COLUMNS, XERO_COLUMNS } from '../../../main/accounting/files';
import { journalLines } from '../../../main/accounting/journal-lines';
import { accountsFrom, DEFAULT_ACCOUNTS } from '../../../main/accounting/accounts';
import { movementsOf } from '../../../main/statements/movements';
import { decimalsOf, november, payin, payout } from '../statements/fixtures';
import { inTimeZone } from '../support/time-zone';

const accounts = { clearing: '1010', payouts: '6000', fees: '6100', returns: '6050', payins: '4000', taxRate: 'Tax Exempt' };
const movements = movementsOf(november).movements;
const rowsOf = (csv: string) => csv.trim().split('\r\n').map((r) => r.split(','));
const cents = (text: string) => BigInt(text.replace('.', ''));

// Days are local: the files' dates below are those of UTC.
inTimeZone('UTC');

describe('journal lines', () => {
  it('turns each movement into a debit and a credit of its amount between the clearing account and its own, and a failure into nothing', () => {
    const lines = journalLines(movements, accounts, decimalsOf);
    const failed = movements.filter((m) => m.kind === 'failed').map((m) => m.movementId);
    expect(failed.length).toBeGreaterThan(0);
    expect(lines.some((l) => failed.includes(l.movementId))).toBe(false);
    for (const m of movements.filter((x) => x.kind !== 'failed')) {
      const [dr, cr] = [lines.find((l) => l.lineId === `${m.movementId}:dr`)!, lines.find((l) => l.lineId === `${m.movementId}:cr`)!];
      expect(dr.debit).toBe(cr.credit);
      expect(cents(dr.debit)).toBe(BigInt(m.amountMinor));
      const expected = { paid: ['6000', '1010'], fee: ['6100', '1010'], returned: ['1010', '6050'], payin: ['1010', '4000'] }[m.kind as 'paid'];
      expect([dr.account, cr.account]).toEqual(expected);
    }
  });

  it('keeps a line id stable from one read of the journal to the next', () => {
    const again = journalLines(movementsOf([...november].reverse()).movements, accounts, decimalsOf).map((l) => l.lineId).sort();
    expect(journalLines(movements, accounts, decimalsOf).map((l) => l.lineId).sort()).toEqual(again);
  });
});

describe('accounting files', () => {
  const exportId = 'AX-test-0a1b2c';

  it('writes the generic file with one row per line and the export id', () => {
    const rows = rowsOf(accountingFile({ format: 'generic', movements, accounts, decimalsOf, exportId }));
    expect(rows[0]).toEqual([...GENERIC_COLUMNS]);
    expect(rows.length - 1).toBe(accountingRowCount({ format: 'generic', movements, accounts, decimalsOf }));
    expect(new Set(rows.slice(1).map((r) => r[10]))).toEqual(new Set([exportId]));
  });

  it("writes Xero's manual journal: one balanced journal a day, dd/mm/yyyy, positive debits and negative credits that stay numbers", () => {
      const rows = rowsOf(accountingFile({ format: 'xero', movements, accounts, decimalsOf, exportId }));
      expect(rows[0]).toEqual([...XERO_COLUMNS]);
      const body = rows.slice(1);
      expect(body.every((r) => /^\d{2}\/\d{2}\/2026$/.test(r[1]!) && r[4] === 'Tax Exempt' && /^-?\d+\.\d{2}$/.test(r[5]!))).toBe(true);
      const byJournal = new Map<string, bigint>();
      for (const r of body) byJournal.set(`${r[0]}|${r[1]}`, (byJournal.get(`${r[0]}|${r[1]}`) ?? 0n) + cents(r[5]!));
      expect([...byJournal.values()].every((sum) => sum === 0n)).toBe(true);
      // November 10th's payout of 100.00 and its fee of 1.00.
      expect(body.filter((r) => r[1] === '10/11/2026').map((r) => [r[3], r[5]])).toEqual([['6000', '100.00'], ['1010', '-100.00'], ['6100', '1.00'], ['1010', '-1.00']]);
  });

  it('writes QuickBooks journal entries with MM/DD/YYYY dates, debits and credits in their own columns and short journal numbers', () => {
      const rows = rowsOf(accountingFile({ format: 'quickbooks', movements, accounts, decimalsOf, exportId }));
      expect(rows[0]).toEqual([...QUICKBOOKS_COLUMNS]);
      const day = rows.slice(1).filter((r) => r[1] === '11/10/2026');
      expect(day.map((r) => [r[0], r[2], r[3], r[4]])).toEqual([
        ['PD20261110EUR-0a1b2c', '6000', '100.00', ''],
        ['PD20261110EUR-0a1b2c', '1010', '', '100.00'],
        ['PD20261110EUR-0a1b2c', '6100', '1.00', ''],
        ['PD20261110EUR-0a1b2c', '1010', '', '1.00'],
      ]);
      expect(rows.slice(1).every((r) => r[0]!.length <= 21)).toBe(true);
  });

  it('keeps three decimals of KWD exact and refuses two currencies in one Xero or QuickBooks journal', () => {
    const kwd = movementsOf([payout('k1', 1_234_567, 'SUCCESS', '2026-11-02T10:00:00.000Z', { currencyCode: 'KWD', feeCurrencyCode: 'KWD', feeMinor: 1 })]).movements;
    const rows = rowsOf(accountingFile({ format: 'xero', movements: kwd, accounts, decimalsOf, exportId }));
    expect(rows.slice(1).map((r) => r[5])).toEqual(['1234.567', '-1234.567', '0.001', '-0.001']);
    const both = movementsOf([...november, payin('kw-in', 5_000, '2026-11-03T10:00:00.000Z')].map((p) => (p.id === 'kw-in' ? { ...p, currencyCode: 'KWD' } : p))).movements;
    expect(() => accountingFile({ format: 'quickbooks', movements: both, accounts, decimalsOf, exportId })).toThrow(/one currency.*EUR, KWD|one currency.*KWD, EUR/);
  });

  it('guards an account name that a spreadsheet would run as a formula, but not an amount', () => {
    const rows = rowsOf(accountingFile({ format: 'xero', movements, accounts: { ...accounts, payouts: '=1+2' }, decimalsOf, exportId }));
    expect(rows.slice(1).some((r) => r[3]!.startsWith("'="))).toBe(true);
    expect(rows.slice(1).some((r) => r[5]!.startsWith('-'))).toBe(true);
  });
});

describe('accounts', () => {
  it('falls back to the defaults for nothing stored and for a field a stored set lacks or garbles', () => {
    expect(accountsFrom(null)).toEqual(DEFAULT_ACCOUNTS);
    expect(accountsFrom(JSON.stringify({ clearing: '1010', fees: 7 }))).toEqual({ ...DEFAULT_ACCOUNTS, clearing: '1010' });
    expect(accountsFrom('not json')).toEqual(DEFAULT_ACCOUNTS);
  });
});
