import { describe, expect, it } from 'vitest';
import { countTokens, getTokenizer } from '../../src/compile/count-tokens.js';

describe('countTokens', () => {
  // Counts computed once with gpt-tokenizer's encode().length; they change only with the vocabulary.
  it.each([
    ['Hello, world!', 4, 4],
    ['The quick brown fox jumps over the lazy dog.', 10, 10],
    ['我们昨天去爬山了。', 8, 10],
    ['こんにちは世界', 2, 4],
    ['👨‍👩‍👧 family', 9, 14],
  ])('%j is %i tokens in o200k_base and %i in cl100k_base', (text, o200k, cl100k) => {
    expect(countTokens(text)).toBe(o200k);
    expect(countTokens(text, 'o200k_base')).toBe(o200k);
    expect(countTokens(text, 'cl100k_base')).toBe(cl100k);
  });

  it('counts the empty string as 0 tokens', () => {
    expect(countTokens('')).toBe(0);
    expect(countTokens('', 'cl100k_base')).toBe(0);
  });

  it('counts a special-token marker in a note as plain text instead of throwing', () => {
    expect(countTokens('a <|endoftext|> b')).toBe(9);
    expect(countTokens('a <|endoftext|> b', 'cl100k_base')).toBe(8);
  });
});

describe('getTokenizer', () => {
  it('defaults to o200k_base and counts like countTokens', () => {
    const tokenizer = getTokenizer();
    expect(tokenizer.encoding).toBe('o200k_base');
    expect(tokenizer.count('我们昨天去爬山了。')).toBe(8);
  });

  it('returns a cl100k_base counter when asked', () => {
    const tokenizer = getTokenizer('cl100k_base');
    expect(tokenizer.encoding).toBe('cl100k_base');
    expect(tokenizer.count('我们昨天去爬山了。')).toBe(10);
  });

  it('returns the same tokenizer for the same encoding', () => {
    expect(getTokenizer('cl100k_base')).toBe(getTokenizer('cl100k_base'));
  });

  it('rejects an unknown encoding', () => {
    expect(() => getTokenizer('p50k_base' as never)).toThrow('unknown token encoding "p50k_base"');
  });
});

describe('a long run without spaces', () => {
  it('is counted in pieces: never below the true count, and within 10% of it', async () => {
    const text = '我们今天去了东京看樱花'.repeat(300);
    const { countTokens: exactCount } = await import('gpt-tokenizer/encoding/o200k_base');
    const exact = exactCount(text);
    const counted = countTokens(text);
    expect(counted).toBeGreaterThanOrEqual(exact);
    expect(counted).toBeLessThanOrEqual(exact * 1.1);
  });
});
