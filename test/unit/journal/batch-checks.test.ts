// What either journal refuses of a new batch, and the totals it keeps (journal/shared.ts): the words a person
// reads when an import is refused name the payout ids at fault, a few of them, and the totals are exact per
// currency in a fixed order.
import { describe, expect, it } from 'vitest';
import { checkedBatch, JournalError, totalsOf } from '../../../main/journal/shared';
import { payout } from './helpers';

describe('a new batch', () => {
  it('with no rows is refused, saying so', () => {
    expect(() => checkedBatch({ fileName: 'x.csv', sha256: 'h', rows: [] })).toThrow(expect.objectContaining({ code: 'EMPTY_BATCH', message: 'a batch needs at least one payout', ids: [] }));
  });

  it('repeating payout ids is refused naming the first five repeats, each once per repeat', () => {
    const ids = ['a', 'b', 'a', 'c', 'b', 'd', 'e', 'c', 'f', 'd', 'e', 'f', 'g', 'g'];
    let refusal: unknown;
    try {
      checkedBatch({ fileName: 'x.csv', sha256: 'h', rows: ids.map((id) => payout(id)) });
    } catch (e) {
      refusal = e;
    }
    expect(refusal).toBeInstanceOf(JournalError);
    expect(refusal).toMatchObject({ code: 'DUPLICATE_ID', message: 'the batch repeats payout ids: a, b, c, d, e', ids: ['a', 'b', 'c', 'd', 'e', 'f', 'g'] });
  });

  it('is its ids in order and its totals per currency, by currency code, in exact minor units', () => {
    const rows = [payout('1', { currencyCode: 'USD', amountMinor: 10 }), payout('2', { amountMinor: 12_550 }), payout('3', { currencyCode: 'USD', amountMinor: 5 }), payout('4', { currencyCode: 'CHF', amountMinor: 1 })];
    expect(checkedBatch({ fileName: 'x.csv', sha256: 'h', rows })).toEqual({
      ids: ['1', '2', '3', '4'],
      totals: [
        { currencyCode: 'CHF', amountMinor: 1, count: 1 },
        { currencyCode: 'EUR', amountMinor: 12_550, count: 1 },
        { currencyCode: 'USD', amountMinor: 15, count: 2 },
      ],
    });
    expect(totalsOf([])).toEqual([]);
  });
});
