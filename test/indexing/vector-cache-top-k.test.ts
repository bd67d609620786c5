import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { VectorCache, type VectorEncoding } from '../../src/indexing/vectors/vector-cache.js';
import { keyWords, VectorStore } from '../../src/indexing/vectors/vector-store.js';
import { topKByDot } from '../../src/indexing/vectors/vector-top-k.js';
import { hashText } from '../../src/vault/write-note.js';

// topKByDot must give exactly what sorting every stored vector by its dot product with the unit
// query gives: the same slots in the same order (equal scores: lower slot first), the same scores.

/** Small integers make equal scores (ties) common. */
const vectorArb = (dims: number) =>
  fc.array(fc.integer({ min: -3, max: 3 }), { minLength: dims, maxLength: dims });

function storeOf(encoding: VectorEncoding, dims: number, vectors: number[][]): VectorStore {
  const store = VectorStore.empty(encoding, dims);
  vectors.forEach((v, i) => {
    store.add(keyWords(Buffer.from(hashText(String(i)), 'hex')), v);
  });
  return store;
}

/** Every allowed slot's dot product with the unit query, sorted. */
function reference(store: VectorStore, query: number[], k: number, allow: (slot: number) => boolean) {
  const norm = Math.hypot(...query);
  const q = query.map((x) => x / norm);
  const all: Array<{ slot: number; score: number }> = [];
  for (let slot = 0; slot < store.count; slot++) {
    if (!allow(slot)) continue;
    const v = store.vectorAt(slot);
    all.push({ slot, score: v.reduce((sum, x, j) => sum + x * (q[j] ?? 0), 0) });
  }
  all.sort((a, b) => b.score - a.score || a.slot - b.slot);
  return all.slice(0, k);
}

describe.each<VectorEncoding>(['float32', 'int8'])('topKByDot (%s)', (encoding) => {
  it('is the exact top k of a full sort, ties to the lower slot', () => {
    const input = fc.integer({ min: 1, max: 9 }).chain((dims) =>
      fc.record({
        dims: fc.constant(dims),
        vectors: fc.array(vectorArb(dims), { maxLength: 60 }),
        query: vectorArb(dims).filter((q) => q.some((x) => x !== 0)),
        k: fc.integer({ min: 0, max: 70 }),
        skip: fc.integer({ min: 1, max: 5 }),
      }),
    );
    fc.assert(
      fc.property(input, ({ dims, vectors, query, k, skip }) => {
        const store = storeOf(encoding, dims, vectors);
        for (const allow of [() => true, (slot: number) => slot % skip !== 0]) {
          const got = topKByDot(store, query, k, allow);
          const all = reference(store, query, store.count, allow);
          const scoreOf = new Map(all.map((w) => [w.slot, w.score]));
          expect(got.slots).toHaveLength(Math.min(k, all.length));
          // Its scores are the dot products, best first; at a bitwise-equal score, the lower slot first.
          got.slots.forEach((slot, i) => {
            expect(got.scores[i]).toBeCloseTo(scoreOf.get(slot) ?? Number.NaN, 9);
            if (i === 0) return;
            const [before, now] = [got.scores[i - 1] ?? 0, got.scores[i] ?? 0];
            expect(now).toBeLessThanOrEqual(before);
            if (now === before) expect(slot).toBeGreaterThan(got.slots[i - 1] ?? 0);
          });
          // Nothing left out is better than the last one taken (sums in another order differ by rounding).
          const last = got.scores[got.scores.length - 1] ?? Number.POSITIVE_INFINITY;
          const taken = new Set(got.slots);
          for (const { slot, score } of all)
            if (!taken.has(slot)) expect(score).toBeLessThanOrEqual(last + 1e-9);
        }
      }),
      { numRuns: 400 },
    );
  });

  it('at an equal score, takes the lower slot first', () => {
    const store = storeOf(encoding, 3, [
      [0, 0, 1],
      [1, 2, 0],
      [0, 0, 2],
      [2, 4, 0],
      [1, 2, 0],
    ]);
    expect([...topKByDot(store, [1, 2, 0], 2).slots]).toEqual([1, 3]);
    expect([...topKByDot(store, [1, 2, 0], 5).slots]).toEqual([1, 3, 4, 0, 2]);
  });

  it('finds nothing for a query of another length, of norm 0 or not finite', () => {
    const store = storeOf(encoding, 3, [
      [1, 0, 0],
      [0, 1, 0],
    ]);
    expect(topKByDot(store, [1, 0], 2).slots).toHaveLength(0);
    expect(topKByDot(store, [0, 0, 0], 2).slots).toHaveLength(0);
    expect(topKByDot(store, [1, Number.NaN, 0], 2).slots).toHaveLength(0);
    expect([...topKByDot(store, [0, 5, 0], 5).slots]).toEqual([1, 0]);
  });
});

describe('VectorCache.topK', () => {
  it('answers with slots whose text and cosine are the ones filled', async () => {
    const cache = await VectorCache.load('/nonexistent-root', 'm');
    expect(cache.topK([1, 0, 0], 3).slots).toHaveLength(0);
    const vectors: Record<string, number[]> = {
      knee: [0.9, 0.1, 0],
      ligament: [1, 0.2, 0],
      weather: [0, 0, 1],
      tea: [0, 1, 0.1],
    };
    await cache.fill(Object.keys(vectors), async (texts) => texts.map((t) => vectors[t] ?? []), 2);
    const top = cache.topK([1, 0.2, 0], 2);
    expect([...top.slots].map((slot) => cache.hashAt(slot))).toEqual([
      hashText('ligament'),
      hashText('knee'),
    ]);
    expect(top.slots[0]).toBe(cache.slotOf('ligament'));
    expect(top.scores[0]).toBeGreaterThan(0.99);
    const skipLigament = cache.topK([1, 0.2, 0], 2, (slot) => slot !== cache.slotOf('ligament'));
    expect(skipLigament.slots[0]).toBe(cache.slotOf('knee'));
  });
});

describe('VectorCache.similarity', () => {
  it('is the cosine of the query with each text’s vector, undefined without one', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(vectorArb(4), { minLength: 1, maxLength: 12 }),
        vectorArb(4).filter((q) => q.some((x) => x !== 0)),
        fc.constantFrom<VectorEncoding>('float32', 'int8'),
        async (vectors, query, encoding) => {
          const cache = await VectorCache.load('/nonexistent-root', 'm', { encoding });
          const texts = vectors.map((_, i) => `t${i}`);
          await cache.fill(texts, async (batch) => batch.map((t) => vectors[Number(t.slice(1))] ?? []), 5);
          const similarity = cache.similarity(query);
          const norm = Math.hypot(...query);
          for (const text of texts) {
            const stored = cache.get(text);
            const want = stored
              ? stored.reduce((sum, x, j) => sum + x * ((query[j] ?? 0) / norm), 0)
              : undefined;
            if (want === undefined) expect(similarity(text)).toBeUndefined();
            else expect(similarity(text)).toBeCloseTo(want, 9);
          }
          expect(similarity('absent')).toBeUndefined();
          expect(cache.similarity([1, 2])('t0')).toBeUndefined();
        },
      ),
      { numRuns: 100 },
    );
  });
});
