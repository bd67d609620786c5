// The periods rollups summarise, from a week to a year, and how they nest: a week's days, a month's
// weeks, a quarter's months, a year's quarters. Each level folds the one below (cascade folding).
import {
  addDays,
  isoWeekOf,
  monthOf,
  type Period,
  parseIsoDay,
  periodDays,
  quarterOf,
  yearOf,
} from './calendar-day.js';

export type { Period } from './calendar-day.js';

/** Rollup levels, finest first: each is built from the one before it. */
export const ROLLUP_LEVELS = ['week', 'month', 'quarter', 'year'] as const;
export type RollupLevel = (typeof ROLLUP_LEVELS)[number];

const FOLDERS: Record<RollupLevel, string> = {
  week: 'weekly',
  month: 'monthly',
  quarter: 'quarterly',
  year: 'yearly',
};

const PATTERNS: Record<RollupLevel, RegExp> = {
  week: /^\d{4}-W\d{2}$/,
  month: /^\d{4}-\d{2}$/,
  quarter: /^\d{4}-Q[1-4]$/,
  year: /^\d{4}$/,
};

/** The level of a period name (`2026-W47` → week, `2026-11` → month, `2026-Q4`, `2026`); undefined for anything else. */
export function rollupLevel(period: unknown): RollupLevel | undefined {
  const text = typeof period === 'number' ? String(period) : period;
  if (typeof text !== 'string') return undefined;
  return ROLLUP_LEVELS.find((level) => PATTERNS[level].test(text));
}

/**
 * Parses a rollup's `period` (an ISO week, a month, a quarter or a year); undefined for anything
 * else. A year written unquoted in YAML (`period: 2026`) reads as a number and counts too.
 */
export function rollupPeriod(period: unknown): Period | undefined {
  const text = typeof period === 'number' ? String(period) : period;
  if (typeof text !== 'string' || !rollupLevel(text)) return undefined;
  return periodDays(text);
}

/**
 * Where the rollup of a period lives: `episodes/weekly/2026-W47.md` … `episodes/yearly/2026.md`,
 * under the layout's episodes folder.
 */
export function rollupPath(period: string, episodes = 'episodes'): string | undefined {
  const level = rollupLevel(period);
  return level && periodDays(period) ? `${episodes}/${FOLDERS[level]}/${period}.md` : undefined;
}

/** The period of `level` that holds a day (`YYYY-MM-DD`); undefined when it is not a date. */
export function periodOf(day: string, level: RollupLevel): string | undefined {
  const date = parseIsoDay(day);
  if (!date) return undefined;
  switch (level) {
    case 'week':
      return isoWeekOf(date);
    case 'month':
      return monthOf(date);
    case 'quarter':
      return quarterOf(date);
    case 'year':
      return yearOf(date);
  }
}

/** The level below (`month` → `week`); undefined for a week, whose parts are days. */
export function levelBelow(level: RollupLevel): RollupLevel | undefined {
  return ROLLUP_LEVELS[ROLLUP_LEVELS.indexOf(level) - 1];
}

/** Every period of `level` that holds one of the days `from`..`to`, oldest first. */
export function periodsBetween(from: string, to: string, level: RollupLevel): string[] {
  const periods: string[] = [];
  for (let day = from; day <= to; ) {
    const period = periodOf(day, level);
    const days = period ? periodDays(period) : undefined;
    if (!period || !days) break;
    periods.push(period);
    day = addDays(days.to, 1);
  }
  return periods;
}

/** True when `inner`'s days all lie inside `outer`'s. */
export function within(inner: Period, outer: Period): boolean {
  return inner.from >= outer.from && inner.to <= outer.to;
}

/** True when the two periods share a day. */
export function overlaps(a: Period, b: Period): boolean {
  return a.from <= b.to && b.from <= a.to;
}
