// The term dictionary of an index restored from the cache: every saved term in a few typed arrays
// and one string, instead of a Map entry, a string and a LazyTermData object per term. A term's
// object is made when the index first asks for it (a query's terms, an add's, a vacuum's) and kept
// from then on, so the index sees one object per term as with a Map. At 1,000 notes a vault has
// some 13,000 terms: as Map entries they were 1.5 MiB of each loaded vault of a `mem serve
// --vaults` pool, here about 0.3 MiB.
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

/** FNV-1a over a string's UTF-16 code units between `from` and `to`. */
function hashOf(text: string, from: number, to: number): number {
  let hash = 0x811c9dc5;
  for (let i = from; i < to; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return hash >>> 0;
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
  /** Term → its number, while loading: checks a term comes once, and finds the last for addChunk */
  private readonly numbers = new Map<string, number>();

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
    let s = this.sources.lastIndexOf(source);
    if (s < 0) {
      if (this.sources.length === 0xffff) throw new Error('the index cache has too many terms segments');
      s = this.sources.push(source) - 1;
    }
    this.labels.push(term);
    this.sourceOf[n] = s;
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
  /** Every saved term, one after the other; term n is text[start[n] .. start[n + 1]] */
  private readonly text: string;
  private readonly start: Uint32Array;
  private readonly hashes: Uint32Array;
  /** Open addressing: term number + 1, or 0 for an empty slot */
  private readonly slots: Int32Array;
  /** Term number → its object, once the index asked for it by name */
  private readonly made = new Map<number, TermData>();
  /** Per saved term: 1 once deleted (a term added again comes after the saved ones, as in a Map) */
  private readonly deleted: Uint8Array;
  private live: number;
  /** Terms not saved, or saved, deleted and added again, in the order added */
  private readonly added = new Map<string, TermData>();

  constructor(
    labels: readonly string[],
    private readonly sources: readonly SegmentSource[],
    private readonly sourceOf: Uint16Array,
    private readonly at: Uint32Array,
    private readonly more: ReadonlyMap<number, Chunk[]>,
  ) {
    const count = labels.length;
    this.text = labels.join('');
    this.start = new Uint32Array(count + 1);
    this.hashes = new Uint32Array(count);
    let size = 16;
    while (size < count * 2) size *= 2;
    this.slots = new Int32Array(size);
    this.deleted = new Uint8Array(count);
    this.live = count;
    let position = 0;
    for (let n = 0; n < count; n++) {
      const from = position;
      position += (labels[n] as string).length;
      this.start[n + 1] = position;
      const hash = hashOf(this.text, from, position);
      this.hashes[n] = hash;
      let slot = hash & (size - 1);
      while (this.slots[slot] !== 0) slot = (slot + 1) & (size - 1);
      this.slots[slot] = n + 1;
    }
  }

  /** The saved term's number, deleted or not; -1 when it was never saved. */
  private find(term: string): number {
    const hash = hashOf(term, 0, term.length);
    const mask = this.slots.length - 1;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const n = (this.slots[slot] as number) - 1;
      if (n < 0) return -1;
      if (this.hashes[n] !== hash) continue;
      const from = this.start[n] as number;
      if ((this.start[n + 1] as number) - from === term.length && this.text.startsWith(term, from)) return n;
    }
  }

  private label(n: number): string {
    return this.text.slice(this.start[n], this.start[n + 1]);
  }

  /** Term n's object: made and kept when the index asks for it by name. */
  private object(n: number, keep: boolean): TermData {
    const known = this.made.get(n);
    if (known) return known;
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
