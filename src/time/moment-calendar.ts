// Calendar arithmetic for moment-format.ts: days counted from 1970-01-01 (proleptic Gregorian, any
// year), and moment's locale weeks (a first weekday `dow` and a January day `doy` always in week 1;
// ISO weeks are dow 1, doy 4). Pure integer arithmetic: no Date, no zone, fast enough to format every
// day of a century in a property test.

export interface DayParts {
  year: number;
  month: number;
  day: number;
}

const isLeap = (y: number) => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
export const daysInYear = (y: number) => (isLeap(y) ? 366 : 365);
export function daysInMonth(y: number, m: number): number {
  return m === 2 ? (isLeap(y) ? 29 : 28) : [4, 6, 9, 11].includes(m) ? 30 : 31;
}

export function epochDay(y: number, m: number, d: number): number {
  const yy = m <= 2 ? y - 1 : y;
  const era = Math.floor(yy / 400);
  const yoe = yy - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

export function fromEpochDay(n: number): DayParts {
  const z = n + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor(
    (doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365,
  );
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  return { year: yoe + era * 400 + (month <= 2 ? 1 : 0), month, day };
}

/** 0 = Sunday … 6 = Saturday */
export const weekdayOf = (n: number) => (((n + 4) % 7) + 7) % 7;
export const dayOfYear = (p: DayParts) => epochDay(p.year, p.month, p.day) - epochDay(p.year, 1, 1) + 1;

// moment's firstWeekOffset / weekOfYear / weeksInYear / dayOfYearFromWeeks (src/lib/units/week-calendar-utils.js)
function firstWeekOffset(year: number, dow: number, doy: number): number {
  const fwd = 7 + dow - doy;
  const fwdlw = (7 + weekdayOf(epochDay(year, 1, fwd)) - dow) % 7;
  return -fwdlw + fwd - 1;
}
export function weeksInYear(year: number, dow: number, doy: number): number {
  return (daysInYear(year) - firstWeekOffset(year, dow, doy) + firstWeekOffset(year + 1, dow, doy)) / 7;
}
export function weekOfYear(p: DayParts, dow: number, doy: number): { week: number; year: number } {
  const week = Math.floor((dayOfYear(p) - firstWeekOffset(p.year, dow, doy) - 1) / 7) + 1;
  if (week < 1) return { year: p.year - 1, week: week + weeksInYear(p.year - 1, dow, doy) };
  const weeks = weeksInYear(p.year, dow, doy);
  if (week > weeks) return { year: p.year + 1, week: week - weeks };
  return { year: p.year, week };
}
/** The day of `weekday` (0 = Sunday) in week `week` of week-year `year`. */
export function dayFromWeek(year: number, week: number, weekday: number, dow: number, doy: number): DayParts {
  const local = (7 + weekday - dow) % 7;
  const ordinal = 1 + 7 * (week - 1) + local + firstWeekOffset(year, dow, doy);
  return fromEpochDay(epochDay(year, 1, 1) + ordinal - 1);
}
