// A loaded text index finds a note's sections in its saved documents by path (a binary search over
// each docs segment's notes, saved in path order: cache schema 15), where it made a map of every
// note's ids at its first change. Checked against an index built from the same notes, for paths of
// every kind (CJK, surrogate pairs, case, spaces, `#`, dots) over segments of a few notes each.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TextIndex } from '../../src/indexing/text/text-index.js';
import { parseNote } from '../../src/vault/markdown/parse-note.js';
import { reloaded } from '../helpers/reload-text-index.js';

const note = (path: string, text: string) => parseNote(path, text, { size: text.length, mtimeMs: 0 });

/** Folder and file names as vaults have them: the characters that sort differently by code unit or by code point. */
const name = fc
  .array(
    fc.constantFrom(
      'a',
      'B',
      'z',
      'Z',
      ' ',
      '#',
      '.',
      '-',
      '中',
      '文',
      'é',
      '😀',
      '𝔸',
      '\uff21',
      '日',
      '_',
      '0',
      '9',
    ),
    { minLength: 1, maxLength: 6 },
  )
  .map((chars) => chars.join('').trim() || 'x');
const path = fc
  .tuple(fc.constantFrom('', 'insights/', 'profile/people/', 'episodes/daily/', 'A/', 'é/'), name)
  .map(([folder, file]) => `${folder}${file}.md`);

const body = (words: string[], k: number) =>
  `# ${words[k % words.length]}\n\nfirst ${words.join(' ')}\n\n## 二 ${k}\n\nsecond 苹果 ${k}\n`;

type Step = { kind: 'put' | 'remove'; path: string; words: string[] };

describe('a loaded text index finds a note by its path in the saved documents', () => {
  it('answers has(), search and changes as an index built from the same notes', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(path, { minLength: 1, maxLength: 24 }),
        fc.array(
          fc.record({
            kind: fc.constantFrom<Step['kind']>('put', 'remove'),
            at: fc.nat(),
            fresh: path,
            words: fc.array(fc.constantFrom('coffee', 'walk', '猫', 'rain', 'tea'), {
              minLength: 1,
              maxLength: 3,
            }),
          }),
          { maxLength: 12 },
        ),
        fc.integer({ min: 150, max: 3000 }),
        (saved, changes, segment) => {
          const built = new TextIndex();
          const truth = new TextIndex();
          saved.forEach((p, k) => {
            built.add(note(p, body(['coffee', 'rain'], k)));
            truth.add(note(p, body(['coffee', 'rain'], k)));
          });
          const loaded = reloaded(built, { segment, record: 64 });
          const steps: Step[] = changes.map((c) => ({
            kind: c.kind,
            path: c.at % 3 === 0 ? c.fresh : (saved[c.at % saved.length] as string),
            words: c.words,
          }));
          steps.forEach((step, k) => {
            for (const index of [loaded, truth]) {
              if (step.kind === 'remove') index.remove(step.path);
              else index.add(note(step.path, body(step.words, k)));
            }
          });
          for (const p of new Set([...saved, ...steps.map((s) => s.path), 'missing.md', 'A.md', 'a.md']))
            expect(loaded.has(p), p).toBe(truth.has(p));
          for (const query of ['coffee', 'rain', '苹果', 'walk', '猫', 'tea'])
            expect(loaded.search(query).map((h) => [h.id, h.score])).toEqual(
              truth.search(query).map((h) => [h.id, h.score]),
            );
          // Saved again and loaded again: the same notes, still found by path.
          const again = reloaded(loaded, { segment, record: 64 });
          for (const p of new Set([...saved, ...steps.map((s) => s.path)]))
            expect(again.has(p), p).toBe(truth.has(p));
        },
      ),
      { numRuns: 60 },
    );
  });
});
