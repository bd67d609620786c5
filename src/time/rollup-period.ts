// The days a rollup note covers: `2026-W47` (an ISO week) or `2026-11` (a month).
import { dayFromYmd, formatDay, isValidYmd, mondayOf } from './zoned-date.js';

export interface Period {
  /** First day, `YYYY-MM-DD` */
  from: string;
  /** Last day, `YYYY-MM-DD` */
  to: string;
}

/** Parses a rollup's `period`; undefined for anything else. */
export function rollupPeriod(period: unknown): Period | undefined {
  if (typeof period !== 'string') return undefined;
  const week = /^(\d{4})-W(\d{2})$/.exec(period);
  if (week) {
    const year = Number(week[1]);
    const n = Number(week[2]);
    // ISO week 1 is the week that holds 4 January.
    const monday = mondayOf(dayFromYmd(year, 1, 4)) + (n - 1) * 7;
    if (n < 1 || n > 53 || formatDay(mondayOf(dayFromYmd(year, 12, 28))) < formatDay(monday))
      return undefined;
    return { from: formatDay(monday), to: formatDay(monday + 6) };
  }
  const month = /^(\d{4})-(\d{2})$/.exec(period);
  if (month) {
    const year = Number(month[1]);
    const m = Number(month[2]);
    if (!isValidYmd(year, m, 1)) return undefined;
    const next = m === 12 ? dayFromYmd(year + 1, 1, 1) : dayFromYmd(year, m + 1, 1);
    return { from: formatDay(dayFromYmd(year, m, 1)), to: formatDay(next - 1) };
  }
  return undefined;
}
