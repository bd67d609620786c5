// The term dictionary of an index restored from the cache: each saved term's number in a Map and
// where its records are in typed arrays, instead of a LazyTermData object per term. A term's
// object is made when the index first asks for it (a query's terms, an add's, a vacuum's) and kept
// from then on, so the index sees one object per term as with a Map. At 1,000 notes a vault has
// some 13,000 terms, whose objects were 0.6 MiB of each loaded vault of a `mem serve --vaults`
// pool. (A hash table of its own in typed arrays, over one string of every term, took a further
// 0.6 MiB off, but hashing every term in JavaScript at each open cost a command's open 10-20 ms
// where the Map's native hashing costs 2.)
import type { SegmentSource } from '../segment-source.js';
import type { TermData } from './postings.js';
import { type Chunk, LazyTermData } from './saved-postings.js';

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
 * Gathers the saved terms as a load reads them (in their saved order), then makes the map. A term
 * saved in several records gives its first record here and the others to `addChunk`.
 */
export class SavedTermsBuilder {
  private readonly labels: string[] = [];
  private readonly sources: SegmentSource[] = [];
  private sourceOf = new Uint16Array(1024);
  private at = new Uint32Array(1024);
  private readonly more = new Map<number, Chunk[]>();
  /** Term → its number */
  private readonly numbers = new Map<string, number>();
  private lastSource: SegmentSource | undefined;
  private lastSourceIndex = -1;

  get count(): number {
    return this.labels.length;
  }

  /** The number of `term`, when it was added. */
  numberOf(term: string): number | undefined {
    return this.numbers.get(term);
  }

  /** Adds a term whose first record is at `at` in `source`; returns its number. */
  add(term: string, source: SegmentSource, at: number): number {
    const n = this.labels.length;
    if (n === this.at.length) {
      this.at = grow(this.at, new Uint32Array(n * 2));
      this.sourceOf = grow(this.sourceOf, new Uint16Array(n * 2));
    }
    if (source !== this.lastSource) {
      if (this.sources.length === 0xffff) throw new Error('the index cache has too many terms segments');
      this.lastSource = source;
      this.lastSourceIndex = this.sources.push(source) - 1;
    }
    this.labels.push(term);
    this.sourceOf[n] = this.lastSourceIndex;
    this.at[n] = at;
    this.numbers.set(term, n);
    return n;
  }

  /** Another record of term `n` (a term with very many postings is saved in several). */
  addChunk(n: number, chunk: Chunk): void {
    const list = this.more.get(n);
    if (list) list.push(chunk);
    else this.more.set(n, [chunk]);
  }

  finish(): SavedTerms {
    const count = this.labels.length;
    return new SavedTerms(
      this.labels,
      this.numbers,
      this.sources,
      this.sourceOf.slice(0, count),
      this.at.slice(0, count),
      this.more,
    );
  }
}

function grow<T extends Uint16Array | Uint32Array>(from: T, to: T): T {
  to.set(from);
  return to;
}

/** The restored dictionary: the saved terms in their order, then the terms added since, as a Map orders them. */
export class SavedTerms implements TermMap {
  /** Term number → its object, once the index asked for it by name */
  private readonly made = new Map<number, TermData>();
  /** Per saved term: 1 once deleted (a term added again comes after the saved ones, as in a Map) */
  private readonly deleted: Uint8Array;
  /** Per saved term: 1 when its object is the radix tree's (a term not kept out of it: fillTree) */
  private readonly inTree: Uint8Array;
  private treeGet: ((term: string) => TermData | undefined) | undefined;
  private live: number;
  /** Terms not saved, or saved, deleted and added again, in the order added */
  private readonly added = new Map<string, TermData>();

  constructor(
    /** The saved terms in their order, and each one's number (its place there) */
    private readonly labels: readonly string[],
    private readonly numbers: ReadonlyMap<string, number>,
    private readonly sources: readonly SegmentSource[],
    private readonly sourceOf: Uint16Array,
    private readonly at: Uint32Array,
    private readonly more: ReadonlyMap<number, Chunk[]>,
  ) {
    this.deleted = new Uint8Array(labels.length);
    this.inTree = new Uint8Array(labels.length);
    this.live = labels.length;
  }

  /** The saved term's number, deleted or not; -1 when it was never saved. */
  private find(term: string): number {
    return this.numbers.get(term) ?? -1;
  }

  private label(n: number): string {
    return this.labels[n] as string;
  }

  /** Term n's object: made and kept when the index asks for it by name. */
  private object(n: number, keep: boolean): TermData {
    const known = this.made.get(n);
    if (known) return known;
    if (this.inTree[n] === 1) {
      const inTree = this.treeGet?.(this.label(n));
      if (inTree) return inTree;
    }
    const lazy = new LazyTermData(
      this.sources[this.sourceOf[n] as number] as SegmentSource,
      this.at[n] as number,
    );
    for (const chunk of this.more.get(n) ?? []) lazy.addChunk(chunk);
    if (keep) this.made.set(n, lazy);
    return lazy;
  }

  get size(): number {
    return this.live + this.added.size;
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
      this.inTree[n] = 1;
      set(this.label(n), this.object(n, false));
    }
    this.treeGet = lookUp;
  }

  get(term: string): TermData | undefined {
    const n = this.find(term);
    if (n >= 0 && this.deleted[n] === 0) return this.object(n, true);
    return this.added.get(term);
  }

  has(term: string): boolean {
    const n = this.find(term);
    return (n >= 0 && this.deleted[n] === 0) || this.added.has(term);
  }

  set(term: string, data: TermData): this {
    const n = this.find(term);
    if (n >= 0 && this.deleted[n] === 0) this.made.set(n, data);
    else this.added.set(term, data);
    return this;
  }

  delete(term: string): boolean {
    const n = this.find(term);
    if (n >= 0 && this.deleted[n] === 0) {
      this.deleted[n] = 1;
      this.made.delete(n);
      this.live--;
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
    for (let n = 0; n < this.deleted.length; n++) {
      if (this.deleted[n] === 0) yield [this.label(n), this.object(n, false)];
    }
    yield* this.added.entries();
  }

  *keys(): IterableIterator<string> {
    for (let n = 0; n < this.deleted.length; n++) if (this.deleted[n] === 0) yield this.label(n);
    yield* this.added.keys();
  }

  *values(): IterableIterator<TermData> {
    for (const [, data] of this.entries()) yield data;
  }

  [Symbol.iterator](): IterableIterator<[string, TermData]> {
    return this.entries();
  }
}
