import type { Note, Section } from '../core/types.js';
import { declareFacet } from '../indexing/trackers.js';
import type { VaultIndex } from '../indexing/vault-index.js';
import { isDayEntry } from '../vault/section-facts.js';

const isEpisode = (note: Note) => note.layer === 'episodes';
// Declared so that a save keeps it and an open restores it instead of scanning every note.
declareFacet('episodes', isEpisode);

/**
 * Where an entry is, as one string that sorts as the entries do: date, time, note path, place in
 * the note (never the block id: `^e10` sorts before `^e2`, and ingested entries carry hash ids),
 * then its position among the note's sections counted down (two sections that start at the same
 * place, a preamble and its first block, keep the note's order once the keys are reversed), then
 * the rest of its section id (`#^e3`). NUL separates the parts: no path, date or time holds one,
 * and it sorts before every other character, so the string order is the order of the parts.
 */
const SEP = '\u0000';
const DIGITS = 12;
const LAST = 10 ** DIGITS - 1;

function entryKey(note: Note, section: Section, k: number): string {
  const start = String(section.start).padStart(DIGITS, '0');
  const down = String(LAST - k).padStart(DIGITS, '0');
  const rest = section.id.slice(note.path.length);
  return `${section.date ?? ''}${SEP}${section.time ?? ''}${SEP}${note.path}${SEP}${start}${SEP}${down}${SEP}${rest}`;
}

/** The note path and the section id of an entry's key. */
function placeOf(key: string): { path: string; id: string } {
  const pathStart = key.indexOf(SEP, key.indexOf(SEP) + 1) + 1;
  const pathEnd = key.indexOf(SEP, pathStart);
  const path = key.slice(pathStart, pathEnd);
  return { path, id: path + key.slice(key.indexOf(SEP, key.indexOf(SEP, pathEnd + 1) + 1) + 1) };
}

const dateOf = (key: string) => key.slice(0, key.indexOf(SEP));

/**
 * The places of every dated episode entry (mem's and the person's, see isDayEntry) as sort keys,
 * newest first, retired notes included: one pass over the episode notes (a facet, not a scan of
 * every note) each time one of them changes. Strings, not notes: a view that held each entry's
 * note kept every episode note decoded, past the vault's bound on decoded notes.
 */
function entryKeysNewestFirst(index: VaultIndex): readonly string[] {
  const episodes = index.facet('episodes', isEpisode);
  return index.viewOf('episode-entries', episodes, () => {
    const keys: string[] = [];
    for (const note of episodes.notes.values()) {
      note.sections.forEach((section, k) => {
        if (isDayEntry(note, section)) keys.push(entryKey(note, section, k));
      });
    }
    return keys.sort().reverse();
  });
}

/** The date of the oldest dated episode entry, `undefined` when there is none. */
export function oldestEntryDate(index: VaultIndex): string | undefined {
  const keys = entryKeysNewestFirst(index);
  const last = keys[keys.length - 1];
  return last === undefined ? undefined : dateOf(last) || undefined;
}

/**
 * Every dated episode entry with its note, newest first, retired notes included (callers filter);
 * with `range`, only those dated within it (inclusive `YYYY-MM-DD`). Each is found by its section
 * id as the caller reaches it: a caller that stops early decodes only what it took.
 */
export function* entriesNewestFirst(
  index: VaultIndex,
  range: { from?: string; to?: string } = {},
): Generator<{ note: Note; section: Section }> {
  const keys = entryKeysNewestFirst(index);
  // A key starts with its date: the entries after `to` are the keys above `to` and anything after
  // it, skipped by a binary search; those before `from` are the keys below `from`.
  const after = range.to === undefined ? undefined : `${range.to}\uffff`;
  let lo = 0;
  for (let hi = keys.length; after !== undefined && lo < hi; ) {
    const mid = (lo + hi) >>> 1;
    if ((keys[mid] as string) > after) lo = mid + 1;
    else hi = mid;
  }
  for (let k = lo; k < keys.length; k++) {
    const key = keys[k] as string;
    if (range.from !== undefined && key < range.from) return;
    const { path, id } = placeOf(key);
    const found = index.sectionIn(path, id);
    if (found) yield found;
  }
}
