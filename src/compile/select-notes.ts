// Which notes and entries compile considers, as views of the index kept until what they are made of
// changes.

import type { Note, Section } from '../core/types.js';
import { declareFacet } from '../indexing/trackers.js';
import type { VaultIndex } from '../indexing/vault-index.js';
import { entriesNewestFirst } from '../recall/episode-entries.js';
import { userNotePath } from '../vault/layout.js';
import { isRetired } from '../vault/section-facts.js';

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

const isPersona = (n: Note) =>
  !isRetired(n) && (n.layer === 'persona' || (isPinned(n) && n.layer !== 'profile'));
// Declared so that a save keeps it and an open restores it instead of scanning every note.
declareFacet('persona', isPersona);

const isImportant = (n: Note) => isPinned(n) || Number(n.frontmatter['importance']) >= 0.9;

/**
 * The profile notes that are core under some layout: pinned, important, or a `user.md`. A test of
 * the note alone, so it is declared and the cache keeps it. Undeclared, the first compile of every
 * process scanned the vault for it, decoding every note (3.5 s of CPU at 100,000 notes).
 */
const mayBeCoreProfile = (n: Note) =>
  n.layer === 'profile' &&
  !isRetired(n) &&
  (isImportant(n) || n.path === 'user.md' || n.path.endsWith('/user.md'));
declareFacet('core-profile', mayBeCoreProfile);

export function personaNotes(index: VaultIndex): Note[] {
  const facet = index.facet('persona', isPersona);
  return index.viewOf('compile:persona', facet, () => [...facet.notes.values()].sort(byOrder));
}

/** `profile/user.md` first, then other pinned or high-importance profile notes by path. */
export function coreProfileNotes(index: VaultIndex): Note[] {
  const userPath = userNotePath(index.layout);
  const facet = index.facet('core-profile', mayBeCoreProfile);
  return index.viewOf('compile:core-profile', facet, () =>
    [...facet.notes.values()]
      // Core under this layout: its own user note, or pinned or important.
      .filter((n) => n.path === userPath || isImportant(n))
      .sort((a, b) => (a.path === userPath ? -1 : b.path === userPath ? 1 : byOrder(a, b))),
  );
}

/**
 * The newest entries up to `today`, newest first. Entries on or before `after` (the last day of the
 * rollups, fold-rollups.ts) are left out: the rollups stand in for them.
 */
export function recentEntries(
  index: VaultIndex,
  count: number,
  today: string,
  after = '',
): Array<{ note: Note; section: Section }> {
  const recent: Array<{ note: Note; section: Section }> = [];
  // Entries dated after the turn's moment are not "recent" for it (replays and evaluations).
  for (const entry of entriesNewestFirst(index, { to: today })) {
    const date = entry.section.date ?? '';
    if (date <= after) break;
    // A day's section that is only its template's text (an empty `## Plan`) is no memory.
    if (isRetired(entry.note) || index.isTemplateSection(entry.section)) continue;
    recent.push(entry);
    if (recent.length >= count) break;
  }
  return recent;
}
