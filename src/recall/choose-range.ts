import type { Note } from '../core/types.js';
import { declareTally, sectionKeys } from '../indexing/trackers.js';
import type { VaultIndex } from '../indexing/vault-index.js';
import { addDays } from '../time/calendar-day.js';
import { parseTimeRange } from '../time/time-range.js';
import type { DateRange } from './recall.js';

/** The episode date range a turn was narrowed to, and why, as the JSON output reports it. */
export interface AppliedRange extends DateRange {
  source: 'message' | 'explicit';
  /** The words read as a time (`上周末`), when the range came from the message */
  expression?: string;
  /** The message asks about nothing but that time: the newest entries of the range answer it */
  onlyTime: boolean;
  /**
   * The message without its time words (`上周末去哪了` → `去哪了`): what to search for within the
   * range, since the time words themselves would only match entries that repeat them
   */
  words?: string;
  /** No entry fell inside the range, so it was widened by one day each side */
  widened: boolean;
  /**
   * `filter`: entries outside are left out (explicit ranges, and questions only about a time);
   * `prefer`: they rank far lower, since words like "last weekend" can be misread
   */
  mode: 'filter' | 'prefer';
  reason: string;
}

/** The days of a note's episode entries. */
function* daysOf(note: Note): Iterable<string> {
  if (note.layer !== 'episodes') return;
  for (const section of note.sections) if (section.date) yield section.date;
}
// Declared so that a save keeps it and an open restores it instead of scanning every note.
declareTally('entry-days', sectionKeys(daysOf));

/** The days that have episode entries, sorted; kept until a day gains its first entry or loses its last. */
function entryDays(index: VaultIndex): string[] {
  const tally = index.tally('entry-days', daysOf);
  return index.viewOf('recall:entry-days', tally, () => [...tally.keys.keys()].sort());
}

function hasEntries(index: VaultIndex, range: DateRange): boolean {
  return entryDays(index).some((day) => day >= range.from && day <= range.to);
}

/**
 * An explicit range wins over the time words of the message. A range with no entries at all is
 * widened by one day each side once (people misremember by a day), and says so.
 */
export function chooseRange(
  index: VaultIndex,
  message: string,
  now: Date,
  timeZone: string,
  explicit?: DateRange,
): AppliedRange | undefined {
  let range: AppliedRange;
  if (explicit) {
    range = {
      ...explicit,
      source: 'explicit',
      onlyTime: false,
      widened: false,
      mode: 'filter',
      reason: 'given with --from/--to',
    };
  } else {
    const parsed = parseTimeRange(message, now, timeZone);
    if (!parsed) return undefined;
    range = {
      from: parsed.from,
      to: parsed.to,
      source: 'message',
      expression: parsed.expression,
      onlyTime: parsed.onlyTime,
      words: message.replace(parsed.expression, ' ').trim(),
      widened: false,
      mode: parsed.onlyTime ? 'filter' : 'prefer',
      reason: `"${parsed.expression}" read as ${parsed.from === parsed.to ? parsed.from : `${parsed.from} to ${parsed.to}`}`,
    };
  }
  if (!hasEntries(index, range)) {
    const wider = { from: addDays(range.from, -1), to: addDays(range.to, 1) };
    range = {
      ...range,
      ...wider,
      widened: true,
      reason: `${range.reason}; no entries then, widened to ${wider.from} to ${wider.to}`,
    };
  }
  return range;
}
