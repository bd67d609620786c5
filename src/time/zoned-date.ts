// The one rule for "this instant in the vault's time zone": which day it belongs to, the clock
// time it shows, where a day starts and ends, and whether a day is over. Every caller that turns an
// instant into a day (remember, ingest, reflect, compile, recall) goes through here, with the vault's
// `timezone` (an IANA name such as `Asia/Shanghai`), never the process's zone. The zone arithmetic
// (offsets, DST) is Temporal's; fromWallClock asks it once per zone and year where the offset holds
// still (zone-offset.ts), and per reading only near a transition.

import { Temporal } from 'temporal-polyfill';
import { MemError } from '../core/errors.js';
import { type Day, formatDay, isNoteDay, NOTE_YEARS, parseIsoDay } from './calendar-day.js';
import { steadyOffset } from './zone-offset.js';

/** `at` as a clock in `timeZone` shows it. */
export function zonedDateTime(at: Date, timeZone: string): Temporal.ZonedDateTime {
  return Temporal.Instant.fromEpochMilliseconds(at.getTime()).toZonedDateTimeISO(timeZone);
}

/** The calendar day `at` falls on in `timeZone`. */
export function zonedDate(at: Date, timeZone: string): Day {
  return zonedDateTime(at, timeZone).toPlainDate();
}

/**
 * The day an entry made at `at` belongs to: `YYYY-MM-DD` in `timeZone`. Throws INVALID_ARGUMENT for
 * an instant outside the years 0000–9999, which no daily note can be named by.
 */
export function dayOf(at: Date, timeZone: string): string {
  const day = zonedDate(at, timeZone);
  if (!isNoteDay(day)) throw outsideNoteYears(at, day);
  return formatDay(day);
}

/** Whether the day of `at` in `timeZone` can name a daily note (years 0000–9999). */
export function hasNoteDay(at: Date, timeZone: string): boolean {
  return isNoteDay(zonedDate(at, timeZone));
}

function outsideNoteYears(at: Date, day: Day): MemError {
  return new MemError(
    'INVALID_ARGUMENT',
    `${at.toISOString()} falls in the year ${day.year}; daily notes are named by the years ${NOTE_YEARS.first}–${NOTE_YEARS.last} (YYYY-MM-DD)`,
  );
}

const two = (n: number) => String(n).padStart(2, '0');

/** `HH:MM` of `at` in `timeZone` (24-hour clock). */
export function timeOfDay(at: Date, timeZone: string): string {
  const clock = zonedDateTime(at, timeZone);
  return `${two(clock.hour)}:${two(clock.minute)}`;
}

/** `2026-11-30T09:15:00+08:00`: the time as a clock in `timeZone` shows it, with that zone's offset. */
export function isoWithOffset(at: Date, timeZone: string): string {
  return zonedDateTime(at, timeZone).toString({
    fractionalSecondDigits: 0,
    roundingMode: 'trunc',
    timeZoneName: 'never',
  });
}

function toDay(day: Day | string): Day {
  if (typeof day !== 'string') return day;
  const parsed = parseIsoDay(day);
  if (!parsed) throw new RangeError(`not a date: ${JSON.stringify(day)} (expected YYYY-MM-DD)`);
  return parsed;
}

/** The first instant of `day` in `timeZone` (not always midnight: some zones skip it for DST). */
export function startOfDay(day: Day | string, timeZone: string): Date {
  return new Date(toDay(day).toZonedDateTime({ timeZone }).epochMilliseconds);
}

/** The first instant after `day` in `timeZone`: the day is over from then on. */
export function endOfDay(day: Day | string, timeZone: string): Date {
  return startOfDay(toDay(day).add({ days: 1 }), timeZone);
}

/** Whether `day` (`YYYY-MM-DD`) had ended in `timeZone` by the instant `at`. */
export function isDayOver(day: Day | string, at: Date, timeZone: string): boolean {
  return at.getTime() >= endOfDay(day, timeZone).getTime();
}

/** A clock reading without an offset; omitted fields are zero. */
export interface WallClock {
  year: number;
  /** 1–12 */
  month: number;
  /** 1–31 */
  day: number;
  hour?: number;
  minute?: number;
  second?: number;
  millisecond?: number;
}

/**
 * The instant a clock in `timeZone` showed `clock`. A time skipped by a DST change reads as the
 * time after the change, and a repeated one as its first occurrence (as `Date` reads local times).
 * Undefined for a clock reading that does not exist (month 13, 25:00).
 */
export function fromWallClock(clock: WallClock, timeZone: string): Date | undefined {
  const wall = wallClockMs(clock);
  if (wall !== undefined) {
    // Temporal reads a reading as the wall clock less the offset whenever the offset a day either
    // side of it is the same (the polyfill's getPossibleEpochNanoseconds looks exactly there), so
    // a reading with no transition within two days of it needs no Temporal call.
    const offset = steadyOffsetOrNothing(timeZone, wall - 2 * DAY_MS, wall + 2 * DAY_MS);
    if (offset !== undefined) return new Date(wall - offset);
  }
  try {
    const local = Temporal.PlainDateTime.from(clock, { overflow: 'reject' });
    return new Date(local.toZonedDateTime(timeZone, { disambiguation: 'compatible' }).epochMilliseconds);
  } catch (error) {
    if (error instanceof RangeError) return undefined;
    throw error;
  }
}

const DAY_MS = 86_400_000;
const isLeapYear = (year: number) => year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

const within = (value: number | undefined, last: number) =>
  value === undefined || (Number.isInteger(value) && value >= 0 && value <= last);

/**
 * `clock` read as if in UTC (epoch ms) when it is a plain reading Temporal would take as it is:
 * whole fields in their ranges, years 1900–9999. Anything else (month 13, 1.5 hours, year 0042,
 * for which `Date.UTC` means 1942) is left to Temporal's own checks.
 */
function wallClockMs(clock: WallClock): number | undefined {
  const { year, month, day } = clock;
  if (!(Number.isInteger(year) && year >= 1900 && year <= 9999 && within(month, 12) && month >= 1))
    return undefined;
  const days = month === 2 && isLeapYear(year) ? 29 : (MONTH_DAYS[month - 1] as number);
  if (!(within(day, days) && day >= 1)) return undefined;
  const { hour = 0, minute = 0, second = 0, millisecond = 0 } = clock;
  if (!(within(hour, 23) && within(minute, 59) && within(second, 59) && within(millisecond, 999)))
    return undefined;
  return Date.UTC(year, month - 1, day, hour, minute, second, millisecond);
}

/** steadyOffset, or nothing when learning the zone's ranges fails (Temporal then says why, or not). */
function steadyOffsetOrNothing(timeZone: string, from: number, to: number): number | undefined {
  try {
    return steadyOffset(timeZone, from, to);
  } catch {
    return undefined;
  }
}
