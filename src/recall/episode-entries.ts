import type { Note, Section } from '../core/types.js';
import type { VaultIndex } from '../indexing/vault-index.js';

/**
 * Every dated episode entry, newest first, retired notes included (callers filter): one scan per
 * change of the vault instead of one per question.
 */
export function entriesNewestFirst(index: VaultIndex): Array<{ note: Note; section: Section }> {
  return index.view('episode-entries', () => {
    const entries: Array<{ note: Note; section: Section; key: string }> = [];
    for (const note of index.notes.values()) {
      if (note.layer !== 'episodes') continue;
      for (const section of note.sections) {
        if (section.kind === 'block' && section.date) {
          entries.push({ note, section, key: `${section.date} ${section.time ?? ''} ${section.id}` });
        }
      }
    }
    return entries.sort((a, b) => (a.key < b.key ? 1 : a.key > b.key ? -1 : 0));
  });
}
