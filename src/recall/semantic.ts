import type { Section } from '../core/types.js';

/** What recall needs to fuse semantic similarity in: the query's vector and the sections'. */
export interface SemanticInput {
  /** The query's embedding */
  query: number[];
  /** A section's embedding, undefined when it has none (recall then gives it 0) */
  vectorOf: (section: Section) => number[] | undefined;
  /** Fusion weight of the normalised cosine, added to the text relevance (config `embeddings.weight`) */
  weight: number;
}

export function cosine(a: number[], b: number[]): number {
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
