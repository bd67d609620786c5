import { describe, expect, it } from 'vitest';
import { BytesSource } from '../../src/indexing/segment-source.js';
import type { TermData } from '../../src/indexing/text/postings.js';
import { LazyTermData } from '../../src/indexing/text/saved-postings.js';
import { SavedTermsBuilder } from '../../src/indexing/text/saved-terms.js';
import { encodeTermDictionary, TermDictionary } from '../../src/indexing/text/term-dictionary.js';
import { seeded } from '../helpers/seeded.js';
import { termsOf } from '../helpers/term-pieces.js';

const random = seeded;

describe('SavedTerms', () => {
  it('answers every get, has, set, delete and walk as a Map filled in the saved order does', () => {
    for (let seed = 1; seed <= 40; seed++) {
      const next = random(seed);
      const saved = termsOf(next, 1 + Math.floor(next() * 300));
      const source = new BytesSource(new Uint8Array(16));
      const builder = new SavedTermsBuilder();
      const treeNumbers: number[] = [];
      // The saved terms in one to four segments, each with its own dictionary.
      for (let from = 0; from < saved.length; ) {
        const to = Math.min(saved.length, from + 1 + Math.floor(next() * saved.length * 0.6));
        builder.segment(new TermDictionary(encodeTermDictionary(saved.slice(from, to))), source);
        for (let i = from; i < to; i++) {
          const n = builder.record(0);
          expect(n).toBe(i);
          if (next() < 0.5) treeNumbers.push(n);
        }
        from = to;
      }
      const map = builder.finish();
      // Half the terms go in a radix tree (here a Map), whose objects the dictionary then gives.
      const tree = new Map<string, TermData>();
      map.fillTree(
        treeNumbers,
        (term, data) => tree.set(term, data),
        (term) => tree.get(term),
      );
      const kept = new Map<string, TermData>(tree);
      for (const data of tree.values()) expect(data).toBeInstanceOf(LazyTermData);
      /** The reference: a saved term's value is 'saved' until set */
      const expected = new Map<string, TermData | 'saved'>(saved.map((term) => [term, 'saved']));
      const pool = [...saved, ...termsOf(next, 40)];
      for (let op = 0; op < 600; op++) {
        const term = pool[Math.floor(next() * pool.length)] as string;
        const roll = next();
        const context = `seed ${seed}, op ${op}, ${JSON.stringify(term)}`;
        if (roll < 0.35) {
          const got = map.get(term);
          const want = expected.get(term);
          if (want === undefined) expect(got, context).toBeUndefined();
          else if (want === 'saved') {
            expect(got, context).toBeInstanceOf(LazyTermData);
            // The same object every time it is asked for.
            if (kept.has(term)) expect(got, context).toBe(kept.get(term));
            kept.set(term, got as TermData);
          } else expect(got, context).toBe(want);
        } else if (roll < 0.5) {
          expect(map.has(term), context).toBe(expected.has(term));
        } else if (roll < 0.7) {
          const data: TermData = new Map();
          map.set(term, data);
          expected.set(term, data);
          kept.delete(term);
        } else if (roll < 0.9) {
          expect(map.delete(term), context).toBe(expected.delete(term));
          // As a vacuum deletes a term: from the tree and the dictionary.
          tree.delete(term);
          kept.delete(term);
        } else {
          expect([...map.keys()], context).toEqual([...expected.keys()]);
          expect(map.size, context).toBe(expected.size);
          const walked = [...map.entries()];
          expect(
            walked.map(([key]) => key),
            context,
          ).toEqual([...expected.keys()]);
          for (const [key, data] of walked) {
            const want = expected.get(key);
            if (want !== 'saved') expect(data, `${context}: ${key}`).toBe(want);
            else if (kept.has(key)) expect(data, `${context}: ${key}`).toBe(kept.get(key));
            else expect(data, `${context}: ${key}`).toBeInstanceOf(LazyTermData);
          }
        }
      }
    }
  });

  it('gives a term saved in several records all of them', () => {
    // Record 1 (head 2: field count 1; 4 bytes): field 1, one posting (short id 0, frequency 2); then
    // record 2's fields: field 1, one posting (short id 3, zigzag 6; frequency 2).
    const bytes = new Uint8Array([2, 4, 1, 1, 0, 2, 1, 1, 6, 2]);
    const source = new BytesSource(bytes);
    const builder = new SavedTermsBuilder();
    builder.segment(new TermDictionary(encodeTermDictionary(['walk'])), source);
    const n = builder.record(0);
    builder.addChunk(n, [source, 6, 10, 1]);
    const data = builder.finish().get('walk') as TermData;
    expect([...(data.get(1) ?? [])]).toEqual([
      [0, 2],
      [3, 2],
    ]);
  });
});
