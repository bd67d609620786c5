import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script without types
import { parseTimes } from '../../bench/measure-process.mjs';
// @ts-expect-error: a plain .mjs script without types
import { grepTerms, scaleSizes } from '../../bench/scale-peers.mjs';

describe('the --scale option', () => {
  it('takes 1k and 10k alone, and every step up to the size it is given', () => {
    expect(scaleSizes('')).toEqual([1000, 10_000]);
    expect(scaleSizes(true)).toEqual([1000, 10_000]);
    expect(scaleSizes('100k')).toEqual([1000, 10_000, 100_000]);
    expect(scaleSizes('10k')).toEqual([1000, 10_000]);
    expect(scaleSizes('30k')).toEqual([1000, 10_000, 30_000]);
    expect(scaleSizes('200000')).toEqual([1000, 10_000, 100_000, 200_000]);
  });

  it('refuses a size it cannot read, saying what it takes', () => {
    expect(() => scaleSizes('lots')).toThrow(/--scale takes a vault size such as 10k or 100k, not lots/);
    expect(() => scaleSizes('500')).toThrow(/smallest vault is 1k/);
  });
});

describe('the peers’ inputs', () => {
  it('hands grep the words of a query in either script, without punctuation', () => {
    expect(grepTerms('when was the last time I cooked the pasta?')).toEqual([
      'when',
      'was',
      'the',
      'last',
      'time',
      'I',
      'cooked',
      'the',
      'pasta',
    ]);
    expect(grepTerms('上次火锅是什么时候？还有跑步')).toEqual(['上次火锅是什么时候', '还有跑步']);
    expect(grepTerms('  ')).toEqual([]);
  });

  it("reads the children's CPU time from bash's times", () => {
    expect(parseTimes('0m0.001s 0m0.002s\n0m0.012s 0m0.004s\n')).toBeCloseTo(16, 6);
    expect(parseTimes('0m0.000s 0m0.000s\n1m2.500s 0m0.500s')).toBeCloseTo(63_000, 6);
    expect(() => parseTimes('nonsense')).toThrow(/cannot read bash times output/);
  });
});
