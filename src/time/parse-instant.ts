// Timestamps written in files (transcripts, hand-edited frontmatter) read the same on every machine:
// one without an offset is a clock reading in the vault's time zone, never the process's.

import { MemError } from '../core/errors.js';
import { NOTE_YEARS } from './calendar-day.js';
import { fromWallClock, hasNoteDay } from './zoned-date.js';

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

/**
 * Reads a timestamp: ISO 8601 with or without a time and an offset, or any other form `Date.parse`
 * reads. A timestamp without an offset is a clock reading in `timeZone`, so a file gives the same
 * instants (and days, and block ids) on every machine. Undefined for text that is no time, or a date
 * that does not exist (2026-02-30).
 */
export function parseInstant(text: string, timeZone: string): Date | undefined {
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
    const offset = iso[9];
    if (offset === undefined) return fromWallClock(clock, timeZone);
    const asUtc = fromWallClock(clock, 'UTC');
    return asUtc && new Date(asUtc.getTime() - offsetMinutes(offset) * 60_000);
  }
  const time = Date.parse(value);
  if (!Number.isFinite(time)) return undefined;
  if (HAS_ZONE.test(value)) return new Date(time);
  // Date.parse read the clock fields in the process's zone; its local getters give them back
  // unchanged, to be read again in the vault's zone.
  const local = new Date(time);
  return fromWallClock(
    {
      year: local.getFullYear(),
      month: local.getMonth() + 1,
      day: local.getDate(),
      hour: local.getHours(),
      minute: local.getMinutes(),
      second: local.getSeconds(),
      millisecond: local.getMilliseconds(),
    },
    timeZone,
  );
}

/**
 * A moment handed to the library (`now`, `at`): a Date, or text `parseInstant` reads; text without
 * an offset is a clock reading in the vault's time zone, wherever the caller runs.
 */
export type Moment = Date | string;

/** `value` as an instant in `timeZone`'s terms; text that is no time is refused, naming `name`. */
export function toInstant(value: Moment | undefined, timeZone: string, name: string): Date | undefined {
  if (value === undefined) return value;
  const instant = value instanceof Date ? value : parseInstant(value, timeZone);
  if (!instant || Number.isNaN(instant.getTime()))
    throw new MemError(
      'INVALID_ARGUMENT',
      `${name} must be an ISO 8601 date or time, got "${String(value)}"`,
    );
  // Refused where it is given, rather than at the write it would name a note for.
  if (!hasNoteDay(instant, timeZone)) {
    const given = value instanceof Date ? value.toISOString() : value;
    throw new MemError(
      'INVALID_ARGUMENT',
      `${name} must fall in the years ${NOTE_YEARS.first}–${NOTE_YEARS.last} (a daily note is named YYYY-MM-DD), got "${given}"`,
    );
  }
  return instant;
}
