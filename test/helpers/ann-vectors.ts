// Shared by the vector-ann tests: seeded random unit vectors, an embed function over them, and a
// usearch loader that counts what the index is asked to do.
import { loadUsearch, type UsearchIndex, type UsearchModule } from '../../src/indexing/vectors/vector-ann.js';
import type { VectorCache } from '../../src/indexing/vectors/vector-cache.js';

import { seeded } from './seeded.js';

export { seeded };

/** A unit vector of normal components. */
export function randomUnit(random: () => number, dims: number): number[] {
  const v = new Array<number>(dims);
  let squares = 0;
  for (let j = 0; j < dims; j++) {
    const x = Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
    v[j] = x;
    squares += x * x;
  }
  const norm = Math.sqrt(squares);
  return v.map((x) => x / norm);
}

/** `count` texts `t<i>`, each with its own random vector, and an embed function answering with them. */
export function corpus(count: number, dims: number, seed = 7) {
  const random = seeded(seed);
  const texts = Array.from({ length: count }, (_, i) => `t${i}`);
  const vectors = new Map(texts.map((t) => [t, randomUnit(random, dims)]));
  const embed = async (batch: string[]) =>
    batch.map((t) => vectors.get(t) ?? randomUnit(seeded(t.length * 7919 + 13), dims));
  return { texts, vectors, embed };
}

export interface Counts {
  adds: number;
  added: number;
  searches: number;
  views: number;
  loads: number;
}

/** The real usearch, with its Index counting adds, searches, views and loads. */
export function countingLoader(counts: Counts) {
  return async (): Promise<UsearchModule> => {
    const real = await loadUsearch();
    const Base = real.Index;
    class Index extends (Base as unknown as new (config: unknown) => UsearchIndex) {
      override add(keys: BigUint64Array, vectors: Float32Array, threads?: number) {
        counts.adds++;
        counts.added += keys.length;
        return super.add(keys, vectors, threads);
      }
      override search(vector: Float32Array, k: number, threads: number) {
        counts.searches++;
        return super.search(vector, k, threads);
      }
      override view(path: string) {
        counts.views++;
        return super.view(path);
      }
      override load(path: string) {
        counts.loads++;
        return super.load(path);
      }
    }
    return { Index: Index as unknown as UsearchModule['Index'] };
  };
}

export const newCounts = (): Counts => ({ adds: 0, added: 0, searches: 0, views: 0, loads: 0 });

/** The texts of a top k, best first. */
export function topTexts(cache: VectorCache, texts: string[], query: number[], k: number): string[] {
  const bySlot = new Map<number, string>();
  for (const t of texts) {
    const slot = cache.slotOf(t);
    if (slot !== undefined) bySlot.set(slot, t);
  }
  return [...cache.topK(query, k).slots].map((slot) => bySlot.get(slot) ?? `?${slot}`);
}

/** The share of `exact`'s entries `found` has (recall at k), over many queries. */
export function recallOf(found: string[][], exact: string[][]): number {
  let same = 0;
  let all = 0;
  found.forEach((top, i) => {
    const want = new Set(exact[i]);
    same += top.filter((t) => want.has(t)).length;
    all += exact[i]?.length ?? 0;
  });
  return all === 0 ? 1 : same / all;
}
