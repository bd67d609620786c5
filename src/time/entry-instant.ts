// The instants recall ranks by, read many times a query: an episode entry's day and `HH:MM`, and a
// frontmatter time. Both are read as parseInstant reads them (a clock reading in the vault's zone
// unless it names an offset), memoized, since recall asks once per candidate. Moved here from
// recall/rank.ts, which kept its own zone arithmetic and its own offset rule beside parseInstant's.

import { parseInstant } from './parse-instant.js';

const MEMO_LIMIT = 50_000;

/** `zone|text` → epoch ms (NaN for text that is no time) */
const instantMemo = new Map<string, number>();

/** `text` as parseInstant reads it in `timeZone`, as epoch ms; undefined for text that is no time. */
export function instantMs(text: string, timeZone: string): number | undefined {
  const key = `${timeZone}|${text}`;
  const known = instantMemo.get(key);
  if (known !== undefined) return Number.isNaN(known) ? undefined : known;
  const time = parseInstant(text, timeZone)?.getTime() ?? Number.NaN;
  if (instantMemo.size >= MEMO_LIMIT) instantMemo.clear();
  instantMemo.set(key, time);
  return Number.isNaN(time) ? undefined : time;
}

/** `zone|YYYY-MM-DD` → the zone's offset from UTC in ms all that day, NaN when it changes within it */
const dayOffsetMemo = new Map<string, number>();
const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;
const CLOCK = /^(\d{2}):(\d{2})$/;
const HOUR_MS = 3_600_000;

/** The offset of `timeZone` on `date` if it is the same at its start, noon and end. */
function dayOffset(date: string, timeZone: string, midnightUtc: number): number {
  const key = `${timeZone}|${date}`;
  const known = dayOffsetMemo.get(key);
  if (known !== undefined) return known;
  const offsets = ['00:00', '12:00', '23:59'].map((clock, i) => {
    const instant = parseInstant(`${date}T${clock}`, timeZone)?.getTime();
    const wall = midnightUtc + [0, 12 * HOUR_MS, 23 * HOUR_MS + 59 * 60_000][i]!;
    return instant === undefined ? Number.NaN : wall - instant;
  });
  const offset = offsets.every((o) => o === offsets[0]) ? (offsets[0] as number) : Number.NaN;
  if (dayOffsetMemo.size >= MEMO_LIMIT) dayOffsetMemo.clear();
  dayOffsetMemo.set(key, offset);
  return offset;
}

/**
 * An entry's day and `HH:MM` read in `timeZone`, as epoch ms, as `parseInstant` reads them: on a
 * day whose offset does not change (every day but a zone's few transition days) it is the wall
 * clock less that offset, one memo per day instead of a time-zone calculation per entry and minute.
 */
export function entryInstant(date: string, time: string, timeZone: string): number | undefined {
  const day = DAY.exec(date);
  const clock = CLOCK.exec(time);
  if (day && clock) {
    const hour = Number(clock[1]);
    const minute = Number(clock[2]);
    // The wall clock as if it were UTC; the day's offset turns it into the instant.
    const midnight = Date.UTC(Number(day[1]), Number(day[2]) - 1, Number(day[3]));
    if (hour < 24 && minute < 60) {
      const offset = dayOffset(date, timeZone, midnight);
      if (!Number.isNaN(offset)) return midnight + hour * HOUR_MS + minute * 60_000 - offset;
    }
  }
  return instantMs(`${date}T${time}`, timeZone);
}
