import { describe, expect, it } from 'vitest';
import {
  addDays,
  dayFromYmd,
  isoWeekOf,
  monthOf,
  parseIsoDay,
  periodDays,
  quarterOf,
  yearOf,
} from '../../src/time/calendar-day.js';

const day = (text: string) => {
  const parsed = parseIsoDay(text);
  if (!parsed) throw new Error(`bad test day ${text}`);
  return parsed;
};

describe('calendar days', () => {
  it('reads only real YYYY-MM-DD dates', () => {
    expect(parseIsoDay('2024-02-29')?.toString()).toBe('2024-02-29');
    expect([
      parseIsoDay('2026-02-29'),
      parseIsoDay('2026-13-01'),
      parseIsoDay('2026-11-30T10:00'),
      parseIsoDay('30.11.2026'),
    ]).toEqual([undefined, undefined, undefined, undefined]);
    expect(dayFromYmd(2026, 2, 30)).toBeUndefined();
  });

  it('adds days across months, years and DST changes, and leaves a non-date alone', () => {
    expect(addDays('2026-12-31', 1)).toBe('2027-01-01');
    expect(addDays('2024-03-01', -1)).toBe('2024-02-29');
    expect(addDays('2026-03-08', 1)).toBe('2026-03-09');
    expect(addDays('someday', 1)).toBe('someday');
  });

  it('names the ISO week, month, quarter and year of a day', () => {
    expect([
      isoWeekOf(day('2026-11-30')),
      monthOf(day('2026-11-30')),
      quarterOf(day('2026-11-30')),
      yearOf(day('2026-11-30')),
    ]).toEqual(['2026-W49', '2026-11', '2026-Q4', '2026']);
    // The ISO week-numbering year differs from the calendar year at its edges.
    expect(isoWeekOf(day('2027-01-01'))).toBe('2026-W53');
    expect(isoWeekOf(day('2025-12-29'))).toBe('2026-W01');
  });
});

describe('periodDays', () => {
  it('gives the days of weeks, months, quarters and years', () => {
    expect(periodDays('2026-W49')).toEqual({ from: '2026-11-30', to: '2026-12-06' });
    expect(periodDays('2026-02')).toEqual({ from: '2026-02-01', to: '2026-02-28' });
    expect(periodDays('2026-Q1')).toEqual({ from: '2026-01-01', to: '2026-03-31' });
    expect(periodDays('2026-Q4')).toEqual({ from: '2026-10-01', to: '2026-12-31' });
    expect(periodDays('2024')).toEqual({ from: '2024-01-01', to: '2024-12-31' });
  });

  it('names the period a day is in, round trip', () => {
    for (const text of ['2026-01-01', '2026-06-15', '2027-01-01', '2024-12-30']) {
      const d = day(text);
      for (const name of [isoWeekOf(d), monthOf(d), quarterOf(d), yearOf(d)]) {
        const days = periodDays(name);
        expect(days && days.from <= text && text <= days.to, `${text} in ${name}`).toBe(true);
      }
    }
  });

  it('gives undefined for a period that does not exist', () => {
    expect([
      periodDays('2025-W53'),
      periodDays('2026-W00'),
      periodDays('2026-13'),
      periodDays('2026-Q5'),
      periodDays('26'),
    ]).toEqual([undefined, undefined, undefined, undefined, undefined]);
  });
});
