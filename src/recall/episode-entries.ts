import type { Note, Section } from '../core/types.js';
import { declareFacet } from '../indexing/trackers.js';
import type { VaultIndex } from '../indexing/vault-index.js';
import { isJournalSection } from '../vault/markdown/journal-items.js';

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Older first: by date, then time, then note path, then place in the note. Never by block id:
 * `^e10` sorts before `^e2` as a string, and ingested entries carry hash ids, so entries written
 * within the same minute would come out of order.
 */
function byWhen(a: { note: Note; section: Section }, b: { note: Note; section: Section }): number {
  return (
    compare(a.section.date ?? '', b.section.date ?? '') ||
    compare(a.section.time ?? '', b.section.time ?? '') ||
    compare(a.note.path, b.note.path) ||
    a.section.start - b.section.start
  );
}

const isEpisode = (note: Note) => note.layer === 'episodes';
// Declared so that a save keeps it and an open restores it instead of scanning every note.
declareFacet('episodes', isEpisode);

/**
 * An entry of a day: one of mem's (a dated block with its `^id`), or a section of the person's
 * own daily note (their headings, paragraphs, lists and tasks, whatever their daily format): a
 * journal written by hand is memory by date as much as what mem wrote into it.
 */
export const isDayEntry = (note: Note, section: Section): boolean =>
  (section.kind === 'block' && section.date !== undefined) || isJournalSection(note, section);

/**
 * Every dated episode entry (mem's and the person's, see isDayEntry), newest first, retired notes
 * included (callers filter): one pass over
 * the episode notes (a facet, not a scan of every note) each time one of them changes, instead of
 * one per question.
 */
export function entriesNewestFirst(index: VaultIndex): Array<{ note: Note; section: Section }> {
  const episodes = index.facet('episodes', isEpisode);
  return index.viewOf('episode-entries', episodes, () => {
    const entries: Array<{ note: Note; section: Section }> = [];
    for (const note of episodes.notes.values()) {
      for (const section of note.sections) {
        if (isDayEntry(note, section)) entries.push({ note, section });
      }
    }
    return entries.sort((a, b) => byWhen(b, a));
  });
}
