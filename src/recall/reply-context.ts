// A reply is about what was said a turn or two before it: "Do you still go to the pottery class?"
// is answered by "Yes, every Sunday since June", which names no pottery. So the entries just after
// a text hit on its day borrow part of its text score, as if each entry were also indexed with the
// words of the entries before it at a third of their weight (done here, at query time, from the
// text hits: the index and its cache stay as they are).
import type { Note, Section } from '../core/types.js';

/** The share of a hit's text score each of the next entries on its day borrows. */
export const CONTEXT_WEIGHT = 1 / 3;
/** How many entries after a hit borrow from it. */
export const CONTEXT_ENTRIES = 2;

export interface Lent {
  note: Note;
  section: Section;
  /** What the entry borrows from the hits before it, summed */
  text: number;
}

/**
 * For text hits of episode entries, what each of the CONTEXT_ENTRIES entries after it on the same
 * day borrows (CONTEXT_WEIGHT of the hit's text score), summed over the hits before it, by section id.
 */
export function contextLent(
  hits: Iterable<{ note: Note; section: Section; text: number }>,
): Map<string, Lent> {
  const lent = new Map<string, Lent>();
  for (const hit of hits) {
    if (hit.section.kind !== 'block' || hit.note.layer !== 'episodes' || hit.text <= 0) continue;
    const sections = hit.note.sections;
    let steps = 0;
    for (let i = sections.indexOf(hit.section) + 1; i < sections.length && steps < CONTEXT_ENTRIES; i++) {
      const next = sections[i] as Section;
      if (next.kind !== 'block') continue;
      steps++;
      if (next.date !== hit.section.date) break;
      const entry = lent.get(next.id) ?? { note: hit.note, section: next, text: 0 };
      entry.text += CONTEXT_WEIGHT * hit.text;
      lent.set(next.id, entry);
    }
  }
  return lent;
}
