// The release time a batch file asks for (schedules/file-dates.ts): a CSV execute_on column or a pain.001
// ReqdExctnDt, read in the profile's zone; one time for the whole batch, a passed one sent at once.
import { describe, expect, it } from 'vitest';
import { fileDatesOf, rowDateText, rowList, wallTimeOf } from '../../../main/schedules/file-dates';

const ZONE = 'Europe/Berlin';
/** 2026-11-29 09:40 in Berlin. */
const NOW = Date.parse('2026-11-29T08:40:00Z');
const csv = (...dates: (string | null)[]) => dates.map((d, i) => ({ rowNumber: i + 2, extra: d === null ? { note: 'x' } : ({ note: 'x', execute_on: d } as Record<string, string>) }));
const pain = (...dates: string[]) => dates.map((d, i) => ({ rowNumber: i + 1, extra: { EndToEndId: `E${i}`, ReqdExctnDt: d } }));

describe('the date a row asks for', () => {
  it('reads an execute_on column under the names people write, and a pain.001 ReqdExctnDt', () => {
    expect(rowDateText({ execute_on: ' 2026-12-24 ' })).toBe('2026-12-24');
    expect(rowDateText({ 'Execute on': '2026-12-24' })).toBe('2026-12-24');
    expect(rowDateText({ 'Execution date': '2026-12-24T09:00' })).toBe('2026-12-24T09:00');
    expect(rowDateText({ ReqdExctnDt: '2026-12-24' })).toBe('2026-12-24');
    expect(rowDateText({ execute_on: '  ' })).toBeNull();
    expect(rowDateText({ due: '2026-12-24' })).toBeNull();
  });

  it('is a wall time of the zone; an offset is converted, and seconds round up (never early)', () => {
    expect(wallTimeOf('2026-12-24', ZONE)).toBe('2026-12-24');
    expect(wallTimeOf('2026-12-24 09:00', ZONE)).toBe('2026-12-24T09:00');
    expect(wallTimeOf('2026-12-24T09:00:00', ZONE)).toBe('2026-12-24T09:00');
    expect(wallTimeOf('2026-12-24T09:00:01', ZONE)).toBe('2026-12-24T09:01');
    expect(wallTimeOf('2026-12-24T08:00:00Z', ZONE)).toBe('2026-12-24T09:00');
    expect(wallTimeOf('2026-12-24T09:30:00+01:00', 'America/New_York')).toBe('2026-12-24T03:30');
    expect(wallTimeOf('24.12.2026', ZONE)).toBeNull();
    expect(wallTimeOf('12/24/2026', ZONE)).toBeNull();
  });

  it('lists rows short', () => {
    expect(rowList('row', [7])).toBe('row 7');
    expect(rowList('row', [5, 2, 3, 4, 9])).toBe('rows 2-5, 9');
    expect(rowList('row', [1, 3, 5, 7, 9, 11, 13, 15])).toBe('rows 1, 3, 5, 7, 9, 11, and 2 more ranges');
  });
});

describe('the release time of a file', () => {
  it('none asked: no time, no note, no error', () => {
    expect(fileDatesOf(csv(null, null), ZONE, { now: NOW })).toEqual({ execution: null, passed: false, note: null, errors: [] });
  });

  it('one date ahead: released at 08:00 that day in the zone, and the review says so', () => {
    const dates = fileDatesOf(csv('2026-12-24', '2026-12-24T08:00', '2026-12-24'), ZONE, { now: NOW });
    expect(dates.errors).toEqual([]);
    expect(dates.execution).toEqual({ at: Date.parse('2026-12-24T07:00:00Z'), zone: ZONE, local: '2026-12-24T08:00' });
    expect(dates.note).toBe('The file asks for 2026-12-24 08:00 Europe/Berlin: the batch is released then, unless you choose another time');
  });

  it('different dates ahead: refused, with the rows of each, the most asked first', () => {
    const dates = fileDatesOf(csv('2026-12-28', '2026-12-28', '2026-12-24', '2026-12-28', '2026-12-28', '2026-12-24'), ZONE, { now: NOW });
    expect(dates.execution).toBeNull();
    expect(dates.errors).toEqual([
      { rowNumber: 0, column: null, code: 'EXECUTE_ON_MIXED', message: 'A batch releases at one time: rows 2-3, 5-6 ask for 2026-12-28, rows 4, 7 for 2026-12-24; split the file per date' },
    ]);
  });

  it('a date on some rows only, or one ahead beside a passed one: refused too (part would leave at once)', () => {
    expect(fileDatesOf(csv('2026-12-24', null), ZONE, { now: NOW }).errors[0]!.message).toBe('A batch releases at one time: row 2 asks for 2026-12-24, row 3 no date; split the file per date');
    const mixed = fileDatesOf(pain('2026-12-24', '2026-11-02'), ZONE, { now: NOW, noun: 'transaction' });
    expect(mixed.errors.map((e) => e.message)).toEqual(['A batch releases at one time: transaction 1 asks for 2026-12-24, transaction 2 for 2026-11-02 (passed: at once); split the file per date']);
  });

  it('passed dates: sent at once when submitted, said plainly (dates of different past days agree: at once)', () => {
    const past = fileDatesOf(pain('2026-03-03', '2026-03-03', '2026-03-04'), ZONE, { now: NOW, noun: 'transaction' });
    expect(past).toMatchObject({ execution: null, passed: true, errors: [] });
    expect(past.note).toBe('The file asks for 2026-03-03 08:00 Europe/Berlin to 2026-03-04 08:00 Europe/Berlin, which has passed: the batch is sent at once when submitted (as a bank executes a past date); choose a time to release it later instead');
    expect(fileDatesOf(pain('2026-11-29'), ZONE, { now: NOW }).note).toContain('2026-11-29 08:00 Europe/Berlin, which is earlier today: the batch is sent at once');
    // Later today is still ahead.
    expect(fileDatesOf(pain('2026-11-29T17:00'), ZONE, { now: NOW }).execution?.local).toBe('2026-11-29T17:00');
  });

  it('a date that cannot be read, or that does not exist in the zone: refused, naming the rows and what to write', () => {
    const bad = fileDatesOf(csv('24.12.2026', '2026-12-24', '24.12.2026'), ZONE, { now: NOW });
    expect(bad.execution).toBeNull();
    expect(bad.errors).toEqual([{ rowNumber: 0, column: null, code: 'EXECUTE_ON_FORMAT', message: expect.stringMatching(/^rows 2, 4: "24\.12\.2026" is not a date: write 2026-12-24, or 2026-12-24T09:00/) }]);
    // 02:30 on the spring-forward night does not exist in Berlin.
    expect(fileDatesOf(csv('2027-03-28T02:30'), ZONE, { now: NOW }).errors[0]).toMatchObject({ code: 'EXECUTE_ON_FORMAT', message: expect.stringContaining('row 2: 2027-03-28 02:30 does not exist in Europe/Berlin') });
    expect(fileDatesOf(csv('2026-02-30'), ZONE, { now: NOW }).errors[0]!.code).toBe('EXECUTE_ON_FORMAT');
  });
});
