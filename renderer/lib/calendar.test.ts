import { describe, expect, it } from 'vitest';
import type { ForecastLineView, ScheduleView } from '../../contract/api';
import { addMonths, dateInZone, monthRange, monthWeeks, releasesOnText, runsByDay, shortfallLines } from './calendar';

describe('monthWeeks', () => {
  it('starts every week on Monday and covers the whole month', () => {
    // December 2026 starts on a Tuesday and ends on a Thursday.
    const weeks = monthWeeks('2026-12');
    expect(weeks[0]?.[0]).toBe('2026-11-30');
    expect(weeks[0]?.[1]).toBe('2026-12-01');
    expect(weeks.at(-1)?.[6]).toBe('2027-01-03');
    expect(weeks.every((w) => w.length === 7)).toBe(true);
    expect(weeks.flat()).toContain('2026-12-31');
  });

  it('keeps the days of a month with a daylight-saving change (no day twice, none missing)', () => {
    const days = monthWeeks('2027-03').flat();
    expect(new Set(days).size).toBe(days.length);
    expect(days).toContain('2027-03-28');
    expect(days).toContain('2027-03-29');
    // February 2027 starts on a Monday: no day of January before it.
    expect(monthWeeks('2027-02')[0]?.[0]).toBe('2027-02-01');
  });
});

describe('months and zones', () => {
  it('steps over year ends', () => {
    expect(addMonths('2026-12', 1)).toBe('2027-01');
    expect(addMonths('2026-01', -1)).toBe('2025-12');
  });

  it('puts an instant on its day in the zone asked', () => {
    // 23:30 UTC on the 28th is already the 29th in Berlin and still the 28th in New York.
    expect(dateInZone('2026-12-28T23:30:00Z', 'Europe/Berlin')).toBe('2026-12-29');
    expect(dateInZone('2026-12-28T23:30:00Z', 'America/New_York')).toBe('2026-12-28');
  });

  it('asks for a range around the shown days wide enough for any zone', () => {
    const { from, to } = monthRange('2026-12');
    expect(Date.parse(from)).toBeLessThanOrEqual(Date.parse('2026-11-30T00:00:00+14:00'));
    expect(Date.parse(to)).toBeGreaterThanOrEqual(Date.parse('2027-01-04T00:00:00-12:00'));
  });
});

const run = (id: string, executeAt: string): ScheduleView => ({
  kind: 'payout', id, title: id, executeAt, zone: 'Europe/Berlin', local: '', when: '', state: 'SCHEDULED', subjectState: 'HELD', rows: 1, totals: [], releasedAt: null, releasedBy: null, lateBy: null, preparedBy: null,
});

describe('runsByDay', () => {
  it('groups runs on their day in the profile zone, in time order', () => {
    const days = runsByDay([run('late', '2026-12-28T15:00:00Z'), run('early', '2026-12-28T07:00:00Z'), run('next', '2026-12-28T23:30:00Z')], 'Europe/Berlin');
    expect(days.get('2026-12-28')?.map((r) => r.id)).toEqual(['early', 'late']);
    expect(days.get('2026-12-29')?.map((r) => r.id)).toEqual(['next']);
  });
});

describe('shortfallLines', () => {
  const line = (date: string, currencyCode: string, shortBy: string | null): ForecastLineView => ({
    date, currencyCode, count: 1, due: { amount: '1.00', currencyCode }, cumulative: { amount: '1.00', currencyCode }, available: null,
    shortBy: shortBy === null ? null : { amount: shortBy, currencyCode },
  });

  it('names the first short day of each currency with the exact amount', () => {
    const lines = shortfallLines([line('2026-12-27', 'EUR', null), line('2026-12-28', 'EUR', '12000.00'), line('2026-12-29', 'EUR', '15000.00'), line('2026-12-30', 'USD', '0.01')]);
    // The grouping sign follows the process's locale.
    expect(lines.map((l) => l.currencyCode)).toEqual(['EUR', 'USD']);
    expect(lines[0]?.text).toMatch(/^EUR short by 12.?000\.00 on 2026-12-28$/);
    expect(lines[1]?.text).toMatch(/^USD short by 0\.01 on 2026-12-30$/);
  });
});

describe('releasesOnText', () => {
  it('reads the release time of a scheduled batch from its state reason', () => {
    expect(releasesOnText('scheduled: released on 2026-12-24 09:00 Europe/Berlin')).toBe('Releases on 2026-12-24 09:00 Europe/Berlin');
    expect(releasesOnText('paused by the user')).toBeNull();
    expect(releasesOnText(null)).toBeNull();
  });
});
