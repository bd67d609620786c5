// The text index's documents as the cache saves them: binary `docs` segments that a load walks
// once for what every search reads (which short ids are live, their field lengths) and leaves the
// rest (a document's id and stored fields, a note's path) in the bytes until a hit asks for it.
// At 100,000 notes the same documents as JSON were some 300,000 arrays and objects parsed at every
// open, half a second of CPU and its garbage, for the few hundred a query shows.
//
// A segment, little-endian:
//   header   u32 documents, u32 notes, u32 fields, u32 0
//   notes    per note: u32 its first document (in the segment), u32 end of its path in the strings
//   docs     per document: u32 short id, u32 end of its id, u32 end of its stored fields (JSON),
//            f32 × fields its field lengths (NaN: the field is absent)
//   strings  UTF-8: every note's path, then every document's id and stored fields, in order
// A note's documents are the ones from its first to the next note's first, its sections in order.
// The notes are in the order of their paths (UTF-16 code units, as `<` compares strings), so a
// change finds a note's documents by a binary search (cache schema 15), not by reading every path.
import { Buffer } from 'node:buffer';
import type { SegmentSource } from '../segment-source.js';
import { RecentValues } from './recent-values.js';

const HEADER = 16;
/** Whether this machine's typed arrays read the segments' little-endian words as they are */
const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;
const NOTE_BYTES = 8;
/** How many notes' places a SavedDocs keeps after a lookup by path, in each of two generations */
const LOCATED_KEPT = 4096;
/** How many notes of a segment one kept path stands for (DocsSegment.find) */
const KEY_STEP = 32;

/**
 * Where a docs segment's strings start, which is where its tables end, from `head` (its first
 * bytes, the header at least): an open reads only the bytes before it.
 */
export function docsTablesEnd(head: Uint8Array, fieldCount: number): number {
  if (head.length < HEADER) throw new Error('a docs segment is cut short');
  const view = new DataView(head.buffer, head.byteOffset, head.byteLength);
  return HEADER + view.getUint32(4, true) * NOTE_BYTES + view.getUint32(0, true) * (12 + 4 * fieldCount);
}

/** One note's documents for a segment: its path and, per section, id, stored fields and field lengths. */
export interface DocsNote {
  path: string;
  docs: Array<{ id: string; shortId: number; stored: object; lengths: ArrayLike<number> }>;
}

/** Encodes notes as one docs segment (the caller bounds how many go in one). */
export function encodeDocs(notes: readonly DocsNote[], fieldCount: number): Uint8Array {
  const docCount = notes.reduce((n, note) => n + note.docs.length, 0);
  const docBytes = 12 + 4 * fieldCount;
  const tables = HEADER + notes.length * NOTE_BYTES + docCount * docBytes;
  const strings: string[] = [];
  for (const note of notes) strings.push(note.path);
  for (const note of notes) for (const doc of note.docs) strings.push(doc.id, JSON.stringify(doc.stored));
  const out = Buffer.alloc(tables + strings.reduce((n, s) => n + Buffer.byteLength(s), 0));
  out.writeUInt32LE(docCount, 0);
  out.writeUInt32LE(notes.length, 4);
  out.writeUInt32LE(fieldCount, 8);
  // The strings in the order they are written: the paths, then each document's id and stored fields.
  let text = 0;
  let next = 0;
  const put = () => {
    text += out.write(strings[next++] as string, tables + text, 'utf8');
    return text;
  };
  let doc = 0;
  for (const [k, note] of notes.entries()) {
    out.writeUInt32LE(doc, HEADER + k * NOTE_BYTES);
    out.writeUInt32LE(put(), HEADER + k * NOTE_BYTES + 4);
    doc += note.docs.length;
  }
  let at = HEADER + notes.length * NOTE_BYTES;
  for (const note of notes) {
    for (const { shortId, lengths } of note.docs) {
      out.writeUInt32LE(shortId, at);
      out.writeUInt32LE(put(), at + 4);
      out.writeUInt32LE(put(), at + 8);
      for (let f = 0; f < fieldCount; f++) out.writeFloatLE(lengths[f] ?? Number.NaN, at + 12 + 4 * f);
      at += docBytes;
    }
  }
  return out;
}

/**
 * One segment as loaded: where its tables and strings are. Its tables are read at the open from the
 * bytes the open read (see SavedDocs.load); after it, every word (a document's short id, the ends
 * of its id and stored fields) is read from the segment by offset, as the strings are, when a hit
 * asks for an id or stored fields (or a change for the paths). A copy of the tables was 9.5 MiB of
 * every process's memory at 100,000 notes, and 0.2 MiB of each 1,000-note vault of a pool.
 */
class DocsSegment {
  readonly docCount: number;
  readonly noteCount: number;
  private readonly docsAt: number;
  private readonly docBytes: number;
  private readonly stringsAt: number;
  /** Every KEY_STEP-th path, and the last, read at the first find */
  private keys: string[] | undefined;
  private last: string | undefined;

  /** `head`: the segment's first bytes, its header at least (not kept). */
  constructor(
    head: Uint8Array,
    private readonly source: SegmentSource,
    fieldCount: number,
  ) {
    if (head.length < HEADER) throw new Error('a docs segment is cut short');
    const view = new DataView(head.buffer, head.byteOffset, head.byteLength);
    this.docCount = view.getUint32(0, true);
    this.noteCount = view.getUint32(4, true);
    const fields = view.getUint32(8, true);
    if (fields !== fieldCount) throw new Error(`a docs segment has ${fields} fields, not ${fieldCount}`);
    this.docBytes = 12 + 4 * fieldCount;
    this.docsAt = HEADER + this.noteCount * NOTE_BYTES;
    this.stringsAt = this.docsAt + this.docCount * this.docBytes;
    if (this.stringsAt > source.size) throw new Error('a docs segment is cut short');
  }

  /** Where the strings start: the bytes before are the tables. */
  get tablesEnd(): number {
    return this.stringsAt;
  }

  /**
   * The documents' table as 4-byte words (and floats), over `bytes` (the segment's, from its
   * start to its strings at least): document k starts at `first + k * stride`.
   */
  words(bytes: Uint8Array): { words: Uint32Array; floats: Float32Array; first: number; stride: number } {
    const count = this.stringsAt >> 2;
    const where = { first: this.docsAt >> 2, stride: this.docBytes >> 2 };
    if (LITTLE_ENDIAN) {
      // Views need 4-byte alignment: bytes that are not aligned are copied.
      const aligned = bytes.byteOffset % 4 === 0 ? bytes : Uint8Array.from(bytes.subarray(0, 4 * count));
      return {
        words: new Uint32Array(aligned.buffer, aligned.byteOffset, count),
        floats: new Float32Array(aligned.buffer, aligned.byteOffset, count),
        ...where,
      };
    }
    // The segment is little-endian; a big-endian machine reads its words one by one.
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const words = new Uint32Array(count);
    const floats = new Float32Array(count);
    for (let i = 0; i < count; i++) {
      words[i] = view.getUint32(4 * i, true);
      floats[i] = view.getFloat32(4 * i, true);
    }
    return { words, floats, ...where };
  }

  /** The little-endian word at `at` in the segment. */
  private word(at: number): number {
    const b = this.source.read(at, at + 4);
    return (
      ((b[0] as number) | ((b[1] as number) << 8) | ((b[2] as number) << 16) | ((b[3] as number) << 24)) >>> 0
    );
  }

  shortId(k: number): number {
    return this.word(this.docsAt + k * this.docBytes);
  }

  /** The end of a document's id (0) or stored fields (1) in the strings. */
  private end(k: number, which: 0 | 1): number {
    return this.word(this.docsAt + k * this.docBytes + 4 + 4 * which);
  }

  private text(from: number, to: number): string {
    const end = this.stringsAt + to;
    if (to < from || end > this.source.size) throw new Error('a docs segment points past its strings');
    const bytes = this.source.read(this.stringsAt + from, end);
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  }

  private pathEnd(note: number): number {
    return note < 0 ? 0 : this.word(HEADER + note * NOTE_BYTES + 4);
  }

  id(k: number): string {
    const from = k === 0 ? this.pathEnd(this.noteCount - 1) : this.end(k - 1, 1);
    return this.text(from, this.end(k, 0));
  }

  stored(k: number): Record<string, unknown> {
    return JSON.parse(this.text(this.end(k, 0), this.end(k, 1))) as Record<string, unknown>;
  }

  private path(note: number): string {
    return this.text(this.pathEnd(note - 1), this.pathEnd(note));
  }

  /**
   * The positions of the documents of the note at `path` here, by a binary search over the notes
   * (saved in path order); undefined when the segment has no such note.
   */
  find(path: string): [from: number, to: number] | undefined {
    // Every KEY_STEP-th path is kept (a thirty-second of them): a search reads a few paths of one
    // stretch, not a path at every step over the whole segment. Recall's backlinks look up the
    // notes they are written in by path, hundreds a recall.
    if (this.noteCount === 0) return undefined;
    if (!this.keys) {
      this.keys = [];
      for (let n = 0; n < this.noteCount; n += KEY_STEP) this.keys.push(this.path(n));
      this.last = this.path(this.noteCount - 1);
    }
    if (path < (this.keys[0] as string) || path > (this.last as string)) return undefined;
    let stretch = 0;
    for (let a = 1, b = this.keys.length - 1; a <= b; ) {
      const mid = (a + b) >>> 1;
      if ((this.keys[mid] as string) <= path) {
        stretch = mid;
        a = mid + 1;
      } else b = mid - 1;
    }
    let low = stretch * KEY_STEP;
    let high = Math.min(this.noteCount - 1, low + KEY_STEP - 1);
    while (low <= high) {
      const mid = (low + high) >>> 1;
      const at = this.path(mid);
      if (at < path) low = mid + 1;
      else if (at > path) high = mid - 1;
      else {
        const from = this.word(HEADER + mid * NOTE_BYTES);
        const to = mid + 1 < this.noteCount ? this.word(HEADER + (mid + 1) * NOTE_BYTES) : this.docCount;
        if (from > to || to > this.docCount) throw new Error('a docs segment lists its notes out of order');
        return [from, to];
      }
    }
    return undefined;
  }

  /** Each note's path and the positions of its documents here. */
  *notes(): Generator<[path: string, from: number, to: number]> {
    for (let n = 0; n < this.noteCount; n++) {
      const from = this.word(HEADER + n * NOTE_BYTES);
      const to = n + 1 < this.noteCount ? this.word(HEADER + (n + 1) * NOTE_BYTES) : this.docCount;
      if (from > to || to > this.docCount) throw new Error('a docs segment lists its notes out of order');
      yield [this.path(n), from, to];
    }
  }
}

/**
 * The saved documents of a loaded index, by short id: which segment holds each and where. Ids and
 * stored fields are decoded when asked for; nothing per document is built at load.
 */
export class SavedDocs {
  private readonly segments: DocsSegment[] = [];
  /**
   * Per short id: its segment + 1 (0: not saved). Both arrays hold 2-byte words, widened to 4 when a
   * load brings a number that does not fit (a pooled vault keeps them, a few segments of thousands).
   */
  private segmentOf: Uint16Array | Uint32Array;
  /** Per short id: its position in its segment */
  private positionOf: Uint16Array | Uint32Array;
  /** Where the notes recently looked up by path are (see locate) */
  private readonly located = new RecentValues<[DocsSegment, number, number] | null, string>(LOCATED_KEPT);

  constructor(
    size: number,
    private readonly fieldCount: number,
  ) {
    this.segmentOf = new Uint16Array(size);
    this.positionOf = new Uint16Array(size);
  }

  /**
   * Takes in one segment, `bytes` (its start, the tables at least, not kept: its strings are read
   * from `source` when asked for); `place` is told each document's short id (the caller checks it and marks it live)
   * and its field lengths, read from the segment's table.
   */
  load(
    bytes: Uint8Array,
    source: SegmentSource,
    place: (shortId: number, lengths: Float32Array, at: number) => void,
  ): void {
    // Nothing of the bytes is kept: after the load, the segment is read by offset.
    const segment = new DocsSegment(bytes, source, this.fieldCount);
    if (segment.tablesEnd > bytes.length) throw new Error('a docs segment is cut short');
    this.segments.push(segment);
    const number = this.segments.length;
    if (number > 0xffff && this.segmentOf instanceof Uint16Array)
      this.segmentOf = Uint32Array.from(this.segmentOf);
    if (segment.docCount > 0x10000 && this.positionOf instanceof Uint16Array)
      this.positionOf = Uint32Array.from(this.positionOf);
    const { words, floats, first, stride } = segment.words(bytes);
    for (let k = 0; k < segment.docCount; k++) {
      const at = first + k * stride;
      const shortId = words[at] as number;
      place(shortId, floats, at + 3);
      this.segmentOf[shortId] = number;
      this.positionOf[shortId] = k;
    }
  }

  /** Whether a short id was saved (discarded since or not). */
  has(shortId: number): boolean {
    return shortId < this.segmentOf.length && this.segmentOf[shortId] !== 0;
  }

  id(shortId: number): string | undefined {
    const segment = this.segments[(this.segmentOf[shortId] ?? 0) - 1];
    return segment?.id(this.positionOf[shortId] as number);
  }

  stored(shortId: number): Record<string, unknown> | undefined {
    const segment = this.segments[(this.segmentOf[shortId] ?? 0) - 1];
    return segment?.stored(this.positionOf[shortId] as number);
  }

  /** The short ids of the saved documents of the note at `path` (a note is in one segment), or undefined. */
  shortIdsOf(path: string): number[] | undefined {
    const found = this.locate(path);
    if (!found) return undefined;
    const [segment, from, to] = found;
    const shortIds: number[] = [];
    for (let k = from; k < to; k++) shortIds.push(segment.shortId(k));
    return shortIds;
  }

  /** The short id of the `k`-th saved document of the note at `path`, reading no other's; undefined when none. */
  shortIdAt(path: string, k: number): number | undefined {
    const found = this.locate(path);
    return found && k >= 0 && found[1] + k < found[2] ? found[0].shortId(found[1] + k) : undefined;
  }

  /**
   * The segment holding the note at `path` and its documents' positions there, kept for the paths
   * recently asked about: recall's backlinks ask for the same linking notes query after query.
   */
  private locate(path: string): [DocsSegment, number, number] | undefined {
    const known = this.located.get(path);
    if (known !== undefined) return known ?? undefined;
    let found: [DocsSegment, number, number] | null = null;
    for (const segment of this.segments) {
      const range = segment.find(path);
      if (range) {
        found = [segment, range[0], range[1]];
        break;
      }
    }
    this.located.set(path, found);
    return found ?? undefined;
  }

  /** Each saved note's path and its documents' short ids, in the order they were saved. */
  *notes(): Generator<[path: string, shortIds: number[]]> {
    for (const segment of this.segments) {
      for (const [path, from, to] of segment.notes()) {
        const shortIds: number[] = [];
        for (let k = from; k < to; k++) shortIds.push(segment.shortId(k));
        yield [path, shortIds];
      }
    }
  }
}
