// The text index's own store: its documents, its terms and their postings. Built on MiniSearch's
// public `SearchableMap` (a radix tree with prefix and fuzzy walks) and nothing else of it; the
// top-k search (top-k-search.ts) scores it with MiniSearch's BM25, and MiniSearch's own `search`
// is kept only as the reference the tests hold it to.
import SearchableMap from 'minisearch/SearchableMap';
import { packTerm } from './packed-postings.js';
import type { Postings, TermData } from './postings.js';
import { RecentValues } from './recent-values.js';
import type { SavedDocs } from './saved-docs.js';
import { LazyTermData, largestFieldSize } from './saved-postings.js';
import type { TermMap } from './saved-terms.js';

export interface TermIndexOptions {
  /** Indexed fields, in order: a field's id is its place here */
  fields: readonly string[];
  /** Fields kept with each document and given back with its hits */
  storeFields: readonly string[];
  tokenize(text: string): string[];
  /** A token as it is indexed, or a falsy value to leave it out */
  processTerm(term: string): string | null | undefined | false;
  /**
   * Characters that the index's terms never mix with others (a term holding one holds only such
   * characters). Terms that start with one are looked up by exact term only, never by prefix or
   * near spelling: they are kept out of the radix tree, which the fuzzy walk of a long English
   * word would otherwise cross key by key (at 100,000 notes the root had a key per Chinese
   * character, and walking them was 1.3 to 1.9 ms of every such word, against 0.03 ms for the rest).
   */
  separate?: RegExp;
}

/** MiniSearch's default auto-vacuum conditions: at least this many discarded documents … */
const VACUUM_MIN_DIRT = 20;
/** … making at least this share of all documents */
const VACUUM_MIN_FACTOR = 0.1;

/**
 * Saved documents' ids and stored fields kept decoded per generation (two are kept): about 170
 * bytes of heap each, so at most some 11 MiB. Decoding one reads two or three blocks of the docs
 * file: over 1,000 varied recalls of a 100k vault, 8,192 decoded 454 ids a recall and took 20.5 ms
 * of CPU, 32,768 decoded 324 in 17.5 ms, keeping every one 140 in 16.5 ms for 22 MiB more heap
 * that grew with every new word asked.
 */
const SAVED_VALUES_KEPT = 32_768;

/**
 * Documents (by short id, given out in order and never reused), their field lengths and stored
 * fields, and every term's postings. Adding and discarding do MiniSearch 7's arithmetic on the
 * document count and the average field lengths, operation for operation, so BM25 scores come out
 * as the same doubles. A discarded document's postings stay until a vacuum, as in MiniSearch;
 * `dead` marks them so the search skips them.
 */
export class TermIndex {
  readonly fields: readonly string[];
  /** Short id → document id, for the documents added since the load; undefined once discarded */
  readonly ids = new SlotValues<string>();
  /** Ids and stored fields of saved documents, decoded as searches ask and kept while read (idOf, storedOf) */
  private readonly savedIds = new RecentValues<string>(SAVED_VALUES_KEPT);
  private readonly savedStored = new RecentValues<Record<string, unknown>>(SAVED_VALUES_KEPT);
  /** The documents a load left in the cache's bytes (see saved-docs.ts) */
  saved: SavedDocs | undefined;
  /** Document id → short id: every document of an index built here; of a restored one, those added since */
  private readonly added = new Map<string, number>();
  /** Per note path a change asked about: its saved documents, id → short id (see savedIdsOf) */
  private readonly savedByPath = new Map<string, Map<string, number> | null>();

  /**
   * A live document's short id. A restored index finds a saved one among its note's documents (an
   * id is its note's path, `#`, its anchor), by path in the saved documents: a map of every id,
   * made at the first change, took the first chat add to a 100,000-note vault 0.4 s and stayed.
   */
  shortIdOf(id: string): number | undefined {
    const added = this.added.get(id);
    if (added !== undefined || !this.saved) return added;
    for (let hash = id.indexOf('#'); hash >= 0; hash = id.indexOf('#', hash + 1)) {
      const shortId = this.savedIdsOf(id.slice(0, hash))?.get(id);
      if (shortId !== undefined) return this.dead[shortId] === 1 ? undefined : shortId;
    }
    return undefined;
  }

  /**
   * The saved documents of the note at `path`, id → short id (discarded ones too), or null: read
   * once per path a change asks about (the saved documents never change), so an add to a long day
   * does not search the segments or compare the day's ids again for each new entry.
   */
  private savedIdsOf(path: string): Map<string, number> | null {
    let ids = this.savedByPath.get(path);
    if (ids === undefined) {
      const shortIds = this.saved?.shortIdsOf(path);
      ids = shortIds ? new Map(shortIds.map((shortId) => [this.saved?.id(shortId) ?? '', shortId])) : null;
      this.savedByPath.set(path, ids);
    }
    return ids;
  }

  /** The ids of the saved documents of the note at `path` still live, in their order; undefined when it has none saved. */
  liveSavedIds(path: string): string[] | undefined {
    const ids = this.savedIdsOf(path);
    return ids ? [...ids].filter(([, shortId]) => this.dead[shortId] !== 1).map(([id]) => id) : undefined;
  }

  /** Document id → short id of every live document, made for a save (not kept). */
  allShortIds(): Map<string, number> {
    if (!this.saved) return this.added;
    const map = new Map<string, number>();
    for (let shortId = 0; shortId < this.nextId; shortId++) {
      const id = this.idOf(shortId);
      if (id !== undefined) map.set(id, shortId);
    }
    return map;
  }

  /** How many saved documents' ids are kept decoded */
  get decodedSavedIds(): number {
    return this.savedIds.count;
  }

  /** A live document's id (a saved one decoded when asked, kept while read); undefined once discarded. */
  idOf(shortId: number): string | undefined {
    if (this.dead[shortId] === 1) return undefined;
    const known = this.ids.get(shortId) ?? this.savedIds.get(shortId);
    if (known !== undefined || !this.saved?.has(shortId)) return known;
    const id = this.saved.id(shortId);
    if (id !== undefined) this.savedIds.set(shortId, id);
    return id;
  }

  /**
   * A live document's stored fields (a saved one decoded when asked, kept while read: a search
   * asks for the same few hundred each time its words come back).
   */
  storedOf(shortId: number): Record<string, unknown> | undefined {
    if (this.dead[shortId] === 1) return undefined;
    const known = this.stored.get(shortId) ?? this.savedStored.get(shortId);
    if (known !== undefined || !this.saved?.has(shortId)) return known;
    const stored = this.saved.stored(shortId);
    if (stored !== undefined) this.savedStored.set(shortId, stored);
    return stored;
  }

  /** Short id → stored fields, for the documents added since the load */
  readonly stored = new SlotValues<Record<string, unknown>>();
  /**
   * Per field id, per short id: the field's length in distinct tokens, or the array's ABSENT (its
   * largest value) for none; read through lengthAt(), written through setLength(). Laid out field
   * by field as 2-byte integers, a field widened to 4 bytes when a length does not fit (a length
   * counts tokens, so it is exact either way): scoring a posting list reads its field's lengths
   * forward, the documents ascending, and a posted document always has its field's length.
   */
  lengths: FieldLengths[];
  /** Per short id: 1 for a discarded document */
  dead = new Uint8Array(0);
  documentCount = 0;
  nextId = 0;
  /** Per field id: the average length over the documents */
  avgFieldLength: number[] = [];
  /** Discarded documents whose postings are still held */
  dirtCount = 0;
  /** Every term and its postings, in the order the terms were first added (a restored index: SavedTerms) */
  terms: TermMap = new Map<string, TermData>();
  /** The terms that do not start with a `separate` character, for prefix and fuzzy walks */
  tree = new SearchableMap<TermData>();
  /** Counts changes to documents or postings, so a search knows when what it keeps is stale */
  version = 0;
  /** First code unit of a term → whether it is a `separate` character (see startsSeparate()) */
  private readonly separateFirst = new Map<number, boolean>();

  constructor(readonly options: TermIndexOptions) {
    this.fields = options.fields;
    this.lengths = options.fields.map(() => new Uint16Array(0));
  }

  has(id: string): boolean {
    return this.shortIdOf(id) !== undefined;
  }

  /**
   * Indexes a document under `id`. Every field is read and tokenized before anything changes, so
   * a field that cannot be read (its toString throws) leaves the index as it was.
   */
  add(id: string, document: Readonly<Record<string, unknown>>): void {
    if (this.has(id)) throw new Error(`text index: duplicate ID ${id}`);
    const { tokenize, processTerm, storeFields } = this.options;
    const tokens = this.fields.map((field) => {
      const value = document[field];
      return value == null ? undefined : tokenize((value as { toString(): string }).toString());
    });
    const shortId = this.nextId++;
    this.documentCount++;
    this.version++;
    this.ensureCapacity(this.nextId);
    this.ids.set(shortId, id);
    this.added.set(id, shortId);
    const stored: Record<string, unknown> = {};
    for (const field of storeFields) if (document[field] !== undefined) stored[field] = document[field];
    this.stored.set(shortId, stored);
    for (let fieldId = 0; fieldId < tokens.length; fieldId++) {
      const list = tokens[fieldId];
      if (list === undefined) continue;
      const length = new Set(list).size;
      this.setLength(fieldId, shortId, length);
      addFieldLength(this.avgFieldLength, fieldId, this.documentCount, length);
      for (const token of list) {
        const term = processTerm(token);
        if (term) this.addTerm(fieldId, shortId, term);
      }
    }
  }

  /** The postings of a term, creating them (and its place in the tree) for a new term. */
  private addTerm(fieldId: number, shortId: number, term: string): void {
    let data = this.terms.get(term);
    if (data === undefined) {
      data = new Map();
      this.terms.set(term, data);
      if (!this.startsSeparate(term)) this.tree.set(term, data);
    }
    // A saved term takes the posting beside its saved bytes, left undecoded (see LazyTermData).
    if (data instanceof LazyTermData && data.addPosting(fieldId, shortId)) return;
    const postings = data.get(fieldId);
    if (postings === undefined) data.set(fieldId, new Map([[shortId, 1]]));
    else postings.set(shortId, (postings.get(shortId) ?? 0) + 1);
  }

  /** Drops a document (an unknown id is ignored); its postings stay until a vacuum. */
  discard(id: string): void {
    const shortId = this.shortIdOf(id);
    if (shortId === undefined) return;
    this.added.delete(id);
    this.ids.set(shortId, undefined);
    this.stored.set(shortId, undefined);
    this.dead[shortId] = 1;
    // MiniSearch's removeFieldLength, field by field, with the count before the discard.
    const count = this.documentCount;
    this.lengths.forEach((lengths, fieldId) => {
      const length = lengthAt(lengths, shortId);
      if (Number.isNaN(length)) return;
      lengths[shortId] = absentOf(lengths);
      if (count === 1) this.avgFieldLength[fieldId] = 0;
      else
        this.avgFieldLength[fieldId] =
          ((this.avgFieldLength[fieldId] as number) * count - length) / (count - 1);
    });
    this.documentCount--;
    this.dirtCount++;
    this.version++;
  }

  /** Vacuums when as many documents were discarded as MiniSearch's auto-vacuum waits for. */
  maybeVacuum(): void {
    const factor = this.dirtCount / (1 + this.documentCount + this.dirtCount);
    if (this.dirtCount >= VACUUM_MIN_DIRT && factor >= VACUUM_MIN_FACTOR) this.vacuum();
  }

  /**
   * Drops the postings of discarded documents, and the terms left with none, in the order
   * MiniSearch's vacuum does (the tree's own order), so the tree keeps the shape MiniSearch's has.
   */
  vacuum(): void {
    if (this.dirtCount === 0) return;
    // Deleted while walking, as MiniSearch's vacuum does: the tree's shape after it depends on the order.
    for (const [term, data] of this.tree) {
      if (!this.prune(data) || this.tree.get(term)?.size !== 0) continue;
      this.tree.delete(term);
      this.terms.delete(term);
    }
    for (const [term] of this.terms) {
      // Asked for by name: a restored index's walk gives objects it does not keep (SavedTerms).
      if (this.startsSeparate(term) && this.prune(this.terms.get(term) as TermData)) this.terms.delete(term);
    }
    this.dirtCount = 0;
    this.version++;
  }

  /** Drops the dead postings of one term; whether it has none left. */
  private prune(data: TermData): boolean {
    const { dead } = this;
    for (const [fieldId, postings] of data) {
      for (const [shortId] of postings as Postings) {
        if (dead[shortId] !== 1) continue;
        if (postings.size <= 1) data.delete(fieldId);
        else postings.delete(shortId);
      }
    }
    return data.size === 0;
  }

  /** Packs the long posting lists (see PackedPostings); postings still in saved bytes stay so. */
  packPostings(): void {
    for (const data of this.terms.values()) {
      if (data instanceof LazyTermData && data.saved) continue;
      packTerm(data);
    }
    this.version++;
  }

  /**
   * The largest number of documents one field of the term's postings holds (discarded ones
   * included until a vacuum, as in MiniSearch): BM25's document frequency of the term.
   */
  documentFrequency(term: string): number {
    const data = this.terms.get(term);
    return data === undefined ? 0 : largestFieldSize(data);
  }

  /**
   * Whether a term starts with a `separate` character, and so stays out of the tree. Asked of
   * every term a cache load restores (34,000 at 10,000 notes): the answer is kept per first
   * character, where testing the Unicode-script pattern each time was most of building the tree.
   */
  startsSeparate(term: string): boolean {
    return term !== '' && this.startsSeparateUnit(term.charCodeAt(0));
  }

  /** startsSeparate for a term whose first code unit is `unit` (a load has the term's code units, not its string). */
  startsSeparateUnit(unit: number): boolean {
    const { separate } = this.options;
    if (separate === undefined) return false;
    let known = this.separateFirst.get(unit);
    if (known === undefined) {
      known = separate.test(String.fromCharCode(unit));
      this.separateFirst.set(unit, known);
    }
    return known;
  }

  /**
   * Sets a document's length in a field: a count of tokens, or NaN for none. A count that does not
   * fit the field's 2-byte array widens it to 4 bytes (a string holds fewer than 2^32 - 1 tokens).
   */
  setLength(fieldId: number, shortId: number, length: number): void {
    let lengths = this.lengths[fieldId] as FieldLengths;
    if (Number.isNaN(length)) {
      lengths[shortId] = absentOf(lengths);
      return;
    }
    if (!Number.isInteger(length) || length < 0 || length >= 0xffff_ffff)
      throw new Error(`text index: a field length of ${length}`);
    if (length >= absentOf(lengths)) {
      const wide = new Uint32Array(lengths.length).fill(ABSENT_32);
      for (let doc = 0; doc < lengths.length; doc++) {
        const known = lengths[doc] as number;
        if (known !== ABSENT_16) wide[doc] = known;
      }
      lengths = wide;
      this.lengths[fieldId] = wide;
    }
    lengths[shortId] = length;
  }

  /** Room for documents up to short id `size - 1` in the per-document arrays. */
  ensureCapacity(size: number): void {
    const capacity = this.dead.length;
    if (size <= capacity) return;
    const grown = Math.max(size, Math.ceil(capacity * 1.5), 64);
    this.lengths = this.lengths.map((old) => {
      const lengths = old instanceof Uint16Array ? new Uint16Array(grown) : new Uint32Array(grown);
      lengths.fill(absentOf(lengths));
      lengths.set(old);
      return lengths;
    });
    const dead = new Uint8Array(grown);
    dead.set(this.dead);
    this.dead = dead;
  }
}

/**
 * MiniSearch's addFieldLength: the field's average over `documentCount` documents, the one just
 * added of `length` among them, computed operation for operation so BM25 gets the same doubles.
 */
export function addFieldLength(
  averages: number[],
  fieldId: number,
  documentCount: number,
  length: number,
): void {
  const count = documentCount - 1;
  const total = (averages[fieldId] || 0) * count + length;
  averages[fieldId] = total / (count + 1);
}

/** A field's lengths by short id: 2-byte integers, or 4-byte once one does not fit; ABSENT for none. */
export type FieldLengths = Uint16Array | Uint32Array;

const ABSENT_16 = 0xffff;
const ABSENT_32 = 0xffff_ffff;

/** The value that stands for "no such field" in `lengths`: its type's largest. */
function absentOf(lengths: FieldLengths): number {
  return lengths instanceof Uint16Array ? ABSENT_16 : ABSENT_32;
}

/** A document's length in a field, NaN when it has none (as MiniSearch's fieldLength is undefined). */
export function lengthAt(lengths: FieldLengths, shortId: number): number {
  const length = lengths[shortId] as number;
  return length === absentOf(lengths) ? Number.NaN : length;
}

/**
 * Values by short id: a Map while few are set (a loaded vault's searches decode a few hundred of its
 * thousands of documents, and an array with room for every short id cost a pooled vault 8 bytes a
 * document twice over), an array once they are many (a Map entry costs some three times a slot).
 */
export class SlotValues<T> {
  private map: Map<number, T> | undefined = new Map();
  private array: Array<T | undefined> | undefined;
  /** One past the largest slot set while a Map */
  private end = 0;

  get(slot: number): T | undefined {
    return this.array !== undefined ? this.array[slot] : this.map?.get(slot);
  }

  set(slot: number, value: T | undefined): void {
    if (this.array !== undefined) {
      this.array[slot] = value;
      return;
    }
    const map = this.map as Map<number, T>;
    if (value === undefined) {
      map.delete(slot);
      return;
    }
    map.set(slot, value);
    if (slot >= this.end) this.end = slot + 1;
    if (map.size >= 16 && map.size * 3 >= this.end) {
      const array = new Array<T | undefined>(this.end);
      for (const [at, held] of map) array[at] = held;
      this.array = array;
      this.map = undefined;
    }
  }

  /** How many slots hold a value */
  get count(): number {
    if (this.array === undefined) return (this.map as Map<number, T>).size;
    let count = 0;
    for (const value of this.array) if (value !== undefined) count++;
    return count;
  }
}
