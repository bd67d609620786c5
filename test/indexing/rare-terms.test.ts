// A query term's rarity weight (TextSearchOptions.rareTerms) sets how many sections hold it against
// how many there are. Sections replaced or removed keep their postings until a vacuum and so count
// in the first number: they must count in the second too, or a term of most sections weighs less
// than nothing. A recall after a note's title was edited between sessions scored every hit 0.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TextIndex } from '../../src/indexing/text/text-index.js';
import { parseNote } from '../../src/vault/markdown/parse-note.js';

const WORDS = ['coffee', 'tea', 'rain', 'umbrella', 'library'];
const PATHS = ['profile/a.md', 'profile/b.md', 'insights/c.md', 'episodes/daily/2026-11-20.md'];

const text = fc
  .array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 4 })
  .map((words) => `# ${words[0]}\n\n${words.join(' ')}.\n\n## More\n\n${words.slice(1).join(' ')} again.\n`);
const step = fc.record({ path: fc.constantFrom(...PATHS), text: fc.option(text, { nil: undefined }) });

describe("a query term's rarity", () => {
  it('weighs every term above nothing, however many sections were replaced or removed', () => {
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 30 }), (steps) => {
        const index = new TextIndex();
        const notes = new Map<string, ReturnType<typeof parseNote>>();
        for (const { path, text: written } of steps) {
          const previous = notes.get(path);
          if (written === undefined) {
            index.remove(path);
            notes.delete(path);
            continue;
          }
          const note = parseNote(path, written);
          index.replace(note, previous);
          notes.set(path, note);
        }
        for (const word of WORDS) {
          const plain = new Map(index.search(word).map((hit) => [hit.id, hit.score]));
          const rare = index.search(word, { rareTerms: true });
          expect(rare.map((hit) => hit.id).sort()).toEqual([...plain.keys()].sort());
          // One term: its weight scales every score alike, so a weight above 0 keeps the order (up
          // to the last bit: two equal scores scaled may come out a rounding apart, and swap).
          rare.forEach((hit, k) => {
            expect(hit.score).toBeGreaterThan(0);
            const next = rare[k + 1];
            if (next)
              expect(plain.get(hit.id) as number).toBeGreaterThanOrEqual(
                (plain.get(next.id) as number) * (1 - 1e-12),
              );
          });
        }
      }),
    );
  });
});
