// Where recall's candidates come from, in the order recall takes them: the text hits of the
// query's words (an entry is indexed with the words of the entries before it too, so a reply is
// among them), the sections closest in meaning, the neighbours of the strongest hits through
// links, and the entries of a date range asked about.
// Each step adds to one map by section id; scoring them is recall.ts's.
import type { Layer, Note, Section } from '../core/types.js';
import { byContextOnly } from '../indexing/text/section-documents.js';
import type { VaultIndex } from '../indexing/vault-index.js';
import { rollupPeriod } from '../time/rollup-period.js';
import { closestAdmitted } from './closest-sections.js';
import { entriesNewestFirst } from './episode-entries.js';
import { graphNeighbours } from './graph-neighbours.js';
import { isRetired } from './rank.js';
import type { SemanticInput } from './semantic.js';

/** A date range as recall takes it (its DateRange, which recall.ts declares): inclusive `YYYY-MM-DD`. */
type DateRange = { from: string; to: string };

/** How many strong text hits pass relevance to their neighbours */
const GRAPH_SEEDS = 20;
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

/** A section recall may return, with the text and graph scores the steps below gave it. */
export interface Candidate {
  note: Note;
  section: Section;
  text: number;
  graph: number;
  reasons: string[];
  /** Brought in only as an entry next to a hit on its day: context, not a hit (RecallOptions.context) */
  adjacent?: boolean;
}

/** Whether recall may return a section: its note's state and layer, the filtered range, no template text. */
export type Admit = (note: Note, date: string | undefined, section?: Section) => boolean;

/** A candidate's closeness in meaning to the query (semanticCandidates), when embeddings are fused in. */
export interface Closeness {
  of: (section: Section) => number;
  top: Map<string, number>;
}

/** The admit rule of one recall: its options' state, layers and filtered range. */
export function admitter(
  index: VaultIndex,
  options: { all?: boolean; layers?: Layer[] },
  filterRange: DateRange | undefined,
): Admit {
  const layers = options.layers && options.layers.length > 0 ? new Set(options.layers) : undefined;
  // A section that is only a template's text (the daily template's empty `## Plan`) is no memory.
  return (note, date, section) =>
    (options.all || !isRetired(note)) &&
    (!layers || layers.has(note.layer)) &&
    inRange(date, note, filterRange) &&
    (section === undefined || !index.isTemplateSection(section));
}

/**
 * The BM25 hits of the query's words (without the speakers and the "now" it named), each a
 * candidate with its text score relative to the best; `versions` are the same candidates, in
 * order, for the newest-version step.
 */
export function textCandidates(
  index: VaultIndex,
  words: string,
  filterRange: DateRange | undefined,
  admit: Admit,
): { candidates: Map<string, Candidate>; versions: Array<Candidate & { matched: Set<string> }> } {
  const candidates = new Map<string, Candidate>();
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
    if (byContextOnly(hit, found.note, found.section)) {
      // A reply found by the topic of the entries before it: compile's context, no hit of its own.
      const reason = `text match in the entries before it: ${terms}`;
      candidates.set(hit.id, { ...found, text, graph: 0, reasons: [reason], adjacent: true });
      continue;
    }
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
  return { candidates, versions };
}

/**
 * Cosine similarity of every admitted section that has a vector to the query, divided by the
 * best (`of`: a candidate's `semantic` score part). The `limit` closest (`top`) join the
 * candidates, so a paraphrase sharing no word with the query is reachable, and form the semantic
 * ranking that is fused with the lexical one.
 */
export function semanticCandidates(
  index: VaultIndex,
  semantic: SemanticInput,
  candidates: Map<string, Candidate>,
  admit: Admit,
  limit: number,
): Closeness {
  const closest = closestAdmitted(index, semantic, admit, limit);
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

/**
 * The neighbours (links, backlinks, the entries around it) of the first GRAPH_SEEDS candidates
 * with a text score of 0.2 or more take a graph score: the seed's text score times the link's
 * weight, the strongest when several seeds reach them.
 */
export function spreadToNeighbours(
  index: VaultIndex,
  candidates: Map<string, Candidate>,
  admit: Admit,
): void {
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
}

/**
 * A question about a time ("上周末去哪了", "what happened yesterday"): the words left beside
 * the time rank the entries of the range, and the rest of the range (its newest RANGE_ENTRIES)
 * follows them.
 */
export function addRangeEntries(
  index: VaultIndex,
  candidates: Map<string, Candidate>,
  filterRange: DateRange,
  admit: Admit,
): void {
  let added = 0;
  for (const { note, section } of entriesNewestFirst(index, filterRange)) {
    const date = section.date ?? '';
    if (!admit(note, date, section)) continue;
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

/** Every admitted entry of a preferred range, for a question whose words matched nothing. */
export function addPreferredRange(
  index: VaultIndex,
  candidates: Map<string, Candidate>,
  range: DateRange,
  admit: Admit,
): void {
  // Every entry has a date (isDayEntry), so those of the range are the range's slice of them.
  for (const { note, section } of entriesNewestFirst(index, range)) {
    if (admit(note, section.date, section) && inRange(section.date, note, range)) {
      candidates.set(section.id, { note, section, text: 0, graph: 0.5, reasons: ['in the date range'] });
    }
  }
}

/** Whether a note's entry (or a rollup's whole period) lies in a date range; other layers always do. */
export function inRange(date: string | undefined, note: Note, range: DateRange | undefined): boolean {
  if (!range || note.layer !== 'episodes') return true;
  if (date) return date >= range.from && date <= range.to;
  // A rollup speaks for its whole period: it is in range only when that period lies inside the
  // range. A question about one day is answered by that day's entries, not by the summary of its
  // quarter (nor of another month), and the raw entries always stay in the vault to answer it.
  const period = note.frontmatter['type'] === 'rollup' ? rollupPeriod(note.frontmatter['period']) : undefined;
  return !period || (period.from >= range.from && period.to <= range.to);
}
