import type MiniSearch from 'minisearch';
import {
  internalsOf,
  type MiniSearchState,
  type Postings,
  type TermData,
  type TreeNode,
} from './minisearch-internals.js';

/**
 * The text index written to and read from the `.mem/` cache in bounded segments, so that no string
 * or buffer grows with the vault: MiniSearch's own `toJSON()` builds a plain copy of the whole index
 * that then becomes one JSON string (V8 caps a string at about 512 M characters, reached near
 * 130,000 notes), and `loadJS()` needs that whole copy again.
 *
 * This reads and restores MiniSearch 7's private state directly (checked by `internalsOf`), so a save
 * holds one segment beside the live index, and a load decodes postings straight into the Maps
 * MiniSearch searches, without the `parseInt` of every document id that `loadJS()` does. The
 * terms are kept as MiniSearch's radix tree itself: inserting 34,000 terms one by one (as
 * `loadJS()` does) scans the children of every node on the way, and took 530 ms of a 1.5 s load
 * at 10,000 notes.
 *
 * Two kinds of segment:
 * - `docs` (JSON): `[path, [[id, shortId, fieldLengths, storedFields], …]]` per note;
 * - `terms` (binary): a little-endian u32 byte length, a JSON array of the tree's edge labels, then
 *   the tree in depth-first order as varint operations: 0 goes back up, 1 goes down an edge
 *   (labelled by the next label), 2 + n is a term ending here with postings in n fields, then the
 *   byte length of those postings (so a load can leave them undecoded, see LazyTermData): per
 *   field its id, its posting count and (zigzag delta of the short id, term frequency) pairs. A
 *   term with more postings than fit one record is written as several records; the reader merges
 *   them. The tree runs on from one segment into the next.
 * Postings of discarded documents (MiniSearch drops them lazily) are left out, as a vacuum would.
 */

/** Bump when the segment format changes. */
export const TEXT_STORE_VERSION = 3;

export interface TextStoreLimits {
  /** A segment is closed once it holds about this much: bytes of postings, or characters of JSON (default: 4 MiB) */
  segment: number;
  /** Most postings in one record, so one very common term cannot make a record grow with the vault (default: 65,536) */
  record: number;
}

const LIMITS: TextStoreLimits = { segment: 4 << 20, record: 1 << 16 };

const LEAF = '';
const UP = 0;
const DOWN = 1;
const TERM = 2;

export interface TextStoreHeader {
  store: number;
  documentCount: number;
  nextId: number;
  fieldIds: Record<string, number>;
  averageFieldLength: number[];
}

/**
 * A piece of a segment: a segment is the pieces of one part up to one with `end`. Docs come one
 * note at a time, so the writer never joins a whole segment into one string.
 */
export interface TextSegment {
  part: 'docs' | 'terms';
  data: string | Uint8Array;
  end: boolean;
}

export function textStoreHeader(miniSearch: MiniSearch<never> | MiniSearch<object>): TextStoreHeader {
  const state = internalsOf(miniSearch);
  return {
    store: TEXT_STORE_VERSION,
    documentCount: state._documentCount,
    nextId: state._nextId,
    fieldIds: { ...state._fieldIds },
    averageFieldLength: [...state._avgFieldLength],
  };
}

/** The index as segments, produced a piece at a time: the caller writes each before asking for the next. */
export function* textStoreSegments(
  miniSearch: MiniSearch<never> | MiniSearch<object>,
  idsByPath: Map<string, string[]>,
  limits: TextStoreLimits = LIMITS,
): Generator<TextSegment> {
  const state = internalsOf(miniSearch);
  let chars = -1;
  for (const [path, ids] of idsByPath) {
    const entries = ids.map((id) => {
      const shortId = state._idToShortId.get(id);
      if (shortId === undefined) throw new Error(`text index: section ${id} has no document`);
      return [id, shortId, state._fieldLength.get(shortId) ?? [], state._storedFields.get(shortId) ?? {}];
    });
    const line = JSON.stringify([path, entries]);
    yield { part: 'docs', data: chars < 0 ? '[' : ',\n', end: false };
    yield { part: 'docs', data: line, end: false };
    chars = Math.max(0, chars) + line.length;
    if (chars >= limits.segment) {
      yield { part: 'docs', data: ']', end: true };
      chars = -1;
    }
  }
  if (chars >= 0) yield { part: 'docs', data: ']', end: true };

  const live = state._documentIds;
  let out = new TermWriter(limits.record);
  // Depth first, without recursion: one entry iterator per level of the tree.
  const path: Iterator<[string, TreeNode | TermData]>[] = [state._index._tree.entries()];
  while (path.length > 0) {
    const step = (path[path.length - 1] as Iterator<[string, TreeNode | TermData]>).next();
    if (step.done) {
      path.pop();
      if (path.length > 0) out.up();
      continue;
    }
    const [label, child] = step.value;
    if (label === LEAF) out.term(child as TermData, live);
    else {
      out.down(label);
      path.push((child as TreeNode).entries());
    }
    if (out.size >= limits.segment) {
      yield { part: 'terms', data: out.finish(), end: true };
      out = new TermWriter(limits.record);
    }
  }
  if (out.size > 0) yield { part: 'terms', data: out.finish(), end: true };
}

class TermWriter {
  private labels: string[] = [];
  private bytes = new Uint8Array(1 << 16);
  private pos = 0;

  constructor(private readonly recordPostings: number) {}

  get size(): number {
    return this.pos;
  }

  down(label: string): void {
    this.labels.push(label);
    this.varint(DOWN);
  }

  up(): void {
    this.varint(UP);
  }

  /**
   * The live postings of the term ending at the current node, as one record or, when they are
   * many, several. A term whose documents were all discarded stays, with no fields: removing it
   * would leave nodes without terms, which MiniSearch never has.
   */
  term(data: TermData, live: Map<number, string>): void {
    let fields: [number, number[]][] = [];
    let count = 0;
    let written = false;
    const flush = () => {
      if (fields.length === 0 && written) return;
      written = true;
      let length = 0;
      for (const [fieldId, pairs] of fields) {
        length += varintSize(fieldId) + varintSize(pairs.length / 2);
        let previous = 0;
        for (let i = 0; i < pairs.length; i += 2) {
          length += varintSize(zigzag((pairs[i] as number) - previous)) + varintSize(pairs[i + 1] as number);
          previous = pairs[i] as number;
        }
      }
      this.varint(TERM + fields.length);
      this.varint(length);
      for (const [fieldId, pairs] of fields) {
        this.varint(fieldId);
        this.varint(pairs.length / 2);
        let previous = 0;
        for (let i = 0; i < pairs.length; i += 2) {
          this.varint(zigzag((pairs[i] as number) - previous));
          this.varint(pairs[i + 1] as number);
          previous = pairs[i] as number;
        }
      }
      fields = [];
      count = 0;
    };
    // Postings still in their saved bytes are copied from them, never decoded into Maps: a save
    // then allocates next to nothing per term.
    const saved = data instanceof LazyTermData ? data.pending() : undefined;
    if (saved) {
      for (const chunk of saved) this.copy(chunk, live);
      return;
    }
    for (const [fieldId, postings] of data) {
      let pairs: number[] = [];
      for (const [shortId, freq] of postings) {
        if (!live.has(shortId)) continue;
        pairs.push(shortId, freq);
        if (++count >= this.recordPostings) {
          fields.push([fieldId, pairs]);
          flush();
          pairs = [];
        }
      }
      if (pairs.length > 0) fields.push([fieldId, pairs]);
    }
    flush();
  }

  /** Re-encodes one saved record, leaving out the postings of documents discarded since. */
  private copy(chunk: Chunk, live: Map<number, string>): void {
    const [bytes, start, end, fieldCount] = chunk;
    const reader = new VarintReader(bytes, start, end);
    // First pass: per field, how many postings are live and how many bytes they take.
    const kept: number[] = [];
    let length = 0;
    for (let f = 0; f < fieldCount; f++) {
      const fieldId = reader.next();
      const count = reader.next();
      let shortId = 0;
      let previous = 0;
      let n = 0;
      let size = 0;
      for (let i = 0; i < count; i++) {
        shortId += unzigzag(reader.next());
        const freq = reader.next();
        if (!live.has(shortId)) continue;
        size += varintSize(zigzag(shortId - previous)) + varintSize(freq);
        previous = shortId;
        n++;
      }
      if (n === 0) continue;
      kept.push(fieldId, n);
      length += varintSize(fieldId) + varintSize(n) + size;
    }
    this.varint(TERM + kept.length / 2);
    this.varint(length);
    // Second pass: write them.
    reader.pos = start;
    let k = 0;
    for (let f = 0; f < fieldCount; f++) {
      const fieldId = reader.next();
      const count = reader.next();
      const keep = kept[k] === fieldId;
      if (keep) {
        this.varint(fieldId);
        this.varint(kept[k + 1] as number);
        k += 2;
      }
      let shortId = 0;
      let previous = 0;
      for (let i = 0; i < count; i++) {
        shortId += unzigzag(reader.next());
        const freq = reader.next();
        if (!keep || !live.has(shortId)) continue;
        this.varint(zigzag(shortId - previous));
        this.varint(freq);
        previous = shortId;
      }
    }
  }

  finish(): Uint8Array {
    const head = Buffer.from(JSON.stringify(this.labels));
    const out = new Uint8Array(4 + head.length + this.pos);
    new DataView(out.buffer).setUint32(0, head.length, true);
    out.set(head, 4);
    out.set(this.bytes.subarray(0, this.pos), 4 + head.length);
    return out;
  }

  private varint(value: number): void {
    if (this.pos + 8 > this.bytes.length) {
      const bigger = new Uint8Array(this.bytes.length * 2);
      bigger.set(this.bytes);
      this.bytes = bigger;
    }
    let n = value;
    while (n >= 0x80) {
      this.bytes[this.pos++] = (n % 0x80) | 0x80;
      n = Math.floor(n / 0x80);
    }
    this.bytes[this.pos++] = n;
  }
}

function zigzag(delta: number): number {
  return delta >= 0 ? delta * 2 : -delta * 2 - 1;
}

function unzigzag(value: number): number {
  return value % 2 === 0 ? value / 2 : -(value + 1) / 2;
}

/** Reads varints from `bytes` between `pos` and `end`; throws rather than read past `end`. */
class VarintReader {
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
  return data instanceof LazyTermData && data.pending() !== undefined ? data : undefined;
}

/** What the top-k search reads of a term still in its saved bytes. */
export interface SavedTerm {
  savedCounts(): Map<number, number> | undefined;
  readSaved(fieldId: number, ids: Uint32Array, freqs: Uint32Array): number;
}

/**
 * The largest number of documents one field of a term's postings holds: MiniSearch's document
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

function varintSize(value: number): number {
  let size = 1;
  for (let n = value; n >= 0x80; n = Math.floor(n / 0x80)) size++;
  return size;
}

/** One saved record of a term's postings: the bytes of its segment, where it starts and ends, its field count */
type Chunk = [bytes: Uint8Array, start: number, end: number, fields: number];

/** Decodes one record's fields into `into`, adding to what it holds, each field's postings as a Map. */
function decodeChunk([bytes, start, end, fieldCount]: Chunk, into: TermData): void {
  const reader = new VarintReader(bytes, start, end);
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

/**
 * A term's postings left in the bytes they were saved in until MiniSearch first asks for them.
 * A query touches a few terms of hundreds of thousands, and decoding every posting on load took
 * most of a warm open (1.4 million Map entries at 10,000 notes, and their garbage collection);
 * kept as bytes they also take a tenth of the memory. Every Map method decodes first, so
 * MiniSearch sees an ordinary Map.
 */
class LazyTermData extends Map<number, Postings> {
  private chunks: Chunk[] | undefined;

  constructor(chunk: Chunk) {
    super();
    this.chunks = [chunk];
  }

  /** Another record of the same term (a term with very many postings is saved in several). */
  addChunk(chunk: Chunk): boolean {
    if (!this.chunks) return false;
    this.chunks.push(chunk);
    return true;
  }

  /** The saved records, while they are not decoded yet. */
  pending(): readonly Chunk[] | undefined {
    return this.chunks;
  }

  /** While the postings are still bytes: how many each field holds (field id → count), read from the records. */
  savedCounts(): Map<number, number> | undefined {
    const chunks = this.chunks;
    if (chunks === undefined) return undefined;
    const counts = new Map<number, number>();
    for (const [bytes, start, end, fieldCount] of chunks) {
      const reader = new VarintReader(bytes, start, end);
      for (let f = 0; f < fieldCount; f++) {
        const fieldId = reader.next();
        const count = reader.next();
        counts.set(fieldId, (counts.get(fieldId) ?? 0) + count);
        reader.skip(2 * count);
      }
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
    const chunks = this.chunks;
    if (chunks === undefined) return -1;
    let n = 0;
    for (const [bytes, start, end, fieldCount] of chunks) {
      const reader = new VarintReader(bytes, start, end);
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
    return n;
  }

  private decode(): void {
    const chunks = this.chunks;
    if (!chunks) return;
    this.chunks = undefined;
    const decoded: TermData = new Map();
    for (const chunk of chunks) decodeChunk(chunk, decoded);
    for (const [fieldId, postings] of decoded) super.set(fieldId, postings);
  }

  override get size(): number {
    this.decode();
    return super.size;
  }
  override get(key: number): Postings | undefined {
    this.decode();
    return super.get(key);
  }
  override has(key: number): boolean {
    this.decode();
    return super.has(key);
  }
  override set(key: number, value: Postings): this {
    this.decode();
    return super.set(key, value);
  }
  override delete(key: number): boolean {
    this.decode();
    return super.delete(key);
  }
  override clear(): void {
    this.chunks = undefined;
    super.clear();
  }
  override forEach(
    fn: (value: Postings, key: number, map: Map<number, Postings>) => void,
    self?: unknown,
  ): void {
    this.decode();
    super.forEach(fn, self);
  }
  override keys(): MapIterator<number> {
    this.decode();
    return super.keys();
  }
  override values(): MapIterator<Postings> {
    this.decode();
    return super.values();
  }
  override entries(): MapIterator<[number, Postings]> {
    this.decode();
    return super.entries();
  }
  override [Symbol.iterator](): MapIterator<[number, Postings]> {
    this.decode();
    return super[Symbol.iterator]();
  }
}

/** Restores a MiniSearch from segments given in the order they were written. */
export class TextStoreLoader<T> {
  readonly idsByPath = new Map<string, string[]>();
  private readonly state: MiniSearchState;
  /** The nodes from the root of the tree down to where the next operation applies */
  private readonly path: TreeNode[] = [new Map()];

  constructor(
    readonly miniSearch: MiniSearch<T>,
    private readonly header: TextStoreHeader,
  ) {
    if (header?.store !== TEXT_STORE_VERSION) {
      throw new Error(`text index segments of format ${String(header?.store)}, not ${TEXT_STORE_VERSION}`);
    }
    this.state = internalsOf(miniSearch as unknown as MiniSearch<object>);
    this.state._documentCount = header.documentCount;
    this.state._nextId = header.nextId;
    this.state._fieldIds = { ...header.fieldIds };
    this.state._avgFieldLength = [...header.averageFieldLength];
    this.state._dirtCount = 0;
  }

  docs(text: string): void {
    const { _documentIds, _idToShortId, _fieldLength, _storedFields } = this.state;
    for (const [path, entries] of JSON.parse(text) as [string, [string, number, number[], object][]][]) {
      const ids: string[] = [];
      for (const [id, shortId, lengths, stored] of entries) {
        _documentIds.set(shortId, id);
        _idToShortId.set(id, shortId);
        _fieldLength.set(shortId, lengths);
        _storedFields.set(shortId, stored as Record<string, unknown>);
        ids.push(id);
      }
      this.idsByPath.set(path, ids);
    }
  }

  terms(bytes: Uint8Array): void {
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const headLength = view.getUint32(0, true);
    const labels = JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset + 4, headLength).toString('utf8'));
    if (!Array.isArray(labels)) throw new Error('a terms segment does not start with its labels');
    let next = 0;
    let pos = 4 + headLength;
    const end = bytes.length;
    const read = (): number => {
      if (pos >= end) throw new Error('a terms segment is cut short');
      let byte = bytes[pos++] as number;
      if (byte < 0x80) return byte;
      let value = byte & 0x7f;
      let scale = 0x80;
      do {
        if (pos >= end) throw new Error('a terms segment ends inside a number');
        byte = bytes[pos++] as number;
        value += (byte & 0x7f) * scale;
        scale *= 0x80;
      } while (byte >= 0x80);
      return value;
    };
    const path = this.path;
    let node = path[path.length - 1] as TreeNode;
    while (pos < end) {
      const op = read();
      if (op === UP) {
        if (path.length <= 1) throw new Error('a terms segment goes above the root');
        path.pop();
        node = path[path.length - 1] as TreeNode;
      } else if (op === DOWN) {
        const label = labels[next++];
        if (typeof label !== 'string' || label === LEAF) throw new Error('a terms segment lacks a label');
        const child: TreeNode = new Map();
        node.set(label, child);
        path.push(child);
        node = child;
      } else {
        const length = read();
        const start = pos;
        pos += length;
        if (pos > end) throw new Error('a terms segment is cut short');
        const chunk: Chunk = [bytes, start, pos, op - TERM];
        const data = node.get(LEAF);
        if (data === undefined) node.set(LEAF, new LazyTermData(chunk));
        else if (!(data instanceof LazyTermData && data.addChunk(chunk))) {
          throw new Error('a terms segment holds a term twice');
        }
      }
    }
    if (next !== labels.length) throw new Error('a terms segment has labels it does not use');
  }

  /** The restored index; throws when the segments did not hold every document the header counts. */
  finish(): { miniSearch: MiniSearch<T>; idsByPath: Map<string, string[]> } {
    if (this.state._documentIds.size !== this.header.documentCount) {
      throw new Error(
        `the cache holds ${this.state._documentIds.size} sections, its header ${this.header.documentCount}`,
      );
    }
    if (this.path.length !== 1) throw new Error('the terms segments end inside the tree');
    const SearchableMap = this.state._index.constructor;
    this.state._index = new SearchableMap(this.path[0] as TreeNode);
    return { miniSearch: this.miniSearch, idsByPath: this.idsByPath };
  }
}

/** Where `id` is among the first `count` values of ascending `ids` (a binary search), or -1. */
export function indexOfSorted(ids: Uint32Array, count: number, id: number): number {
  let lo = 0;
  let hi = count - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const at = ids[mid] as number;
    if (at === id) return mid;
    if (at < id) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/** A field's postings are packed once they hold this many: smaller Maps cost little either way */
const PACK_AT = 16;

/**
 * One field's postings of one term, as MiniSearch keeps them (`Map<shortId, frequency>`), held in
 * two typed arrays instead of a hash table: 8 bytes a posting instead of about 40. A cold index at
 * 100,000 notes holds 12.5 million postings, and as Maps they were 600 MB of its peak.
 *
 * Short ids only grow (MiniSearch never reuses one), so postings arrive in increasing id order
 * and are appended; a lookup is a binary search, or the posting just iterated or just added. A
 * deleted posting (MiniSearch drops discarded documents' lazily) is kept as a frequency of 0 and
 * skipped, so iteration order stays insertion order, exactly as a Map's. Anything else (an id
 * below the last, a deleted one set again) turns it into an ordinary Map, in the same order.
 */
export class PackedPostings extends Map<number, number> {
  private ids: Uint32Array;
  private freqs: Uint32Array;
  /** Postings stored, deleted ones included */
  private count = 0;
  /** Postings not deleted */
  private live = 0;
  /** Where the last lookup or iteration step was: MiniSearch reads `get(id)` right after iterating to `id` */
  private cursor = 0;
  /** Turned into an ordinary Map: every method is Map's own from then on */
  private plain = false;

  constructor(from: Map<number, number>) {
    super();
    const capacity = Math.max(PACK_AT, from.size + (from.size >> 2));
    this.ids = new Uint32Array(capacity);
    this.freqs = new Uint32Array(capacity);
    for (const [id, freq] of from) this.set(id, freq);
  }

  /**
   * The arrays themselves, for a reader that walks every posting (the top-k search scores each
   * one): the first `count` slots, in order, a frequency of 0 marking a deleted posting; undefined
   * once this has become an ordinary Map. Valid until the next change.
   */
  packed(): { ids: Uint32Array; freqs: Uint32Array; count: number } | undefined {
    return this.plain ? undefined : { ids: this.ids, freqs: this.freqs, count: this.count };
  }

  /** Whether a Map's ids are in increasing order and fit, so it can be packed keeping its order. */
  static canPack(map: Map<number, number>): boolean {
    let last = -1;
    for (const [id, freq] of map) {
      if (!(id > last) || !Number.isInteger(id) || id > 0xffffffff) return false;
      if (!Number.isInteger(freq) || freq < 1 || freq > 0xffffffff) return false;
      last = id;
    }
    return true;
  }

  private find(id: number): number {
    const { ids, cursor, count } = this;
    if (cursor < count && ids[cursor] === id) return cursor;
    if (count === 0) return -1;
    const last = ids[count - 1] as number;
    // Adding a document asks for each of its terms first: an id past the end is the common miss.
    if (id >= last) return id === last ? count - 1 : -1;
    return indexOfSorted(ids, count, id);
  }

  /** Becomes an ordinary Map holding the live postings in their order. */
  private unpack(): void {
    const { ids, freqs, count } = this;
    this.plain = true;
    for (let i = 0; i < count; i++) if (freqs[i] !== 0) super.set(ids[i] as number, freqs[i] as number);
    this.ids = new Uint32Array(0);
    this.freqs = new Uint32Array(0);
    this.count = 0;
    this.live = 0;
  }

  override get size(): number {
    return this.plain ? super.size : this.live;
  }

  override get(id: number): number | undefined {
    if (this.plain) return super.get(id);
    const at = this.find(id);
    if (at < 0) return undefined;
    this.cursor = at;
    const freq = this.freqs[at] as number;
    return freq === 0 ? undefined : freq;
  }

  override has(id: number): boolean {
    return this.get(id) !== undefined;
  }

  override set(id: number, freq: number): this {
    if (this.plain) return super.set(id, freq);
    const fits = Number.isInteger(freq) && freq >= 1 && freq <= 0xffffffff;
    const { count } = this;
    if (
      fits &&
      Number.isInteger(id) &&
      id >= 0 &&
      id <= 0xffffffff &&
      (count === 0 || id > (this.ids[count - 1] as number))
    ) {
      if (count === this.ids.length) this.grow();
      this.ids[count] = id;
      this.freqs[count] = freq;
      this.count = count + 1;
      this.live++;
      this.cursor = count;
      return this;
    }
    const at = fits ? this.find(id) : -1;
    if (at >= 0 && this.freqs[at] !== 0) {
      this.freqs[at] = freq;
      this.cursor = at;
      return this;
    }
    this.unpack();
    return super.set(id, freq);
  }

  override delete(id: number): boolean {
    if (this.plain) return super.delete(id);
    const at = this.find(id);
    if (at < 0 || this.freqs[at] === 0) return false;
    this.freqs[at] = 0;
    this.live--;
    return true;
  }

  override clear(): void {
    if (this.plain) {
      super.clear();
      return;
    }
    this.count = 0;
    this.live = 0;
    this.cursor = 0;
  }

  private grow(): void {
    const capacity = this.ids.length + (this.ids.length >> 1) + 16;
    const ids = new Uint32Array(capacity);
    ids.set(this.ids);
    const freqs = new Uint32Array(capacity);
    freqs.set(this.freqs);
    this.ids = ids;
    this.freqs = freqs;
  }

  override forEach(fn: (value: number, key: number, map: Map<number, number>) => void, self?: unknown): void {
    if (this.plain) super.forEach(fn, self);
    else for (const [id, freq] of this.entries()) fn.call(self, freq, id, this);
  }

  override keys(): MapIterator<number> {
    return this.plain ? super.keys() : this.walk((id) => id);
  }

  override values(): MapIterator<number> {
    return this.plain ? super.values() : this.walk((_id, freq) => freq);
  }

  override entries(): MapIterator<[number, number]> {
    return this.plain ? super.entries() : this.walk((id, freq): [number, number] => [id, freq]);
  }

  override [Symbol.iterator](): MapIterator<[number, number]> {
    return this.entries();
  }

  /** Live postings in order; a posting deleted or added during the walk is seen as a Map would show it. */
  private walk<T>(pick: (id: number, freq: number) => T): MapIterator<T> {
    let i = 0;
    const self = this;
    const iterator = {
      next(): IteratorResult<T, undefined> {
        if (self.plain) return { done: true, value: undefined };
        while (i < self.count) {
          const at = i++;
          const freq = self.freqs[at] as number;
          if (freq === 0) continue;
          self.cursor = at;
          return { done: false, value: pick(self.ids[at] as number, freq) };
        }
        return { done: true, value: undefined };
      },
      [Symbol.iterator]() {
        return iterator;
      },
    };
    return iterator as unknown as MapIterator<T>;
  }
}

/**
 * Packs every field's postings of `miniSearch` that has grown to PACK_AT or more (see
 * PackedPostings). Postings still in their saved bytes (LazyTermData) are left as they are.
 */
export function packPostings(miniSearch: MiniSearch<never> | MiniSearch<object>): void {
  const state = internalsOf(miniSearch);
  const stack: TreeNode[] = [state._index._tree];
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    for (const [label, child] of node) {
      if (label !== LEAF) {
        stack.push(child as TreeNode);
        continue;
      }
      const data = child as TermData;
      if (data instanceof LazyTermData && data.pending()) continue;
      for (const [fieldId, postings] of data) {
        if (
          postings instanceof PackedPostings ||
          postings.size < PACK_AT ||
          !PackedPostings.canPack(postings)
        )
          continue;
        data.set(fieldId, new PackedPostings(postings));
      }
    }
  }
}
