// fromWallClock (and entryInstant above it) skips Temporal where the zone's offset holds still
// (zone-offset.ts). Differential: over zones with every kind of rule (DST of an hour, of 30 minutes,
// negative, at midnight, twice a year around Ramadan, a skipped day, fixed, offset strings) and
// every transition of 2004–2031, each clock reading must come back exactly as the Temporal-only
// computation it replaced, kept here as the oracle, gaps and overlaps included.
import { Temporal } from 'temporal-polyfill';
import { describe, expect, it } from 'vitest';
import { entryInstant } from '../../src/time/entry-instant.js';
import { readMomentText } from '../../src/time/parse-input-time.js';
import { parseInstant } from '../../src/time/parse-instant.js';
import { fromWallClock, type WallClock } from '../../src/time/zoned-date.js';
import { seeded } from '../helpers/seeded.js';

/** fromWallClock before the fast path: every reading through Temporal. */
function oracleFromWallClock(clock: WallClock, timeZone: string): Date | undefined {
  try {
    const local = Temporal.PlainDateTime.from(clock, { overflow: 'reject' });
    return new Date(local.toZonedDateTime(timeZone, { disambiguation: 'compatible' }).epochMilliseconds);
  } catch (error) {
    if (error instanceof RangeError) return undefined;
    throw error;
  }
}

/** entryInstant before the fast path (its dayOffset memo over parseInstant's ISO clock reading). */
function oracleEntryInstant(date: string, time: string, timeZone: string): number | undefined {
  const read = (text: string) => {
    const moment = readMomentText(text);
    return moment?.kind === 'clock' ? oracleFromWallClock(moment.clock, timeZone)?.getTime() : undefined;
  };
  const day = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  const clock = /^(\d{2}):(\d{2})$/.exec(time);
  if (day && clock) {
    const hour = Number(clock[1]);
    const minute = Number(clock[2]);
    const midnight = Date.UTC(Number(day[1]), Number(day[2]) - 1, Number(day[3]));
    if (hour < 24 && minute < 60) {
      const offsets = ['00:00', '12:00', '23:59'].map((at, i) => {
        const instant = read(`${date}T${at}`);
        const wall = midnight + [0, 12 * 3_600_000, 23 * 3_600_000 + 59 * 60_000][i]!;
        return instant === undefined ? Number.NaN : wall - instant;
      });
      const offset = offsets.every((o) => o === offsets[0]) ? (offsets[0] as number) : Number.NaN;
      if (!Number.isNaN(offset)) return midnight + hour * 3_600_000 + minute * 60_000 - offset;
    }
  }
  return read(`${date}T${time}`);
}

const ZONES = [
  'America/Los_Angeles',
  'Europe/London',
  'Australia/Lord_Howe', // DST of 30 minutes
  'Asia/Shanghai',
  'Asia/Kolkata',
  'Pacific/Chatham', // +12:45 / +13:45
  'America/St_Johns', // -03:30, DST
  'UTC',
  'Etc/GMT+5',
  '+05:30',
  'America/New_York',
  'Europe/Dublin', // negative DST in the tz data
  'America/Santiago', // transitions at midnight
  'America/Sao_Paulo', // DST at midnight until 2019
  'America/Havana', // midnight
  'Asia/Beirut', // midnight
  'Africa/Casablanca', // DST suspended for Ramadan: two transitions a month apart
  'Asia/Tehran',
  'Antarctica/Troll', // DST of two hours
  'Pacific/Apia', // skipped 2011-12-30 entirely
  'Europe/Moscow', // permanent changes in 2011 and 2014
  'America/Caracas', // -04:30 from 2007 to 2016
  'Asia/Pyongyang', // 2015 and 2018
  'Pacific/Kiritimati', // +14:00
  'Australia/Adelaide',
];

/** The zones of ZONES with no transition from FIRST_YEAR to LAST_YEAR */
const STEADY = new Set(['Asia/Shanghai', 'Asia/Kolkata', 'UTC', 'Etc/GMT+5', '+05:30', 'Pacific/Kiritimati']);

const FIRST_YEAR = 2004;
const LAST_YEAR = 2031;

const random = seeded;

/** Every transition of `timeZone` from FIRST_YEAR to LAST_YEAR, as the zoned times around it. */
function transitions(timeZone: string): Temporal.ZonedDateTime[] {
  const found: Temporal.ZonedDateTime[] = [];
  let at: Temporal.ZonedDateTime | null = Temporal.ZonedDateTime.from({
    timeZone,
    year: FIRST_YEAR,
    month: 1,
    day: 1,
  });
  for (;;) {
    at = at.getTimeZoneTransition('next');
    if (!at || at.year > LAST_YEAR) return found;
    found.push(at);
  }
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');
const dayText = (d: Temporal.PlainDate) => d.toString();

/** Days of the transitions and either side (`around`: the wall clock of each), and random others. */
function daysOf(timeZone: string, next: () => number) {
  const found = transitions(timeZone);
  const transitional = new Map<string, Temporal.PlainDate>();
  const around: WallClock[] = [];
  for (const t of found) {
    // Every minute from 60 before the clock just before the change to 60 after the one at it:
    // the gap or the overlap, and its edges.
    const before = t.subtract({ seconds: 1 }).toPlainDateTime();
    const after = t.toPlainDateTime();
    const first = Temporal.PlainDateTime.compare(before, after) < 0 ? before : after;
    const last = first === before ? after : before;
    for (
      let at = first.subtract({ minutes: 60 }).round('minute');
      Temporal.PlainDateTime.compare(at, last.add({ minutes: 60 })) <= 0;
      at = at.add({ minutes: 1 })
    ) {
      around.push({ year: at.year, month: at.month, day: at.day, hour: at.hour, minute: at.minute });
    }
    for (const shift of [-1, 0, 1]) {
      for (const day of [before.toPlainDate(), after.toPlainDate()]) {
        const shifted = day.add({ days: shift });
        transitional.set(dayText(shifted), shifted);
      }
    }
  }
  const other: Temporal.PlainDate[] = [];
  const first = Temporal.PlainDate.from({ year: FIRST_YEAR, month: 1, day: 1 });
  const span = first.until({ year: LAST_YEAR, month: 12, day: 31 }).days;
  for (let i = 0; i < 100; i++) other.push(first.add({ days: Math.floor(next() * span) }));
  return { found, transitional: [...transitional.values()], around, other };
}

/** Readings of a day: every `step` minutes, and a few random ones to the millisecond. */
function clocksOf(day: Temporal.PlainDate, step: number, next: () => number): WallClock[] {
  const clocks: WallClock[] = [];
  const base = { year: day.year, month: day.month, day: day.day };
  for (let minute = Math.floor(next() * step); minute < 24 * 60; minute += step) {
    clocks.push({ ...base, hour: Math.floor(minute / 60), minute: minute % 60 });
  }
  for (let i = 0; i < 6; i++) {
    clocks.push({
      ...base,
      hour: Math.floor(next() * 24),
      minute: Math.floor(next() * 60),
      second: Math.floor(next() * 60),
      millisecond: Math.floor(next() * 1000),
    });
  }
  return clocks;
}

function shuffle<T>(items: T[], next: () => number): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [items[i], items[j]] = [items[j] as T, items[i] as T];
  }
  return items;
}

const clockText = (c: WallClock) => `${pad(c.hour ?? 0)}:${pad(c.minute ?? 0)}`;

describe('fromWallClock without Temporal where the offset holds still', () => {
  it.each(ZONES)(
    'reads every clock reading of %s as Temporal does, gaps and overlaps included',
    (timeZone) => {
      const next = random(0x7a0e + ZONES.indexOf(timeZone));
      const { found, transitional, around, other } = daysOf(timeZone, next);
      // The zones that changed their offset in these years are tested at their changes.
      expect(found.length > 0).toBe(!STEADY.has(timeZone));
      const cases = shuffle(
        [
          ...around,
          ...transitional.flatMap((day) => clocksOf(day, 30, next)),
          ...other.flatMap((day) => clocksOf(day, 97, next)),
        ],
        next,
      );
      const differ: string[] = [];
      for (const clock of cases) {
        const got = fromWallClock(clock, timeZone)?.getTime();
        const want = oracleFromWallClock(clock, timeZone)?.getTime();
        if (got !== want) differ.push(`${JSON.stringify(clock)}: ${got} != ${want}`);
      }
      expect(differ.slice(0, 5)).toEqual([]);
      // An entry's instant, through entryInstant's memo of each day's offset, is unchanged too.
      const entries = shuffle(
        [...transitional, ...other].flatMap((day) =>
          clocksOf(day, 53, next).map((clock) => [dayText(day), clockText(clock)] as const),
        ),
        next,
      );
      for (const [date, time] of entries) {
        const got = entryInstant(date, time, timeZone);
        const want = oracleEntryInstant(date, time, timeZone);
        if (got !== want) differ.push(`${timeZone} ${date} ${time}: ${got} != ${want}`);
      }
      expect(differ.slice(0, 5)).toEqual([]);
    },
  );

  it('leaves what is not a plain reading to Temporal, with the same answer', () => {
    const odd: [WallClock, string][] = [
      [{ year: 2026, month: 13, day: 1 }, 'UTC'],
      [{ year: 2026, month: 2, day: 29 }, 'Asia/Shanghai'],
      [
        { year: 2024, month: 2, day: 29, hour: 23, minute: 59, second: 59, millisecond: 999 },
        'Asia/Shanghai',
      ],
      [{ year: 2026, month: 11, day: 30, hour: 24 }, 'UTC'],
      [{ year: 2026, month: 11, day: 30, second: 60 }, 'UTC'],
      [{ year: 2026, month: 11, day: 30, hour: 1.5 }, 'America/Los_Angeles'],
      [{ year: 2026, month: 11, day: 30, minute: -1 }, 'UTC'],
      [{ year: 42, month: 3, day: 1, hour: 9 }, 'UTC'],
      [{ year: 1850, month: 3, day: 1, hour: 9 }, 'America/Los_Angeles'],
      [{ year: 1883, month: 11, day: 18, hour: 12, minute: 5 }, 'America/Los_Angeles'],
      [{ year: 1900, month: 1, day: 1 }, 'Europe/Amsterdam'],
      [{ year: 9999, month: 12, day: 31, hour: 23, minute: 59 }, 'Pacific/Kiritimati'],
      [{ year: 2026, month: 11, day: 30, hour: 9 }, 'Mars/Olympus_Mons'],
      [{ year: 2026, month: 11, day: 30, hour: 9 }, 'utc'],
      [{ year: 2011, month: 12, day: 30, hour: 12 }, 'Pacific/Apia'],
      [{ year: 2026, month: 3, day: 8, hour: 2, minute: 30 }, 'America/Los_Angeles'],
      [{ year: 2026, month: 11, day: 1, hour: 1, minute: 30 }, 'America/Los_Angeles'],
    ];
    for (const [clock, zone] of odd) {
      expect([zone, fromWallClock(clock, zone)?.getTime()]).toEqual([
        zone,
        oracleFromWallClock(clock, zone)?.getTime(),
      ]);
    }
    // The gap reads as the time after the change, the overlap as its first occurrence.
    expect(
      fromWallClock({ year: 2026, month: 3, day: 8, hour: 2, minute: 30 }, 'America/Los_Angeles'),
    ).toEqual(new Date('2026-03-08T10:30:00Z'));
    expect(
      fromWallClock({ year: 2026, month: 11, day: 1, hour: 1, minute: 30 }, 'America/Los_Angeles'),
    ).toEqual(new Date('2026-11-01T08:30:00Z'));
  });

  it('reads frontmatter text through parseInstant as before, in any zone', () => {
    const next = random(33);
    for (let i = 0; i < 400; i++) {
      const zone = ZONES[Math.floor(next() * ZONES.length)] as string;
      const year = FIRST_YEAR + Math.floor(next() * (LAST_YEAR - FIRST_YEAR + 1));
      const text = `${year}-${pad(1 + Math.floor(next() * 12))}-${pad(1 + Math.floor(next() * 28))} ${pad(Math.floor(next() * 24))}:${pad(Math.floor(next() * 60))}`;
      const moment = readMomentText(text);
      const want = moment?.kind === 'clock' ? oracleFromWallClock(moment.clock, zone)?.getTime() : undefined;
      expect([zone, text, parseInstant(text, zone)?.getTime()]).toEqual([zone, text, want]);
    }
  });
});
