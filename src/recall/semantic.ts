import type { Section } from '../core/types.js';

/** What recall needs to fuse semantic similarity in: each section's closeness to the query. */
export interface SemanticInput {
  /**
   * The cosine similarity of a section's embedding with the query's, undefined when the section
   * has none yet (it then ranks by its words alone: it is in the lexical ranking only). Asked for
   * every section once per recall, and again for the candidates: keep it cheap (the vector cache's
   * `similarity(query)` reads its typed arrays, with no array built per section)
   */
  similarity: (section: Section) => number | undefined;
  /**
   * The ids of the sections closest to the query, best first, at least `limit` of them when the
   * vault has that many with vectors (a text several sections share counts once per section), each
   * with its cosine: from the vector cache's top-k, so a read scores the vectors' typed arrays (or
   * asks the ANN index) instead of every section. Absent: recall scores every section.
   */
  nearest?: (limit: number) => Array<{ id: string; score: number }>;
  /**
   * The `k` of reciprocal rank fusion (config `embeddings.rrfK`, 60 as in Cormack et al. 2009):
   * a section's fused score is the sum over the lexical and the semantic ranking of 1 / (k + rank)
   */
  rrfK: number;
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
