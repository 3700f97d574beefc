import { describe, expect, it } from 'vitest';
import type { Money, StatementCurrency } from '../../contract/api';
import { splitSign, statementRows } from './statement-rows';

const eur = (amount: string): Money => ({ amount, currencyCode: 'EUR' });
const tally = (count: number, amount: string) => ({ count, amount: eur(amount) });
const balance = (total: string) => ({ available: eur(total), reserved: eur('0.00'), total: eur(total), observedAt: '2025-06-01T00:00:00.000Z', source: 'read' as const });

function statement(over: Partial<StatementCurrency> = {}): StatementCurrency {
  return {
    currencyCode: 'EUR',
    opening: balance('100.00'),
    closing: balance('80.00'),
    paid: tally(1, '10.00'),
    fees: eur('0.30'),
    failed: tally(1, '40.00'),
    returned: tally(0, '0.00'),
    payins: tally(0, '0.00'),
    expectedClosing: eur('89.70'),
    difference: eur('-9.70'),
    reconciled: false,
    lines: [],
    ...over,
  };
}

describe('the reconciliation rows', () => {
  it('split a sign off the string, never through a number', () => {
    expect(splitSign('-12.30')).toEqual({ op: '−', magnitude: '12.30' });
    expect(splitSign('4.00')).toEqual({ op: '+', magnitude: '4.00' });
    expect(splitSign('0.1000000000000000055511151231257827')).toEqual({ op: '+', magnitude: '0.1000000000000000055511151231257827' });
  });

  it('read from the opening total down to the difference, with the lines that carry an amount in the sum', () => {
    const rows = statementRows(
      statement({
        lines: [
          { kind: 'beforePeriod', amount: eur('-5.00'), text: 'Processed before the period' },
          { kind: 'firstRead', amount: null, text: 'A remark' },
          { kind: 'unexplained', amount: eur('-9.70'), text: 'Not explained by this desk' },
        ],
      }),
    );
    expect(rows.map((r) => [r.key, r.op, r.amount])).toEqual([
      ['opening', '', '100.00'],
      ['paid', '−', '10.00'],
      ['fees', '−', '0.30'],
      ['returned', '+', '0.00'],
      ['payins', '+', '0.00'],
      ['line-0', '−', '5.00'],
      ['expected', '=', '89.70'],
      ['closing', '', '80.00'],
      ['difference', '', '-9.70'],
    ]);
    // The unexplained line is the difference: it explains that row and is not added into the expected total.
    expect(rows.at(-1)?.hint).toBe('Not explained by this desk');
  });

  it('show a missing balance as no amount', () => {
    const rows = statementRows(statement({ opening: null, expectedClosing: null, difference: null }));
    expect(rows.find((r) => r.key === 'opening')?.amount).toBeNull();
    expect(rows.find((r) => r.key === 'expected')?.amount).toBeNull();
    expect(rows.find((r) => r.key === 'difference')?.hint).toBe('no balance to compare with');
  });
});
