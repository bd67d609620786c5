// The notes of a cold index written out as they are parsed (see ColdBuild): into the notes segments
// of the cache generation the build's save will write, so the index holds a slot per note, not the
// note. At 40,000 notes the parsed notes held until the save were a quarter of the peak.
import { closeSync, mkdirSync, openSync, renameSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { cacheDir } from '../core/cache-dir.js';
import type { Note } from '../core/types.js';
import type { SavedNotes } from './note-table.js';
import { noteRecords } from './saved-note.js';
import type { Segment } from './segment-writer.js';

/** The cache's folder in `.mem/` */
export const INDEX_DIR = 'index';
/** A notes segment is closed once it holds this many bytes (plus one note) */
export const NOTES_SEGMENT_BYTES = 8 << 20;

/** What a cold build leaves for the save: the notes written and the index's version when it ended */
export interface PendingGeneration {
  spill: NoteSpill;
  version: number;
}

/** The name of a new generation: its time first, so generations sort (and are removed) by age. */
export function generationName(): string {
  return `g${Date.now().toString(36)}-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
}

/**
 * The folder a cold build spills into: `s`, not `g`, so a save of another process (or of this one)
 * never takes it for an older generation and removes it while the build runs; the build's save
 * renames it to a generation named then (NoteSpill.becomeGeneration). One a killed build left is
 * removed by a later save once its process is gone (removeOlder in index-cache.ts).
 */
export function spillName(): string {
  return `s${Date.now().toString(36)}-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
}

/** The folders this process writes in: its builds' spills still running, its saves' generations (their names) */
const running = new Set<string>();

/** A save writes its generation in the folder `name` until it calls what this returns: no save removes it meanwhile. */
export function writingInto(name: string): () => void {
  running.add(name);
  return () => running.delete(name);
}

/**
 * Whether a cache folder (`s` or `g`, then `<time>-<pid>-<random>`) is written in no more: its
 * process is gone, or it is this one and no build or save of it writes there (one that failed or
 * finished). A folder of a process still running is left alone: a save of it may be writing there.
 */
export function abandoned(name: string): boolean {
  const match = /^[sg][0-9a-z]+-(\d+)-[0-9a-z]+$/.exec(name);
  if (!match) return false;
  const pid = Number(match[1]);
  if (pid === process.pid) return !running.has(name);
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    // EPERM: the process runs, as another user.
    return (error as NodeJS.ErrnoException).code !== 'EPERM';
  }
}

/** A notes segment's file name, as a save names its `index`th. */
export function notesFile(index: number): string {
  return `notes-${String(index).padStart(4, '0')}.jsonl`;
}

/** Typed arrays grown by doubling, reassigned into the table as they grow. */
function grown<T extends Uint32Array | Float64Array>(array: T, need: number): T {
  if (need <= array.length) return array;
  const bigger = new (array.constructor as new (n: number) => T)(Math.max(need, array.length * 2));
  bigger.set(array);
  return bigger;
}

/**
 * A generation's notes segments written one note at a time, and the table that finds them: the
 * SavedNotes a NoteTable reads the spilled notes through while the build goes on. Written in a
 * spill folder (spillName) that the save renames to its generation; nothing names that folder
 * until a save's manifest does, so a build killed half-way leaves the cache as it was.
 */
export class NoteSpill {
  readonly saved: SavedNotes;
  /** Segments closed so far, as the manifest lists them */
  readonly segments: Segment[] = [];
  private records = 0;
  private bytes = 0;
  private crc = 0;
  /** Whether every note given so far was written (a failed write stops the spill) */
  healthy = true;

  private constructor(
    private dir: string,
    private readonly name: string,
  ) {
    const n = 1024;
    this.saved = {
      fds: [],
      paths: [],
      file: new Uint32Array(n),
      offset: new Float64Array(n),
      length: new Uint32Array(n),
      records: new Uint32Array(n + 1),
      recordLength: new Uint32Array(n * 4),
      recordCrc: new Uint32Array(n * 4),
      size: new Float64Array(n),
      mtime: new Float64Array(n),
    };
  }

  /** A spill into a new generation of the vault's cache; undefined when its folder cannot be made. */
  static start(root: string): NoteSpill | undefined {
    const name = spillName();
    const dir = join(cacheDir(root), INDEX_DIR, name);
    try {
      mkdirSync(dir, { recursive: true });
    } catch {
      return undefined;
    }
    running.add(name);
    return new NoteSpill(dir, name);
  }

  /** The build failed: nothing will save this spill, and a save may remove its folder. */
  abandon(): void {
    this.healthy = false;
    running.delete(this.name);
  }

  /**
   * Renames the spill folder to a generation named now, in `base`, and gives its name: named when
   * its save starts, as every generation is, a save that started before it and ends after never
   * removes it. Throws when the folder is gone (the caller writes a generation of its own).
   */
  becomeGeneration(base: string): string {
    const generation = generationName();
    const dir = join(base, generation);
    renameSync(this.dir, dir);
    running.delete(this.name);
    this.dir = dir;
    return generation;
  }

  /** Notes written */
  get count(): number {
    return this.saved.paths.length;
  }

  /**
   * Writes the note's records (saved-note.ts) and gives its slot; undefined when the write failed,
   * and every write after (the note stays in the heap, as without a spill).
   */
  write(note: Note): number | undefined {
    if (!this.healthy) return undefined;
    try {
      return this.append(note);
    } catch {
      this.healthy = false;
      return undefined;
    }
  }

  private append(note: Note): number {
    const records = noteRecords(note);
    let fd = this.saved.fds[this.saved.fds.length - 1];
    if (fd === undefined || this.bytes >= NOTES_SEGMENT_BYTES) {
      this.closeSegment();
      // Read and written: the table reads a spilled note back from here while the build goes on.
      fd = openSync(join(this.dir, notesFile(this.segments.length)), 'wx+');
      this.saved.fds.push(fd);
    }
    const bytes = Buffer.from(`${records.join('\n')}\n`);
    const slot = this.count;
    const s = this.reserve(slot, this.records + records.length);
    s.records[slot] = this.records;
    let r = this.records;
    let at = 0;
    for (const record of records) {
      const length = Buffer.byteLength(record);
      s.recordLength[r] = length;
      s.recordCrc[r] = crc32(bytes.subarray(at, at + length));
      r++;
      at += length + 1;
    }
    if (writeSync(fd, bytes, 0, bytes.length, this.bytes) !== bytes.length) throw new Error('a short write');
    this.records = r;
    s.records[slot + 1] = r;
    s.file[slot] = this.saved.fds.length - 1;
    s.offset[slot] = this.bytes;
    s.length[slot] = bytes.length;
    s.size[slot] = note.size;
    s.mtime[slot] = note.mtimeMs;
    s.paths.push(note.path);
    this.crc = crc32(bytes, this.crc);
    this.bytes += bytes.length;
    return slot;
  }

  /** Room for `slot` and `records` records in the table's arrays. */
  private reserve(slot: number, records: number): SavedNotes {
    const s = this.saved;
    s.file = grown(s.file, slot + 1);
    s.offset = grown(s.offset, slot + 1);
    s.length = grown(s.length, slot + 1);
    s.size = grown(s.size, slot + 1);
    s.mtime = grown(s.mtime, slot + 1);
    s.records = grown(s.records, slot + 2);
    s.recordLength = grown(s.recordLength, records);
    s.recordCrc = grown(s.recordCrc, records);
    return s;
  }

  private closeSegment(): void {
    if (this.saved.fds.length === this.segments.length) return;
    this.segments.push({
      part: 'notes',
      file: notesFile(this.segments.length),
      bytes: this.bytes,
      crc: this.crc,
    });
    this.bytes = 0;
    this.crc = 0;
  }

  /**
   * Ends the spill: the last segment is closed and the table's arrays cut to what was written
   * (the files stay open, the table reads from them).
   */
  finish(): void {
    this.closeSegment();
    const s = this.saved;
    const n = this.count;
    s.file = s.file.slice(0, n);
    s.offset = s.offset.slice(0, n);
    s.length = s.length.slice(0, n);
    s.size = s.size.slice(0, n);
    s.mtime = s.mtime.slice(0, n);
    s.records = s.records.slice(0, n + 1);
    s.recordLength = s.recordLength.slice(0, this.records);
    s.recordCrc = s.recordCrc.slice(0, this.records);
  }

  /** Closes the files (a spill whose notes no table reads). */
  close(): void {
    for (const fd of this.saved.fds.splice(0)) {
      try {
        closeSync(fd);
      } catch {
        // Already closed.
      }
    }
  }
}
