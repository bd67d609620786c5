// The sections closest in meaning to a query that recall admits (its layers, its date range, not
// retired): from the vector cache's top-k when it can say, else one pass over every section.
import type { Note, Section } from '../core/types.js';
import { TopHeap } from '../indexing/text/top-heap.js';
import type { VaultIndex } from '../indexing/vault-index.js';
import type { SemanticInput } from './semantic.js';

export type Close = { note: Note; section: Section; score: number };

/**
 * The `limit` admitted sections closest in meaning to the query, best first, each with its cosine:
 * from the vector cache's top-k (`nearest`) when that can say, else from every section.
 */
export function closestAdmitted(
  index: VaultIndex,
  semantic: SemanticInput,
  admit: (note: Note, date: string | undefined, section: Section) => boolean,
  limit: number,
): Close[] {
  return nearestAdmitted(index, semantic, admit, limit) ?? scanAll(index, semantic, admit, limit);
}

/**
 * The `limit` admitted sections closest in meaning, from the vector cache's top-k: undefined when
 * the input cannot say (no `nearest`), or when too few of what it found are admitted (a date range
 * or a layer filter that the closest vectors miss) while more were there: then every section is
 * scored.
 */
function nearestAdmitted(
  index: VaultIndex,
  semantic: SemanticInput,
  admit: (note: Note, date: string | undefined, section: Section) => boolean,
  limit: number,
): Close[] | undefined {
  if (!semantic.nearest) return undefined;
  const asked = limit * 4;
  const found = semantic.nearest(asked);
  const closest: Close[] = [];
  for (const { id, score } of found) {
    if (score <= 0) break;
    const hit = index.section(id);
    if (!hit || !admit(hit.note, hit.section.date, hit.section)) continue;
    closest.push({ ...hit, score });
    if (closest.length === limit) return closest;
  }
  return found.length >= asked ? undefined : closest;
}

/** One pass over every section with a vector: the `limit` closest in a heap (no sort of them all). */
function scanAll(
  index: VaultIndex,
  semantic: SemanticInput,
  admit: (note: Note, date: string | undefined, section: Section) => boolean,
  limit: number,
): Close[] {
  const ids: string[] = [];
  const found: Array<{ note: Note; section: Section }> = [];
  const heap = new TopHeap(limit, (doc) => ids[doc]);
  for (const note of index.notes.values()) {
    for (const section of note.sections) {
      const value = semantic.similarity(section);
      if (value === undefined || value <= 0 || !admit(note, section.date, section)) continue;
      const doc = ids.length;
      ids.push(section.id);
      found.push({ note, section });
      if (heap.admits(doc, value)) heap.push(doc, value);
    }
  }
  return heap
    .sorted()
    .map(({ doc, score }) => ({ ...(found[doc] as { note: Note; section: Section }), score }));
}
