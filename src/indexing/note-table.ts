import { closeSync, readSync } from 'node:fs';
import { crc32 } from 'node:zlib';
import type { Note } from '../core/types.js';
import { DECODED_NOTES, type Generational } from './decoded-budget.js';
import { type RecordSource, SECTION_RECORD, savedNote } from './saved-note.js';

/**
 * The saved notes of a cache generation, as the cache file's table gives them: for each slot (a
 * note, in the order saved) which notes file holds its records, at which offset and how many
 * bytes, each record's length and CRC-32 (saved-note.ts: head, body, one per section), and the
 * note's size and mtime (a refresh compares them without decoding the note). Typed arrays and one
 * string per path: nothing else is built per note at open.
 */
export interface SavedNotes {
  /** Open descriptors of the generation's notes files; held until close() */
  fds: number[];
  paths: string[];
  file: Uint32Array;
  offset: Float64Array;
  length: Uint32Array;
  /** Slot `s`'s records are `records[s]` … `records[s + 1]` - 1 of the two arrays below */
  records: Uint32Array;
  /** Bytes of each record's JSON, without the newline that follows it */
  recordLength: Uint32Array;
  recordCrc: Uint32Array;
  size: Float64Array;
  mtime: Float64Array;
}

/** What the table holds for a path: the note itself (changed since the save), or its saved slot. */
export type NoteEntry = Note | number;

/**
 * A saved note of at most this many bytes is read and decoded whole, as a plain note: a lazy note
 * costs more to read than it saves while recall reads every entry of a day it hits (a graph seed's
 * neighbouring entries), so only a day of hundreds of entries is decoded a record at a time
 */
const WHOLE_NOTE_BYTES = 64 * 1024;

/** What the tables read notes into, before decoding them there and then: one for the process (reads are synchronous) */
let scratch = Buffer.alloc(0);
/** Larger reads (a note of more than this) get a buffer of their own, not kept */
const SCRATCH_KEPT = 1 << 20;

function scratchFor(length: number): Buffer {
  if (length > SCRATCH_KEPT) return Buffer.allocUnsafe(length);
  // 64 KiB per vault was some 60 KiB of each loaded vault of a `mem serve --vaults` pool.
  if (scratch.length < length) scratch = Buffer.allocUnsafe(Math.max(length, 64 * 1024));
  return scratch;
}

/** Default bound of the decoded saved notes kept between reads, in bytes of their JSON */
export const DEFAULT_DECODED_BYTES = 16 << 20;

/**
 * The vault's notes by path, in the order they were first indexed. A note read from the files (or
 * changed since the cache was saved) is held whole; a note restored from the cache is held as its
 * slot in the saved table and decoded from its notes file when asked for, through a cache bounded
 * by `decodedBytes`: opening a vault builds no object per note, and a query decodes the few notes it
 * touches. Iterating `values()` decodes every saved note, one at a time; whole-vault scans are for
 * rare paths (doctor, reflection) or are kept as facets and tallies (see VaultIndex).
 */
export class NoteTable implements ReadonlyMap<string, Note>, Generational {
  private readonly held = new Map<string, NoteEntry>();
  private saved: SavedNotes | undefined;
  /**
   * Decoded saved notes in two generations: a read finds a note in `young` with one lookup and
   * nothing moved; one found in `old` moves to `young`. When `young` holds half the bound it
   * becomes `old` and the old `old` is dropped: the notes read least recently go, at no cost per read.
   */
  private young = new Map<number, Note>();
  private old = new Map<number, Note>();
  private youngBytes = 0;
  /** Saved slots of paths since written or removed */
  private readonly replaced = new Map<string, number>();
  /** Saved notes whose bytes were damaged, read again from their files */
  private readonly repaired = new Map<number, Note>();
  /** The record source of the current generation (sourceOf) */
  private source: RecordSource | undefined;
  private bound = DEFAULT_DECODED_BYTES;

  /** Bytes of JSON whose decoded notes are kept between reads; lowering it drops the oldest at once */
  get decodedBytes(): number {
    return this.bound;
  }

  set decodedBytes(bytes: number) {
    this.bound = bytes;
    this.old.clear();
    if (this.youngBytes > bytes / 2) {
      this.young.clear();
      this.youngBytes = 0;
    }
  }
  /**
   * Reads a note again from the vault when its saved bytes are damaged (the CRC-32 differs, or
   * they do not parse to the note of that path): a damaged cache is never trusted.
   */
  reread: ((path: string) => Note) | undefined;
  /** Told once when a saved note was damaged and was read from its file instead */
  onDamaged: ((path: string) => void) | undefined;

  /** A table over the saved notes of a cache generation, every note held as its slot. */
  static over(saved: SavedNotes): NoteTable {
    const table = new NoteTable();
    table.saved = saved;
    // A table dropped without close() (a vault never closed) still gives its files back.
    closeWhenCollected.register(table, saved.fds, table);
    DECODED_NOTES.join(table);
    for (let slot = 0; slot < saved.paths.length; slot++) table.held.set(saved.paths[slot] as string, slot);
    return table;
  }

  get size(): number {
    return this.held.size;
  }

  /** Whether the table reads saved notes (from a cache generation, or a cold build's spill) */
  get hasSaved(): boolean {
    return this.saved !== undefined;
  }

  /**
   * An empty table starts reading spilled notes from `saved`, which a cold build grows as it goes
   * (see note-spill.ts); spilled() turns each note held into its slot there.
   */
  spillInto(saved: SavedNotes): void {
    if (this.saved || this.held.size > 0) throw new Error('only an empty table takes a spill');
    this.saved = saved;
    closeWhenCollected.register(this, saved.fds, this);
    DECODED_NOTES.join(this);
  }

  /** The note at `path`, held whole, was written to slot `slot` of the spill: it leaves the heap. */
  spilled(path: string, slot: number): void {
    if (typeof this.held.get(path) === 'object') this.held.set(path, slot);
  }

  get [Symbol.toStringTag](): string {
    return 'NoteTable';
  }

  has(path: string): boolean {
    return this.held.has(path);
  }

  get(path: string): Note | undefined {
    const entry = this.held.get(path);
    return typeof entry === 'number' ? this.decode(entry) : entry;
  }

  /** The note held as it is or its saved slot: unchanged while the note is, so it tells an edit without a decode. */
  entry(path: string): NoteEntry | undefined {
    return this.held.get(path);
  }

  set(path: string, note: Note): void {
    const entry = this.held.get(path);
    if (typeof entry === 'number') this.replaced.set(path, entry);
    this.held.set(path, note);
  }

  delete(path: string): boolean {
    const entry = this.held.get(path);
    if (typeof entry === 'number') this.replaced.set(path, entry);
    return this.held.delete(path);
  }

  /** The slot a path had in the saved table (also after the note was written or removed since). */
  slotOf(path: string): number | undefined {
    const entry = this.held.get(path);
    return typeof entry === 'number' ? entry : this.replaced.get(path);
  }

  keys(): MapIterator<string> {
    return this.held.keys();
  }

  *values(): MapIterator<Note> {
    for (const entry of this.held.values()) yield typeof entry === 'number' ? this.decode(entry) : entry;
  }

  entries(): MapIterator<[string, Note]> {
    return this.pairs() as unknown as MapIterator<[string, Note]>;
  }

  private *pairs(): Generator<[string, Note]> {
    for (const [path, entry] of this.held) {
      yield [path, typeof entry === 'number' ? this.decode(entry) : entry];
    }
  }

  entriesRaw(): MapIterator<[string, NoteEntry]> {
    return this.held.entries();
  }

  [Symbol.iterator](): MapIterator<[string, Note]> {
    return this.entries();
  }

  forEach(callback: (value: Note, key: string, map: ReadonlyMap<string, Note>) => void): void {
    for (const [path, note] of this.pairs()) callback(note, path, this);
  }

  /**
   * Whether the indexed version of `path` has this size and mtime (undefined: not held), without
   * decoding a saved note or making an object: the walk of every open asks it of every note.
   */
  sameStat(path: string, size: number, mtimeMs: number): boolean | undefined {
    const entry = this.held.get(path);
    if (entry === undefined) return undefined;
    if (typeof entry !== 'number') return entry.size === size && entry.mtimeMs === mtimeMs;
    const saved = this.saved as SavedNotes;
    return saved.size[entry] === size && saved.mtime[entry] === mtimeMs;
  }

  /** A file whose content is as indexed got a new size or mtime (a touch, a copy): remembered without a decode. */
  touch(path: string, size: number, mtimeMs: number): void {
    const entry = this.held.get(path);
    if (entry === undefined) return;
    const note =
      typeof entry === 'number'
        ? (this.repaired.get(entry) ?? this.young.get(entry) ?? this.old.get(entry))
        : entry;
    if (note) {
      note.size = size;
      note.mtimeMs = mtimeMs;
    }
    if (typeof entry === 'number') {
      const saved = this.saved as SavedNotes;
      saved.size[entry] = size;
      saved.mtime[entry] = mtimeMs;
    }
  }

  /**
   * The saved JSON of a slot, checked against its CRC-32 (the notes file is read, nothing is
   * decoded); undefined when it is damaged. A save copies unchanged notes this way.
   */
  savedBytes(slot: number): Buffer | undefined {
    if (this.repaired.has(slot)) return undefined;
    const saved = this.saved as SavedNotes;
    const length = saved.length[slot] as number;
    const bytes = Buffer.allocUnsafe(length);
    const fd = saved.fds[saved.file[slot] as number];
    if (fd === undefined || readSync(fd, bytes, 0, length, saved.offset[slot] as number) !== length)
      return undefined;
    let at = 0;
    for (let r = saved.records[slot] as number; r < (saved.records[slot + 1] as number); r++) {
      const end = at + (saved.recordLength[r] as number);
      if (crc32(bytes.subarray(at, end)) !== saved.recordCrc[r]) return undefined;
      at = end + 1;
    }
    return bytes;
  }

  /**
   * What the notes decoded from `saved` read their other records through. A note decoded before a
   * save (held by a view) keeps reading its generation, whose files the save closed: it is read
   * again from its file, quietly, and nothing of it enters this generation's tables.
   */
  private sourceOf(saved: SavedNotes): RecordSource {
    return {
      records: (slot, from, to) => this.records(saved, slot, from, to),
      grew: (bytes) => {
        if (this.saved === saved) this.grew(bytes);
      },
      repair: (slot) => (this.saved === saved ? this.repair(slot) : this.rereadOld(saved, slot)),
    };
  }

  private rereadOld(saved: SavedNotes, slot: number): Note {
    const path = saved.paths[slot] as string;
    if (!this.reread) throw new Error(`the index cache no longer holds ${path} and has no way to read it`);
    return this.reread(path);
  }

  /** Records `from` … `to` - 1 of a slot, read in one piece and each checked against its CRC-32. */
  private records(saved: SavedNotes, slot: number, from: number, to: number): string[] | undefined {
    const first = saved.records[slot] as number;
    let at = saved.offset[slot] as number;
    for (let r = first; r < first + from; r++) at += (saved.recordLength[r] as number) + 1;
    let length = 0;
    for (let r = first + from; r < first + to; r++) length += (saved.recordLength[r] as number) + 1;
    const bytes = scratchFor(length);
    const fd = saved.fds[saved.file[slot] as number];
    // Closed (a read after the vault closed or saved anew): the note is read from its file instead.
    if (fd === undefined || first + to > (saved.records[slot + 1] as number)) return undefined;
    try {
      if (readSync(fd, bytes, 0, length, at) !== length) return undefined;
    } catch {
      return undefined;
    }
    const out: string[] = [];
    let offset = 0;
    for (let r = first + from; r < first + to; r++) {
      const end = offset + (saved.recordLength[r] as number);
      if (crc32(bytes.subarray(offset, end)) !== saved.recordCrc[r]) return undefined;
      out.push(bytes.toString('utf8', offset, end));
      offset = end + 1;
    }
    return out;
  }

  /** Bytes decoded from a saved note after its head count against the bound. */
  private grew(bytes: number): void {
    this.youngBytes += bytes;
    if (this.youngBytes > this.bound / 2) this.rotate();
    DECODED_NOTES.count(bytes);
  }

  /** The note of a slot read again from its file, once, its saved records being damaged. */
  private repair(slot: number): Note {
    const known = this.repaired.get(slot);
    if (known) return known;
    const saved = this.saved as SavedNotes;
    const path = saved.paths[slot] as string;
    if (!this.reread) throw new Error(`the index cache holds a damaged note (${path}) and no way to read it`);
    if (saved.fds.length > 0) this.onDamaged?.(path);
    const note = this.reread(path);
    // Read from the file: held whole from now on, the damaged bytes never read again.
    this.repaired.set(slot, note);
    return note;
  }

  /** Where a slot's records lie in the saved record arrays (a save copies their lengths and CRC-32s). */
  savedRecords(slot: number): { first: number; end: number; length: Uint32Array; crc: Uint32Array } {
    const saved = this.saved as SavedNotes;
    return {
      first: saved.records[slot] as number,
      end: saved.records[slot + 1] as number,
      length: saved.recordLength,
      crc: saved.recordCrc,
    };
  }

  /**
   * Makes the table read from a generation just saved, `saved` listing every note it holds in its
   * order: each note becomes its slot again and the old files are closed. What a long-running
   * process wrote since it opened (a day note, every note of a cold index) leaves the heap.
   */
  rebase(saved: SavedNotes): void {
    if (saved.paths.length !== this.held.size) throw new Error('the saved table does not list every note');
    let slot = 0;
    for (const path of this.held.keys()) {
      if (saved.paths[slot] !== path) throw new Error('the saved table lists the notes in another order');
      this.held.set(path, slot++);
    }
    if (this.saved) {
      closeWhenCollected.unregister(this);
      closeAll(this.saved.fds);
    }
    this.saved = saved;
    this.source = undefined;
    closeWhenCollected.register(this, saved.fds, this);
    DECODED_NOTES.join(this);
    this.young.clear();
    this.old.clear();
    this.youngBytes = 0;
    this.repaired.clear();
    this.replaced.clear();
  }

  /** Size and mtime of a slot as the table has them now (touches included). */
  savedStat(slot: number): { size: number; mtimeMs: number } {
    const saved = this.saved as SavedNotes;
    return { size: saved.size[slot] as number, mtimeMs: saved.mtime[slot] as number };
  }

  /** Closes the notes files; saved notes cannot be decoded after. */
  close(): void {
    const saved = this.saved;
    if (!saved) return;
    DECODED_NOTES.leave(this);
    closeWhenCollected.unregister(this);
    closeAll(saved.fds);
  }

  private decode(slot: number): Note {
    const repaired = this.repaired.get(slot);
    if (repaired) return repaired;
    const young = this.young.get(slot);
    if (young) return young;
    const saved = this.saved as SavedNotes;
    const old = this.old.get(slot);
    if (old) {
      this.old.delete(slot);
      // Counted again at the size of its head: what it decoded since counted once.
      this.keep(slot, old, saved.recordLength[saved.records[slot] as number] as number);
      return old;
    }
    const path = saved.paths[slot] as string;
    const records = (saved.records[slot + 1] as number) - (saved.records[slot] as number);
    // A small note is read in one piece (one read, its other records parsed when asked for); of a
    // large one (a day of hundreds of entries) only the head.
    const length = saved.length[slot] as number;
    const whole = length <= WHOLE_NOTE_BYTES;
    const read = this.records(saved, slot, 0, whole ? records : 1);
    const head = read?.[0];
    this.source ??= this.sourceOf(saved);
    const note =
      head === undefined
        ? undefined
        : savedNote(slot, path, head, records - SECTION_RECORD, this.source, whole ? read : undefined);
    if (note === undefined) return this.repair(slot);
    note.size = saved.size[slot] as number;
    note.mtimeMs = saved.mtime[slot] as number;
    this.keep(slot, note, whole ? length : (head as string).length);
    return note;
  }

  private keep(slot: number, note: Note, length: number): void {
    this.young.set(slot, note);
    this.youngBytes += length;
    if (this.youngBytes > this.bound / 2) this.rotate();
    DECODED_NOTES.count(length);
  }

  /** `young` becomes `old`, the old `old` is dropped (at this table's bound, or the process's: decoded-budget.ts). */
  rotate(): void {
    this.old = this.young;
    this.young = new Map();
    this.youngBytes = 0;
  }
}

function closeAll(fds: number[]): void {
  for (const fd of fds.splice(0)) {
    try {
      closeSync(fd);
    } catch {
      // Already closed: nothing to release.
    }
  }
}

const closeWhenCollected = new FinalizationRegistry<number[]>(closeAll);
