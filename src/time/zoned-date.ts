/**
 * Calendar dates without a time or a zone, as whole days since 1970-01-01 (a "day number").
 * Date arithmetic is then integer arithmetic, and no DST shift can move a date by an hour.
 */
export type DayNumber = number;

const MS_PER_DAY = 86_400_000;

// Building a DateTimeFormat is slow compared with using one; a vault has one time zone.
const formats = new Map<string, Intl.DateTimeFormat>();

function formatFor(timeZone: string): Intl.DateTimeFormat {
  let format = formats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      calendar: 'gregory',
      numberingSystem: 'latn',
    });
    formats.set(timeZone, format);
  }
  return format;
}

/** The calendar date that `now` falls on in `timeZone` (an IANA name such as `Asia/Shanghai`). */
export function zonedDate(now: Date, timeZone: string): DayNumber {
  let year = 0;
  let month = 0;
  let day = 0;
  for (const part of formatFor(timeZone).formatToParts(now)) {
    if (part.type === 'year') year = Number(part.value);
    else if (part.type === 'month') month = Number(part.value);
    else if (part.type === 'day') day = Number(part.value);
  }
  // `era` is not requested, so years before 1 CE would come out positive; no vault needs them.
  return dayFromYmd(year, month, day);
}

/** Day number of a proleptic Gregorian date; month and day may overflow (month 13 is next January). */
export function dayFromYmd(year: number, month: number, day: number): DayNumber {
  // setUTCFullYear, unlike Date.UTC, does not map years 0–99 to 1900–1999.
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  return Math.round(date.getTime() / MS_PER_DAY);
}

export interface Ymd {
  year: number;
  /** 1–12 */
  month: number;
  /** 1–31 */
  day: number;
}

export function ymdFromDay(dayNumber: DayNumber): Ymd {
  const date = new Date(dayNumber * MS_PER_DAY);
  return { year: date.getUTCFullYear(), month: date.getUTCMonth() + 1, day: date.getUTCDate() };
}

/** True when the date exists (no 2026-02-30). */
export function isValidYmd(year: number, month: number, day: number): boolean {
  const back = ymdFromDay(dayFromYmd(year, month, day));
  return back.year === year && back.month === month && back.day === day;
}

/** `YYYY-MM-DD` */
export function formatDay(dayNumber: DayNumber): string {
  const { year, month, day } = ymdFromDay(dayNumber);
  return `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

/** ISO weekday: 1 = Monday … 7 = Sunday. */
export function isoWeekday(dayNumber: DayNumber): number {
  // 1970-01-01 was a Thursday (4).
  return ((((dayNumber + 3) % 7) + 7) % 7) + 1;
}

/** The Monday that starts the ISO week holding this day. */
export function mondayOf(dayNumber: DayNumber): DayNumber {
  return dayNumber - (isoWeekday(dayNumber) - 1);
}
