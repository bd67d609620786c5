// The text index of a cold build (every note of a vault read into an empty index that will be
// saved), held as compactly as the cache's own segments until the save writes them: per term and
// field a chain of blocks of varint postings, and the documents already encoded as docs segments.
// As a TermIndex, the postings (typed arrays and Maps), the radix tree, the ids and stored fields of
// 200,000 sections were some 280 MiB of the 515 MiB peak of a cold build of 100,000 notes.

import { type DocsNote, encodeDocs } from '../saved-docs.js';
import type { SectionDocument } from '../section-documents.js';
import { addFieldLength, type TermIndexOptions } from '../term-index.js';
import {
  docBytes,
  type FieldPostings,
  LIMITS,
  noteBytes,
  type TextSegment,
  type TextStoreHeader,
  termSegments,
  textStoreHeader,
} from '../text-index-store.js';

/** Bytes of one page of the postings arena; a block never crosses a page */
const PAGE_BITS = 20;
const PAGE = 1 << PAGE_BITS;
/**
 * Pages the arena may hold before a note: a block's address is a positive 32-bit integer (2,048
 * pages), and one note (at most limits.maxNoteChars) adds far fewer than the 148 pages left
 */
const MAX_PAGES = 1900;
const ADDRESSABLE_PAGES = 2048;
/** Bytes of a list's first block (4 of them the address of the next), doubled per block up to MAX_BLOCK */
const FIRST_BLOCK = 16;
const MAX_BLOCK = 4096;
/** Per list, in `lists`: its field, the next list of its term (-1), first block, last block and its end, write position, last short id */
const STRIDE = 7;
const FIELD = 0;
const NEXT = 1;
const HEAD = 2;
const TAIL = 3;
const END = 4;
const POS = 5;
const LAST_ID = 6;

/** A document's id, stored fields, field lengths and terms, read before anything is added. */
interface Tokenized {
  id: string;
  stored: Record<string, unknown>;
  /** Per field: its token count (distinct tokens, as MiniSearch counts them), or NaN */
  lengths: number[];
  /** Per field: each term and its frequency, in the order first met; undefined for a field the document lacks */
  terms: Array<Map<string, number> | undefined>;
}

/**
 * A write-only text index for one cold build: documents are added with ascending short ids, one
 * note at a time in the order of their paths (the order a save writes them in), and nothing is
 * ever removed. It keeps what TermIndex.add keeps (the document count, average field lengths
 * computed operation for operation, each term's postings per field in the order they came), so
 * the segments it gives are byte for byte what a TermIndex built the same way would save, and an
 * index loaded from them answers as that one would. Anything else (a note out of order, a
 * search, a removal) is for the TextIndex to do after turning it into a TermIndex (see warm()).
 */
export class ColdTerms {
  documentCount = 0;
  nextId = 0;
  readonly avgFieldLength: number[] = [];
  readonly fields: readonly string[];
  /** Every term, in the order first added, and the first of its lists */
  private readonly terms = new Map<string, number>();
  private lists = new Int32Array(STRIDE * 4096);
  private listCount = 0;
  private readonly pages: Uint8Array[] = [];
  /** Bytes of the last page given to blocks */
  private used = 0;
  /** Docs segments encoded so far, and the notes of the next */
  private readonly docsSegments: Uint8Array[] = [];
  private pendingNotes: DocsNote[] = [];
  private pendingBytes = 0;
  /** The last path added: the next must sort after it */
  private lastPath: string | undefined;
  /** Ids that are not `path#` and an anchor without `#`, and the paths they could be taken for */
  private readonly unusualIds = new Set<string>();
  private readonly unusualPrefixes = new Set<string>();
  /** No more notes: the docs segments are complete */
  private closed = false;

  constructor(
    private readonly options: TermIndexOptions,
    private readonly segmentBytes: number = LIMITS.segment,
  ) {
    this.fields = options.fields;
  }

  /**
   * Whether the note at `path` with these documents can be added here: its path sorts after every
   * one before, no id can be another document's, and the arena has room. When false, nothing was
   * changed and the caller indexes it as a TermIndex would.
   */
  accepts(path: string, documents: readonly SectionDocument[]): boolean {
    if (this.closed || this.damaged || this.pages.length >= MAX_PAGES) return false;
    if (this.lastPath !== undefined && !(path > this.lastPath)) return false;
    if (this.unusualPrefixes.has(path)) return false;
    const seen = new Set<string>();
    for (const { id } of documents) {
      if (seen.has(id)) return false;
      seen.add(id);
      if (isUsual(id, path)) continue;
      // Only such an id can be another note's: it may read as one of `path#anchor` of a note added later.
      if (this.unusualIds.has(id)) return false;
    }
    return true;
  }

  /**
   * Adds a note's documents (accepts() said yes), as TermIndex.add adds each. Should anything
   * throw once the first is being added (memory ran out), `damaged` is set: what is held is no
   * index of the notes added, and its owner makes one again from the notes.
   */
  add(path: string, documents: readonly SectionDocument[]): void {
    // Every field of every document is read before anything changes, as TermIndex.add reads a document's.
    const read = documents.map((document) => this.tokenize(document));
    try {
      this.commit(path, read);
    } catch (error) {
      this.damaged = true;
      throw error;
    }
  }

  /** Set when an add failed half-way: nothing it holds can be saved or read */
  damaged = false;

  private commit(path: string, read: Tokenized[]): void {
    this.lastPath = path;
    const docs: DocsNote['docs'] = [];
    for (const doc of read) {
      const shortId = this.nextId++;
      this.documentCount++;
      doc.lengths.forEach((length, fieldId) => {
        if (!Number.isNaN(length)) addFieldLength(this.avgFieldLength, fieldId, this.documentCount, length);
      });
      doc.terms.forEach((terms, fieldId) => {
        if (terms) for (const [term, freq] of terms) this.post(term, fieldId, shortId, freq);
      });
      if (!isUsual(doc.id, path)) {
        this.unusualIds.add(doc.id);
        this.unusualPrefixes.add(doc.id.slice(0, doc.id.lastIndexOf('#')));
      }
      docs.push({ id: doc.id, shortId, stored: doc.stored, lengths: doc.lengths });
      this.pendingBytes += docBytes(doc.id);
    }
    this.pendingNotes.push({ path, docs });
    this.pendingBytes += noteBytes(path);
    if (this.pendingBytes >= this.segmentBytes) this.encodePending();
  }

  /** No more notes: the last docs segment is encoded. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.pendingNotes.length > 0) this.encodePending();
  }

  /** What the cache keeps besides the segments (as textStoreHeader gives a TermIndex's). */
  header(): TextStoreHeader {
    return textStoreHeader(this);
  }

  /** The segments (after close()), as textStoreSegments gives them for the TermIndex this stands for. */
  *segments(): Generator<TextSegment> {
    if (this.damaged)
      throw new Error('cold terms: an add failed half-way; the index is made again from the notes');
    this.close();
    for (const data of this.docsSegments) yield { part: 'docs', data, end: true };
    yield* termSegments(this.termPostings(), new Uint8Array(0), { ...LIMITS, segment: this.segmentBytes });
  }

  private encodePending(): void {
    this.docsSegments.push(encodeDocs(this.pendingNotes, this.options.fields.length));
    this.pendingNotes = [];
    this.pendingBytes = 0;
  }

  private tokenize(document: SectionDocument): Tokenized {
    const { fields, tokenize, processTerm, storeFields } = this.options;
    const source = document as unknown as Record<string, unknown>;
    const lengths: number[] = [];
    const terms: Tokenized['terms'] = [];
    for (const field of fields) {
      const value = source[field];
      if (value == null) {
        lengths.push(Number.NaN);
        terms.push(undefined);
        continue;
      }
      const tokens = tokenize((value as { toString(): string }).toString());
      lengths.push(new Set(tokens).size);
      const counts = new Map<string, number>();
      for (const token of tokens) {
        const term = processTerm(token);
        if (term) counts.set(term, (counts.get(term) ?? 0) + 1);
      }
      terms.push(counts);
    }
    const stored: Record<string, unknown> = {};
    for (const field of storeFields) if (source[field] !== undefined) stored[field] = source[field];
    return { id: document.id, stored, lengths, terms };
  }

  /** Appends a posting to the term's list for the field, making the term or the list first. */
  private post(term: string, fieldId: number, shortId: number, freq: number): void {
    const first = this.terms.get(term);
    let list: number;
    if (first === undefined) {
      list = this.newList(fieldId);
      this.terms.set(term, list);
    } else {
      // The term's lists, one a field (a few at most), to the field's or the chain's end.
      let last = first;
      list = first;
      while (list !== -1 && this.lists[list * STRIDE + FIELD] !== fieldId) {
        last = list;
        list = this.lists[list * STRIDE + NEXT] as number;
      }
      if (list === -1) {
        list = this.newList(fieldId);
        this.lists[last * STRIDE + NEXT] = list;
      }
    }
    const at = list * STRIDE;
    const delta = shortId - (this.lists[at + LAST_ID] as number);
    this.lists[at + LAST_ID] = shortId;
    this.write(at, delta);
    this.write(at, freq);
  }

  private newList(fieldId: number): number {
    const list = this.listCount++;
    if ((list + 1) * STRIDE > this.lists.length) {
      const bigger = new Int32Array(this.lists.length * 2);
      bigger.set(this.lists);
      this.lists = bigger;
    }
    const block = this.block(FIRST_BLOCK);
    const at = list * STRIDE;
    this.lists[at + FIELD] = fieldId;
    this.lists[at + NEXT] = -1;
    this.lists[at + HEAD] = block;
    this.lists[at + TAIL] = block;
    this.lists[at + END] = block + FIRST_BLOCK;
    this.lists[at + POS] = block + 4;
    this.lists[at + LAST_ID] = 0;
    return list;
  }

  /** A new block of `size` bytes at the arena's end: its address. */
  private block(size: number): number {
    if (this.pages.length === 0 || this.used + size > PAGE) {
      if (this.pages.length === ADDRESSABLE_PAGES)
        throw new RangeError('cold terms: the postings arena is full');
      this.pages.push(new Uint8Array(PAGE));
      this.used = 0;
    }
    const address = ((this.pages.length - 1) << PAGE_BITS) | this.used;
    this.used += size;
    return address;
  }

  /** Writes `value` as a varint at the end of the list at `at` (in `lists`), chaining a block when one is full. */
  private write(at: number, value: number): void {
    const lists = this.lists;
    let n = value;
    for (;;) {
      let pos = lists[at + POS] as number;
      const end = lists[at + END] as number;
      if (pos === end) {
        const tail = lists[at + TAIL] as number;
        const size = Math.min(MAX_BLOCK, 2 * (end - tail));
        const next = this.block(size);
        this.setAddress(tail, next);
        lists[at + TAIL] = next;
        lists[at + END] = next + size;
        pos = next + 4;
      }
      const page = this.pages[pos >>> PAGE_BITS] as Uint8Array;
      page[pos & (PAGE - 1)] = n >= 0x80 ? (n % 0x80) | 0x80 : n;
      lists[at + POS] = pos + 1;
      if (n < 0x80) return;
      n = Math.floor(n / 0x80);
    }
  }

  private setAddress(block: number, next: number): void {
    const page = this.pages[block >>> PAGE_BITS] as Uint8Array;
    const o = block & (PAGE - 1);
    page[o] = next & 0xff;
    page[o + 1] = (next >>> 8) & 0xff;
    page[o + 2] = (next >>> 16) & 0xff;
    page[o + 3] = (next >>> 24) & 0xff;
  }

  private address(block: number): number {
    const page = this.pages[block >>> PAGE_BITS] as Uint8Array;
    const o = block & (PAGE - 1);
    return (
      ((page[o] as number) |
        ((page[o + 1] as number) << 8) |
        ((page[o + 2] as number) << 16) |
        ((page[o + 3] as number) << 24)) >>>
      0
    );
  }

  /** Every term with its lists, in the order the terms were first added. */
  private *termPostings(): Generator<readonly [string, FieldPostings]> {
    for (const [term, first] of this.terms) yield [term, this.fieldsOf(first)];
  }

  private *fieldsOf(first: number): Generator<readonly [number, Iterable<readonly [number, number]>]> {
    for (let list = first; list !== -1; list = this.lists[list * STRIDE + NEXT] as number)
      yield [this.lists[list * STRIDE + FIELD] as number, this.postingsOf(list)];
  }

  /** A list's (short id, frequency) pairs, in order. */
  private *postingsOf(list: number): Generator<readonly [number, number]> {
    const at = list * STRIDE;
    const end = this.lists[at + POS] as number;
    const tail = this.lists[at + TAIL] as number;
    let block = this.lists[at + HEAD] as number;
    let size = FIRST_BLOCK;
    let pos = block + 4;
    let shortId = 0;
    const next = (): number => {
      let value = 0;
      let scale = 1;
      for (;;) {
        if (pos === block + size) {
          if (block === tail) throw new Error('cold terms: a posting list read past its end');
          block = this.address(block);
          size = Math.min(MAX_BLOCK, size * 2);
          pos = block + 4;
        }
        const byte = (this.pages[pos >>> PAGE_BITS] as Uint8Array)[pos & (PAGE - 1)] as number;
        pos++;
        value += (byte & 0x7f) * scale;
        if (byte < 0x80) return value;
        scale *= 0x80;
      }
    };
    while (pos !== end) {
      shortId += next();
      yield [shortId, next()];
    }
  }
}

/** Whether `id` is `path#` and an anchor without `#`: such ids of two paths are never the same. */
function isUsual(id: string, path: string): boolean {
  return (
    id.length > path.length &&
    id.charCodeAt(path.length) === 35 &&
    id.startsWith(path) &&
    id.indexOf('#', path.length + 1) === -1
  );
}
