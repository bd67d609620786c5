import type MiniSearch from 'minisearch';
import {
  internalsOf,
  type MiniSearchState,
  type Postings,
  type TermData,
  type TreeNode,
} from './minisearch-internals.js';
import { indexOfSorted, PackedPostings, type SavedTerm, savedTerm } from './text-index-store.js';
import { SURROGATE } from './tokenize.js';

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

const DEFAULT_WEIGHTS = { fuzzy: 0.45, prefix: 0.375 };
const DEFAULT_BM25 = { k: 1.2, b: 0.7, d: 0.5 };
const DEFAULT_MAX_FUZZY = 6;
/** Postings of arena reserved for each section of the index when the search is made */
const ARENA_PER_SECTION = 16;
/**
 * How many postings' scores are kept between searches, in each of two arenas: 8 bytes a score,
 * plus 4 for its document unless the list is a view of packed postings, so at most 72 MiB for
 * both. The common terms that make a search slow are the ones asked again and again (a single
 * Chinese character matches a fifth of all sections); a rare term's short list is cheap to score
 * each time. A setting, so tests can make arenas of a few postings.
 */
export const LIST_ARENA = {
  /** Postings an arena holds at most */
  postings: 3_000_000,
  /** The first arena's size; each one after is twice the last, up to `postings` */
  first: 1 << 16,
};

/**
 * Where compiled lists keep their scores and documents: two pairs of typed arrays, each filled
 * from its start. One grows (a new pair twice as large; the lists in the old one stay readable, as
 * their views hold it) until it holds LIST_ARENA.postings; when that one is full, every kept list is
 * dropped (each is scored again on its next use) and the other pair is filled from its start: its
 * lists were dropped the time before, so none is still read by the search that asks. Reused, these
 * arrays keep the memory of the kept lists from growing: a new pair of arrays for every list, as an
 * LRU of lists made, kept V8's count of external memory rising, which set off full collections of
 * a 600 MB heap every few hundred searches at 100,000 notes.
 */
class ListArenas {
  private readonly pairs: Array<{ docs: Uint32Array; scores: Float64Array }>;
  private current = 0;
  private used = 0;
  /** The search that last switched arenas: a second switch in one search would overwrite lists it reads */
  private switchedIn = -1;

  /**
   * Both arenas are allocated at `size` postings (at most LIST_ARENA.postings) when the search is
   * made, so that a search never allocates one: V8 answers tens of MB of new external memory with
   * a full collection, which would land on the searches of the next moments instead of on opening
   * the vault.
   */
  constructor(
    size: number,
    private readonly dropAll: () => void,
  ) {
    const n = Math.min(LIST_ARENA.postings, Math.max(LIST_ARENA.first, Math.ceil(size)));
    this.pairs = [0, 1].map(() => ({ docs: new Uint32Array(n), scores: new Float64Array(n) }));
  }

  /** Room for `n` postings (a documents array too when `docs`), kept until the next switch. */
  take(n: number, docs: boolean, search: number): { docs: Uint32Array | undefined; scores: Float64Array } {
    let pair = this.pairs[this.current] as { docs: Uint32Array; scores: Float64Array };
    if (this.used + n > pair.scores.length) {
      if (n > LIST_ARENA.postings)
        return { docs: docs ? new Uint32Array(n) : undefined, scores: new Float64Array(n) };
      const length = pair.scores.length;
      if (length < LIST_ARENA.postings) {
        const size = Math.min(LIST_ARENA.postings, Math.max(LIST_ARENA.first, length * 2, n));
        pair = { docs: new Uint32Array(size), scores: new Float64Array(size) };
      } else if (this.switchedIn === search) {
        // This search already started the other arena: arrays of its own (kept with the other
        // lists until the next switch or change, like them).
        return { docs: docs ? new Uint32Array(n) : undefined, scores: new Float64Array(n) };
      } else {
        this.dropAll();
        this.current = 1 - this.current;
        this.switchedIn = search;
        pair = this.pairs[this.current] as { docs: Uint32Array; scores: Float64Array };
        if (pair.scores.length < LIST_ARENA.postings) {
          pair = {
            docs: new Uint32Array(LIST_ARENA.postings),
            scores: new Float64Array(LIST_ARENA.postings),
          };
        }
      }
      this.pairs[this.current] = pair;
      this.used = 0;
    }
    const at = this.used;
    this.used += n;
    return {
      docs: docs ? pair.docs.subarray(at, at + n) : undefined,
      scores: pair.scores.subarray(at, at + n),
    };
  }

  /** The index changed and every kept list was dropped: the arena in use is filled again from its start. */
  reset(): void {
    this.used = 0;
  }
}

/**
 * The `limit` best documents of an OR query over a MiniSearch index, with exactly the scores,
 * order, `terms` and `queryTerms` that `MiniSearch#search` gives them (with the index vacuumed):
 * the same BM25 arithmetic in the same order, so every score is the same double. What it saves
 * is MiniSearch's work per matching document (a result object, a `match` record, a stored-field
 * copy, a filter call, a place in a sort of every match): a Chinese query's single characters
 * match a fifth of all sections, and at 100,000 notes that work was 90 % of a recall. Here a match
 * costs a few array reads; only a document that would enter the current top `limit` meets the
 * filter, and only the final top gets its term lists.
 *
 * Ties are broken by id (ascending), as TextIndex.search always did.
 */
export class TopKSearch {
  /** Scored lists of MiniSearch's postings, until the index changes or the arena fills */
  private readonly compiled = new Map<Postings, CompiledPostings>();
  /** Scored lists of terms still in their saved bytes, by field id */
  private readonly compiledSaved = new Map<SavedTerm, SavedLists>();
  private readonly arenas: ListArenas;
  /** Counts searches, so the arenas know which one asks */
  private searches = 0;
  /** Where postings read from saved bytes or a Map wait to be scored */
  private scratchDocs = new Uint32Array(0);
  private scratchFreqs = new Uint32Array(0);
  /** Per document: the score so far, summed over query terms in order */
  private total = new Float64Array(0);
  /** Per document: this query term's score so far */
  private current = new Float64Array(0);
  /** Per document: how many query terms matched it (MiniSearch's `quality`) */
  private matched = new Uint8Array(0);
  /** Per document: the stamp of the query term that last touched it (or of best(), which marks those it offered) */
  private stamp = new Uint32Array(0);
  private nextStamp = 0;
  private touched = new Uint32Array(0);
  private termTouched = new Uint32Array(0);
  /**
   * Field lengths, one array per field id, by short id. A short id is never reused and its
   * document's lengths never change, so the ids below `lengthsFilled` stay valid across changes.
   * A list's documents ascend, so scoring it reads its field's array forward; laid out document by
   * document (all fields of one, seven in TextIndex, then the next) as 8-byte numbers, the reads
   * spanned 14 times the memory, and they were about half of scoring a list at 100,000 notes.
   * Lengths count terms, so a 4-byte float holds each exactly (a missing one is NaN, as before).
   */
  private lengths: Float32Array[] = [];
  private lengthsFilled = 0;
  /**
   * Per short id: 1 for a discarded document. MiniSearch leaves a discarded document's postings in
   * place until it vacuums, so while any are left (`_dirtCount`) every list is scored without them.
   * Asking MiniSearch's map of live documents about each posting instead was 85 % of scoring a list
   * after a write at 100,000 notes, and a vault written to once asked it until the next vacuum.
   */
  private dead = new Uint8Array(0);
  /** How many documents `dead` marks */
  private deadCount = 0;

  /**
   * `separate`: characters that the index's terms never mix with others (a term holding one holds
   * only such characters), so a fuzzy match for a term without any need not look among the terms
   * that start with one (see expand()).
   */
  constructor(
    readonly miniSearch: MiniSearch<never> | MiniSearch<object>,
    private readonly separate?: RegExp,
  ) {
    // Room for the lists of a few dozen searches, sized by the index: about 16 postings a section.
    this.arenas = new ListArenas(internalsOf(miniSearch)._documentCount * ARENA_PER_SECTION, () => {
      this.compiled.clear();
      this.compiledSaved.clear();
    });
  }

  /** Call after MiniSearch discarded these documents (TextIndex does, for every discard). */
  discarded(shortIds: readonly number[]): void {
    for (const doc of shortIds) {
      if (doc >= this.dead.length) {
        const grown = new Uint8Array(Math.max(doc + 1, Math.ceil(this.dead.length * 1.5)));
        grown.set(this.dead);
        this.dead = grown;
      }
      if (this.dead[doc] === 0) {
        this.dead[doc] = 1;
        this.deadCount++;
      }
    }
  }

  /**
   * `dead`, made whole first when it does not mark every short id MiniSearch has given out and no
   * longer holds (a discard it was not told of, or an index loaded with gaps in its ids): one pass
   * over the ids, after which discarded() keeps it so.
   */
  private deadDocuments(state: MiniSearchState): Uint8Array {
    if (this.deadCount !== state._nextId - state._documentCount) {
      const dead = new Uint8Array(state._nextId);
      let count = 0;
      for (let doc = 0; doc < state._nextId; doc++) {
        if (state._documentIds.has(doc)) continue;
        dead[doc] = 1;
        count++;
      }
      this.dead = dead;
      this.deadCount = count;
    }
    return this.dead;
  }

  /** Call after every add, discard or replace: the posting lists may have changed. */
  changed(): void {
    this.compiled.clear();
    this.compiledSaved.clear();
    this.arenas.reset();
  }

  /** The best `limit` documents that pass `filter` for the terms, best first. */
  search(queryTerms: QueryTerm[], limit: number, filter?: TopKFilter): TopKResult[] {
    const state = this.state();
    this.ensureCapacity(state._nextId);
    const options = state._options.searchOptions;
    const fields = state._options.fields;
    const boosts = fields.map((field) =>
      options.boost && Object.hasOwn(options.boost, field) ? options.boost[field] || 1 : 1,
    );
    const fieldIds = fields.map((field) => state._fieldIds[field] as number);
    const weights = { ...DEFAULT_WEIGHTS, ...options.weights };
    const bm25 = options.bm25 ?? DEFAULT_BM25;
    const maxFuzzy = options.maxFuzzy ?? DEFAULT_MAX_FUZZY;
    const expansions = queryTerms.map((query) => expand(state, query, weights, maxFuzzy, this.separate));

    this.fillLengths(state, fieldIds.length);
    this.searches++;
    const { total, current, matched, stamp, touched, termTouched } = this;
    /** Per query term, per expansion: its lists, field by field (undefined where the field has none) */
    const lists: Array<Array<Array<CompiledPostings | undefined>>> = [];
    let touchedCount = 0;
    for (let q = 0; q < queryTerms.length; q++) {
      const termBoost = (queryTerms[q] as QueryTerm).boost;
      const mark = this.takeStamp();
      let termCount = 0;
      const termLists: Array<Array<CompiledPostings | undefined>> = [];
      lists.push(termLists);
      for (const { weight, data } of expansions[q] as Expansion[]) {
        const fieldLists: Array<CompiledPostings | undefined> = [];
        termLists.push(fieldLists);
        const saved = this.savedLists(data);
        for (let f = 0; f < fields.length; f++) {
          const fieldId = fieldIds[f] as number;
          const list =
            saved !== undefined
              ? this.savedListOf(state, saved, fieldId, bm25)
              : this.listOf(state, data, fieldId, bm25);
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

    const top = this.best(state, touchedCount, Math.max(0, limit), filter);
    for (let i = 0; i < touchedCount; i++) matched[touched[i] as number] = 0;
    return this.describe(state, top, queryTerms, expansions, lists);
  }

  /**
   * The best `limit` of the touched documents that pass `filter`, best first. The filter is asked
   * first of the best `limit` of all (a recall's filter looks a note up by path, and offering it
   * every document that enters the top on the way, in index order, asked it 3 to 4 times as
   * often); only when it turned some of them away are the others offered, each only if it would
   * enter the top as it then stands. The top of a total order does not depend on the order its
   * documents are offered in, so the answer is the one a single filtered pass gives.
   */
  private best(
    state: MiniSearchState,
    count: number,
    limit: number,
    filter: TopKFilter | undefined,
  ): Array<{ doc: number; score: number }> {
    const { touched, total, matched, stamp } = this;
    const ids = state._documentIds;
    const all = new TopHeap(limit, ids);
    for (let i = 0; i < count; i++) {
      const doc = touched[i] as number;
      const score = (total[doc] as number) * (matched[doc] as number);
      if (all.admits(doc, score)) all.push(doc, score);
    }
    if (filter === undefined) return all.sorted();
    const passes = (doc: number) => filter(ids.get(doc) as string, state._storedFields.get(doc) ?? {});
    const heap = new TopHeap(limit, ids);
    const offered = this.takeStamp();
    let refused = false;
    all.forEach((doc, score) => {
      stamp[doc] = offered;
      if (passes(doc)) heap.push(doc, score);
      else refused = true;
    });
    if (!refused) return heap.sorted();
    for (let i = 0; i < count; i++) {
      const doc = touched[i] as number;
      if (stamp[doc] === offered) continue;
      const score = (total[doc] as number) * (matched[doc] as number);
      if (heap.admits(doc, score) && passes(doc)) heap.push(doc, score);
    }
    return heap.sorted();
  }

  /** The matched terms of each returned document, in the order MiniSearch records them. */
  private describe(
    state: MiniSearchState,
    top: Array<{ doc: number; score: number }>,
    queryTerms: QueryTerm[],
    expansions: Expansion[][],
    lists: Array<Array<Array<CompiledPostings | undefined>>>,
  ): TopKResult[] {
    const matchedTerms = top.map(() => Object.create(null) as Record<string, true>);
    const matchedQuery = top.map(() => [] as string[]);
    const hit = new Uint8Array(top.length);
    for (let q = 0; q < queryTerms.length; q++) {
      const source = (queryTerms[q] as QueryTerm).term;
      (expansions[q] as Expansion[]).forEach(({ term }, e) => {
        hit.fill(0);
        // The scored lists hold every live posting of the term, and a returned document is live.
        for (const list of lists[q]?.[e] ?? []) {
          if (list === undefined) continue;
          for (let at = 0; at < top.length; at++) {
            if (!hit[at] && holds(list, (top[at] as { doc: number }).doc)) hit[at] = 1;
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
      id: state._documentIds.get(doc) as string,
      score,
      stored: state._storedFields.get(doc) ?? {},
      // An object's keys, as MiniSearch's `Object.keys(match)`: integer-like terms come first.
      terms: Object.keys(matchedTerms[at] as object),
      queryTerms: matchedQuery[at] as string[],
    }));
  }

  /**
   * The postings of one term in one field as typed arrays, without discarded documents, each with
   * its BM25 score (the same until the index changes: it depends on the counts and lengths only);
   * undefined when the term has none in that field.
   */
  private listOf(
    state: MiniSearchState,
    data: TermData,
    fieldId: number,
    bm25: Bm25,
  ): CompiledPostings | undefined {
    const postings = data.get(fieldId);
    if (postings === undefined) return undefined;
    const known = this.compiled.get(postings);
    if (known !== undefined) return known;
    const packed = postings instanceof PackedPostings ? postings.packed() : undefined;
    let list: CompiledPostings;
    if (packed !== undefined && packed.count === postings.size) {
      // Nothing deleted: the packed arrays are the list as it stands (views, not copies; any change
      // to the index drops this list before it could be read again).
      list = this.score(state, packed.ids, packed.freqs, packed.count, fieldId, bm25, false);
    } else {
      const { docs, freqs } = this.scratch(postings.size);
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
      list = this.score(state, docs, freqs, n, fieldId, bm25, true);
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
  private savedListOf(
    state: MiniSearchState,
    saved: SavedLists,
    fieldId: number,
    bm25: Bm25,
  ): CompiledPostings | undefined {
    const count = saved.counts.get(fieldId);
    if (count === undefined) return undefined;
    const known = saved.lists.get(fieldId);
    if (known !== undefined) return known;
    const { docs, freqs } = this.scratch(count);
    if (saved.term.readSaved(fieldId, docs, freqs) !== count) {
      return this.listOf(state, saved.term as unknown as TermData, fieldId, bm25);
    }
    const list = this.score(state, docs, freqs, count, fieldId, bm25, true);
    // Kept unless scoring it just dropped every kept list (the arena switched).
    if (this.compiledSaved.get(saved.term) === saved) saved.lists.set(fieldId, list);
    return list;
  }

  /** Arrays with room for `n` postings, reused from one list to the next (score() copies out of them). */
  private scratch(n: number): { docs: Uint32Array; freqs: Uint32Array } {
    if (this.scratchDocs.length < n) {
      const size = Math.max(n, this.scratchDocs.length * 2);
      this.scratchDocs = new Uint32Array(size);
      this.scratchFreqs = new Uint32Array(size);
    }
    return { docs: this.scratchDocs.subarray(0, n), freqs: this.scratchFreqs.subarray(0, n) };
  }

  /**
   * Scores the first `count` postings, leaving out discarded documents (they stay in MiniSearch's
   * postings until a vacuum, and are not counted, as after one). The documents are copied into the
   * arena, or, when `copyDocs` is false and nothing is left out, the list reads `ids` itself.
   */
  private score(
    state: MiniSearchState,
    ids: Uint32Array,
    freqs: Uint32Array,
    count: number,
    fieldId: number,
    bm25: Bm25,
    copyDocs: boolean,
  ): CompiledPostings {
    const dead = state._dirtCount > 0 ? this.deadDocuments(state) : undefined;
    let n = count;
    if (dead !== undefined) {
      n = 0;
      for (let p = 0; p < count; p++) if (dead[ids[p] as number] !== 1) n++;
    }
    const view = !copyDocs && n === count;
    const room = this.arenas.take(n, !view, this.searches);
    const docs = view ? ids.subarray(0, count) : (room.docs as Uint32Array);
    const { scores } = room;
    // As MiniSearch's calcBM25Score computes it, operation for operation, so the score is the same double.
    const { k, b, d } = bm25;
    const avgFieldLength = state._avgFieldLength[fieldId] as number;
    const invDocFreq = Math.log(1 + (state._documentCount - n + 0.5) / (n + 0.5));
    const lengths = this.lengths[fieldId] as Float32Array;
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

  /** Copies the field lengths of the documents added since the last search. */
  private fillLengths(state: MiniSearchState, fieldCount: number): void {
    const end = state._nextId;
    if (fieldCount !== this.lengths.length || end < this.lengthsFilled) {
      this.lengths = Array.from({ length: fieldCount }, () => new Float32Array(0));
      this.lengthsFilled = 0;
    }
    if (this.lengthsFilled >= end) return;
    const filled = this.lengthsFilled;
    if ((this.lengths[0]?.length ?? end) < end) {
      const capacity = Math.max(end, Math.ceil((this.lengths[0]?.length ?? 0) * 1.5));
      this.lengths = this.lengths.map((old) => {
        const grown = new Float32Array(capacity);
        grown.set(old.subarray(0, filled));
        return grown;
      });
    }
    const { lengths } = this;
    for (const field of lengths) field.fill(Number.NaN, filled, end);
    if (end - filled > state._fieldLength.size / 4) {
      // A fresh index: one pass over the lengths MiniSearch holds.
      for (const [doc, fields] of state._fieldLength) {
        if (doc < filled) continue;
        for (let f = 0; f < fieldCount; f++) (lengths[f] as Float32Array)[doc] = fields[f] as number;
      }
    } else {
      for (let doc = filled; doc < end; doc++) {
        const fields = state._fieldLength.get(doc);
        if (fields === undefined) continue;
        for (let f = 0; f < fieldCount; f++) (lengths[f] as Float32Array)[doc] = fields[f] as number;
      }
    }
    this.lengthsFilled = end;
  }

  private takeStamp(): number {
    if (this.nextStamp >= 0xffff_fffe) {
      this.stamp.fill(0);
      this.nextStamp = 0;
    }
    return ++this.nextStamp;
  }

  private ensureCapacity(size: number): void {
    if (this.total.length >= size) return;
    const capacity = Math.max(size, Math.ceil(this.total.length * 1.5), 1024);
    this.total = new Float64Array(capacity);
    this.current = new Float64Array(capacity);
    this.matched = new Uint8Array(capacity);
    this.stamp = new Uint32Array(capacity);
    this.nextStamp = 0;
    this.touched = new Uint32Array(capacity);
    this.termTouched = new Uint32Array(capacity);
  }

  private state(): MiniSearchState {
    return internalsOf(this.miniSearch);
  }
}

/** Whether a scored list holds `doc`: a binary search, or a scan of a list that does not ascend. */
function holds(list: CompiledPostings, doc: number): boolean {
  const { docs } = list;
  return list.ascending ? indexOfSorted(docs, docs.length, doc) >= 0 : docs.includes(doc);
}

/** The term itself, then its prefix matches, then its fuzzy matches, as MiniSearch#executeQuerySpec orders them. */
function expand(
  state: MiniSearchState,
  query: QueryTerm,
  weights: { fuzzy: number; prefix: number },
  maxFuzzy: number,
  separate: RegExp | undefined,
): Expansion[] {
  const out: Expansion[] = [];
  const exact = state._index.get(query.term);
  if (exact !== undefined) out.push({ term: query.term, weight: 1, data: exact });
  let fuzzyMatches: Map<string, [TermData, number]> | undefined;
  if (query.fuzzy) {
    const fuzzy = query.fuzzy === true ? 0.2 : query.fuzzy;
    const maxDistance = fuzzy < 1 ? Math.min(maxFuzzy, Math.round(query.term.length * fuzzy)) : fuzzy;
    if (maxDistance)
      fuzzyMatches = fuzzyTree(state, query.term, maxDistance, separate).fuzzyGet(query.term, maxDistance);
  }
  if (query.prefix) {
    for (const [term, data] of state._index.atPrefix(query.term)) {
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

/**
 * The term tree to look for `term`'s near spellings in: the whole tree, or, when `term` holds none
 * of the `separate` characters and the distance is below its length, the tree without the keys at
 * its root that start with one. Every term under such a key consists of those characters only, so
 * it shares no character with `term` and is at least `term.length` edits away (edits count UTF-16
 * code units, so a `term` with a surrogate, which a rare Han character could share, keeps the
 * whole tree). At 100,000 notes the root has a key per Chinese character, and walking the bigrams
 * under them was 1.3 to 1.9 ms of every English word of six letters or more, against 0.03 ms for
 * the rest of the tree; the keys left keep their order, so the matches come in the same order as
 * from the whole tree.
 */
function fuzzyTree(
  state: MiniSearchState,
  term: string,
  maxDistance: number,
  separate: RegExp | undefined,
): Pick<MiniSearchState['_index'], 'fuzzyGet'> {
  if (separate === undefined || maxDistance >= term.length || separate.test(term) || SURROGATE.test(term))
    return state._index;
  const rest: TreeNode = new Map();
  for (const [key, node] of state._index._tree) if (!separate.test(key.charAt(0))) rest.set(key, node);
  return new state._index.constructor(rest);
}

/**
 * The best `size` documents seen so far, worst at the root: lower score, then the larger id (so
 * ids ascend among equal scores, as the final order has them).
 */
class TopHeap {
  private readonly docs: number[] = [];
  private readonly scores: number[] = [];

  constructor(
    private readonly size: number,
    private readonly ids: Map<number, string>,
  ) {}

  /** Whether a document with this score would enter now. */
  admits(doc: number, score: number): boolean {
    if (this.size === 0) return false;
    if (this.docs.length < this.size) return true;
    return this.worse(this.docs[0] as number, this.scores[0] as number, doc, score);
  }

  push(doc: number, score: number): void {
    if (this.docs.length < this.size) {
      this.docs.push(doc);
      this.scores.push(score);
      this.up(this.docs.length - 1);
    } else {
      this.docs[0] = doc;
      this.scores[0] = score;
      this.down(0);
    }
  }

  /** Each document held and its score, in no particular order. */
  forEach(visit: (doc: number, score: number) => void): void {
    for (let i = 0; i < this.docs.length; i++) visit(this.docs[i] as number, this.scores[i] as number);
  }

  /** Best first. */
  sorted(): Array<{ doc: number; score: number }> {
    const all = this.docs.map((doc, i) => ({ doc, score: this.scores[i] as number }));
    return all.sort((x, y) => (this.worse(x.doc, x.score, y.doc, y.score) ? 1 : -1));
  }

  /** Whether document a ranks below document b. */
  private worse(a: number, scoreA: number, b: number, scoreB: number): boolean {
    if (scoreA !== scoreB) return scoreA < scoreB;
    return (this.ids.get(a) as string) > (this.ids.get(b) as string);
  }

  /** Whether the document in slot i ranks below the one in slot j. */
  private below(i: number, j: number): boolean {
    return this.worse(
      this.docs[i] as number,
      this.scores[i] as number,
      this.docs[j] as number,
      this.scores[j] as number,
    );
  }

  private up(i: number): void {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.below(i, parent)) break;
      this.swap(i, parent);
      i = parent;
    }
  }

  private down(i: number): void {
    const n = this.docs.length;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let worst = i;
      if (left < n && this.below(left, worst)) worst = left;
      if (right < n && this.below(right, worst)) worst = right;
      if (worst === i) return;
      this.swap(i, worst);
      i = worst;
    }
  }

  private swap(i: number, j: number): void {
    const doc = this.docs[i] as number;
    const score = this.scores[i] as number;
    this.docs[i] = this.docs[j] as number;
    this.scores[i] = this.scores[j] as number;
    this.docs[j] = doc;
    this.scores[j] = score;
  }
}
