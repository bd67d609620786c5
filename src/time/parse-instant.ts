// Timestamps written in files (transcripts, hand-edited frontmatter) read the same on every machine:
// one without an offset is a clock reading in the vault's time zone, never the process's.

import { MemError, refused } from '../core/errors.js';
import { NOTE_YEARS } from './calendar-day.js';
import { MOMENT_FORMAT, readMomentText } from './parse-input-time.js';
import { fromWallClock, hasNoteDay } from './zoned-date.js';

/**
 * Reads a timestamp: ISO 8601 with or without a time and an offset, or any other form `Date.parse`
 * reads. A timestamp without an offset is a clock reading in `timeZone`, so a file gives the same
 * instants (and days, and block ids) on every machine. Undefined for text that is no time, or a date
 * that does not exist (2026-02-30).
 */
export function parseInstant(text: string, timeZone: string): Date | undefined {
  const read = readMomentText(text);
  switch (read?.kind) {
    case undefined:
      return undefined;
    case 'clock':
      return fromWallClock(read.clock, timeZone);
    case 'offset': {
      const asUtc = fromWallClock(read.clock, 'UTC');
      return asUtc && new Date(asUtc.getTime() - read.offsetMinutes * 60_000);
    }
    case 'instant':
      return new Date(read.time);
    case 'local': {
      // Date.parse read the clock fields in the process's zone; its local getters give them back
      // unchanged, to be read again in the vault's zone.
      const local = read.date;
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
  }
}

/**
 * A moment handed to the library (`now`, `at`): a Date, or text `parseInstant` reads; text without
 * an offset is a clock reading in the vault's time zone, wherever the caller runs.
 */
export type Moment = Date | string;

/** `value` as an instant in `timeZone`'s terms; text that is no time is refused, naming `name`. */
export function toInstant(value: Moment | undefined, timeZone: string, name: string): Date | undefined {
  if (value === undefined) return value;
  if (!(value instanceof Date) && typeof value !== 'string')
    throw refused(name, `a Date or ${MOMENT_FORMAT}`, value);
  const instant = value instanceof Date ? value : parseInstant(value, timeZone);
  if (!instant || Number.isNaN(instant.getTime()))
    throw new MemError('INVALID_ARGUMENT', `${name} must be ${MOMENT_FORMAT}, got "${String(value)}"`);
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
