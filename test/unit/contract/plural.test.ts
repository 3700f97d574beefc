import { describe, expect, it } from 'vitest';
import { plural } from '../../../contract/plural';

describe('counts read as a person writes them', () => {
  it('one takes the singular; zero and many the plural', () => {
    expect([plural(0, 'payout'), plural(1, 'payout'), plural(2, 'failed row'), plural(1, 'person', 'people'), plural(3, 'person', 'people')])
      .toEqual(['0 payouts', '1 payout', '2 failed rows', '1 person', '3 people']);
  });
  it('writes the number with the given format (the screens use the reader locale)', () => {
    expect(plural(1200, 'row')).toBe('1,200 rows');
    expect(plural(1200, 'row', undefined, (n) => n.toLocaleString('de-DE'))).toBe('1.200 rows');
  });
});
