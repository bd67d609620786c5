// Where a zone's UTC offset holds still, learned once per zone and year instead of asked of Temporal
// for every clock reading: recall reads a vault's entry times (three per day it has notes for) and
// each `PlainDateTime.toZonedDateTime` costs about 14 µs in the polyfill, some 4% of a fresh query at
// 10k notes. The ranges come from Temporal itself (the offset at an instant and the zone's next
// transition), so they agree with its offsets by construction; a clock reading near a transition is
// left to Temporal (fromWallClock in zoned-date.ts), which keeps its rule for gaps and overlaps.

import { Temporal } from 'temporal-polyfill';

const DAY_MS = 86_400_000;
/** The span learned at a time, from a multiple of it: a year's transitions are a few calls. */
const CELL_MS = 366 * DAY_MS;
/**
 * How far past a cell a walk goes, so that every window starting in the cell (at most this long)
 * is either inside one range or across a real transition.
 */
const WINDOW_MAX_MS = 8 * DAY_MS;
/**
 * How long a zone is known to keep its offset when Temporal finds no next transition: the polyfill
 * looks at least three years ahead before it answers none (fixed zones: never any).
 */
const QUIET_MS = 2 * 365 * DAY_MS;
/** Outside these years a clock reading goes to Temporal (whose transition search starts in 1843). */
const FIRST_MS = Date.UTC(1900, 0, 1);
const LAST_MS = Date.UTC(9999, 11, 31);

/** `[start, end)` in epoch ms, throughout which the zone's offset is `offsetMs` */
interface Steady {
  start: number;
  end: number;
  offsetMs: number;
}

interface ZoneRanges {
  /**
   * Each cell walked (by its index), with the ranges its walk found: they run without a break from
   * the cell's start to past its end, so a window starting in the cell that none of them holds
   * crosses a transition.
   */
  cells: Map<number, Steady[]>;
  /** The range the last lookup found; entries come day by day, so it usually holds the next. */
  last: Steady | undefined;
}

const zones = new Map<string, ZoneRanges>();

/** The ranges from `from` to past the cell's end, each the offset from an instant to the next transition. */
function walkCell(from: number, timeZone: string): Steady[] {
  const ranges: Steady[] = [];
  const stop = from + CELL_MS + WINDOW_MAX_MS;
  let at = from;
  while (at < stop) {
    const here = Temporal.Instant.fromEpochMilliseconds(at).toZonedDateTimeISO(timeZone);
    const offsetMs = here.offsetNanoseconds / 1_000_000;
    const next = here.getTimeZoneTransition('next');
    const end = next ? next.epochMilliseconds : at + QUIET_MS;
    if (!(end > at)) break;
    const previous = ranges.at(-1);
    if (previous && previous.offsetMs === offsetMs) previous.end = end;
    else ranges.push({ start: at, end, offsetMs });
    at = end;
  }
  return ranges;
}

function holds(range: Steady | undefined, from: number, to: number): range is Steady {
  return range !== undefined && range.start <= from && to < range.end;
}

/**
 * The offset (ms) `timeZone` has at every instant from `from` to `to` (epoch ms, inclusive, at most
 * WINDOW_MAX_MS apart), or undefined when it changes between them or the years are out of reach.
 * Throws what Temporal throws for a zone it does not know.
 */
export function steadyOffset(timeZone: string, from: number, to: number): number | undefined {
  if (!(from >= FIRST_MS && to <= LAST_MS && to - from <= WINDOW_MAX_MS)) return undefined;
  let zone = zones.get(timeZone);
  if (!zone) {
    zone = { cells: new Map(), last: undefined };
    zones.set(timeZone, zone);
  }
  if (holds(zone.last, from, to)) return zone.last.offsetMs;
  const cell = Math.floor(from / CELL_MS);
  let ranges = zone.cells.get(cell);
  if (!ranges) {
    ranges = walkCell(cell * CELL_MS, timeZone);
    zone.cells.set(cell, ranges);
  }
  const range = ranges.find((r) => holds(r, from, to));
  if (range) zone.last = range;
  return range?.offsetMs;
}
