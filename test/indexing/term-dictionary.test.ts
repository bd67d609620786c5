import { describe, expect, it } from 'vitest';
import { encodeTermDictionary, TermDictionary, termHash } from '../../src/indexing/text/term-dictionary.js';
import { seeded } from '../helpers/seeded.js';
import { termsOf } from '../helpers/term-pieces.js';

/** Pieces that share prefixes, differ in one code unit, or are surrogate pairs, lone surrogates and combining marks. */

describe('TermDictionary', () => {
  it('finds every term it was made of at its place, and no other, over seeded sets of terms', () => {
    for (let seed = 1; seed <= 60; seed++) {
      const next = seeded(seed);
      const all = termsOf(next, 2 + Math.floor(next() * 700));
      const cut = 1 + Math.floor(next() * (all.length - 1));
      const terms = all.slice(0, cut);
      const others = all.slice(cut);
      const dictionary = new TermDictionary(encodeTermDictionary(terms));
      expect(dictionary.count).toBe(terms.length);
      terms.forEach((term, i) => {
        expect(dictionary.find(term, termHash(term)), `seed ${seed}: ${JSON.stringify(term)}`).toBe(i);
        expect(dictionary.term(i)).toBe(term);
        expect(dictionary.firstUnit(i)).toBe(term.charCodeAt(0));
      });
      for (const term of others) expect(dictionary.find(term, termHash(term))).toBe(-1);
    }
  });

  it('holds none, and finds nothing, when made of no terms', () => {
    const dictionary = new TermDictionary(encodeTermDictionary([]));
    expect(dictionary.count).toBe(0);
    expect(dictionary.find('walk', termHash('walk'))).toBe(-1);
  });

  it('refuses bytes that are cut short or whose ends or table point outside them', () => {
    const bytes = encodeTermDictionary(['walk', '灯塔', 'e\u0301']);
    for (let length = 0; length < bytes.length; length++) {
      expect(() => new TermDictionary(bytes.subarray(0, length)), `cut at ${length}`).toThrow(
        /terms segment/,
      );
    }
    const words = (b: Uint8Array) => new DataView(b.buffer, b.byteOffset, b.byteLength);
    // An end past the code units, an end before the one before it, a slot count not a power of two.
    for (const [at, value] of [
      [12, 1000],
      [16, 1],
      [4, 12],
    ] as const) {
      const bad = Uint8Array.from(bytes);
      words(bad).setUint32(at, value, true);
      expect(() => new TermDictionary(bad), `word at ${at}`).toThrow(/terms segment/);
    }
    // A table entry past the terms fails the lookup that reaches it, not a wrong answer.
    const bad = Uint8Array.from(bytes);
    const slots = words(bad).getUint32(4, true);
    for (let s = 0; s < slots; s++) words(bad).setUint32(4 * (3 + 3 + s), 99, true);
    expect(() => new TermDictionary(bad).find('walk', termHash('walk'))).toThrow(/bad table/);
  });
});
