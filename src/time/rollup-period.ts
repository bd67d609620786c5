// The days a rollup note covers: `2026-W47` (an ISO week) or `2026-11` (a month).
import { type Period, periodDays } from './calendar-day.js';

export type { Period } from './calendar-day.js';

/** Parses a rollup's `period` (an ISO week or a month); undefined for anything else. */
export function rollupPeriod(period: unknown): Period | undefined {
  if (typeof period !== 'string' || !/^\d{4}-(?:W\d{2}|\d{2})$/.test(period)) return undefined;
  return periodDays(period);
}
