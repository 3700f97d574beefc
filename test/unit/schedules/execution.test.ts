// Release times as a person or an ERP gives them: a wall time in a named zone, daylight-saving nights included.
import { describe, expect, it } from 'vitest';
import { describeExecution, ExecutionError, executionOf, lateText, localDate } from '../../../main/schedules/execution';
import { fundingForecast } from '../../../main/schedules/forecast';

const iso = (ms: number) => new Date(ms).toISOString();

describe('a release time in a named zone', () => {
  it('is the instant of that wall time in that zone, summer and winter', () => {
    expect(iso(executionOf('2026-07-01T09:00', 'Europe/Berlin').at)).toBe('2026-07-01T07:00:00.000Z');
    expect(iso(executionOf('2026-12-01T09:00', 'Europe/Berlin').at)).toBe('2026-12-01T08:00:00.000Z');
    expect(iso(executionOf('2026-12-01 09:00', 'America/New_York').at)).toBe('2026-12-01T14:00:00.000Z');
  });

  it('releases a date alone at 08:00 of that day', () => {
    expect(executionOf('2026-12-24', 'Europe/Berlin')).toEqual({ at: Date.parse('2026-12-24T07:00:00Z'), zone: 'Europe/Berlin', local: '2026-12-24T08:00' });
  });

  it('refuses a wall time the clocks skip on a spring-forward night, naming the first valid time', () => {
    expect(() => executionOf('2027-03-28T02:30', 'Europe/Berlin')).toThrow(/2027-03-28 02:30 does not exist in Europe\/Berlin.*choose 03:00 or later/);
    expect(() => executionOf('2027-03-14T02:00', 'America/New_York')).toThrow(ExecutionError);
    // The hour after the gap exists, and is 01:00 UTC.
    expect(iso(executionOf('2027-03-28T03:00', 'Europe/Berlin').at)).toBe('2027-03-28T01:00:00.000Z');
  });

  it('takes the first of a wall time the clocks pass twice, and says so', () => {
    const e = executionOf('2026-10-25T02:30', 'Europe/Berlin');
    // 02:30 CEST (UTC+2) comes before 02:30 CET (UTC+1).
    expect(iso(e.at)).toBe('2026-10-25T00:30:00.000Z');
    expect(describeExecution(e)).toBe('2026-10-25 02:30 Europe/Berlin (the first 02:30, before the clocks go back)');
    expect(describeExecution(executionOf('2026-10-26T02:30', 'Europe/Berlin'))).toBe('2026-10-26 02:30 Europe/Berlin');
  });

  it('refuses an unknown zone and what is not a date', () => {
    expect(() => executionOf('2026-12-24', 'Europe/Nowhere')).toThrow(/"Europe\/Nowhere" is not a time zone name/);
    expect(() => executionOf('24/12/2026', 'UTC')).toThrow(/not a date and time/);
    expect(() => executionOf('2026-02-30', 'UTC')).toThrow(/not a date and time that exists/);
    expect(() => executionOf('2026-12-24T25:00', 'UTC')).toThrow(ExecutionError);
  });

  it('puts an instant on its day in a zone, and says lateness for a person', () => {
    expect(localDate(Date.parse('2026-12-31T23:30:00Z'), 'Europe/Berlin')).toBe('2027-01-01');
    expect(localDate(Date.parse('2026-12-31T23:30:00Z'), 'America/New_York')).toBe('2026-12-31');
    expect([45_000, 5 * 60_000, 125 * 60_000, 3 * 3_600_000, 76 * 3_600_000].map(lateText)).toEqual(['45 s', '5 min', '2 h 5 min', '3 h', '3 days 4 h']);
  });
});

describe('the funding forecast', () => {
  const day = (at: number) => localDate(at, 'Europe/Berlin');
  const t = (isoTime: string, currencyCode: string, amountMinor: number, count = 1) => ({ at: Date.parse(isoTime), currencyCode, amountMinor, count });

  it('sums what is due per currency and day, runs a total, and says by how much a day is short', () => {
    const lines = fundingForecast(
      [t('2026-12-28T08:00:00Z', 'EUR', 1_500_000, 3), t('2026-12-24T08:00:00Z', 'EUR', 700_000), t('2026-12-24T09:00:00Z', 'EUR', 300_000), t('2026-12-24T08:00:00Z', 'USD', 50_000)],
      new Map([['EUR', 1_300_000]]),
      day,
    );
    expect(lines).toEqual([
      { date: '2026-12-24', currencyCode: 'EUR', dueMinor: 1_000_000, count: 2, cumulativeMinor: 1_000_000, availableMinor: 1_300_000, shortByMinor: 0 },
      // No balance known for USD: nothing can be said short.
      { date: '2026-12-24', currencyCode: 'USD', dueMinor: 50_000, count: 1, cumulativeMinor: 50_000, availableMinor: null, shortByMinor: 0 },
      { date: '2026-12-28', currencyCode: 'EUR', dueMinor: 1_500_000, count: 3, cumulativeMinor: 2_500_000, availableMinor: 1_300_000, shortByMinor: 1_200_000 },
    ]);
  });

  it('counts a release on the day of the profile zone, not of UTC', () => {
    const [line] = fundingForecast([t('2026-12-27T23:30:00Z', 'EUR', 100)], new Map(), day);
    expect(line?.date).toBe('2026-12-28');
  });
});
