// `payout-desk statement`: which period the options mean (local days, a month, this month by default), refusals
// that say what to type, and the statement as lines: each currency's reconciliation from opening to closing.
import { describe, expect, it } from 'vitest';
import { inTimeZone } from '../support/time-zone';
import { periodOf, statementLines } from '../../../main/cli/statement';
import type { StatementCurrency, StatementView } from '../../../contract/api';

inTimeZone('Europe/Berlin');

const eur = (amount: string) => ({ amount, currencyCode: 'EUR' });

describe('the statement command', () => {
  it('turns --month, --from/--to (last day included) and no option into local midnights', () => {
    const month = periodOf({ month: { from: new Date(2026, 9, 1), to: new Date(2026, 10, 1) } });
    // October in Berlin: from CEST to CET, a 31-day month of 745 hours.
    expect([month.from.toISOString(), month.to.toISOString()]).toEqual(['2026-09-30T22:00:00.000Z', '2026-10-31T23:00:00.000Z']);
    const days = periodOf({ from: new Date(2026, 10, 3), to: new Date(2026, 10, 3) });
    expect([days.from.toISOString(), days.to.toISOString()]).toEqual(['2026-11-02T23:00:00.000Z', '2026-11-03T23:00:00.000Z']);
    const thisMonth = periodOf({}, new Date(2026, 10, 27, 15));
    expect([thisMonth.from.toISOString(), thisMonth.to.toISOString()]).toEqual(['2026-10-31T23:00:00.000Z', '2026-11-30T23:00:00.000Z']);
  });

  it('refuses options that do not make one period, saying what to give', () => {
    const nov = { from: new Date(2026, 10, 1), to: new Date(2026, 11, 1) };
    expect(() => periodOf({ month: nov, from: new Date(2026, 10, 1) })).toThrow('Give either --month or --from and --to, not both');
    expect(() => periodOf({ from: new Date(2026, 10, 1) })).toThrow('Give both --from and --to');
    expect(() => periodOf({ from: new Date(2026, 10, 5), to: new Date(2026, 10, 4) })).toThrow('--from must be on or before --to');
  });

  it('prints each currency from opening to closing, signed, with the notes, and whether it reconciles', () => {
    const currency: StatementCurrency = {
      currencyCode: 'EUR',
      opening: { available: eur('1000.00'), reserved: eur('50.50'), total: eur('1050.50'), observedAt: '2026-10-31T12:00:00.000Z', source: 'read' },
      closing: { available: eur('1075.79'), reserved: eur('40.40'), total: eur('1116.19'), observedAt: '2026-11-27T14:00:00.000Z', source: 'gateway' },
      paid: { count: 2, amount: eur('150.00') },
      fees: eur('1.50'),
      failed: { count: 1, amount: eur('30.00') },
      returned: { count: 1, amount: eur('20.00') },
      payins: { count: 1, amount: eur('200.00') },
      expectedClosing: eur('1103.85'),
      difference: eur('12.34'),
      reconciled: false,
      lines: [
        { kind: 'beforePeriod', amount: eur('-10.10'), text: 'Processed between the opening read and the start of the period' },
        { kind: 'inFlight', amount: null, text: '1 payout was accepted and not yet processed at the closing read' },
        { kind: 'unexplained', amount: eur('12.34'), text: 'Not explained by this desk\'s payments' },
      ],
    };
    const view: StatementView = { from: '2026-10-31T23:00:00.000Z', to: '2026-11-30T23:00:00.000Z', generatedAt: '2026-11-27T14:00:00.000Z', currencies: [currency], issued: null };
    const text = statementLines(view, { from: new Date(2026, 10, 1), to: new Date(2026, 11, 1) }).join('\n');
    expect(text).toContain('Statement 2026-11-01 to 2026-11-30 (local days: 2026-10-31T23:00:00.000Z to 2026-11-30T23:00:00.000Z)');
    expect(text).toContain("processedAt");
    expect(text).toContain('EUR  does not reconcile: 12.34 unexplained');
    expect(text).toMatch(/Opening balance \(read 2026-10-31T12:00:00\.000Z\)\s+1050\.50\s+available 1000\.00, reserved 50\.50/);
    expect(text).toMatch(/- Payouts paid \(2\)\s+-150\.00/);
    expect(text).toMatch(/- Fees\s+-1\.50/);
    expect(text).toMatch(/\+ Returned \(1\)\s+20\.00/);
    expect(text).toMatch(/Processed between the opening read and the start of the period\s+-10\.10/);
    expect(text).toMatch(/= Expected closing\s+1103\.85/);
    expect(text).toMatch(/Closing balance \(read from the gateway now\)\s+1116\.19/);
    expect(text).toContain('Failed: 1 payout, 30.00 (no fee, nothing left the balance)');
    expect(text).toContain("  - Not explained by this desk's payments");
    const reconciled = statementLines({ ...view, currencies: [{ ...currency, reconciled: true, difference: eur('0.00'), lines: [] }] }, { from: new Date(2026, 10, 1), to: new Date(2026, 11, 1) });
    expect(reconciled).toContain('EUR  reconciles');
    expect(reconciled.join('\n')).not.toContain('Notes:');
    expect(statementLines({ ...view, currencies: [] }, { from: new Date(2026, 10, 1), to: new Date(2026, 11, 1) }).at(-1)).toMatch(/^No balance read and no payment processed in this period/);
  });

  it('says whether the period was issued and, when a figure moved since, which one from what to what', () => {
    const nov = { from: new Date(2026, 10, 1), to: new Date(2026, 11, 1) };
    const base: StatementView = { from: '2026-10-31T23:00:00.000Z', to: '2026-11-30T23:00:00.000Z', generatedAt: '2026-12-02T09:00:00.000Z', currencies: [], issued: null };
    const issued = { issuedAt: '2026-12-01T08:00:00.000Z', issuedBy: 'ada', digest: 'ab'.repeat(32), intact: true, changes: [] };
    expect(statementLines(base, nov).join('\n')).not.toContain('Issued');
    expect(statementLines({ ...base, issued }, nov)).toContain(`Issued 2026-12-01T08:00:00.000Z by ada, SHA-256 ${'ab'.repeat(32)}: unchanged since issued`);
    const changed = statementLines({ ...base, issued: { ...issued, changes: [{ figure: 'EUR payouts paid amount', issued: '150.00', now: '175.00' }] } }, nov).join('\n');
    expect(changed).toContain('CHANGED SINCE ISSUED (1 figure)');
    expect(changed).toMatch(/EUR payouts paid amount\s+issued 150\.00\s+now 175\.00/);
    expect(statementLines({ ...base, issued: { ...issued, intact: false } }, nov).join('\n')).toContain('NO LONGER MATCHES ITS DIGEST');
  });
});
