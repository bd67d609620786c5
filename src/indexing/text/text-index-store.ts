import { MemError } from '../../core/errors.js';
import { BytesSource, type SegmentSource } from '../segment-source.js';
import type { TermData } from './postings.js';
import { type DocsNote, docsTablesEnd, encodeDocs, SavedDocs } from './saved-docs.js';
import {
  type Chunk,
  chunkReader,
  LazyTermData,
  unzigzag,
  VarintReader,
  varintSize,
  zigzag,
} from './saved-postings.js';
import { SavedTermsBuilder } from './saved-terms.js';
import { encodeTermDictionary, TermDictionary } from './term-dictionary.js';
import { lengthAt, type TermIndex } from './term-index.js';

/**
 * The text index written to and read from the `.mem/` cache in bounded segments, so that no string
 * or buffer grows with the vault (V8 caps a string at about 512 M characters, which one JSON text
 * of the whole index reached near 130,000 notes). A save holds one segment beside the live index;
 * a load reads each segment once and leaves each term's postings and each document's id and
 * stored fields in it, read by offset when a search first asks (see LazyTermData, SavedDocs and
 * segment-source.ts).
 *
 * Two kinds of segment:
 * - `docs` (binary, see saved-docs.ts): per note its path and per section its short id, field
 *   lengths, id and stored fields, read at load only for the short ids and lengths;
 * - `terms` (binary): a little-endian u32 byte length, the segment's term dictionary (its terms in
 *   order and a hash table of them, see term-dictionary.ts), then per record: its head (twice its
 *   field count, plus 1 when it continues the term before), the byte length of its postings (so a
 *   load can leave them undecoded), and per field its id, its posting count and (zigzag delta of
 *   the short id, term frequency) pairs, as varints. Each term of the dictionary has one record, or
 *   several in a row when it has more postings than fit one; the reader merges them.
 * Terms come in the order they were first added, which is the order that built the radix tree
 * of the index, so a load builds it again in the same shape. Postings of discarded documents
 * (dropped lazily) are left out, as a vacuum would.
 */

/** Bump when the segment format changes. */
export const TEXT_STORE_VERSION = 6;

export interface TextStoreLimits {
  /** A segment is closed once it holds about this much: bytes of postings, or of documents (default: 4 MiB) */
  segment: number;
  /** Most postings in one record, so one very common term cannot make a record grow with the vault (default: 65,536) */
  record: number;
}

export const LIMITS: TextStoreLimits = { segment: 4 << 20, record: 1 << 16 };

export interface TextStoreHeader {
  store: number;
  documentCount: number;
  nextId: number;
  fieldIds: Record<string, number>;
  averageFieldLength: number[];
}

/** A piece of a segment: a segment is the pieces of one part up to one with `end`. */
export interface TextSegment {
  part: 'docs' | 'terms';
  data: Uint8Array;
  end: boolean;
}

export function textStoreHeader(
  index: Pick<TermIndex, 'documentCount' | 'nextId' | 'fields' | 'avgFieldLength'>,
): TextStoreHeader {
  return {
    store: TEXT_STORE_VERSION,
    documentCount: index.documentCount,
    nextId: index.nextId,
    fieldIds: Object.fromEntries(index.fields.map((field, id) => [field, id])),
    averageFieldLength: [...index.avgFieldLength],
  };
}

/** What a document counts toward its docs segment's size (about what it takes there) */
export const docBytes = (id: string) => id.length + 64;
/** What a note counts toward its docs segment's size, besides its documents */
export const noteBytes = (path: string) => path.length + 8;

/** The index as segments, produced a piece at a time: the caller writes each before asking for the next. */
export function* textStoreSegments(
  index: TermIndex,
  /** Each note's path and section ids, in the order of the paths (a docs segment keeps it: saved-docs.ts) */
  idsByPath: Iterable<[string, string[]]>,
  limits: TextStoreLimits = LIMITS,
): Generator<TextSegment> {
  let notes: DocsNote[] = [];
  let bytes = 0;
  const shortIds = index.allShortIds();
  for (const [path, ids] of idsByPath) {
    const docs = ids.map((id) => {
      const shortId = shortIds.get(id);
      if (shortId === undefined) throw new Error(`text index: section ${id} has no document`);
      const lengths = index.lengths.map((field) => lengthAt(field, shortId));
      const stored = index.storedOf(shortId) ?? {};
      bytes += docBytes(id);
      return { id, shortId, stored, lengths };
    });
    notes.push({ path, docs });
    bytes += noteBytes(path);
    if (bytes >= limits.segment) {
      yield { part: 'docs', data: encodeDocs(notes, index.fields.length), end: true };
      notes = [];
      bytes = 0;
    }
  }
  if (notes.length > 0) yield { part: 'docs', data: encodeDocs(notes, index.fields.length), end: true };
  yield* termSegments(index.terms, index.dead, limits);
}

/** Postings as the terms writer takes them: per field (in the term's order), its (short id, frequency) pairs in order. */
export type FieldPostings = Iterable<readonly [number, Iterable<readonly [number, number]>]>;

/**
 * Terms segments of `terms` (in the order given, which a load keeps), leaving out the postings of
 * documents `dead` marks.
 */
export function* termSegments(
  terms: Iterable<readonly [string, TermData | FieldPostings]>,
  dead: Uint8Array,
  limits: TextStoreLimits = LIMITS,
): Generator<TextSegment> {
  // One writer for every terms segment: its buffer, grown to a segment's size once, is reused.
  const out = new TermWriter(limits.record, dead);
  for (const [term, data] of terms) {
    out.term(term, data);
    if (out.size >= limits.segment) yield { part: 'terms', data: out.finish(), end: true };
  }
  if (out.size > 0) yield { part: 'terms', data: out.finish(), end: true };
}

class TermWriter {
  /** The segment's terms, in order */
  private labels: string[] = [];
  /** Records written of the current term */
  private records = 0;
  private bytes = new Uint8Array(1 << 16);
  private pos = 0;

  constructor(
    private readonly recordPostings: number,
    private readonly dead: Uint8Array,
  ) {}

  get size(): number {
    return this.pos;
  }

  /**
   * The live postings of a term, as one record or, when they are many, several. A term whose
   * documents were all discarded is written as a record with no fields: it stays in the tree, so
   * the tree a load builds has the shape of the live one (its order is the order of prefix and
   * fuzzy matches, and so of the additions in a score), until a vacuum drops it from both.
   */
  term(label: string, data: TermData | FieldPostings): void {
    this.labels.push(label);
    this.records = 0;
    this.postings(data);
    if (this.records === 0) this.record([]);
  }

  /** A record's head: twice its field count, plus 1 when it is not the term's first. */
  private head(fieldCount: number): void {
    this.varint(2 * fieldCount + (this.records++ > 0 ? 1 : 0));
  }

  private postings(data: TermData | FieldPostings): void {
    // Postings still in their saved bytes are copied from them, never decoded into Maps: a save
    // then allocates next to nothing per term. Those added since follow in records of their own.
    const saved = data instanceof LazyTermData ? data.pending() : undefined;
    if (saved) {
      for (const chunk of saved) this.copy(chunk);
      const added = (data as LazyTermData).added();
      if (added) this.fresh(added);
      return;
    }
    this.fresh(data);
  }

  /** Postings held as Maps (or a cold build's lists), in records of at most `recordPostings` postings. */
  private fresh(data: FieldPostings): void {
    const { dead } = this;
    let fields: [number, number[]][] = [];
    let count = 0;
    for (const [fieldId, postings] of data) {
      let pairs: number[] = [];
      for (const [shortId, freq] of postings) {
        if (dead[shortId] === 1) continue;
        pairs.push(shortId, freq);
        if (++count >= this.recordPostings) {
          fields.push([fieldId, pairs]);
          this.record(fields);
          fields = [];
          count = 0;
          pairs = [];
        }
      }
      if (pairs.length > 0) fields.push([fieldId, pairs]);
    }
    if (fields.length > 0) this.record(fields);
  }

  private record(fields: [number, number[]][]): void {
    let length = 0;
    for (const [fieldId, pairs] of fields) {
      length += varintSize(fieldId) + varintSize(pairs.length / 2);
      let previous = 0;
      for (let i = 0; i < pairs.length; i += 2) {
        length += varintSize(zigzag((pairs[i] as number) - previous)) + varintSize(pairs[i + 1] as number);
        previous = pairs[i] as number;
      }
    }
    this.head(fields.length);
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
  }

  /** Re-encodes one saved record, leaving out the postings of documents discarded since. */
  private copy(chunk: Chunk): void {
    const fieldCount = chunk[3];
    const { dead } = this;
    // Both passes read these bytes: nothing else reads the segment in between.
    const reader = chunkReader(chunk);
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
        if (dead[shortId] === 1) continue;
        size += varintSize(zigzag(shortId - previous)) + varintSize(freq);
        previous = shortId;
        n++;
      }
      if (n === 0) continue;
      kept.push(fieldId, n);
      length += varintSize(fieldId) + varintSize(n) + size;
    }
    if (kept.length === 0) return;
    this.head(kept.length / 2);
    this.varint(length);
    // Second pass: write them.
    reader.pos = 0;
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
        if (!keep || dead[shortId] === 1) continue;
        this.varint(zigzag(shortId - previous));
        this.varint(freq);
        previous = shortId;
      }
    }
  }

  /**
   * The segment of the terms written since the last finish, and a writer emptied for the next.
   * Its buffer is kept: grown from 64 KiB by doubling each time, a new one per segment allocated
   * three times the bytes it wrote (a 100,000-note save's terms are 29 MiB in 4 MiB segments).
   */
  finish(): Uint8Array {
    const head = encodeTermDictionary(this.labels);
    const out = new Uint8Array(4 + head.length + this.pos);
    new DataView(out.buffer).setUint32(0, head.length, true);
    out.set(head, 4);
    out.set(this.bytes.subarray(0, this.pos), 4 + head.length);
    this.labels = [];
    this.pos = 0;
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

/** Restores a TermIndex from segments given in the order they were written. */
export class TextStoreLoader {
  /** The documents, left in their segments' bytes */
  private readonly saved: SavedDocs;
  /** Documents read so far */
  private loaded = 0;
  /** The saved terms, as the segments give them */
  private readonly savedTerms = new SavedTermsBuilder();
  /** The numbers of the saved terms that go in the radix tree, in order */
  private readonly treeTerms: number[] = [];

  /** `index`: a fresh, empty index with the fields the header names. */
  constructor(
    readonly index: TermIndex,
    private readonly header: TextStoreHeader,
  ) {
    if (header?.store !== TEXT_STORE_VERSION) {
      throw new MemError(
        'INVALID_ARGUMENT',
        `text index segments of format ${String(header?.store)}, not ${TEXT_STORE_VERSION}`,
      );
    }
    const fieldIds = Object.fromEntries(index.fields.map((field, id) => [field, id]));
    if (JSON.stringify(header.fieldIds) !== JSON.stringify(fieldIds)) {
      throw new Error(
        `the cache indexes the fields ${JSON.stringify(header.fieldIds)}, not ${JSON.stringify(fieldIds)}`,
      );
    }
    index.ensureCapacity(header.nextId);
    // Every id below nextId is dead until its document is read.
    index.dead.fill(1, 0, header.nextId);
    index.documentCount = header.documentCount;
    index.nextId = header.nextId;
    index.avgFieldLength = [...header.averageFieldLength];
    this.saved = new SavedDocs(header.nextId, index.fields.length);
    index.saved = this.saved;
  }

  /**
   * Takes in one docs segment: which short ids are live and their field lengths; the rest is read
   * from `source` when asked for. `bytes` are the segment's from its start, its tables at least
   * (read once, not kept); without a source, they are the whole segment, kept and read from.
   */
  docs(bytes: Uint8Array, source: SegmentSource = new BytesSource(bytes)): void {
    const { index } = this;
    this.saved.load(bytes, source, (shortId, lengths, at) => {
      if (!Number.isInteger(shortId) || shortId < 0 || shortId >= index.nextId) {
        throw new Error(`the cache gives a section the short id ${shortId}, past ${index.nextId}`);
      }
      if (index.dead[shortId] === 0) throw new Error(`the cache gives the short id ${shortId} twice`);
      index.dead[shortId] = 0;
      for (let fieldId = 0; fieldId < index.lengths.length; fieldId++) {
        index.setLength(fieldId, shortId, lengths[at + fieldId] as number);
      }
      this.loaded++;
    });
  }

  /** Where a docs segment's tables end, from its first bytes (docsTablesEnd). */
  docsTablesEnd(head: Uint8Array): number {
    return docsTablesEnd(head, this.index.fields.length);
  }

  /** Takes in one terms segment: its dictionary and where its records are; the postings are read from `source` when asked for. */
  terms(bytes: Uint8Array, source: SegmentSource = new BytesSource(bytes)): void {
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const headLength = view.getUint32(0, true);
    if (4 + headLength > bytes.length) throw new Error('a terms segment is cut short');
    const dictionary = new TermDictionary(bytes.subarray(4, 4 + headLength));
    const { savedTerms, index } = this;
    savedTerms.segment(dictionary, source);
    const reader = new VarintReader(bytes, 4 + headLength, bytes.length);
    let term = -1;
    let n = -1;
    while (reader.pos < bytes.length) {
      const at = reader.pos;
      const head = reader.next();
      const length = reader.next();
      const start = reader.pos;
      reader.pos += length;
      if (reader.pos > bytes.length) throw new Error('a terms segment is cut short');
      if (head % 2 === 1) {
        if (n < 0) throw new Error('a terms segment starts with the rest of a term');
        savedTerms.addChunk(n, [source, start, reader.pos, (head - 1) / 2]);
        continue;
      }
      n = savedTerms.record(at);
      term++;
      if (!index.startsSeparateUnit(dictionary.firstUnit(term))) this.treeTerms.push(n);
    }
    if (term + 1 !== dictionary.count) throw new Error('a terms segment has terms it does not use');
  }

  /** The restored index; throws when the segments did not hold every document the header counts. */
  finish(): TermIndex {
    const { index } = this;
    if (this.loaded !== this.header.documentCount) {
      throw new Error(`the cache holds ${this.loaded} sections, its header ${this.header.documentCount}`);
    }
    const terms = this.savedTerms.finish();
    index.terms = terms;
    // The radix tree, built by adding its terms in the order they were first added to the index,
    // so it has the shape it had; its terms' objects are made now, the others when asked for.
    terms.fillTree(
      this.treeTerms,
      (term, data) => index.tree.set(term, data),
      (term) => index.tree.get(term),
    );
    return index;
  }
}

/** Throws unless a saved index's version is `expected`: an index of another version is rebuilt. */
export function checkStoreVersion(version: unknown, expected: number): void {
  if (version !== expected) {
    throw new MemError(
      'INVALID_ARGUMENT',
      `text index: saved version ${JSON.stringify(version)} does not match ${expected}; rebuild it`,
    );
  }
}
