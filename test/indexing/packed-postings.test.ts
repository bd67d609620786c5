import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PackedPostings } from '../../src/indexing/text/packed-postings.js';
import type { TermIndex } from '../../src/indexing/text/term-index.js';
import { TextIndex } from '../../src/indexing/text/text-index.js';
import { parseNote } from '../../src/vault/markdown/parse-note.js';

const note = (path: string, text: string) => parseNote(path, text, { size: text.length, mtimeMs: 0 });

type Op =
  | { op: 'append'; gap: number; freq: number }
  | { op: 'set'; pick: number; freq: number }
  | { op: 'delete'; pick: number }
  | { op: 'get'; pick: number }
  | { op: 'iterate' };

/**
 * Frequencies of every width the arrays hold them in (a byte, two, four) and at their edges, and
 * values no array holds (0, past 2^32 - 1, a fraction), which make the postings a plain Map.
 */
const frequency = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: 1, max: 9 }) },
  { weight: 2, arbitrary: fc.integer({ min: 250, max: 260 }) },
  { weight: 2, arbitrary: fc.integer({ min: 65_530, max: 65_540 }) },
  { weight: 1, arbitrary: fc.constantFrom(0xffff_fffe, 0xffff_ffff) },
  { weight: 1, arbitrary: fc.constantFrom(0, 2 ** 32, 1.5) },
);

const ops = fc.array(
  fc.oneof(
    fc.record({
      op: fc.constant('append' as const),
      gap: fc.integer({ min: 1, max: 5 }),
      freq: frequency,
    }),
    fc.record({ op: fc.constant('set' as const), pick: fc.nat(), freq: frequency }),
    fc.record({ op: fc.constant('delete' as const), pick: fc.nat() }),
    fc.record({ op: fc.constant('get' as const), pick: fc.nat() }),
    fc.record({ op: fc.constant('iterate' as const) }),
  ),
  { maxLength: 80 },
);

describe('PackedPostings', () => {
  it('behaves as the Map it was packed from, whatever is done to it', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 40 }), ops, (initial, steps: Op[]) => {
        const map = new Map<number, number>();
        for (let i = 0; i < initial; i++) map.set(i * 2 + 1, (i % 3) + 1);
        const packed = new PackedPostings(map);
        // Every id ever used, so picks hit live, deleted and unknown ids alike.
        const used = [0, ...map.keys(), 1000];
        let next = initial * 2 + 1;
        for (const step of steps) {
          if (step.op === 'append') {
            next += step.gap;
            used.push(next);
            map.set(next, step.freq);
            packed.set(next, step.freq);
          } else if (step.op === 'set') {
            const id = used[step.pick % used.length] as number;
            map.set(id, step.freq);
            packed.set(id, step.freq);
          } else if (step.op === 'delete') {
            const id = used[step.pick % used.length] as number;
            expect(packed.delete(id)).toBe(map.delete(id));
          } else if (step.op === 'get') {
            const id = used[step.pick % used.length] as number;
            expect(packed.get(id)).toBe(map.get(id));
            expect(packed.has(id)).toBe(map.has(id));
          } else {
            // MiniSearch reads each posting right after iterating to it, and deletes some on the way.
            const seen: [number, number | undefined][] = [];
            for (const id of packed.keys()) seen.push([id, packed.get(id)]);
            expect(seen).toEqual([...map.keys()].map((id) => [id, map.get(id)]));
          }
          expect(packed.size).toBe(map.size);
        }
        expect([...packed]).toEqual([...map]);
        // The arrays a search reads hold the same postings, a deleted one as a frequency of 0.
        const arrays = packed.packed();
        if (arrays) {
          const live = [...Array(arrays.count).keys()]
            .filter((at) => arrays.freqs[at] !== 0)
            .map((at) => [arrays.ids[at], arrays.freqs[at]]);
          expect(live).toEqual([...map]);
        }
        expect([...packed.entries()]).toEqual([...map.entries()]);
        expect([...packed.values()]).toEqual([...map.values()]);
        const each: [number, number][] = [];
        packed.forEach((freq, id) => {
          each.push([id, freq]);
        });
        expect(each).toEqual([...map]);
      }),
    );
  });

  it('holds frequencies in a byte each until one needs two or four', () => {
    const map = new Map<number, number>();
    for (let id = 0; id < 40; id++) map.set(id, 1 + (id % 200));
    const packed = new PackedPostings(map);
    const width = () => packed.packed()?.freqs.BYTES_PER_ELEMENT;
    expect(width()).toBe(1);
    packed.set(40, 255);
    expect(width()).toBe(1);
    packed.set(41, 256);
    expect(width()).toBe(2);
    packed.set(3, 70_000);
    expect(width()).toBe(4);
    for (let id = 42; id < 200; id++) packed.set(id, 1);
    expect([packed.get(40), packed.get(41), packed.get(3), packed.get(199)]).toEqual([255, 256, 70_000, 1]);
    expect(packed.size).toBe(200);
  });

  it('deleting while iterating skips what was deleted, as a Map does', () => {
    const map = new Map([1, 2, 3, 4, 5, 6].map((id) => [id, id] as [number, number]));
    const packed = new PackedPostings(map);
    const seen: number[] = [];
    for (const id of packed.keys()) {
      seen.push(id);
      if (id === 2) {
        packed.delete(3);
        packed.delete(1);
      }
    }
    expect(seen).toEqual([1, 2, 4, 5, 6]);
    expect([...packed.keys()]).toEqual([2, 4, 5, 6]);
  });

  it('only packs Maps whose ids grow and whose values are frequencies', () => {
    expect(
      PackedPostings.canPack(
        new Map([
          [1, 1],
          [5, 2],
        ]),
      ),
    ).toBe(true);
    expect(
      PackedPostings.canPack(
        new Map([
          [5, 1],
          [1, 2],
        ]),
      ),
    ).toBe(false);
    expect(PackedPostings.canPack(new Map([[1, 0]]))).toBe(false);
    expect(PackedPostings.canPack(new Map([[1, 1.5]]))).toBe(false);
  });
});

/** Notes that share common words, so several terms have long posting lists. */
function build(): TextIndex {
  const index = new TextIndex();
  for (let i = 0; i < 120; i++) {
    index.add(
      note(
        `insights/n${i}.md`,
        `# Note ${i}\n\nA walk by the river ${i % 5 === 0 ? 'with obsidian' : ''}; 今天去上海散步。\n\n## Later\n\nNotes on mountains ${i % 7}.\n`,
      ),
    );
  }
  return index;
}

const QUERIES = [
  'walk',
  'river obsidian',
  'obsid',
  'mountain',
  '上海',
  '散步 walk',
  'note 7',
  'rivr',
  'later',
];

function answers(index: TextIndex) {
  return QUERIES.map((query) => index.search(query, { rareTerms: true }));
}

function saved(index: TextIndex): Buffer {
  const pieces = [...index.storeSegments()].map((piece) =>
    typeof piece.data === 'string' ? Buffer.from(piece.data) : Buffer.from(piece.data),
  );
  return Buffer.concat(pieces);
}

describe('a text index with packed postings', () => {
  it('answers every query and saves every byte as the same index unpacked, also after removals', () => {
    const plain = build();
    const packed = build();
    packed.packPostings();
    expect(answers(packed)).toEqual(answers(plain));
    expect(saved(packed).equals(saved(plain))).toBe(true);
    for (const index of [plain, packed]) {
      for (let i = 0; i < 120; i += 3) index.remove(`insights/n${i}.md`);
      index.replace(note('insights/n4.md', '# Four\n\nA walk by the sea.\n'));
      index.add(note('insights/extra.md', '# Extra\n\nThe river again, a walk.\n'));
    }
    expect(answers(packed)).toEqual(answers(plain));
    expect(saved(packed).equals(saved(plain))).toBe(true);
  });

  it('packs long posting lists on its own as sections are added', () => {
    const index = new TextIndex();
    for (let i = 0; i < 4200; i++) index.add(note(`insights/n${i}.md`, `Plain walk number ${i}.\n`));
    const tree = (index as unknown as { terms: TermIndex }).terms.terms;
    const postings = [...(tree.get('walk')?.values() ?? [])];
    expect(postings.length).toBeGreaterThan(0);
    expect(postings.every((p) => p instanceof PackedPostings)).toBe(true);
    expect(index.search('walk', { limit: 3 }).map((hit) => hit.path)).toHaveLength(3);
  });
});
