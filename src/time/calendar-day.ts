// Calendar days with no time and no zone (`2026-11-30`), and the periods made of them: ISO weeks,
// months, quarters and years. Which day an instant falls on is zoned-date.ts's job; here a day is
// already a day, so no DST shift can move it by an hour.

import { Temporal } from 'temporal-polyfill';
import { isDayText } from './parse-input-time.js';

export type Day = Temporal.PlainDate;

/** The days a period covers, both inclusive, as `YYYY-MM-DD`. */
export interface Period {
  /** First day, `YYYY-MM-DD` */
  from: string;
  /** Last day, `YYYY-MM-DD` */
  to: string;
}

/**
 * The years a daily note can be named by: `YYYY-MM-DD` has four digits of year, and a day outside
 * them would be written `+275760-09-13` or `-000001-01-01` (an instant near the ends of `Date`).
 */
export const NOTE_YEARS = { first: 0, last: 9999 } as const;

/** Whether `day` can name a daily note (its year is within NOTE_YEARS). */
export function isNoteDay(day: Day): boolean {
  return day.year >= NOTE_YEARS.first && day.year <= NOTE_YEARS.last;
}

/** The day of a real date; undefined for one that does not exist (2026-02-30, month 13). */
export function dayFromYmd(year: number, month: number, day: number): Day | undefined {
  if (![year, month, day].every(Number.isInteger)) return undefined;
  try {
    return Temporal.PlainDate.from({ year, month, day }, { overflow: 'reject' });
  } catch {
    return undefined;
  }
}

/** Reads `YYYY-MM-DD` (and nothing else: no time, no offset); undefined when it is not a real date. */
export function parseIsoDay(text: string): Day | undefined {
  // Which text is a day is the input rule every edge checks with; Temporal only builds it.
  return isDayText(text) ? Temporal.PlainDate.from(text) : undefined;
}

/** `YYYY-MM-DD` */
export function formatDay(day: Day): string {
  return day.toString();
}

/** The day `days` days after `date` (`YYYY-MM-DD`); a string that is not a date comes back as it was. */
export function addDays(date: string, days: number): string {
  const day = parseIsoDay(date);
  return day ? formatDay(day.add({ days })) : date;
}

/** True when `a` is before `b`. */
export const isBefore = (a: Day, b: Day): boolean => Temporal.PlainDate.compare(a, b) < 0;

/** The Monday that starts the ISO week holding this day. */
export function mondayOf(day: Day): Day {
  return day.subtract({ days: day.dayOfWeek - 1 });
}

/** First and last day of a month; `month` may be 0 or 13 (the months either side of a year). */
export function monthDays(year: number, month: number): [Day, Day] {
  const first = Temporal.PlainYearMonth.from({ year, month: 1 })
    .add({ months: month - 1 })
    .toPlainDate({ day: 1 });
  return [first, first.add({ months: 1 }).subtract({ days: 1 })];
}

export function yearDays(year: number): [Day, Day] {
  return [
    Temporal.PlainDate.from({ year, month: 1, day: 1 }),
    Temporal.PlainDate.from({ year, month: 12, day: 31 }),
  ];
}

/** The ISO week of a day: `2026-W48` (the week-numbering year may differ from the calendar year). */
export function isoWeekOf(day: Day): string {
  return `${day.yearOfWeek}-W${String(day.weekOfYear).padStart(2, '0')}`;
}

/** `2026-11` */
export function monthOf(day: Day): string {
  return day.toPlainYearMonth().toString();
}

/** `2026-Q4` */
export function quarterOf(day: Day): string {
  return `${day.year}-Q${Math.ceil(day.month / 3)}`;
}

/** `2026` */
export function yearOf(day: Day): string {
  return String(day.year);
}

const span = (from: Day, to: Day): Period => ({ from: formatDay(from), to: formatDay(to) });

/**
 * The days of a period named `2026-W47` (ISO week), `2026-11` (month), `2026-Q4` (quarter) or
 * `2026` (year); undefined for anything else, or a week the year does not have (2025-W53).
 */
export function periodDays(period: string): Period | undefined {
  const week = /^(\d{4})-W(\d{2})$/.exec(period);
  if (week) {
    const year = Number(week[1]);
    const n = Number(week[2]);
    // ISO week 1 is the week that holds 4 January; 28 December is always in the year's last week.
    const weeks = Temporal.PlainDate.from({ year, month: 12, day: 28 }).weekOfYear ?? 52;
    if (n < 1 || n > weeks) return undefined;
    const monday = mondayOf(Temporal.PlainDate.from({ year, month: 1, day: 4 })).add({ weeks: n - 1 });
    return span(monday, monday.add({ days: 6 }));
  }
  const month = /^(\d{4})-(\d{2})$/.exec(period);
  if (month) {
    const m = Number(month[2]);
    return m >= 1 && m <= 12 ? span(...monthDays(Number(month[1]), m)) : undefined;
  }
  const quarter = /^(\d{4})-Q([1-4])$/.exec(period);
  if (quarter) {
    const year = Number(quarter[1]);
    const first = (Number(quarter[2]) - 1) * 3 + 1;
    return span(monthDays(year, first)[0], monthDays(year, first + 2)[1]);
  }
  const year = /^(\d{4})$/.exec(period);
  return year ? span(...yearDays(Number(year[1]))) : undefined;
}
