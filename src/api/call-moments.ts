import { expectOptions } from '../core/errors.js';
import { type Moment, toInstant } from '../time/parse-instant.js';

/**
 * `now` and `at` of a verb's options as Dates: text is read in the vault's time zone `zone`. Every
 * verb that takes a moment passes its options through here first, so this is also where they are
 * refused when they are no object (`name`, as the message names them: `compile options`).
 */
export function instants<T extends { now?: unknown; at?: unknown }>(
  zone: string,
  options: T,
  name = 'options',
): T & { now?: Date; at?: Date } {
  expectOptions(options, name);
  const out = { ...options } as T & { now?: Date; at?: Date };
  if ('now' in options) out.now = toInstant(options.now as Moment | undefined, zone, 'now');
  if ('at' in options) out.at = toInstant(options.at as Moment | undefined, zone, 'at');
  return out;
}

/**
 * instants(), with `now` left out read from the clock here: the one `now` default of the verbs
 * that take one (recall, compile, forget and forget --stale, note creation, import, reflect,
 * rollup), so the engines below are handed the moment instead of each reading the clock: their
 * `now` is a required parameter. (`at`, when it happened, keeps its own meaning when absent:
 * remember and ingest place an entry given no time differently.)
 */
export function withNow<T extends { now?: unknown; at?: unknown }>(
  zone: string,
  options: T,
  name = 'options',
): T & { now: Date; at?: Date } {
  const out = instants(zone, options, name);
  return { ...out, now: out.now ?? new Date() };
}
