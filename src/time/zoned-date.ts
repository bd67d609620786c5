// The one rule for "this instant in the vault's time zone": which day it belongs to, the clock
// time it shows, where a day starts and ends, and whether a day is over. Every caller that turns an
// instant into a day (remember, ingest, reflect, compile, recall) goes through here, with the vault's
// `timezone` (an IANA name such as `Asia/Shanghai`), never the process's zone. The zone arithmetic
// (offsets, DST) is Temporal's.

import { Temporal } from 'temporal-polyfill';
import { MemError } from '../core/errors.js';
import { type Day, formatDay, isNoteDay, NOTE_YEARS, parseIsoDay } from './calendar-day.js';

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
  try {
    const local = Temporal.PlainDateTime.from(clock, { overflow: 'reject' });
    return new Date(local.toZonedDateTime(timeZone, { disambiguation: 'compatible' }).epochMilliseconds);
  } catch (error) {
    if (error instanceof RangeError) return undefined;
    throw error;
  }
}
