import type { MemConfig } from '../core/config/config.js';
import { entryInstant, instantMs } from '../time/entry-instant.js';
import type { SectionFacts } from '../vault/section-facts.js';

/** Each part of a recall score, every one in 0..1, so `--explain` can show why a hit ranks where it does. */
export interface ScoreParts {
  /** BPE-free lexical relevance: the BM25 score divided by the best hit's */
  text: number;
  /** Strength of the link from a strong text hit (0 when reached by text alone) */
  graph: number;
  /** Exponential decay of the memory's age at `now` (0.5 when it has no date) */
  recency: number;
  /** The entry's inline `[importance:: x]`, else frontmatter `importance`, else a default by layer */
  importance: number;
  /** Prior for the note's layer from the config */
  layer: number;
  /**
   * Only with embeddings on: cosine similarity of the section to the query, divided by the best
   * section's (negative similarity counts as 0; a section not embedded yet has 0). With it, the
   * hit's score is the reciprocal rank fusion of the lexical and the semantic ranking (see
   * recall/semantic.ts fuseRanks), not the sum of the parts
   */
  semantic?: number;
}

const DAY_MS = 86_400_000;

/**
 * When a memory happened (episode entries) or was last known true (other notes), as epoch ms. An
 * entry's `HH:MM` is a clock reading in the vault's zone, and so is a frontmatter time without an
 * offset (`updated: 2026-11-30 09:00`); one with an offset is that instant.
 */
export function memoryTime(
  facts: Pick<SectionFacts, 'date' | 'time' | 'since'>,
  timeZone: string,
): number | undefined {
  if (facts.date) return entryInstant(facts.date, facts.time ?? '12:00', timeZone);
  for (const value of facts.since ?? []) {
    // parseInstant's own offset rule: Date.parse, used here before, read no `+08` or `,5` and
    // the memory lost its time.
    const time = instantMs(value, timeZone);
    if (time !== undefined) return time;
  }
  return undefined;
}

export function recencyOf(time: number | undefined, now: Date, halfLifeDays: number): number {
  if (time === undefined) return 0.5;
  const ageDays = Math.max(0, (now.getTime() - time) / DAY_MS);
  return 0.5 ** (ageDays / halfLifeDays);
}

/**
 * Relevance (text and graph) decides whether a memory belongs at all; recency, importance and
 * layer only scale it, so a recent but unrelated note can never outrank a real match.
 */
export function combineScore(parts: ScoreParts, weights: MemConfig['recall']['weights']): number {
  const relevance = weights.text * parts.text + weights.graph * parts.graph;
  const prior =
    1 + weights.recency * parts.recency + weights.importance * parts.importance + weights.layer * parts.layer;
  return relevance * prior;
}

/** A score or score part as recall shows it: four decimals. */
export function round(value: number): number {
  return Math.round(value * 10_000) / 10_000;
}
