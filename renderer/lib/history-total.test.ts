import { describe, expect, it } from 'vitest';
import { appliedSearch, nextTotal } from './history-total';

describe('the History table total', () => {
  const capped = (total: number) => ({ total, capped: true });
  const exact = (total: number) => ({ total, capped: false });

  it('grows with a deeper page counted further, and is not shrunk by a refresh of a shallower one', () => {
    expect(nextTotal(capped(10_100), capped(20_100), false)).toEqual(capped(20_100));
    expect(nextTotal(capped(20_100), capped(10_100), false)).toEqual(capped(20_100));
  });

  it('takes an exact count, and any count of new filters, as it is', () => {
    expect(nextTotal(capped(20_100), exact(15_321), false)).toEqual(exact(15_321));
    expect(nextTotal(capped(20_100), capped(10_100), true)).toEqual(capped(10_100));
    expect(nextTotal(exact(40), exact(38), false)).toEqual(exact(38));
  });
});

describe('the History search', () => {
  it('searches from 3 characters, trimmed; shorter asks no search', () => {
    expect(appliedSearch('  Ada ')).toBe('Ada');
    expect(appliedSearch('77')).toBeUndefined();
    expect(appliedSearch(' a  ')).toBeUndefined();
    expect(appliedSearch('')).toBeUndefined();
    expect(appliedSearch(null)).toBeUndefined();
  });
});
