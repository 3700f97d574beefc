import { describe, expect, it } from 'vitest';
import { customPeriod, dayText, presetPeriod } from './statement-period';

describe('statement periods', () => {
  it('this month and last month run from local midnight of the 1st to local midnight of the next 1st', () => {
    const now = new Date(2025, 0, 15, 13, 30);
    expect(presetPeriod('this-month', now)).toEqual({ from: new Date(2025, 0, 1).toISOString(), to: new Date(2025, 1, 1).toISOString() });
    // January's last month is December of the year before.
    expect(presetPeriod('last-month', now)).toEqual({ from: new Date(2024, 11, 1).toISOString(), to: new Date(2025, 0, 1).toISOString() });
  });

  it('a custom period ends at the midnight after its last day', () => {
    expect(customPeriod('2025-03-01', '2025-03-31')).toEqual({ from: new Date(2025, 2, 1).toISOString(), to: new Date(2025, 3, 1).toISOString() });
    expect(customPeriod('2025-03-05', '2025-03-05')).toEqual({ from: new Date(2025, 2, 5).toISOString(), to: new Date(2025, 2, 6).toISOString() });
  });

  it('refuses a missing, impossible or reversed pair of days', () => {
    expect(customPeriod('', '2025-03-31')).toHaveProperty('problem');
    expect(customPeriod('2025-02-31', '2025-03-31')).toHaveProperty('problem');
    expect(customPeriod('2025-03-31', '2025-03-01')).toHaveProperty('problem');
  });

  it('writes a local day as a date field holds it', () => {
    expect(dayText(new Date(2025, 8, 7, 23, 59))).toBe('2025-09-07');
  });
});
