// The term dictionary of an index restored from the cache: each terms segment's own hash table of
// its terms (term-dictionary.ts), and where each term's records are in typed arrays, instead of a
// string, a Map entry and a LazyTermData object per term. A term's object is made when the index
// first asks for it (a query's terms, an add's, a vacuum's) and kept from then on, so the index
// sees one object per term as with a Map. At 1,000 notes a vault has some 13,000 terms: their
// objects were 0.6 MiB of each loaded vault of a `mem serve --vaults` pool, and their strings and
// Map 0.85 MiB more. (A hash table built at each open instead of saved cost a command's open
// 10-20 ms at 1,000 notes: hashing every term in JavaScript that has not been compiled yet.)
import type { SegmentSource } from '../segment-source.js';
import type { TermData } from './postings.js';
import { type Chunk, LazyTermData } from './saved-postings.js';
import { type TermDictionary, termHash } from './term-dictionary.js';

/** What the index asks of its term dictionary: a Map of term → postings, in the order terms were first added. */
export interface TermMap extends Iterable<[string, TermData]> {
  readonly size: number;
  get(term: string): TermData | undefined;
  has(term: string): boolean;
  set(term: string, data: TermData): this;
  delete(term: string): boolean;
  keys(): IterableIterator<string>;
  values(): IterableIterator<TermData>;
  entries(): IterableIterator<[string, TermData]>;
}

/**
 * Gathers the saved terms as a load reads them (segment by segment, in their saved order), then
 * makes the map. A term saved in several records gives its first record to `record` and the others
 * to `addChunk`.
 */
export class SavedTermsBuilder {
  private readonly dictionaries: TermDictionary[] = [];
  private readonly sources: SegmentSource[] = [];
  /** Per segment: the number of its first term */
  private readonly firsts: number[] = [];
  private at = new Uint32Array(1024);
  private readonly more = new Map<number, Chunk[]>();
  private n = 0;

  /** Starts a segment: its terms are the next `dictionary.count` terms, in the dictionary's order. */
  segment(dictionary: TermDictionary, source: SegmentSource): void {
    if (this.sources.length === 0xffff) throw new Error('the index cache has too many terms segments');
    this.dictionaries.push(dictionary);
    this.sources.push(source);
    this.firsts.push(this.n);
  }

  /** The current segment's next term, whose first record is at `at`; returns its number. */
  record(at: number): number {
    const n = this.n;
    const segment = this.sources.length - 1;
    if (segment < 0) throw new Error('a term record comes before its segment');
    if (n - (this.firsts[segment] as number) >= (this.dictionaries[segment] as TermDictionary).count) {
      throw new Error('a terms segment has more records than terms');
    }
    if (n === this.at.length) {
      const at = new Uint32Array(n * 2);
      at.set(this.at);
      this.at = at;
    }
    this.at[n] = at;
    this.n++;
    return n;
  }

  /** Another record of term `n` (a term with very many postings is saved in several). */
  addChunk(n: number, chunk: Chunk): void {
    const list = this.more.get(n);
    if (list) list.push(chunk);
    else this.more.set(n, [chunk]);
  }

  finish(): SavedTerms {
    const count = this.n;
    const segments = this.dictionaries.length;
    if (segments > 0) {
      const last =
        (this.firsts[segments - 1] as number) + (this.dictionaries[segments - 1] as TermDictionary).count;
      if (last !== count) throw new Error('a terms segment has terms it does not use');
    }
    return new SavedTerms(this.dictionaries, this.firsts, this.sources, this.at.slice(0, count), this.more);
  }
}

/** The restored dictionary: the saved terms in their order, then the terms added since, as a Map orders them. */
export class SavedTerms implements TermMap {
  /**
   * A saved term → its object, once the index asked for it by name: asked again (a query's terms
   * come back), the Map's hash of the string answers before the dictionaries are probed
   */
  private readonly made = new Map<string, TermData>();
  /**
   * Per saved term, two flags in one byte (one array, not two, in every loaded vault): DELETED once
   * deleted (a term added again comes after the saved ones, as in a Map), IN_TREE when its object
   * is the radix tree's (a term not kept out of it: fillTree)
   */
  private readonly flags: Uint8Array;
  private treeGet: ((term: string) => TermData | undefined) | undefined;
  private liveCount: number;
  /** Terms not saved, or saved, deleted and added again, in the order added */
  private readonly added = new Map<string, TermData>();

  constructor(
    /** Per terms segment: its terms, and the number of its first */
    private readonly dictionaries: readonly TermDictionary[],
    private readonly firsts: readonly number[],
    private readonly sources: readonly SegmentSource[],
    /**
     * Per saved term (numbered in the saved order): where its first record is in its segment (the
     * segment is found from `firsts`, not kept per term: a pooled vault has one or a few)
     */
    private readonly at: Uint32Array,
    private readonly more: ReadonlyMap<number, Chunk[]>,
  ) {
    this.flags = new Uint8Array(at.length);
    this.liveCount = at.length;
  }

  /** The segment of saved term n: the last whose first term is at most n (an empty one has none). */
  private segmentOf(n: number): number {
    const { firsts } = this;
    let low = 0;
    let high = firsts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >>> 1;
      if ((firsts[mid] as number) <= n) low = mid;
      else high = mid - 1;
    }
    return low;
  }

  /** Whether saved term n is not deleted */
  private live(n: number): boolean {
    return ((this.flags[n] as number) & DELETED) === 0;
  }

  /** The saved term's number, deleted or not; -1 when it was never saved. */
  private find(term: string): number {
    const hash = termHash(term);
    for (let d = 0; d < this.dictionaries.length; d++) {
      const i = (this.dictionaries[d] as TermDictionary).find(term, hash);
      if (i >= 0) return (this.firsts[d] as number) + i;
    }
    return -1;
  }

  private label(n: number): string {
    const d = this.segmentOf(n);
    return (this.dictionaries[d] as TermDictionary).term(n - (this.firsts[d] as number));
  }

  /** Term n's object (`term` its name, when the caller has it): made and kept when the index asks for it by name. */
  private object(n: number, keep: boolean, term: string = this.label(n)): TermData {
    const known = this.made.get(term);
    if (known) return known;
    if (((this.flags[n] as number) & IN_TREE) !== 0) {
      const inTree = this.treeGet?.(term);
      if (inTree) {
        if (keep) this.made.set(term, inTree);
        return inTree;
      }
    }
    const lazy = new LazyTermData(this.sources[this.segmentOf(n)] as SegmentSource, this.at[n] as number);
    for (const chunk of this.more.get(n) ?? []) lazy.addChunk(chunk);
    if (keep) this.made.set(term, lazy);
    return lazy;
  }

  get size(): number {
    return this.liveCount + this.added.size;
  }

  /**
   * Fills the radix tree with the saved terms numbered `numbers` (in order), each with an object
   * made now; from then on their objects are the tree's (`lookUp`), not kept here a second time.
   */
  fillTree(
    numbers: readonly number[],
    set: (term: string, data: TermData) => void,
    lookUp: (term: string) => TermData | undefined,
  ): void {
    for (const n of numbers) {
      this.flags[n] = (this.flags[n] as number) | IN_TREE;
      const term = this.label(n);
      set(term, this.object(n, false, term));
    }
    this.treeGet = lookUp;
  }

  get(term: string): TermData | undefined {
    const known = this.made.get(term);
    if (known) return known;
    const n = this.find(term);
    if (n >= 0 && this.live(n)) return this.object(n, true, term);
    return this.added.get(term);
  }

  has(term: string): boolean {
    if (this.made.has(term)) return true;
    const n = this.find(term);
    return (n >= 0 && this.live(n)) || this.added.has(term);
  }

  set(term: string, data: TermData): this {
    const n = this.find(term);
    if (n >= 0 && this.live(n)) this.made.set(term, data);
    else this.added.set(term, data);
    return this;
  }

  delete(term: string): boolean {
    const n = this.find(term);
    if (n >= 0 && this.live(n)) {
      this.flags[n] = (this.flags[n] as number) | DELETED;
      this.made.delete(term);
      this.liveCount--;
      return true;
    }
    return this.added.delete(term);
  }

  /**
   * Every term and its object, saved ones first. A saved term not asked for yet is given a new
   * object each time, not kept (a save or a vacuum walks every term): one that changes it asks
   * for it by name first (`get`), as TermIndex.vacuum does.
   */
  *entries(): IterableIterator<[string, TermData]> {
    for (let n = 0; n < this.flags.length; n++) {
      if (this.live(n)) {
        const term = this.label(n);
        yield [term, this.object(n, false, term)];
      }
    }
    yield* this.added.entries();
  }

  *keys(): IterableIterator<string> {
    for (let n = 0; n < this.flags.length; n++) if (this.live(n)) yield this.label(n);
    yield* this.added.keys();
  }

  *values(): IterableIterator<TermData> {
    for (const [, data] of this.entries()) yield data;
  }

  [Symbol.iterator](): IterableIterator<[string, TermData]> {
    return this.entries();
  }
}

const DELETED = 1;
const IN_TREE = 2;
