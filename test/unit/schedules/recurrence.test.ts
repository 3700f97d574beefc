// Recurring payouts' rules: the dates a series falls on (month ends, the last business day, weekly), how it ends, and
// when each occurrence releases in its zone (daylight-saving nights included).
import { describe, expect, it } from 'vitest';
import {
  checkRecurrence, describeRule, isOccurrence, nextDate, occurrenceDates, parseRule, RecurrenceError, releaseOf, ruleText, type Recurrence,
} from '../../../main/schedules/recurrence';

const iso = (ms: number) => new Date(ms).toISOString();
const series = (rule: string, start: string, end: Recurrence['end'] = null) => ({ rule: parseRule(rule), start, end });

describe('a recurrence rule as a person types it', () => {
  it('reads the three kinds and writes them back the same', () => {
    for (const text of ['monthly 25', 'monthly last-business-day', 'weekly fri']) expect(ruleText(parseRule(text))).toBe(text);
    expect(parseRule('  Monthly  25th ')).toEqual({ kind: 'monthly-day', day: 25 });
    expect(parseRule('weekly Friday')).toEqual({ kind: 'weekly', weekday: 'fri' });
  });

  it('refuses what is not one of them, saying what to write', () => {
    expect(() => parseRule('monthly 32')).toThrow(/not a day of the month/);
    expect(() => parseRule('monthly 0')).toThrow(RecurrenceError);
    expect(() => parseRule('weekly fr')).toThrow(/not a weekday/);
    expect(() => parseRule('daily')).toThrow(/write "monthly 25"/);
    expect(() => parseRule('FREQ=MONTHLY;BYMONTHDAY=25')).toThrow(RecurrenceError);
  });

  it('describes each in a sentence, saying what a day past 28 does in a short month', () => {
    expect(describeRule(parseRule('monthly 31'))).toBe("monthly on the 31st (the month's last day when shorter)");
    expect(describeRule(parseRule('monthly 22'))).toBe('monthly on the 22nd');
    expect(describeRule(parseRule('monthly 11'))).toBe('monthly on the 11th');
    expect(describeRule(parseRule('monthly last-business-day'))).toBe('monthly on the last business day (Mon–Fri)');
    expect(describeRule(parseRule('weekly mon'))).toBe('every Monday');
  });
});

describe('the dates of a series', () => {
  it('pays "the 31st" on the last day of a shorter month, February of a leap year included', () => {
    expect(occurrenceDates(series('monthly 31', '2027-01-01'), '2027-01-01', '2027-05-31')).toEqual(['2027-01-31', '2027-02-28', '2027-03-31', '2027-04-30', '2027-05-31']);
    expect(occurrenceDates(series('monthly 30', '2028-01-01'), '2028-02-01', '2028-03-31')).toEqual(['2028-02-29', '2028-03-30']);
  });

  it('pays on the last Monday to Friday of the month, stepping back over a weekend', () => {
    // May 2027 ends on a Monday, January 2027 on a Sunday, July 2027 on a Saturday, February 2027 on a Sunday.
    expect(occurrenceDates(series('monthly last-business-day', '2027-01-01'), '2027-01-01', '2027-07-31')).toEqual([
      '2027-01-29', '2027-02-26', '2027-03-31', '2027-04-30', '2027-05-31', '2027-06-30', '2027-07-30',
    ]);
  });

  it('starts at the first date on or after its start, this month or the next', () => {
    expect(occurrenceDates(series('monthly 25', '2027-03-25'), '2027-01-01', '2027-04-30')).toEqual(['2027-03-25', '2027-04-25']);
    expect(occurrenceDates(series('monthly 25', '2027-03-26'), '2027-01-01', '2027-04-30')).toEqual(['2027-04-25']);
    // 2027-03-03 is a Wednesday.
    expect(occurrenceDates(series('weekly fri', '2027-03-03'), '2027-03-01', '2027-03-20')).toEqual(['2027-03-05', '2027-03-12', '2027-03-19']);
    expect(occurrenceDates(series('weekly wed', '2027-03-03'), '2027-03-01', '2027-03-10')).toEqual(['2027-03-03', '2027-03-10']);
  });

  it('ends after a number of payments or on a last date, and says there is no next one', () => {
    const three = series('monthly 1', '2027-01-01', { count: 3 });
    expect(occurrenceDates(three, '2027-01-01', '2028-01-01')).toEqual(['2027-01-01', '2027-02-01', '2027-03-01']);
    expect(nextDate(three, '2027-03-02')).toBeNull();
    // Counted from the start, not from the window asked about.
    expect(occurrenceDates(three, '2027-02-15', '2028-01-01')).toEqual(['2027-03-01']);
    const until = series('weekly mon', '2027-03-01', { until: '2027-03-15' });
    expect(occurrenceDates(until, '2027-01-01', '2027-12-31')).toEqual(['2027-03-01', '2027-03-08', '2027-03-15']);
    expect(nextDate(until, '2027-03-09')).toBe('2027-03-15');
    expect(nextDate(until, '2027-03-16')).toBeNull();
  });

  it('tells a date of the series from one that is not', () => {
    const s = series('monthly 31', '2027-01-01');
    expect(isOccurrence(s, '2027-02-28')).toBe(true);
    expect(isOccurrence(s, '2027-03-30')).toBe(false);
    expect(isOccurrence(s, '2026-12-31')).toBe(false);
  });

  it('refuses an end before the start, no payments, a bad time of day or an unknown zone', () => {
    const base: Recurrence = { rule: parseRule('monthly 1'), start: '2027-01-01', end: null, timeOfDay: '08:00', zone: 'Europe/Berlin' };
    expect(() => checkRecurrence(base)).not.toThrow();
    expect(() => checkRecurrence({ ...base, end: { until: '2026-12-31' } })).toThrow(/before the start/);
    expect(() => checkRecurrence({ ...base, end: { count: 0 } })).toThrow(/1 or more/);
    expect(() => checkRecurrence({ ...base, timeOfDay: '24:00' })).toThrow(/not a time of day/);
    expect(() => checkRecurrence({ ...base, zone: 'Mars/Olympus' })).toThrow(/not a time zone/);
    expect(() => checkRecurrence({ ...base, start: '2027-02-30' })).toThrow(/not a date/);
  });
});

describe('when an occurrence releases', () => {
  it('is its time of day in its zone, summer and winter', () => {
    const rent = { timeOfDay: '08:00', zone: 'Europe/Berlin' };
    expect(releaseOf(rent, '2027-01-25')).toEqual({ at: Date.parse('2027-01-25T07:00:00Z'), zone: 'Europe/Berlin', local: '2027-01-25T08:00' });
    expect(iso(releaseOf(rent, '2027-07-25').at)).toBe('2027-07-25T06:00:00.000Z');
  });

  it('moves a time the clocks skip to the first minute that exists, and takes the first of a time shown twice', () => {
    // Berlin goes from 02:00 to 03:00 on 2027-03-28; New York from 02:00 to 03:00 on 2027-03-14.
    expect(releaseOf({ timeOfDay: '02:30', zone: 'Europe/Berlin' }, '2027-03-28')).toEqual({ at: Date.parse('2027-03-28T01:00:00Z'), zone: 'Europe/Berlin', local: '2027-03-28T03:00' });
    expect(releaseOf({ timeOfDay: '02:00', zone: 'America/New_York' }, '2027-03-14').local).toBe('2027-03-14T03:00');
    // Berlin passes 02:30 twice on 2026-10-25: the first is 00:30 UTC.
    expect(iso(releaseOf({ timeOfDay: '02:30', zone: 'Europe/Berlin' }, '2026-10-25').at)).toBe('2026-10-25T00:30:00.000Z');
    // The day after, the same wall time is an hour later in UTC terms than the day before.
    expect(iso(releaseOf({ timeOfDay: '02:30', zone: 'Europe/Berlin' }, '2026-10-26').at)).toBe('2026-10-26T01:30:00.000Z');
  });
});
