// A text index that takes a chat turn's entries as appends (only the new sections become
// documents, their ids checked against the note's) answers as one that added every version whole:
// for two day notes appended to in turn, where the ids the index remembers for one note must never
// stand in for the other's, and for a version whose new section repeats an id, which is not an append.
import { describe, expect, it } from 'vitest';
import type { Note } from '../../src/core/types.js';
import { TextIndex } from '../../src/indexing/text/text-index.js';
import { parseNote } from '../../src/vault/markdown/parse-note.js';
import { random } from '../helpers/day-notes.js';

const DAYS = ['episodes/daily/2026-11-29.md', 'episodes/daily/2026-11-30.md'];
const WORDS = ['pottery', 'quokka', 'tea', '杭州', '吃饭', 'Mia', 'knee', 'Sunday'];

// The sections found and the words each matched (scores count discarded sections until a vacuum).
const answers = (index: TextIndex) =>
  JSON.stringify(
    [...WORDS, 'pottery tea', '杭州 Mia'].map((q) =>
      index
        .search(q)
        .map((h) => `${h.id} ${[...h.terms].sort().join(',')}`)
        .sort(),
    ),
  );

describe('a text index that takes entries as appends', () => {
  it('answers as one that added each version whole, for two notes appended to in turn', () => {
    for (let seed = 1; seed <= 30; seed++) {
      const r = random(7000 + seed);
      const live = new TextIndex();
      const texts = DAYS.map((path) => `# ${path.slice(15, 25)}\n\n`);
      const notes: Note[] = DAYS.map((path, k) => parseNote(path, texts[k]!));
      for (const note of notes) live.add(note);
      for (let step = 1; step <= 24; step++) {
        const k = r.int(0, 1);
        const path = DAYS[k]!;
        const words = Array.from({ length: r.int(1, 4) }, () => r.pick(WORDS)).join(' ');
        texts[k] += `- ${String(9 + (step % 12)).padStart(2, '0')}:00 ${words} ^e${step}\n`;
        let next = parseNote(path, texts[k]!);
        // Now and then a version whose last section takes an id the note has: not an append.
        const repeats = r.chance(0.15) && next.sections.length > 2;
        if (repeats) {
          const last = next.sections.at(-1)!;
          const taken = r.pick(next.sections.slice(0, -1)).id;
          next = { ...next, sections: [...next.sections.slice(0, -1), { ...last, id: taken }] };
        }
        const check = (label: string) => {
          const whole = new TextIndex();
          for (const note of notes) whole.add(note);
          expect(answers(live), `seed ${seed} step ${step} ${label}`).toBe(answers(whole));
        };
        live.replace(next, notes[k]);
        notes[k] = next;
        check('');
        if (repeats) {
          // The note as its text has it, after the version that repeated an id.
          notes[k] = parseNote(path, texts[k]!);
          live.replace(notes[k]!, next);
          check('(read again)');
        }
      }
    }
  });
});
