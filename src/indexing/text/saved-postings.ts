// Postings left in the bytes the cache saved them in until first used (see LazyTermData), and the
// varints they are written in (the format is text-index-store.ts's).
import type { SegmentSource } from '../segment-source.js';
import type { Postings, TermData } from './postings.js';

export function zigzag(delta: number): number {
  return delta >= 0 ? delta * 2 : -delta * 2 - 1;
}

export function unzigzag(value: number): number {
  return value % 2 === 0 ? value / 2 : -(value + 1) / 2;
}

/** Reads varints from `bytes` between `pos` and `end`; throws rather than read past `end`. */
export class VarintReader {
  constructor(
    private readonly bytes: Uint8Array,
    public pos: number,
    private readonly end: number,
  ) {}

  next(): number {
    const { bytes, end } = this;
    if (this.pos >= end) throw new Error('a term record of the index cache is cut short');
    let byte = bytes[this.pos++] as number;
    if (byte < 0x80) return byte;
    let value = byte & 0x7f;
    let scale = 0x80;
    do {
      if (this.pos >= end) throw new Error('a term record of the index cache ends inside a number');
      byte = bytes[this.pos++] as number;
      value += (byte & 0x7f) * scale;
      scale *= 0x80;
    } while (byte >= 0x80);
    return value;
  }

  /** Passes over `count` varints without reading their values. */
  skip(count: number): void {
    const { bytes, end } = this;
    let pos = this.pos;
    for (let left = count; left > 0; left--) {
      while (pos < end && (bytes[pos] as number) >= 0x80) pos++;
      if (pos >= end) throw new Error('a term record of the index cache is cut short');
      pos++;
    }
    this.pos = pos;
  }
}

/** A term whose postings are still the bytes they were saved in, or undefined (see LazyTermData). */
export function savedTerm(data: TermData): SavedTerm | undefined {
  return data instanceof LazyTermData && data.saved ? data : undefined;
}

/** What the top-k search reads of a term still in its saved bytes. */
export interface SavedTerm {
  savedCounts(): Map<number, number> | undefined;
  readSaved(fieldId: number, ids: Uint32Array, freqs: Uint32Array): number;
}

/**
 * The largest number of documents one field of a term's postings holds: BM25's document
 * frequency of the term, read from the records' counts while its postings are still saved bytes.
 * Recall asks it of every word of the entries around its hits, and decoding a common word's
 * postings to count them cost more than the rest of the recall.
 */
export function largestFieldSize(data: TermData): number {
  const saved = savedTerm(data)?.savedCounts();
  let largest = 0;
  if (saved !== undefined) for (const count of saved.values()) largest = Math.max(largest, count);
  else for (const postings of data.values()) largest = Math.max(largest, postings.size);
  return largest;
}

export function varintSize(value: number): number {
  let size = 1;
  for (let n = value; n >= 0x80; n = Math.floor(n / 0x80)) size++;
  return size;
}

/** One saved record of a term's postings: its segment, where its fields start and end there, its field count */
export type Chunk = [source: SegmentSource, start: number, end: number, fields: number];

/** A reader of a record's fields, over its bytes as read from its segment (valid until the segment's next read). */
export function chunkReader([source, start, end]: Chunk): VarintReader {
  return new VarintReader(source.read(start, end), 0, end - start);
}

/** Decodes one record's fields into `into`, adding to what it holds, each field's postings as a Map. */
export function decodeChunk(chunk: Chunk, into: TermData): void {
  const fieldCount = chunk[3];
  const end = chunk[2] - chunk[1];
  const reader = chunkReader(chunk);
  for (let f = 0; f < fieldCount; f++) {
    const fieldId = reader.next();
    const count = reader.next();
    let postings = into.get(fieldId);
    if (!postings) {
      postings = new Map();
      into.set(fieldId, postings);
    }
    let shortId = 0;
    for (let i = 0; i < count; i++) {
      shortId += unzigzag(reader.next());
      postings.set(shortId, reader.next());
    }
  }
  if (reader.pos !== end) throw new Error('a term record of the index cache is longer than its fields');
}

/** The records after the first of a term saved in one (nearly every term): shared, never written to */
const NO_CHUNKS: readonly Chunk[] = [];

/** Bytes read for a record's head: its field count and length, and with them the whole of most records */
const HEAD_READ = 256;

/**
 * A term's postings left in the segment they were saved in until the index first asks for them.
 * A query touches a few terms of hundreds of thousands, and decoding every posting on load took
 * most of a warm open (1.4 million Map entries at 10,000 notes, and their garbage collection);
 * left in the segment, which an open of the cache reads by offset (segment-source.ts), they take
 * no memory at all. Every Map method decodes first, so the index sees an ordinary Map.
 *
 * It is one object of three fields a term while undecoded (48 bytes): the segment and where the
 * first record starts (its head is read again when asked for; nearly every term has one record),
 * and the Map is made when decoded.
 *
 * Postings added since the load (`addPosting`) are held beside the saved bytes, not decoded into
 * them: a chat add to a long-lived vault posts common words ("story", "lake"), and decoding their
 * saved postings into Maps to add one entry kept 8 MiB of a 10,000-note vault's 44 MiB heap after
 * 1,000 adds, and cost the first adds of a day most of their CPU. Every reader sees the saved
 * postings then the added ones, field by field, as the Map decoding them first would hold them.
 *
 * As a subclass of Map, with the record in an array of arrays, a loaded term took some 300 bytes
 * (an empty Map's table alone is 152), 3.5 MiB of the 6 MiB heap each loaded vault of 1,000 notes
 * cost a `mem serve --vaults` pool.
 */
export class LazyTermData implements Map<number, Postings> {
  /** The segment holding the first saved record, until decoded */
  private source: SegmentSource | undefined;
  /** Where the first record starts in it: its field count and byte length (varints), then its fields */
  private readonly at: number;
  /**
   * Until decoded, the records after the first (a term saved in several), or those and the postings
   * added since the load (Additions); once decoded, the postings
   */
  private rest: Chunk[] | Additions | TermData | undefined;

  /** The term's first record, at `at` in `source` (checked by the loader to lie inside it). */
  constructor(source: SegmentSource, at: number) {
    this.source = source;
    this.at = at;
  }

  /** The first record as a Chunk, its head read again from the segment. */
  private first(source: SegmentSource): Chunk {
    const head = source.read(this.at, Math.min(source.size, this.at + HEAD_READ));
    const reader = new VarintReader(head, 0, head.length);
    // The head: twice the field count (a term's first record does not continue another).
    const fieldCount = reader.next() / 2;
    const length = reader.next();
    const start = this.at + reader.pos;
    if (start + length > source.size) throw new Error('a term record of the index cache is cut short');
    return [source, start, start + length, fieldCount];
  }

  /** Another record of the same term (a term with very many postings is saved in several). */
  addChunk(chunk: Chunk): boolean {
    if (!this.source) return false;
    const { rest } = this;
    if (rest instanceof Additions) rest.more.push(chunk);
    else if (rest) (rest as Chunk[]).push(chunk);
    else this.rest = [chunk];
    return true;
  }

  /**
   * While the postings are still bytes: adds one occurrence of the term in field `fieldId` of
   * document `shortId` (one added since the load, so not among the saved postings) beside them,
   * and returns true; returns false, changing nothing, once decoded (the caller sets the Map).
   */
  addPosting(fieldId: number, shortId: number): boolean {
    if (!this.source) return false;
    let { rest } = this;
    if (!(rest instanceof Additions)) {
      rest = new Additions((rest as Chunk[] | undefined) ?? []);
      this.rest = rest;
    }
    const postings = rest.added.get(fieldId);
    if (postings === undefined) rest.added.set(fieldId, new Map([[shortId, 1]]));
    else postings.set(shortId, (postings.get(shortId) ?? 0) + 1);
    return true;
  }

  /** The saved records after the first, while not decoded. */
  private more(): readonly Chunk[] {
    const { rest } = this;
    return rest instanceof Additions ? rest.more : ((rest as Chunk[] | undefined) ?? NO_CHUNKS);
  }

  /** The postings added since the load, while the saved ones are not decoded; undefined for none. */
  added(): TermData | undefined {
    const { rest } = this;
    return this.source !== undefined && rest instanceof Additions ? rest.added : undefined;
  }

  /** Whether the postings are still the saved records (not decoded yet) */
  get saved(): boolean {
    return this.source !== undefined;
  }

  /** The saved records, while they are not decoded yet (the postings added since: `added`). */
  pending(): readonly Chunk[] | undefined {
    const { source } = this;
    if (!source) return undefined;
    return [this.first(source), ...this.more()];
  }

  /**
   * While the postings are still bytes: how many each field holds (field id → count), read from the
   * records, with the postings added since.
   */
  savedCounts(): Map<number, number> | undefined {
    if (this.source === undefined) return undefined;
    const counts = new Map<number, number>();
    const records = 1 + this.more().length;
    for (let c = 0; c < records; c++) {
      const [reader, fieldCount] = this.reader(c);
      for (let f = 0; f < fieldCount; f++) {
        const fieldId = reader.next();
        const count = reader.next();
        counts.set(fieldId, (counts.get(fieldId) ?? 0) + count);
        reader.skip(2 * count);
      }
    }
    for (const [fieldId, postings] of this.added() ?? []) {
      counts.set(fieldId, (counts.get(fieldId) ?? 0) + postings.size);
    }
    return counts;
  }

  /**
   * While the postings are still bytes: one field's postings read into `ids` and `freqs` (room for
   * its saved count), in the order decoding would give them, leaving the term as it is. The top-k
   * search scores a term's postings from here, so a common word's hundred thousand postings never
   * become a Map kept for the life of the process. Returns how many were read, or -1 when an id
   * does not fit the arrays (the caller decodes the term instead).
   */
  readSaved(fieldId: number, ids: Uint32Array, freqs: Uint32Array): number {
    if (this.source === undefined) return -1;
    let n = 0;
    const records = 1 + this.more().length;
    for (let c = 0; c < records; c++) {
      const [reader, fieldCount] = this.reader(c);
      for (let f = 0; f < fieldCount; f++) {
        const field = reader.next();
        const count = reader.next();
        if (field !== fieldId) {
          reader.skip(2 * count);
          continue;
        }
        if (n + count > ids.length) return -1;
        let shortId = 0;
        for (let i = 0; i < count; i++) {
          shortId += unzigzag(reader.next());
          const freq = reader.next();
          if (shortId < 0 || shortId > 0xffffffff || freq > 0xffffffff) return -1;
          ids[n] = shortId;
          freqs[n] = freq;
          n++;
        }
      }
    }
    const added = this.added()?.get(fieldId);
    if (added === undefined) return n;
    if (n + added.size > ids.length) return -1;
    for (const [shortId, freq] of added) {
      ids[n] = shortId;
      freqs[n] = freq;
      n++;
    }
    return n;
  }

  /** A reader of saved record `c` (0: the first) and its field count, while not decoded. */
  private reader(c: number): [VarintReader, number] {
    const chunk = c === 0 ? this.first(this.source as SegmentSource) : (this.more()[c - 1] as Chunk);
    return [chunkReader(chunk), chunk[3]];
  }

  /** The postings as a Map, decoded from the saved records on first use. */
  private decoded(): TermData {
    if (!this.source) return this.rest as TermData;
    const chunks = this.pending() as readonly Chunk[];
    const added = this.added();
    const map: TermData = new Map();
    // Dropped before decoding, as before: a record that fails to decode leaves the term empty.
    this.source = undefined;
    this.rest = map;
    const decoded: TermData = new Map();
    for (const chunk of chunks) decodeChunk(chunk, decoded);
    // The added postings after the saved ones, as adding them to the decoded Map would have put them.
    for (const [fieldId, postings] of added ?? []) {
      const into = decoded.get(fieldId);
      if (into === undefined) decoded.set(fieldId, postings);
      else for (const [shortId, freq] of postings) into.set(shortId, freq);
    }
    for (const [fieldId, postings] of decoded) map.set(fieldId, postings);
    return map;
  }

  get size(): number {
    return this.decoded().size;
  }
  get(key: number): Postings | undefined {
    return this.decoded().get(key);
  }
  has(key: number): boolean {
    return this.decoded().has(key);
  }
  set(key: number, value: Postings): this {
    this.decoded().set(key, value);
    return this;
  }
  delete(key: number): boolean {
    return this.decoded().delete(key);
  }
  clear(): void {
    this.source = undefined;
    this.rest = new Map();
  }
  forEach(fn: (value: Postings, key: number, map: Map<number, Postings>) => void, self?: unknown): void {
    for (const [key, value] of this.decoded()) fn.call(self, value, key, this);
  }
  keys(): MapIterator<number> {
    return this.decoded().keys();
  }
  values(): MapIterator<Postings> {
    return this.decoded().values();
  }
  entries(): MapIterator<[number, Postings]> {
    return this.decoded().entries();
  }
  [Symbol.iterator](): MapIterator<[number, Postings]> {
    return this.decoded()[Symbol.iterator]();
  }
  get [Symbol.toStringTag](): string {
    return 'Map';
  }
}

/** A term's saved records after the first and the postings added since the load, while it is not decoded (LazyTermData) */
class Additions {
  /** Field id → short id → frequency, in the order added */
  readonly added: TermData = new Map();
  constructor(readonly more: Chunk[]) {}
}
