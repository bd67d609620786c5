import type { MemConfig } from '../core/config.js';
import type { Layer, Note, Section } from '../core/types.js';
import { TopHeap } from '../indexing/top-heap.js';
import type { VaultIndex } from '../indexing/vault-index.js';
import { rollupPeriod } from '../time/rollup-period.js';
import { linkableAnchor } from '../vault/link-name.js';
import { entriesNewestFirst, isDayEntry } from './episode-entries.js';
import { graphNeighbours } from './graph-neighbours.js';
import {
  asksCurrentState,
  belowSuccessors,
  newestVersionsFirst,
  PRESENT_RECENCY,
  readPresent,
  restatementIn,
} from './latest-first.js';
import { combineScore, importanceOf, isRetired, memoryTime, recencyOf, type ScoreParts } from './rank.js';
import { contextLent } from './reply-context.js';
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

/** How many strong text hits pass relevance to their neighbours */
const GRAPH_SEEDS = 20;
/** Score factor for an entry outside a preferred (not filtered) date range */
const OUT_OF_RANGE = 0.25;
/** Score factor for each further section of a note already in the list */
const SAME_NOTE_DECAY = 0.7;
/** How many text hits are considered before ranking */
const TEXT_CANDIDATES = 200;
/**
 * Base strength of an entry of a filtered date range that no word of the query reached, so a
 * question about a time still sees the whole range, below what its words found: an event (what
 * happened) above what was said
 */
const IN_RANGE = { event: 0.1, other: 0.05 };
/** Most entries of a range added that way (the newest) */
const RANGE_ENTRIES = 200;
const EVENT = /^\(event\)/i;
/**
 * How many of the sections closest in meaning join the candidates, whatever their words (at least;
 * as many as the hits asked for when that is more): the semantic ranking fused with the lexical one
 */
const SEMANTIC_CANDIDATES = 50;

interface Candidate {
  note: Note;
  section: Section;
  text: number;
  graph: number;
  reasons: string[];
  /** Brought in only as an entry next to a hit on its day: context, not a hit (RecallOptions.context) */
  adjacent?: boolean;
}

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

function inRange(date: string | undefined, note: Note, range: DateRange | undefined): boolean {
  if (!range || note.layer !== 'episodes') return true;
  if (date) return date >= range.from && date <= range.to;
  // A rollup speaks for its whole period: it is in range only when that period lies inside the
  // range. A question about one day is answered by that day's entries, not by the summary of its
  // quarter (nor of another month), and the raw entries always stay in the vault to answer it.
  const period = note.frontmatter['type'] === 'rollup' ? rollupPeriod(note.frontmatter['period']) : undefined;
  return !period || (period.from >= range.from && period.to <= range.to);
}

/**
 * Ranks sections for a query: BM25 text relevance, plus the neighbours of the strongest hits
 * through links and backlinks, each scaled by recency, importance and layer.
 */
export function recall(
  index: VaultIndex,
  config: MemConfig,
  query: string,
  options: RecallOptions = {},
): RecallHit[] {
  const k = options.k ?? config.recall.k;
  const now = options.now ?? new Date();
  const layers = options.layers && options.layers.length > 0 ? new Set(options.layers) : undefined;
  const filterRange = options.rangeMode !== 'prefer' ? options.range : undefined;
  // A section that is only a template's text (the daily template's empty `## Plan`) is no memory.
  const admit = (note: Note, date: string | undefined, section?: Section): boolean =>
    (options.all || !isRetired(note)) &&
    (!layers || layers.has(note.layer)) &&
    inRange(date, note, filterRange) &&
    (section === undefined || !index.isTemplateSection(section));

  const candidates = new Map<string, Candidate>();
  const { text: named, speakers } = readSpeakers(index, query);
  const { text: words, present } = readPresent(named);
  const textHits = index.text.search(words, {
    limit: TEXT_CANDIDATES,
    rareTerms: true,
    filter: (hit) => {
      // An entry dated outside a filtered range is out, whatever its note says: asked first, as a
      // question about a time finds most of its words outside the range (a layer never changes).
      if (
        filterRange &&
        hit.date &&
        hit.layer === 'episodes' &&
        !(hit.date >= filterRange.from && hit.date <= filterRange.to)
      )
        return false;
      const found = index.section(hit.id);
      return found !== undefined && admit(found.note, hit.date, found.section);
    },
  });
  const best = textHits[0]?.score ?? 0;
  const versions: Array<Candidate & { matched: Set<string> }> = [];
  for (const hit of textHits) {
    const found = index.section(hit.id);
    if (!found) continue;
    const text = best > 0 ? hit.score / best : 0;
    // A hit's terms are an object's keys, never repeated.
    const terms = hit.terms.slice(0, 5).join(', ');
    const matched = new Set(hit.queryTerms);
    const candidate = {
      note: found.note,
      section: found.section,
      text,
      graph: 0,
      reasons: [`text match: ${terms}`],
      matched,
    };
    candidates.set(hit.id, candidate);
    versions.push(candidate);
  }
  // The entries after a hit on its day borrow a third of its score: a reply is found by the topic
  // it answers. One no word of the query reached is context (compile's), never a hit of its own.
  for (const [id, lent] of contextLent(versions)) {
    const known = candidates.get(id);
    const reason = `follows a match on its day (+${round(lent.text)})`;
    if (known) {
      known.text = Math.min(1, known.text + lent.text);
      known.reasons.push(reason);
    } else if (admit(lent.note, lent.section.date, lent.section)) {
      candidates.set(id, {
        note: lent.note,
        section: lent.section,
        text: Math.min(1, lent.text),
        graph: 0,
        reasons: [reason],
        adjacent: true,
      });
    }
  }
  // A question about how things are now also takes an entry that restates a strong hit in other
  // words as a newer version of it (latest-first.ts); one about the past does not.
  newestVersionsFirst(versions, asksCurrentState(query) ? restatementIn(index) : undefined);
  const closeness = options.semantic
    ? semanticCandidates(index, options.semantic, candidates, admit, Math.max(SEMANTIC_CANDIDATES, k))
    : undefined;

  const seeds: Candidate[] = [];
  for (const candidate of candidates.values()) {
    if (seeds.length === GRAPH_SEEDS) break;
    seeds.push(candidate);
  }
  for (const seed of seeds) {
    if (seed.text < 0.2) continue;
    for (const neighbour of graphNeighbours(index, seed.note, seed.section)) {
      if (!admit(neighbour.note, neighbour.section.date, neighbour.section)) continue;
      const strength = seed.text * neighbour.weight;
      const existing = candidates.get(neighbour.section.id);
      if (existing) {
        if (strength > existing.graph) existing.graph = strength;
        if (!neighbour.adjacent) existing.adjacent = false;
        if (existing.reasons.length < 4 && !existing.reasons.includes(neighbour.reason))
          existing.reasons.push(neighbour.reason);
      } else {
        candidates.set(neighbour.section.id, {
          note: neighbour.note,
          section: neighbour.section,
          text: 0,
          graph: strength,
          reasons: [neighbour.reason],
          ...(neighbour.adjacent ? { adjacent: true } : {}),
        });
      }
    }
  }

  // A question about a time ("上周末去哪了", "what happened yesterday"): the words left beside
  // the time rank the entries of the range, and the rest of the range follows them.
  if (filterRange) {
    let added = 0;
    for (const { note, section } of entriesNewestFirst(index)) {
      const date = section.date ?? '';
      if (date < filterRange.from) break;
      if (date > filterRange.to || !admit(note, date, section)) continue;
      const known = candidates.get(section.id);
      if (known) {
        // In the range asked about: a memory of its own, whatever brought it in first.
        known.adjacent = false;
        continue;
      }
      const graph = EVENT.test(section.text) ? IN_RANGE.event : IN_RANGE.other;
      candidates.set(section.id, { note, section, text: 0, graph, reasons: ['in the date range'] });
      if (++added >= RANGE_ENTRIES) break;
    }
  }
  // A preferred range whose question matched nothing at all: its entries are the answer.
  if (candidates.size === 0 && options.range) {
    for (const { note, section } of entriesNewestFirst(index)) {
      if (admit(note, section.date, section) && inRange(section.date, note, options.range)) {
        candidates.set(section.id, { note, section, text: 0, graph: 0.5, reasons: ['in the date range'] });
      }
    }
  }

  const outside = (c: Candidate) =>
    options.rangeMode === 'prefer' && !inRange(c.section.date, c.note, options.range);
  // Entries of other speakers than the ones named rank lower; notes and entries without a speaker
  // keep their score, so a fact about a person is not outranked by everything they said.
  const otherSpeaker = (c: Candidate) =>
    speakers.size > 0 && c.section.speaker !== undefined && !speakers.has(c.section.speaker.toLowerCase());
  // A question about the present ("now", "现在") wants the newest version of what it asks about.
  const weights = present
    ? { ...config.recall.weights, recency: config.recall.weights.recency * PRESENT_RECENCY }
    : config.recall.weights;
  const notNamed = `not by ${[...speakers].join(' or ')} (score ÷ ${SPEAKER_PRIOR})`;
  // Every candidate is scored; only the k returned become hits, with their citation and snippet.
  const ranked: Ranked[] = [];
  const semanticScore = new Map<string, number>();
  for (const c of candidates.values()) {
    // Same-day neighbours are context: "trail shoes" must not answer with the dentist entries
    // written around it. Compile keeps them (a reply beside its question), recall and search do not.
    if (c.adjacent && !options.context) continue;
    const out = outside(c);
    const other = otherSpeaker(c);
    if (out) c.reasons.push(`outside the date range (score × ${OUT_OF_RANGE})`);
    if (other) c.reasons.push(`said by ${c.section.speaker}, ${notNamed}`);
    const parts: ScoreParts = {
      text: round(c.text),
      graph: round(c.graph),
      recency: round(
        recencyOf(memoryTime(c.note, c.section, config.timezone), now, config.recall.halfLifeDays),
      ),
      importance: round(importanceOf(c.note, c.section)),
      layer: round(config.recall.layerPrior[c.note.layer] ?? 0.5),
    };
    const factors = (out ? OUT_OF_RANGE : 1) * (other ? 1 / SPEAKER_PRIOR : 1);
    const score = round(
      combineScore(parts, weights) * (out ? OUT_OF_RANGE : 1) * (other ? 1 / SPEAKER_PRIOR : 1),
    );
    if (closeness) {
      parts.semantic = round(closeness.of(c.section));
      // The semantic ranking: closeness scaled by the same priors and factors as the words.
      const close = closeness.top.get(c.section.id);
      if (close)
        semanticScore.set(c.section.id, combineScore({ ...parts, text: close, graph: 0 }, weights) * factors);
    }
    ranked.push({
      candidate: c,
      id: c.section.id,
      path: c.note.path,
      anchor: c.section.anchor,
      layer: c.note.layer,
      score,
      parts,
      reasons: c.reasons,
    });
  }
  if (options.semantic) fuseRanks(ranked, semanticScore, options.semantic.rrfK);
  if (options.all) belowSuccessors(index, ranked);
  return diversify(ranked)
    .slice(0, k)
    .map(({ candidate: { note, section }, score, parts, reasons }) => ({
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
    }));
}

/**
 * Cosine similarity of every admitted section that has a vector to the query, divided by the
 * best (`of`: a candidate's `semantic` score part). The `limit` closest (`top`) join the
 * candidates, so a paraphrase sharing no word with the query is reachable, and form the semantic
 * ranking that is fused with the lexical one.
 */
function semanticCandidates(
  index: VaultIndex,
  semantic: SemanticInput,
  candidates: Map<string, Candidate>,
  admit: (note: Note, date: string | undefined, section?: Section) => boolean,
  limit: number,
): { of: (section: Section) => number; top: Map<string, number> } {
  const closest = nearestAdmitted(index, semantic, admit, limit) ?? scanAll(index, semantic, admit, limit);
  const best = closest[0]?.score ?? 0;
  const top = new Map<string, number>();
  if (best <= 0) return { of: () => 0, top };
  for (const { note, section, score } of closest) {
    top.set(section.id, score / best);
    const reason = `close in meaning (cosine ${score.toFixed(2)})`;
    const existing = candidates.get(section.id);
    if (existing) existing.reasons.push(reason);
    else candidates.set(section.id, { note, section, text: 0, graph: 0, reasons: [reason] });
  }
  const of = (section: Section) => Math.max(0, semantic.similarity(section) ?? 0) / best;
  return { of, top };
}

type Close = { note: Note; section: Section; score: number };

/**
 * The `limit` admitted sections closest in meaning, from the vector cache's top-k: undefined when
 * the input cannot say (no `nearest`), or when too few of what it found are admitted (a date range
 * or a layer filter that the closest vectors miss) while more were there: then every section is
 * scored.
 */
function nearestAdmitted(
  index: VaultIndex,
  semantic: SemanticInput,
  admit: (note: Note, date: string | undefined, section?: Section) => boolean,
  limit: number,
): Close[] | undefined {
  if (!semantic.nearest) return undefined;
  const asked = limit * 4;
  const found = semantic.nearest(asked);
  const closest: Close[] = [];
  for (const { id, score } of found) {
    if (score <= 0) break;
    const hit = index.section(id);
    if (!hit || !admit(hit.note, hit.section.date, hit.section)) continue;
    closest.push({ ...hit, score });
    if (closest.length === limit) return closest;
  }
  return found.length >= asked ? undefined : closest;
}

/** One pass over every section with a vector: the `limit` closest in a heap (no sort of them all). */
function scanAll(
  index: VaultIndex,
  semantic: SemanticInput,
  admit: (note: Note, date: string | undefined, section?: Section) => boolean,
  limit: number,
): Close[] {
  const ids: string[] = [];
  const found: Array<{ note: Note; section: Section }> = [];
  const heap = new TopHeap(limit, ids);
  for (const note of index.notes.values()) {
    for (const section of note.sections) {
      const value = semantic.similarity(section);
      if (value === undefined || value <= 0 || !admit(note, section.date, section)) continue;
      const doc = ids.length;
      ids.push(section.id);
      found.push({ note, section });
      if (heap.admits(doc, value)) heap.push(doc, value);
    }
  }
  return heap
    .sorted()
    .map(({ doc, score }) => ({ ...(found[doc] as { note: Note; section: Section }), score }));
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
    if (isDayEntry(hit.candidate.note, hit.candidate.section)) continue;
    const n = seen.get(hit.path) ?? 0;
    seen.set(hit.path, n + 1);
    if (n > 0) {
      hit.score = round(hit.score * SAME_NOTE_DECAY ** n);
      hit.reasons.push(`section ${n + 1} of the same note`);
    }
  }
  return hits.sort(byScore);
}

function round(value: number): number {
  return Math.round(value * 10_000) / 10_000;
}
