import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CJK_CHARACTER, SEGMENTER_PASS, tokenize } from '../../src/indexing/text/tokenize.js';

const CJK_RUN = /[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}ー〆]+/gu;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const segmenter = new Intl.Segmenter('zh', { granularity: 'word' });
const chars = (text: string) => Array.from(text).length;
/** A Segmenter word as tokenize() emits it: all Chinese or Japanese and longer than a bigram. */
const isSegmenterWord = (term: string) =>
  chars(term) > 2 && Array.from(term).every((c) => CJK_CHARACTER.test(c));

/** tokenize() as it was before passes were bounded: one Segmenter pass over every run of the text. */
function onePassWords(text: string): string[] {
  const normal = text.normalize('NFKC').toLowerCase();
  const runs = [...normal.matchAll(CJK_RUN)].map((m) => m[0]).filter((run) => chars(run) > 1);
  if (runs.length === 0) return [];
  return [...segmenter.segment(runs.join('\n'))]
    .filter((s) => s.isWordLike && chars(s.segment) > 2)
    .map((s) => s.segment);
}

const piece = fc.oneof(
  fc.constantFrom(
    '今天',
    '我们',
    '去上海工作了',
    '巧克力',
    '中华人民共和国',
    '猫',
    '东京タワー',
    '北京大学的图书馆',
    '𠀀𠀁',
  ),
  fc.constantFrom('hello', ' ', '\n', '，', '。', 'Café', '2026', '- 10:30 '),
);

describe('tokenize on long Chinese text', () => {
  it('gives the same terms as one Segmenter pass while the runs fit in one pass', () => {
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 120 }), (pieces) => {
        const text = pieces.join('');
        const terms = tokenize(text);
        expect(terms.filter(isSegmenterWord)).toEqual(onePassWords(text));
      }),
      { numRuns: 300 },
    );
  });

  it('keeps every character and bigram of runs far longer than one pass, and only words of the text', () => {
    fc.assert(
      fc.property(fc.array(piece, { minLength: 400, maxLength: 1500 }), (pieces) => {
        const text = pieces.join('');
        const terms = tokenize(text);
        const set = new Set(terms);
        for (const run of text.normalize('NFKC').toLowerCase().match(CJK_RUN) ?? []) {
          const cs = Array.from(run);
          for (let i = 0; i < cs.length; i++) {
            expect(set.has(cs[i]!)).toBe(true);
            if (i + 1 < cs.length) expect(set.has(cs[i]! + cs[i + 1]!)).toBe(true);
          }
        }
        for (const word of terms.filter(isSegmenterWord)) expect(text.includes(word)).toBe(true);
      }),
      { numRuns: 20 },
    );
  });

  it('cuts a single run longer than one pass without splitting a surrogate pair', () => {
    const run = '𠀀巧克力'.repeat(SEGMENTER_PASS / 2);
    const terms = tokenize(run);
    for (const term of terms) expect(LONE_SURROGATE.test(term)).toBe(false);
    expect(terms.filter(isSegmenterWord).length).toBeGreaterThan(0);
  });
});
