// Which notes and entries compile considers, as views of the index kept until the vault changes.

import type { Note, Section } from '../core/types.js';
import type { VaultIndex } from '../indexing/vault-index.js';
import { entriesNewestFirst } from '../recall/episode-entries.js';
import { isRetired } from '../recall/rank.js';
import { addDays } from '../time/calendar-day.js';
import { parseInstant } from '../time/parse-instant.js';
import { type Period, rollupPeriod } from '../time/rollup-period.js';
import { dayOf } from '../time/zoned-date.js';

const byPath = (a: Note, b: Note) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);

function numberKey(note: Note, key: string, fallback: number): number {
  const value = note.frontmatter[key];
  return typeof value === 'number' && Number.isFinite(value) ? value : fallback;
}

/** Frontmatter `order` first (lowest first), then importance (highest first), then path: stable across turns. */
const byOrder = (a: Note, b: Note) =>
  numberKey(a, 'order', Number.MAX_SAFE_INTEGER) - numberKey(b, 'order', Number.MAX_SAFE_INTEGER) ||
  numberKey(b, 'importance', 0) - numberKey(a, 'importance', 0) ||
  byPath(a, b);

function isPinned(note: Note): boolean {
  return note.frontmatter['pinned'] === true;
}

export function personaNotes(index: VaultIndex): Note[] {
  return index.view('compile:persona', () =>
    [...index.notes.values()]
      .filter((n) => !isRetired(n) && (n.layer === 'persona' || (isPinned(n) && n.layer !== 'profile')))
      .sort(byOrder),
  );
}

/** `profile/user.md` first, then other pinned or high-importance profile notes by path. */
export function coreProfileNotes(index: VaultIndex): Note[] {
  return index.view('compile:core-profile', () =>
    [...index.notes.values()]
      .filter(
        (n) =>
          n.layer === 'profile' &&
          !isRetired(n) &&
          (n.path === 'profile/user.md' || isPinned(n) || Number(n.frontmatter['importance']) >= 0.9),
      )
      .sort((a, b) => (a.path === 'profile/user.md' ? -1 : b.path === 'profile/user.md' ? 1 : byOrder(a, b))),
  );
}

/**
 * The newest entries up to `today`, newest first. Entries on or before `after` (the last day of the
 * newest rollup) are left out: the rollup stands in for them.
 */
export function recentEntries(
  index: VaultIndex,
  count: number,
  today: string,
  after = '',
): Array<{ note: Note; section: Section }> {
  const recent: Array<{ note: Note; section: Section }> = [];
  for (const entry of entriesNewestFirst(index)) {
    if (isRetired(entry.note)) continue;
    const date = entry.section.date ?? '';
    // Entries dated after the turn's moment are not "recent" for it (replays and evaluations).
    if (date > today) continue;
    if (date <= after) break;
    recent.push(entry);
    if (recent.length >= count) break;
  }
  return recent;
}

/** Rollup notes (weekly, monthly summaries written by reflect or by hand) with the days they cover. */
function rollups(index: VaultIndex): Array<{ note: Note; period: Period }> {
  return index.view('compile:rollups', () =>
    [...index.notes.values()]
      .filter((n) => n.layer === 'episodes' && !isRetired(n) && n.frontmatter['type'] === 'rollup')
      .flatMap((note) => {
        const period = rollupPeriod(note.frontmatter['period']);
        return period ? [{ note, period }] : [];
      })
      .sort((a, b) =>
        a.period.to === b.period.to
          ? a.note.path < b.note.path
            ? -1
            : 1
          : a.period.to < b.period.to
            ? 1
            : -1,
      ),
  );
}

/**
 * The rollup that ends last before `today`, if any, and the last day it stands in for: the end of
 * its period, or the day before it was written if that came first (a summary written mid-period
 * cannot speak for the days after it). The day it was written is the day of `created` in `timeZone`.
 */
export function latestRollup(
  index: VaultIndex,
  today: string,
  timeZone: string,
): { note: Note; period: Period; covers: string } | undefined {
  const found = rollups(index).find((r) => r.period.to < today);
  if (!found) return undefined;
  const created = parseInstant(String(found.note.frontmatter['created'] ?? ''), timeZone);
  const dayBefore = created ? addDays(dayOf(created, timeZone), -1) : found.period.to;
  // The earlier of the two days (ISO dates compare as strings).
  const [covers = found.period.to] = [dayBefore, found.period.to].sort();
  return { ...found, covers };
}
