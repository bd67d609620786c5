import { MemError } from '../core/errors.js';

export function parsePositiveInt(value: string, name: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0)
    throw new MemError('USAGE', `${name} must be a positive whole number, got "${value}"`);
  return n;
}

/**
 * Checks an ISO 8601 time given as option `name` (`--now`, `--at`), which the error names, and
 * returns it as text: the vault reads it in its own time zone when it names no offset (here it
 * would be read in the machine's, and a daemon may run elsewhere).
 */
export function parseNow(value: string | undefined, name = '--now'): string | undefined {
  if (value === undefined) return undefined;
  if (!Number.isFinite(Date.parse(value)))
    throw new MemError('USAGE', `${name} must be an ISO 8601 date or time, got "${value}"`);
  return value;
}

export function parseDay(value: string | undefined, name: string): string | undefined {
  if (value === undefined) return undefined;
  // Date.parse rolls 2026-02-30 over to March; a real day formats back to the same string.
  const time = Date.parse(`${value}T00:00:00Z`);
  if (
    !/^\d{4}-\d{2}-\d{2}$/.test(value) ||
    !Number.isFinite(time) ||
    new Date(time).toISOString().slice(0, 10) !== value
  ) {
    throw new MemError('USAGE', `${name} must be a date YYYY-MM-DD, got "${value}"`);
  }
  return value;
}

/** `--from` and `--to` as an inclusive range of days (an open end reaches the first or last day), or undefined. */
export function parseDayRange(
  from: string | undefined,
  to: string | undefined,
): { from: string; to: string } | undefined {
  const first = parseDay(from, '--from');
  const last = parseDay(to, '--to');
  if (first === undefined && last === undefined) return undefined;
  // YYYY-MM-DD strings sort as the days they name.
  if (first !== undefined && last !== undefined && first > last) {
    throw new MemError('USAGE', `--from ${first} is after --to ${last}`);
  }
  return { from: first ?? '0000-01-01', to: last ?? '9999-12-31' };
}
