// Where recall's candidates come from, in the order recall takes them: the text hits of the
// query's words (an entry is indexed with the words of the entries before it too, so a reply is
// among them), the sections closest in meaning, the neighbours of the strongest hits through
// links, and the entries of a date range asked about.
// Each step adds to one map by section id; scoring them is recall.ts's.
import type { Layer, Note, Section } from '../core/types.js';
import type { TextHitSource } from '../indexing/text/section-documents.js';
import type { VaultIndex } from '../indexing/vault-index.js';
import { readStoredFacts, type SectionFacts, sectionFacts } from '../vault/section-facts.js';
import { closestAdmitted } from './closest-sections.js';
import { entriesNewestFirst } from './episode-entries.js';
import { graphNeighbours, type Neighbour } from './graph-neighbours.js';
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

/**
 * A section recall may return, with the text and graph scores the steps below gave it. It is
 * ranked by its facts; its note and section are decoded when first read: a text hit's come from
 * the index's stored fields, so of the hundreds a query's words find only those shown (and the
 * strongest, whose links are followed) are decoded.
 */
export class Candidate {
  text = 0;
  graph = 0;
  /** Brought in only as an entry next to a hit on its day: context, not a hit (RecallOptions.context) */
  adjacent?: boolean;
  /** A text hit's query terms (newestVersionsFirst) */
  matched?: Set<string>;
  private constructor(
    readonly id: string,
    readonly path: string,
    readonly anchor: string,
    readonly facts: SectionFacts,
    readonly reasons: string[],
    private readonly index: VaultIndex | undefined,
    private found?: { note: Note; section: Section },
  ) {}

  /** A section whose note is in hand. */
  static of(note: Note, section: Section, reasons: string[] = []): Candidate {
    const facts = sectionFacts(note, section);
    return new Candidate(section.id, note.path, section.anchor, facts, reasons, undefined, { note, section });
  }

  /**
   * A text hit, from what the index stores of it; undefined for the stand-in document of a note
   * without sections, or a hit whose note is gone.
   */
  static fromHit(index: VaultIndex, hit: TextHitSource): Candidate | undefined {
    if (hit.facts === '' || !index.notes.has(hit.path)) return undefined;
    const facts = readStoredFacts(hit.layer, hit.date, hit.facts);
    return new Candidate(hit.id, hit.path, hit.anchor, facts, [], index);
  }

  /**
   * Its note and section, decoded at the first call; undefined when the section is not in its note
   * (never, unless the index and the notes disagree: recall then leaves it out, as it did when it
   * decoded every hit).
   */
  read(): { note: Note; section: Section } | undefined {
    this.found ??= this.index?.section(this.id);
    return this.found;
  }
}

/** What recall admits a section by: its facts, and its section (read only to tell a template's text). */
export interface Place {
  readonly facts: SectionFacts;
  read(): { section: Section } | undefined;
}

/** Whether recall may return a section: its note's state and layer, the filtered range, no template text. */
export type Admit = (place: Place, date: string | undefined) => boolean;

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
  // A block is never a template's text, nor a section longer than every template's, and without
  // templates nothing is: the section stays undecoded.
  const mostLines = index.templates && index.templates.size > 0 ? index.templates.mostLines : -1;
  const template = (place: Place) => {
    if (place.facts.block || (place.facts.lines ?? 0) > mostLines) return false;
    const section = place.read()?.section;
    return section !== undefined && index.isTemplateSection(section);
  };
  return (place, date) =>
    (options.all || !place.facts.retired) &&
    (!layers || layers.has(place.facts.layer)) &&
    inRange(date, place.facts, filterRange) &&
    !template(place);
}

/** An admit rule for a section whose note is in hand. */
const admitting =
  (admit: Admit) =>
  (note: Note, date: string | undefined, section: Section): boolean =>
    admit({ facts: sectionFacts(note, section), read: () => ({ section }) }, date);

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
  // What the filter made of each hit it was asked about: the hits returned are among them.
  const asked = new Map<string, Candidate>();
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
      const candidate = Candidate.fromHit(index, hit);
      if (candidate === undefined || !admit(candidate, hit.date)) return false;
      asked.set(hit.id, candidate);
      return true;
    },
  });
  const best = textHits[0]?.score ?? 0;
  const versions: Array<Candidate & { matched: Set<string> }> = [];
  for (const hit of textHits) {
    const candidate = asked.get(hit.id);
    if (!candidate) continue;
    candidate.text = best > 0 ? hit.score / best : 0;
    // A hit's terms are an object's keys, never repeated.
    const terms = hit.terms.slice(0, 5).join(', ');
    if (byContextOnly(hit, candidate.facts)) {
      // A reply found by the topic of the entries before it: compile's context, no hit of its own.
      candidate.reasons.push(`text match in the entries before it: ${terms}`);
      candidate.adjacent = true;
      candidates.set(hit.id, candidate);
      continue;
    }
    candidate.reasons.push(`text match: ${terms}`);
    candidates.set(hit.id, candidate);
    candidate.matched = new Set(hit.queryTerms);
    versions.push(candidate as Candidate & { matched: Set<string> });
  }
  return { candidates, versions };
}

/**
 * Whether a hit matched only its context (the entries before it on its day), none of its own words:
 * a reply found by the topic it answers, which recall keeps as context (TextHit.onlyContext).
 */
function byContextOnly(hit: { onlyContext: boolean }, facts: SectionFacts): boolean {
  return facts.layer === 'episodes' && facts.block && hit.onlyContext;
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
  const closest = closestAdmitted(index, semantic, admitting(admit), limit);
  const best = closest[0]?.score ?? 0;
  const top = new Map<string, number>();
  if (best <= 0) return { of: () => 0, top };
  for (const { note, section, score } of closest) {
    top.set(section.id, score / best);
    const reason = `close in meaning (cosine ${score.toFixed(2)})`;
    const existing = candidates.get(section.id);
    if (existing) existing.reasons.push(reason);
    else candidates.set(section.id, Candidate.of(note, section, [reason]));
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
    const found = seed.text < 0.2 ? undefined : seed.read();
    if (!found) continue;
    for (const neighbour of graphNeighbours(index, found.note, found.section)) {
      const existing = candidates.get(neighbour.id);
      const candidate = existing ?? neighbourCandidate(index, neighbour);
      if (!candidate || !admit(candidate, neighbour.date)) continue;
      const strength = seed.text * neighbour.weight;
      if (existing) {
        if (strength > existing.graph) existing.graph = strength;
        if (!neighbour.adjacent) existing.adjacent = false;
        if (existing.reasons.length < 4 && !existing.reasons.includes(neighbour.reason))
          existing.reasons.push(neighbour.reason);
      } else {
        candidate.graph = strength;
        if (neighbour.adjacent) candidate.adjacent = true;
        candidates.set(neighbour.id, candidate);
      }
    }
  }
}

/** A neighbour as a candidate: from its section in hand, or from what the index stores of it. */
function neighbourCandidate(index: VaultIndex, { found, reason }: Neighbour): Candidate | undefined {
  if ('note' in found) return Candidate.of(found.note, found.section, [reason]);
  const candidate = Candidate.fromHit(index, found.hit);
  candidate?.reasons.push(reason);
  return candidate;
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
    const known = candidates.get(section.id);
    const candidate = known ?? Candidate.of(note, section, ['in the date range']);
    if (!admit(candidate, date)) continue;
    if (known) {
      // In the range asked about: a memory of its own, whatever brought it in first.
      known.adjacent = false;
      continue;
    }
    candidate.graph = EVENT.test(section.text) ? IN_RANGE.event : IN_RANGE.other;
    candidates.set(section.id, candidate);
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
    const candidate = Candidate.of(note, section, ['in the date range']);
    if (admit(candidate, section.date) && inRange(section.date, candidate.facts, range)) {
      candidate.graph = 0.5;
      candidates.set(section.id, candidate);
    }
  }
}

/** Whether a note's entry (or a rollup's whole period) lies in a date range; other layers always do. */
export function inRange(
  date: string | undefined,
  facts: Pick<SectionFacts, 'layer' | 'period'>,
  range: DateRange | undefined,
): boolean {
  if (!range || facts.layer !== 'episodes') return true;
  if (date) return date >= range.from && date <= range.to;
  // A rollup speaks for its whole period: it is in range only when that period lies inside the
  // range. A question about one day is answered by that day's entries, not by the summary of its
  // quarter (nor of another month), and the raw entries always stay in the vault to answer it.
  const { period } = facts;
  return !period || (period.from >= range.from && period.to <= range.to);
}
