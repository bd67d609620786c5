// The one rule for a moment or a day handed in from outside: a CLI flag (--now, --at, --from,
// --to), an HTTP or MCP field (now, at, range), or text in a file. Every edge checks with these
// functions and says what it expected in the same words, so a string one edge accepts no other
// refuses (the CLI once checked --now with Date.parse and days with its own round trip, HTTP with
// parseInstant and a bare pattern). This file reads text only: it loads no time-zone library, so
// the CLI checks a flag before the library loads (a recall the daemon answers never loads it).
// Which instant a clock reading is in a zone is parseInstant's step (parse-instant.ts).

/** What a moment must be, as every edge's message says it: `--now must be ${MOMENT_FORMAT}`. */
export const MOMENT_FORMAT = 'an ISO 8601 date or time';

/** What a day must be, as every edge's message says it: `--from must be ${DAY_FORMAT}`. */
export const DAY_FORMAT = 'a date YYYY-MM-DD';

/** The shape of a day (a JSON Schema `pattern` shows it to a model); isDayText also checks it exists. */
export const DAY_PATTERN = /^\d{4}-\d{2}-\d{2}$/;

/** A clock reading as written, without a zone; omitted fields are zero. */
export interface ClockFields {
  year: number;
  /** 1–12 */
  month: number;
  /** 1–31 */
  day: number;
  hour: number;
  minute: number;
  second: number;
  millisecond: number;
}

/** What a moment's text says, before a zone is applied (see parseInstant). */
export type MomentText =
  /** ISO 8601 without an offset: a clock reading in the vault's zone */
  | { kind: 'clock'; clock: ClockFields }
  /** ISO 8601 with an offset (Z, +08:00, +0800, +08) */
  | { kind: 'offset'; clock: ClockFields; offsetMinutes: number }
  /** Another form Date.parse reads that names a zone or an offset: that instant */
  | { kind: 'instant'; time: number }
  /** Another form Date.parse reads without a zone: its fields, as the process's zone read them */
  | { kind: 'local'; date: Date };

// 2026-11-29, 2026-11-29T23:50, 2026-11-29 23:50:00.123, 2026/11/29 23:50, each with an optional
// offset: Z, +08:00, +0800 or +08.
const ISO =
  /^(\d{4})([-/.])(\d{1,2})\2(\d{1,2})(?:[T\s]+(\d{1,2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

// What tells an instant in the formats Date.parse reads beyond ISO (`Sun Nov 29 2026 10:00:00 GMT+0800`,
// `Nov 29, 2026 10:00 PST`): a zone name or an offset after the time of day.
const HAS_ZONE =
  /\d:\d{2}(?::\d{2}(?:[.,]\d+)?)?\s*(?:[AP]M\s*)?(?:Z|UTC|GMT|UT|[ECMP][SD]T|[+-]\d{2}:?\d{2})\b/i;

function offsetMinutes(offset: string): number {
  if (offset.toUpperCase() === 'Z') return 0;
  const sign = offset.startsWith('-') ? -1 : 1;
  const digits = offset.slice(1).replace(':', '');
  return sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2) || 0));
}

const isLeapYear = (year: number) => year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);

/** Days in `month` (1–12) of `year`, in the proleptic Gregorian calendar ISO 8601 uses. */
function daysInMonth(year: number, month: number): number {
  return month === 2 ? (isLeapYear(year) ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** Whether a clock reading exists on the calendar (no 2026-02-30, month 13 or 24:00). */
export function clockExists(clock: ClockFields): boolean {
  return (
    clock.month >= 1 &&
    clock.month <= 12 &&
    clock.day >= 1 &&
    clock.day <= daysInMonth(clock.year, clock.month) &&
    clock.hour <= 23 &&
    clock.minute <= 59 &&
    clock.second <= 59
  );
}

/**
 * Reads a moment's text: ISO 8601 with or without a time and an offset, or any other form
 * `Date.parse` reads. Undefined for text that is no time, or a date that does not exist (2026-02-30).
 */
export function readMomentText(text: string): MomentText | undefined {
  const value = text.trim();
  const iso = ISO.exec(value);
  if (iso) {
    const fraction = (iso[8] ?? '').padEnd(3, '0').slice(0, 3);
    const clock = {
      year: Number(iso[1]),
      month: Number(iso[3]),
      day: Number(iso[4]),
      hour: Number(iso[5] ?? 0),
      minute: Number(iso[6] ?? 0),
      second: Number(iso[7] ?? 0),
      millisecond: Number(fraction),
    };
    if (!clockExists(clock)) return undefined;
    const offset = iso[9];
    return offset === undefined
      ? { kind: 'clock', clock }
      : { kind: 'offset', clock, offsetMinutes: offsetMinutes(offset) };
  }
  const time = Date.parse(value);
  if (!Number.isFinite(time)) return undefined;
  return HAS_ZONE.test(value) ? { kind: 'instant', time } : { kind: 'local', date: new Date(time) };
}

/** Whether `text` is a moment (what parseInstant reads, in any zone). */
export function isMomentText(text: string): boolean {
  return readMomentText(text) !== undefined;
}

/** Whether `text` is a real day written `YYYY-MM-DD`, and nothing else (2026-02-30 is not). */
export function isDayText(text: string): boolean {
  return (
    DAY_PATTERN.test(text) &&
    clockExists({
      year: Number(text.slice(0, 4)),
      month: Number(text.slice(5, 7)),
      day: Number(text.slice(8, 10)),
      hour: 0,
      minute: 0,
      second: 0,
      millisecond: 0,
    })
  );
}
