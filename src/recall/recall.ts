import type { MemConfig } from '../core/config/config.js';
import type { Layer, Note, Section } from '../core/types.js';
import type { VaultIndex } from '../indexing/vault-index.js';
import { linkableAnchor } from '../vault/links/link-name.js';
import {
  addPreferredRange,
  addRangeEntries,
  admitter,
  type Candidate,
  type Closeness,
  inRange,
  semanticCandidates,
  spreadToNeighbours,
  textCandidates,
} from './candidates.js';
import {
  asksCurrentState,
  belowSuccessors,
  newestVersionsFirst,
  PRESENT_RECENCY,
  readPresent,
  restatementIn,
} from './latest-first.js';
import { combineScore, memoryTime, recencyOf, round, type ScoreParts } from './rank.js';
import { fuseRanks, type SemanticInput } from './semantic.js';
import { makeSnippet } from './snippet.js';
import { readSpeakers, SPEAKER_PRIOR } from './speaker-prior.js';

export interface DateRange {
  /** Inclusive `YYYY-MM-DD` */
  from: string;
  /** Inclusive `YYYY-MM-DD` */
  to: string;
}

export interface RecallOptions {
  /** How many hits (default: config `recall.k`, 8) */
  k?: number;
  /** Only these layers */
  layers?: Layer[];
  /** The moment recency is measured from (default: now) */
  now?: Date;
  /** Include superseded and archived notes (default: false) */
  all?: boolean;
  /** Episode entries dated inside this range; other layers are never date-filtered */
  range?: DateRange;
  /**
   * `filter` (default) leaves entries outside the range out; `prefer` only ranks them far lower,
   * for ranges read from a message's words, which can be misread
   */
  rangeMode?: 'filter' | 'prefer';
  /**
   * Embeddings to fuse in (see `Vault.recallAsync`); without it recall is lexical only and its
   * output has no `semantic` part
   */
  semantic?: SemanticInput;
  /**
   * Keep the entries next to a hit on its day that nothing but being next to it brought in
   * (default false): context a compile may show beside the hit, never hits of their own.
   */
  context?: boolean;
}

/**
 * Only with `embeddings.enabled`: how a recall or compile used them. `fused`: the query was
 * embedded and its semantic ranking fused with the lexical one (sections without a vector yet,
 * `unembedded`, rank by their words alone); otherwise `lexical`, and `reason` says why.
 */
export interface EmbeddingUse {
  model: string;
  ranking: 'fused' | 'lexical';
  /** The fusion and its k, when fused: `rrf k=60` */
  fusion?: string;
  /** Sections with text that had no vector yet at this query */
  unembedded?: number;
  reason?: string;
}

export interface RecallHit {
  /** `path#anchor` */
  id: string;
  path: string;
  anchor: string;
  /** Wiki link that cites this memory, e.g. `[[2026-11-29#^e7]]` */
  link: string;
  title: string;
  layer: Layer;
  date?: string;
  time?: string;
  speaker?: string;
  snippet: string;
  text: string;
  score: number;
  parts: ScoreParts;
  reasons: string[];
}

/** Score factor for an entry outside a preferred (not filtered) date range */
const OUT_OF_RANGE = 0.25;
/** Score factor for each further section of a note already in the list */
const SAME_NOTE_DECAY = 0.7;
/**
 * How many of the sections closest in meaning join the candidates, whatever their words (at least;
 * as many as the hits asked for when that is more): the semantic ranking fused with the lexical one
 */
const SEMANTIC_CANDIDATES = 50;

/** A scored candidate: what ordering and the same-note decay read, before it becomes a hit. */
interface Ranked {
  candidate: Candidate;
  id: string;
  path: string;
  anchor: string;
  layer: Layer;
  score: number;
  parts: ScoreParts;
  reasons: string[];
}

export function citation(index: VaultIndex, path: string, anchor: string): string {
  const target = index.linkText(path);
  const sub = linkableAnchor(anchor);
  return `[[${target}${sub ? `#${sub}` : ''}]]`;
}

/**
 * Ranks sections for a query: BM25 text relevance, plus the neighbours of the strongest hits
 * through links and backlinks, each scaled by recency, importance and layer.
 */
export function recall(
  index: VaultIndex,
  config: MemConfig,
  query: string,
  options: RecallOptions & { now: Date },
): RecallHit[] {
  const k = options.k ?? config.recall.k;
  const now = options.now;
  const filterRange = options.rangeMode !== 'prefer' ? options.range : undefined;
  const admit = admitter(index, options, filterRange);

  const { text: named, speakers } = readSpeakers(index, query);
  const { text: words, present } = readPresent(named);
  const { candidates, versions } = textCandidates(index, words, filterRange, admit);
  // A question about how things are now also takes an entry that restates a strong hit in other
  // words as a newer version of it (latest-first.ts); one about the past does not.
  newestVersionsFirst(versions, asksCurrentState(query) ? restatementIn(index) : undefined);
  const closeness = options.semantic
    ? semanticCandidates(index, options.semantic, candidates, admit, Math.max(SEMANTIC_CANDIDATES, k))
    : undefined;
  spreadToNeighbours(index, candidates, admit);
  if (filterRange) addRangeEntries(index, candidates, filterRange, admit);
  // A preferred range whose question matched nothing at all: its entries are the answer.
  if (candidates.size === 0 && options.range) addPreferredRange(index, candidates, options.range, admit);

  const { ranked, semanticScore } = scoreCandidates(candidates.values(), config, options, {
    now,
    speakers,
    present,
    closeness,
  });
  if (options.semantic) fuseRanks(ranked, semanticScore, options.semantic.rrfK);
  if (options.all) belowSuccessors(index, ranked);
  // Only the hits shown are decoded (their title, text and citation): Candidate.
  const hits: RecallHit[] = [];
  for (const hit of diversify(ranked)) {
    if (hits.length === k) break;
    const found = hit.candidate.read();
    if (found) hits.push(toHit(index, query, hit, found));
  }
  return hits;
}

/**
 * Every candidate scored (only the k returned become hits, with their citation and snippet), and
 * the semantic ranking's score of those close in meaning. Same-day neighbours brought in only as
 * context are left out unless `options.context`.
 */
function scoreCandidates(
  candidates: Iterable<Candidate>,
  config: MemConfig,
  options: RecallOptions,
  asked: { now: Date; speakers: Set<string>; present: boolean; closeness: Closeness | undefined },
): { ranked: Ranked[]; semanticScore: Map<string, number> } {
  const { now, speakers, closeness } = asked;
  const outside = (c: Candidate) =>
    options.rangeMode === 'prefer' && !inRange(c.facts.date, c.facts, options.range);
  // Entries of other speakers than the ones named rank lower; notes and entries without a speaker
  // keep their score, so a fact about a person is not outranked by everything they said.
  const otherSpeaker = (c: Candidate) =>
    speakers.size > 0 && c.facts.speaker !== undefined && !speakers.has(c.facts.speaker.toLowerCase());
  // A question about the present ("now", "现在") wants the newest version of what it asks about.
  const weights = asked.present
    ? { ...config.recall.weights, recency: config.recall.weights.recency * PRESENT_RECENCY }
    : config.recall.weights;
  const notNamed = `not by ${[...speakers].join(' or ')} (score ÷ ${SPEAKER_PRIOR})`;
  const ranked: Ranked[] = [];
  const semanticScore = new Map<string, number>();
  for (const c of candidates) {
    // Same-day neighbours are context: "trail shoes" must not answer with the dentist entries
    // written around it. Compile keeps them (a reply beside its question), recall and search do not.
    if (c.adjacent && !options.context) continue;
    const out = outside(c);
    const other = otherSpeaker(c);
    if (out) c.reasons.push(`outside the date range (score × ${OUT_OF_RANGE})`);
    if (other) c.reasons.push(`said by ${c.facts.speaker}, ${notNamed}`);
    const parts: ScoreParts = {
      text: round(c.text),
      graph: round(c.graph),
      recency: round(recencyOf(memoryTime(c.facts, config.timezone), now, config.recall.halfLifeDays)),
      importance: round(c.facts.importance),
      layer: round(config.recall.layerPrior[c.facts.layer] ?? 0.5),
    };
    const factors = (out ? OUT_OF_RANGE : 1) * (other ? 1 / SPEAKER_PRIOR : 1);
    const score = round(
      combineScore(parts, weights) * (out ? OUT_OF_RANGE : 1) * (other ? 1 / SPEAKER_PRIOR : 1),
    );
    if (closeness) {
      const section = c.read()?.section;
      parts.semantic = round(section ? closeness.of(section) : 0);
      // The semantic ranking: closeness scaled by the same priors and factors as the words.
      const close = closeness.top.get(c.id);
      if (close)
        semanticScore.set(c.id, combineScore({ ...parts, text: close, graph: 0 }, weights) * factors);
    }
    ranked.push({
      candidate: c,
      id: c.id,
      path: c.path,
      anchor: c.anchor,
      layer: c.facts.layer,
      score,
      parts,
      reasons: c.reasons,
    });
  }
  return { ranked, semanticScore };
}

function toHit(
  index: VaultIndex,
  query: string,
  { score, parts, reasons }: Ranked,
  { note, section }: { note: Note; section: Section },
): RecallHit {
  return {
    id: section.id,
    path: note.path,
    anchor: section.anchor,
    link: citation(index, note.path, section.anchor),
    title: note.title,
    layer: note.layer,
    ...(section.date ? { date: section.date } : {}),
    ...(section.time ? { time: section.time } : {}),
    ...(section.speaker ? { speaker: section.speaker } : {}),
    snippet: makeSnippet(section.text, query),
    text: section.text,
    score,
    parts,
    reasons,
  };
}

const byScore = (a: Ranked, b: Ranked) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/**
 * Every section of a note matches its title, so one long note could fill the whole list. Each
 * further section of the same note counts a little less, which leaves room for other sources.
 * Entries of a day (mem's, and the sections of the person's journal) are exempt: they share a note
 * because they share a day, and the entries around a match (the reply, the question before it)
 * are often the answer.
 */
function diversify(hits: Ranked[]): Ranked[] {
  hits.sort(byScore);
  const seen = new Map<string, number>();
  for (const hit of hits) {
    if (hit.candidate.facts.dayEntry) continue;
    const n = seen.get(hit.path) ?? 0;
    seen.set(hit.path, n + 1);
    if (n > 0) {
      hit.score = round(hit.score * SAME_NOTE_DECAY ** n);
      hit.reasons.push(`section ${n + 1} of the same note`);
    }
  }
  return hits.sort(byScore);
}
