import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fuseRanks } from '../../src/recall/semantic.js';

/** Items with distinct ids, a lexical score (0: not in the lexical ranking) and maybe a semantic one. */
const items = fc.uniqueArray(
  fc.record({
    id: fc.string({ minLength: 1, maxLength: 4 }),
    lexical: fc.oneof(fc.constant(0), fc.double({ min: 0.001, max: 10, noNaN: true })),
    semantic: fc.option(fc.double({ min: 0.001, max: 1, noNaN: true }), { nil: undefined }),
  }),
  { selector: (item) => item.id, maxLength: 40 },
);

const rankOf = (list: Array<{ id: string; score: number }>) =>
  new Map(
    [...list]
      .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .map((item, i) => [item.id, i + 1]),
  );

describe('fuseRanks (reciprocal rank fusion)', () => {
  it('gives each item (k+1)/2 · Σ 1/(k + rank) over the rankings it is in, and says its ranks', () => {
    fc.assert(
      fc.property(items, fc.integer({ min: 1, max: 200 }), (given, k) => {
        const fused = given.map((item) => ({ id: item.id, score: item.lexical, reasons: [] as string[] }));
        const semantic = new Map(
          given.flatMap((item) => (item.semantic ? [[item.id, item.semantic] as const] : [])),
        );
        fuseRanks(fused, semantic, k);
        const lexicalRank = rankOf(
          given.filter((i) => i.lexical > 0).map((i) => ({ id: i.id, score: i.lexical })),
        );
        const semanticRank = rankOf([...semantic].map(([id, score]) => ({ id, score })));
        for (const item of fused) {
          const words = lexicalRank.get(item.id);
          const meaning = semanticRank.get(item.id);
          const expected =
            ((words ? 1 / (k + words) : 0) + (meaning ? 1 / (k + meaning) : 0)) * ((k + 1) / 2);
          expect(item.score).toBeCloseTo(expected, 4);
          expect(item.score).toBeLessThanOrEqual(1);
          expect(item.reasons).toEqual([
            `rank fusion: words ${words ? `#${words}` : '-'}, meaning ${meaning ? `#${meaning}` : '-'} (RRF k=${k})`,
          ]);
        }
      }),
    );
  });

  it('first in both rankings scores 1, first in one only 0.5, in neither 0', () => {
    const fused = [
      { id: 'both', score: 3, reasons: [] },
      { id: 'words', score: 2, reasons: [] },
      { id: 'neither', score: 0, reasons: [] },
      { id: 'meaning', score: 0, reasons: [] },
    ];
    fuseRanks(fused, new Map([['both', 0.9]]), 60);
    expect(fused.map((item) => [item.id, item.score])).toEqual([
      ['both', 1],
      ['words', Math.round((61 / 2 / 62) * 10_000) / 10_000],
      ['neither', 0],
      ['meaning', 0],
    ]);
    const alone = [{ id: 'meaning', score: 0, reasons: [] }];
    fuseRanks(alone, new Map([['meaning', 0.2]]), 60);
    expect(alone[0]?.score).toBe(0.5);
  });
});
