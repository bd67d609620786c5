import type { Section } from '../core/types.js';

/** What recall needs to fuse semantic similarity in: the query's vector and the sections'. */
export interface SemanticInput {
  /** The query's embedding */
  query: ArrayLike<number>;
  /**
   * A section's embedding, undefined when it has none yet (it then ranks by its words alone: it
   * is in the lexical ranking only)
   */
  vectorOf: (section: Section) => ArrayLike<number> | undefined;
  /** The query's and every section's vector have length 1: cosine is their dot product */
  unit?: boolean;
  /**
   * The `k` of reciprocal rank fusion (config `embeddings.rrfK`, 60 as in Cormack et al. 2009):
   * a section's fused score is the sum over the lexical and the semantic ranking of 1 / (k + rank)
   */
  rrfK: number;
}

/** The dot product over the shorter length. */
export function dot(a: ArrayLike<number>, b: ArrayLike<number>): number {
  const n = Math.min(a.length, b.length);
  let sum = 0;
  for (let i = 0; i < n; i++) sum += (a[i] as number) * (b[i] as number);
  return sum;
}

/**
 * `vector` scaled to length 1 (all zeros stay zeros), as 32-bit floats: half the memory of 64-bit
 * ones, and a query against every section reads half as many bytes (enough precision to rank).
 */
export function unitVector(vector: ArrayLike<number>): Float32Array {
  const norm = Math.sqrt(dot(vector, vector));
  const out = Float32Array.from(vector);
  if (norm > 0) for (let i = 0; i < out.length; i++) out[i] = (out[i] as number) / norm;
  return out;
}

export function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  const n = Math.min(a.length, b.length);
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < n; i++) {
    const x = a[i] ?? 0;
    const y = b[i] ?? 0;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  return na > 0 && nb > 0 ? dot / Math.sqrt(na * nb) : 0;
}

/** A scored item of one ranking, before fusion. */
export interface Fusable {
  id: string;
  score: number;
  reasons: string[];
}

const byScoreThenId = <T extends Fusable>(a: T, b: T) =>
  b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/**
 * Reciprocal rank fusion of two rankings of the same items: the lexical one (each item's own
 * `score`, items scoring 0 are not in it) and the semantic one (`semanticScore`, items without one
 * are not in it). Each item's score becomes sum 1 / (k + rank) over the rankings it is in, scaled
 * by (k + 1) / 2 so first in both is 1 and first in one only is 0.5; the ranks go in its reasons.
 * Rank-based: no weight to tune, and BM25 and cosine scales never meet.
 */
export function fuseRanks<T extends Fusable>(
  items: T[],
  semanticScore: Map<string, number>,
  k: number,
): void {
  const lexical = items.filter((item) => item.score > 0).sort(byScoreThenId);
  const lexicalRank = new Map(lexical.map((item, i) => [item.id, i + 1]));
  const semantic = items
    .filter((item) => (semanticScore.get(item.id) ?? 0) > 0)
    .map((item) => ({ id: item.id, score: semanticScore.get(item.id) ?? 0, reasons: [] }))
    .sort(byScoreThenId);
  const semanticRank = new Map(semantic.map((item, i) => [item.id, i + 1]));
  const scale = (k + 1) / 2;
  for (const item of items) {
    const words = lexicalRank.get(item.id);
    const meaning = semanticRank.get(item.id);
    const fused = (words ? 1 / (k + words) : 0) + (meaning ? 1 / (k + meaning) : 0);
    item.score = Math.round(fused * scale * 10_000) / 10_000;
    item.reasons.push(
      `rank fusion: words ${words ? `#${words}` : '-'}, meaning ${meaning ? `#${meaning}` : '-'} (RRF k=${k})`,
    );
  }
}
