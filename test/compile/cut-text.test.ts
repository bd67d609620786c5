import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { countTokens } from '../../src/compile/count-tokens.js';
import { cutToTokens } from '../../src/compile/cut-text.js';

/** One "token" per code point: makes expected cuts easy to read. */
const codePoints = (s: string): number => [...s].length;
/** One "token" per UTF-16 unit: a cut inside a surrogate pair would be cheaper, so tempting. */
const codeUnits = (s: string): number => s.length;

describe('cutToTokens', () => {
  it('returns a text that fits unchanged', () => {
    expect(cutToTokens('Short enough.', 13, codePoints)).toEqual({
      text: 'Short enough.',
      tokens: 13,
      cut: false,
    });
    expect(cutToTokens('', 0, codePoints)).toEqual({ text: '', tokens: 0, cut: false });
  });

  it('prefers the last paragraph boundary that fits', () => {
    const text = 'First para.\n\nSecond one. It goes on.\n\nThird.';
    expect(cutToTokens(text, 40, codePoints)).toEqual({
      text: 'First para.\n\nSecond one. It goes on. …',
      tokens: 38,
      cut: true,
    });
  });

  it('takes a finer boundary when the paragraph cut would waste most of the room', () => {
    const text = 'First para.\n\nSecond one. It goes on.\n\nThird.';
    expect(cutToTokens(text, 30, codePoints)).toEqual({
      text: 'First para.\n\nSecond one. …',
      tokens: 26,
      cut: true,
    });
    const long = `Short intro.\n\n${'A sentence that goes on. '.repeat(40)}`;
    const result = cutToTokens(long, 200, codePoints);
    expect(result.tokens).toBeGreaterThan(160);
    expect(result.text.endsWith('on. …')).toBe(true);
  });

  it('falls back to a sentence boundary when no paragraph fits', () => {
    const text = 'One two. Three four! Five six? Seven.';
    expect(cutToTokens(text, 30, codePoints)).toEqual({
      text: 'One two. Three four! …',
      tokens: 22,
      cut: true,
    });
  });

  it('does not take a full stop inside a number or a name as a sentence end', () => {
    const text = 'Pi is 3.14 today and example.com is down';
    expect(cutToTokens(text, 12, codePoints)).toEqual({ text: 'Pi is 3.14 …', tokens: 12, cut: true });
  });

  it('keeps closing quotes and brackets with their sentence', () => {
    const text = '他说：“好的。”然后我们走了很久很久。';
    expect(cutToTokens(text, 12, codePoints)).toEqual({ text: '他说：“好的。” …', tokens: 10, cut: true });
    expect(cutToTokens('He said "yes." Then left.', 20, codePoints).text).toBe('He said "yes." …');
  });

  it('falls back to a word boundary, never cutting inside a Latin word', () => {
    expect(cutToTokens('alpha beta gamma delta', 14, codePoints)).toEqual({
      text: 'alpha beta …',
      tokens: 12,
      cut: true,
    });
  });

  it('cuts Chinese between words found by the segmenter', () => {
    expect(cutToTokens('我们昨天去爬山了', 6, codePoints)).toEqual({
      text: '我们昨天 …',
      tokens: 6,
      cut: true,
    });
  });

  it('returns nothing when not even one word and the ellipsis fit', () => {
    expect(cutToTokens('unbreakable', 5, codePoints)).toEqual({ text: '', tokens: 0, cut: true });
    expect(cutToTokens('alpha beta', 2, codePoints)).toEqual({ text: '', tokens: 0, cut: true });
    expect(cutToTokens('anything', 0, codePoints)).toEqual({ text: '', tokens: 0, cut: true });
  });

  it('never splits an emoji or a character with its combining mark', () => {
    const family = '👨‍👩‍👧';
    expect(cutToTokens(`你好${family}世界很大`, 13, codeUnits)).toEqual({
      text: `你好${family} …`,
      tokens: 12,
      cut: true,
    });
    // 。 followed by a combining mark is one cluster, so the cut cannot fall between them.
    expect(cutToTokens('好。\u0301后面还有很多', 4, codeUnits).text).toBe('好 …');
  });

  it('verifies the final string, since token counts are not additive', () => {
    // A counter where the ellipsis costs more after some texts than others.
    const count = (s: string) => codePoints(s) + (s.endsWith('c …') ? 5 : 0);
    expect(cutToTokens('a b c d e f', 8, count)).toEqual({ text: 'a b …', tokens: 5, cut: true });
  });

  it('counts a logarithmic number of candidates, not one per character', () => {
    const text = Array.from({ length: 2000 }, (_, i) => `word${i}`).join(' ');
    let calls = 0;
    const counting = (s: string) => {
      calls++;
      return codePoints(s);
    };
    const result = cutToTokens(text, 500, counting);
    expect(result.tokens).toBeLessThanOrEqual(500);
    expect(calls).toBeLessThanOrEqual(1 + 3 * 12);
  });

  it('keeps every property for random mixed text and budgets, with a real BPE tokenizer', () => {
    const piece = fc.oneof(
      fc.constantFrom(
        '我们',
        '昨天',
        '去',
        '爬山',
        '了',
        '。',
        '！',
        '，',
        '“好的。”',
        'こんにちは',
        'カタカナ',
      ),
      fc.constantFrom('hello', 'world', 'the', 'memory', '.', '!', '?', ' ', ' ', '\n', '\n\n', '…', '；'),
      fc.constantFrom('👨‍👩‍👧', '👍🏽', '🇯🇵', 'e\u0301', '\u0301', '😀', '‍'),
      fc.string({ unit: 'grapheme', maxLength: 5 }),
      fc.string({ unit: 'binary', maxLength: 5 }),
    );
    const texts = fc.array(piece, { maxLength: 80 }).map((pieces) => pieces.join(''));
    const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
    fc.assert(
      fc.property(texts, fc.integer({ min: 0, max: 200 }), (text, max) => {
        const result = cutToTokens(text, max, countTokens);
        expect(countTokens(result.text)).toBe(result.tokens);
        expect(result.tokens).toBeLessThanOrEqual(max);
        expect(/[\uD800-\uDFFF]/u.test(result.text)).toBe(false);
        expect(result.cut).toBe(result.text !== text);
        if (result.cut && result.text !== '') {
          expect(result.text.endsWith(' …')).toBe(true);
          const prefix = result.text.slice(0, -2);
          expect(text.startsWith(prefix)).toBe(true);
          const boundaries = new Set([...segmenter.segment(text)].map((s) => s.index));
          expect(boundaries.has(prefix.length)).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
  });
});
