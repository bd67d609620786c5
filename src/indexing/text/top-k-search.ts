import { type ListHolder, listArenas } from './list-arenas.js';
import { type Frequencies, indexOfSorted, PackedPostings } from './packed-postings.js';
import type { Postings, TermData } from './postings.js';
import { type SavedTerm, savedTerm } from './saved-postings.js';
import { searchScratch } from './search-scratch.js';
import type { FieldLengths, TermIndex } from './term-index.js';
import { RankOrder } from './top-heap.js';

export { LIST_ARENA, resetListArenas } from './list-arenas.js';

/** One query term as MiniSearch 7's `termToQuerySpec` makes it from the search options. */
export interface QueryTerm {
  term: string;
  /** Also match longer terms that start with it */
  prefix: boolean;
  /** Also match terms this many edits away (MiniSearch's `fuzzy` option: false, a distance, or a fraction of the length) */
  fuzzy: number | boolean;
  /** Factor on every score of this term (`boostTerm`) */
  boost: number;
}

/** Keeps a document (its id and stored fields) or leaves it out; called only for one that would enter the top. */
export type TopKFilter = (id: string, stored: Record<string, unknown>) => boolean;

export interface TopKResult {
  /** MiniSearch's short id of the document */
  shortId: number;
  id: string;
  score: number;
  /** Stored fields of the document */
  stored: Record<string, unknown>;
  /** Indexed terms that matched, as MiniSearch's `SearchResult.terms` has them */
  terms: string[];
  /** Query terms that matched, in query order */
  queryTerms: string[];
  /** Whether a term matched in one of TopKOptions.ownFields (true when none are named) */
  own: boolean;
}

/** One posting list as typed arrays: documents and their BM25 score for the term in the field. */
interface CompiledPostings {
  docs: Uint32Array;
  scores: Float64Array;
  /** Whether the documents ascend (they always do but for a Map MiniSearch filled out of order) */
  ascending: boolean;
}

type Bm25 = { k: number; b: number; d: number };

/** A term still in its saved bytes: its postings per field, and its lists scored so far. */
interface SavedLists {
  term: SavedTerm;
  counts: Map<number, number>;
  lists: Map<number, CompiledPostings>;
}

/** A derived term of a query term (the term itself, a longer term it prefixes, a near spelling) and its weight. */
interface Expansion {
  term: string;
  weight: number;
  data: TermData;
}

/** How the search weighs what it finds: MiniSearch 7's search options, resolved per field id. */
export interface TopKOptions {
  /** Per field id: the factor on its scores (MiniSearch's `boost`) */
  fieldBoosts: readonly number[];
  /** Factors on the scores of prefix and fuzzy matches (MiniSearch's defaults: 0.375 and 0.45) */
  weights: { fuzzy: number; prefix: number };
  /** BM25's parameters (MiniSearch's default: k 1.2, b 0.7, d 0.5) */
  bm25: Bm25;
  /** Most edits a fractional `fuzzy` allows (MiniSearch's default: 6) */
  maxFuzzy: number;
  /**
   * The field ids that are a document's own words (bit f for field f): a result tells whether a
   * term matched in one of them (TopKResult.own), which the postings already say, so no caller
   * splits a document's text again to find out. All fields when not given.
   */
  ownFields?: number;
}

/** Postings of arena reserved for each section of the index when the search is made */
const ARENA_PER_SECTION = 16;
/**
 * The `limit` best documents of an OR query over a TermIndex, with exactly the scores,
 * order, `terms` and `queryTerms` that `MiniSearch#search` gives them over the same documents
 * (with the index vacuumed):
 * the same BM25 arithmetic in the same order, so every score is the same double. What it saves
 * is MiniSearch's work per matching document (a result object, a `match` record, a stored-field
 * copy, a filter call, a place in a sort of every match): a Chinese query's single characters
 * match a fifth of all sections, and at 100,000 notes that work was 90 % of a recall. Here a match
 * costs a few array reads; only a document that would enter the current top `limit` meets the
 * filter, and only the final top gets its term lists.
 *
 * Ties are broken by id (ascending), as TextIndex.search always did.
 */
export class TopKSearch implements ListHolder {
  /** Scored lists of postings, until the index changes or the arenas switch */
  private readonly compiled = new Map<Postings, CompiledPostings>();
  /** Scored lists of terms still in their saved bytes, by field id */
  private readonly compiledSaved = new Map<SavedTerm, SavedLists>();
  /** The index version the kept lists were scored at */
  private version = -1;
  /** How the process's arenas know this search (weakly: they must not keep a closed vault's index alive) */
  readonly ref: WeakRef<ListHolder> = new WeakRef(this);

  constructor(
    readonly index: TermIndex,
    private readonly options: TopKOptions,
  ) {
    // Room for the lists of a few dozen searches, sized by the index: about 16 postings a section
    // (the arenas are the process's: a pool of small vaults shares the room one of them asks).
    listArenas().reserve(index.documentCount * ARENA_PER_SECTION);
  }

  /** Drops every kept list (the arenas are about to fill their room again). */
  dropLists(): void {
    this.compiled.clear();
    this.compiledSaved.clear();
  }

  /**
   * Drops every kept list and leaves the arenas: the index closed, or changed (the posting lists
   * or the counts they were scored with may have).
   */
  release(): void {
    this.dropLists();
    listArenas().release(this);
  }

  /** The best `limit` documents that pass `filter` for the terms, best first. */
  search(queryTerms: QueryTerm[], limit: number, filter?: TopKFilter): TopKResult[] {
    const { index } = this;
    const scratch = searchScratch;
    if (scratch.busy) throw new Error('A top-k search cannot run inside the filter of another');
    if (this.version !== index.version) {
      this.release();
      this.version = index.version;
    }
    scratch.busy = true;
    scratch.ensureCapacity(index.nextId);
    listArenas().begin();
    const { fieldBoosts: boosts, weights, bm25, maxFuzzy } = this.options;
    const fieldCount = index.fields.length;
    const { total, current, matched, stamp, touched, termTouched } = scratch;
    let touchedCount = 0;
    try {
      const expansions = queryTerms.map((query) => expand(index, query, weights, maxFuzzy));
      /** Per query term, per expansion: its lists, field by field (undefined where the field has none) */
      const lists: Array<Array<Array<CompiledPostings | undefined>>> = [];
      for (let q = 0; q < queryTerms.length; q++) {
        const termBoost = (queryTerms[q] as QueryTerm).boost;
        const mark = scratch.takeStamp();
        let termCount = 0;
        const termLists: Array<Array<CompiledPostings | undefined>> = [];
        lists.push(termLists);
        for (const { weight, data } of expansions[q] as Expansion[]) {
          const fieldLists: Array<CompiledPostings | undefined> = [];
          termLists.push(fieldLists);
          const saved = this.savedLists(data);
          for (let f = 0; f < fieldCount; f++) {
            const fieldId = f;
            const list =
              saved !== undefined ? this.savedListOf(saved, fieldId, bm25) : this.listOf(data, fieldId, bm25);
            fieldLists.push(list);
            if (list === undefined) continue;
            const { docs, scores } = list;
            const factor = weight * termBoost * (boosts[f] as number) * 1;
            for (let p = 0; p < docs.length; p++) {
              const doc = docs[p] as number;
              // MiniSearch's termResults: termWeight * termBoost * fieldBoost * docBoost * rawScore
              const weighted = factor * (scores[p] as number);
              if (stamp[doc] !== mark) {
                stamp[doc] = mark;
                current[doc] = weighted;
                termTouched[termCount++] = doc;
              } else {
                current[doc] = (current[doc] as number) + weighted;
              }
            }
          }
        }
        // MiniSearch's OR combinator: a document's first term score, then each further one added.
        for (let i = 0; i < termCount; i++) {
          const doc = termTouched[i] as number;
          if (matched[doc] === 0) {
            total[doc] = current[doc] as number;
            touched[touchedCount++] = doc;
          } else {
            total[doc] = (total[doc] as number) + (current[doc] as number);
          }
          matched[doc] = (matched[doc] as number) + 1;
        }
      }

      const top = this.best(touchedCount, Math.max(0, limit), filter);
      return this.describe(top, queryTerms, expansions, lists);
    } finally {
      for (let i = 0; i < touchedCount; i++) matched[touched[i] as number] = 0;
      scratch.busy = false;
    }
  }

  /**
   * The best `limit` of the touched documents that pass `filter`, best first: taken in rank order
   * (RankOrder), each offered to the filter as it comes, until `limit` passed. The filter is asked
   * of no document below the last one kept (a recall's filter looks a note up by path): of the best
   * `limit` alone when it refuses none of them.
   */
  private best(
    count: number,
    limit: number,
    filter: TopKFilter | undefined,
  ): Array<{ doc: number; score: number }> {
    const { touched, total, matched, current, termTouched } = searchScratch;
    const { index } = this;
    const idOf = (doc: number) => index.idOf(doc) as string;
    // `current` and `termTouched` are free once every query term is summed: each document's score
    // (MiniSearch's: the summed score times the terms matched), and the heap's room.
    for (let i = 0; i < count; i++) {
      const doc = touched[i] as number;
      current[doc] = (total[doc] as number) * (matched[doc] as number);
      termTouched[i] = doc;
    }
    const order = new RankOrder(termTouched, current, count);
    const top: Array<{ doc: number; score: number }> = [];
    while (top.length < limit) {
      const rank = order.next(idOf);
      if (rank === undefined) break;
      for (const doc of rank.docs) {
        if (filter && !filter(idOf(doc), index.storedOf(doc) ?? {})) continue;
        top.push({ doc, score: rank.score });
        if (top.length === limit) break;
      }
    }
    return top;
  }

  /** The matched terms of each returned document, in the order MiniSearch records them. */
  private describe(
    top: Array<{ doc: number; score: number }>,
    queryTerms: QueryTerm[],
    expansions: Expansion[][],
    lists: Array<Array<Array<CompiledPostings | undefined>>>,
  ): TopKResult[] {
    const matchedTerms = top.map(() => Object.create(null) as Record<string, true>);
    const matchedQuery = top.map(() => [] as string[]);
    const hit = new Uint8Array(top.length);
    const ownFields = this.options.ownFields ?? -1;
    const own = new Uint8Array(top.length);
    for (let q = 0; q < queryTerms.length; q++) {
      const source = (queryTerms[q] as QueryTerm).term;
      (expansions[q] as Expansion[]).forEach(({ term }, e) => {
        hit.fill(0);
        // The scored lists hold every live posting of the term, and a returned document is live.
        const fieldLists = lists[q]?.[e] ?? [];
        for (let f = 0; f < fieldLists.length; f++) {
          const list = fieldLists[f];
          if (list === undefined) continue;
          const ownField = (ownFields >> f) & 1;
          for (let at = 0; at < top.length; at++) {
            // Asked again of a document already hit only to learn whether it is hit in its own words.
            if (hit[at] && (own[at] || !ownField)) continue;
            if (!holds(list, (top[at] as { doc: number }).doc)) continue;
            hit[at] = 1;
            if (ownField) own[at] = 1;
          }
        }
        for (let at = 0; at < top.length; at++) {
          if (!hit[at]) continue;
          (matchedTerms[at] as Record<string, true>)[term] = true;
          const list = matchedQuery[at] as string[];
          if (!list.includes(source)) list.push(source);
        }
      });
    }
    return top.map(({ doc, score }, at) => ({
      shortId: doc,
      id: this.index.idOf(doc) as string,
      score,
      stored: this.index.storedOf(doc) ?? {},
      // An object's keys, as MiniSearch's `Object.keys(match)`: integer-like terms come first.
      terms: Object.keys(matchedTerms[at] as object),
      queryTerms: matchedQuery[at] as string[],
      own: own[at] === 1,
    }));
  }

  /**
   * The postings of one term in one field as typed arrays, without discarded documents, each with
   * its BM25 score (the same until the index changes: it depends on the counts and lengths only);
   * undefined when the term has none in that field.
   */
  private listOf(data: TermData, fieldId: number, bm25: Bm25): CompiledPostings | undefined {
    const postings = data.get(fieldId);
    if (postings === undefined) return undefined;
    const known = this.compiled.get(postings);
    if (known !== undefined) return known;
    const packed = postings instanceof PackedPostings ? postings.packed() : undefined;
    let list: CompiledPostings;
    if (packed !== undefined && packed.count === postings.size) {
      // Nothing deleted: the packed arrays are the list as it stands (views, not copies; any change
      // to the index drops this list before it could be read again).
      list = this.score(packed.ids, packed.freqs, packed.count, fieldId, bm25, false);
    } else {
      const { docs, freqs } = searchScratch.postings(postings.size);
      let n = 0;
      if (packed !== undefined) {
        // Packed with deleted postings (a frequency of 0): the live ones, in order.
        for (let p = 0; p < packed.count; p++) {
          if (packed.freqs[p] === 0) continue;
          docs[n] = packed.ids[p] as number;
          freqs[n] = packed.freqs[p] as number;
          n++;
        }
      } else {
        for (const [doc, freq] of postings) {
          docs[n] = doc;
          freqs[n] = freq;
          n++;
        }
      }
      list = this.score(docs, freqs, n, fieldId, bm25, true);
    }
    this.compiled.set(postings, list);
    return list;
  }

  /** What is kept of a term still in its saved bytes (its counts per field are read once), or undefined. */
  private savedLists(data: TermData): SavedLists | undefined {
    const term = savedTerm(data);
    if (term === undefined) return undefined;
    let kept = this.compiledSaved.get(term);
    if (kept === undefined) {
      const counts = term.savedCounts();
      if (counts === undefined) return undefined;
      kept = { term, counts, lists: new Map() };
      this.compiledSaved.set(term, kept);
    }
    return kept;
  }

  /**
   * listOf() for a term still in its saved bytes, read from them and left undecoded; a term whose
   * bytes cannot be read so is decoded and read as a Map.
   */
  private savedListOf(saved: SavedLists, fieldId: number, bm25: Bm25): CompiledPostings | undefined {
    const count = saved.counts.get(fieldId);
    if (count === undefined) return undefined;
    const known = saved.lists.get(fieldId);
    if (known !== undefined) return known;
    const { docs, freqs } = searchScratch.postings(count);
    if (saved.term.readSaved(fieldId, docs, freqs) !== count) {
      return this.listOf(saved.term as unknown as TermData, fieldId, bm25);
    }
    const list = this.score(docs, freqs, count, fieldId, bm25, true);
    // Kept unless scoring it just dropped every kept list (the arena switched).
    if (this.compiledSaved.get(saved.term) === saved) saved.lists.set(fieldId, list);
    return list;
  }

  /**
   * Scores the first `count` postings, leaving out discarded documents (they stay in MiniSearch's
   * postings until a vacuum, and are not counted, as after one). The documents are copied into the
   * arena, or, when `copyDocs` is false and nothing is left out, the list reads `ids` itself.
   */
  private score(
    ids: Uint32Array,
    freqs: Frequencies,
    count: number,
    fieldId: number,
    bm25: Bm25,
    copyDocs: boolean,
  ): CompiledPostings {
    const { index } = this;
    // A discarded document's postings stay until a vacuum: while any are left, lists are scored without them.
    const dead = index.dirtCount > 0 ? index.dead : undefined;
    let n = count;
    if (dead !== undefined) {
      n = 0;
      for (let p = 0; p < count; p++) if (dead[ids[p] as number] !== 1) n++;
    }
    const view = !copyDocs && n === count;
    const room = listArenas().take(n, !view, this);
    const docs = view ? ids.subarray(0, count) : (room.docs as Uint32Array);
    const { scores } = room;
    // As MiniSearch's calcBM25Score computes it, operation for operation, so the score is the same double.
    const { k, b, d } = bm25;
    const avgFieldLength = index.avgFieldLength[fieldId] as number;
    const invDocFreq = Math.log(1 + (index.documentCount - n + 0.5) / (n + 0.5));
    const lengths = index.lengths[fieldId] as FieldLengths;
    let ascending = true;
    let at = 0;
    for (let p = 0; p < count; p++) {
      const doc = ids[p] as number;
      if (dead !== undefined && dead[doc] === 1) continue;
      const termFreq = freqs[p] as number;
      const fieldLength = lengths[doc] as number;
      if (at > 0 && doc <= (docs[at - 1] as number)) ascending = false;
      if (!view) docs[at] = doc;
      scores[at] =
        invDocFreq *
        (d + (termFreq * (k + 1)) / (termFreq + k * (1 - b + (b * fieldLength) / avgFieldLength)));
      at++;
    }
    return { docs, scores, ascending };
  }
}

/** Whether a scored list holds `doc`: a binary search, or a scan of a list that does not ascend. */
function holds(list: CompiledPostings, doc: number): boolean {
  const { docs } = list;
  return list.ascending ? indexOfSorted(docs, docs.length, doc) >= 0 : docs.includes(doc);
}

/**
 * The term itself, then its prefix matches, then its fuzzy matches, as MiniSearch#executeQuerySpec
 * orders them. Prefix and fuzzy matches come from the index's radix tree, which holds the terms
 * in the shape MiniSearch's would (built by the same insertions), so they come in the same order
 * and their scores add up in it; terms that start with a `separate` character are not in the tree
 * (see TermIndexOptions) and are found by their exact term only.
 */
function expand(
  index: TermIndex,
  query: QueryTerm,
  weights: { fuzzy: number; prefix: number },
  maxFuzzy: number,
): Expansion[] {
  const out: Expansion[] = [];
  const exact = index.terms.get(query.term);
  if (exact !== undefined) out.push({ term: query.term, weight: 1, data: exact });
  let fuzzyMatches: Map<string, [TermData, number]> | undefined;
  if (query.fuzzy) {
    const fuzzy = query.fuzzy === true ? 0.2 : query.fuzzy;
    const maxDistance = fuzzy < 1 ? Math.min(maxFuzzy, Math.round(query.term.length * fuzzy)) : fuzzy;
    if (maxDistance) fuzzyMatches = index.tree.fuzzyGet(query.term, maxDistance);
  }
  if (query.prefix) {
    for (const [term, data] of index.tree.atPrefix(query.term)) {
      const distance = term.length - query.term.length;
      if (!distance) continue;
      fuzzyMatches?.delete(term);
      const weight = (weights.prefix * term.length) / (term.length + 0.3 * distance);
      out.push({ term, weight, data });
    }
  }
  if (fuzzyMatches) {
    for (const [term, [data, distance]] of fuzzyMatches) {
      if (!distance) continue;
      const weight = (weights.fuzzy * term.length) / (term.length + distance);
      out.push({ term, weight, data });
    }
  }
  return out;
}
