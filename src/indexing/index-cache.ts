import { closeSync, constants, fstatSync, openSync } from 'node:fs';
import { mkdir, open, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { CACHE_DIR, ensureCacheDir } from '../core/cache-dir.js';
import { readRegularFile, readRegularText } from '../core/regular-file.js';
import type { Note } from '../core/types.js';
import { DEFAULT_LAYOUT, type VaultLayout } from '../vault/layout.js';
import { linkRows } from './links/link-rows.js';
import { SavedLinkGraph } from './links/saved-links.js';
import {
  abandoned,
  generationName,
  INDEX_DIR,
  NOTES_SEGMENT_BYTES,
  type NoteSpill,
  writingInto,
} from './note-spill.js';
import { NoteTable } from './note-table.js';
import { readNoteNow } from './refresh-index.js';
import { noteRecords } from './saved-note.js';
import { type CheckedFile, SegmentDamaged } from './segment-source.js';
import { type Segment, SegmentFile } from './segment-writer.js';
import { checkExtents, encodeTable, readTable, savedNotes, type TableData } from './table-file.js';
import { TextIndex } from './text/text-index.js';
import { openSegment, readSavedText, readTextSegment } from './text-segment-files.js';
import { formatTrackers, parseTrackers, type SavedTrackers } from './trackers.js';
import { TypedList } from './typed-list.js';
import { VaultIndex } from './vault-index.js';

/**
 * Bump whenever the shape of a parsed note, the tokenizer, the index options or the cache layout
 * change: a cache from another schema is rebuilt, never trusted.
 */
export const CACHE_SCHEMA = 20;

/**
 * The layout, in `.mem/index/`:
 * - `manifest.json`: the schema, the current generation and its segments with their sizes and
 *   CRC-32s. It is small, and replaced by a rename: the switch from one cache to the next.
 * - `g<time>-<pid>-<random>/`: one generation, its segments written one at a time, each a few MiB
 *   (notes as JSON, one a line; the note table; the trackers; the text index as in
 *   text-index-store.ts), so no string or buffer grows with the vault. A crash before the rename
 *   leaves the old manifest and the old generation.
 * Opening reads the table, the trackers and the text index whole (each checked against its size
 * and CRC-32) and keeps the notes files open: a note is read at its offset and checked against its
 * own CRC-32 when a query needs it (note-table.ts). See docs/index-format.md.
 */
const MANIFEST = 'manifest.json';
/** The single-file cache of schema 3 and before, removed by the first save in this layout */
const LEGACY_FILE = 'index.json';

interface Manifest {
  schema: number;
  /** The layout's key (see vault/layout.ts) the notes' layers were read under; absent: the default */
  layout?: string;
  generation: string;
  savedAt: string;
  notes: number;
  text: ReturnType<TextIndex['storeHeader']>;
  segments: Segment[];
}

export type CacheLoad =
  | { status: 'loaded'; index: VaultIndex }
  | { status: 'missing' | 'stale' | 'corrupt'; reason: string };

export type CacheSave = { saved: true } | { saved: false; reason: string };

async function readManifest(base: string): Promise<Manifest | 'missing' | 'unreadable'> {
  let text: string;
  try {
    text = await readRegularText(join(base, MANIFEST));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOENT' || code === 'ENOTDIR' ? 'missing' : 'unreadable';
  }
  try {
    const manifest = JSON.parse(text) as Manifest;
    return typeof manifest === 'object' && manifest !== null ? manifest : 'unreadable';
  } catch {
    return 'unreadable';
  }
}

export async function loadIndexCache(root: string, layout: VaultLayout = DEFAULT_LAYOUT): Promise<CacheLoad> {
  const base = join(root, CACHE_DIR, INDEX_DIR);
  for (let attempt = 0; ; attempt++) {
    const manifest = await readManifest(base);
    if (manifest === 'missing') {
      const legacy = await stat(join(root, CACHE_DIR, LEGACY_FILE)).then(
        () => true,
        () => false,
      );
      return legacy
        ? { status: 'stale', reason: 'the index cache is in the single-file layout of schema 3 or before' }
        : { status: 'missing', reason: 'no index cache yet' };
    }
    if (manifest === 'unreadable') return { status: 'corrupt', reason: 'the index cache could not be read' };
    if (manifest.schema !== CACHE_SCHEMA) {
      return {
        status: 'stale',
        reason: `the index cache is from schema ${String(manifest.schema)}, not ${CACHE_SCHEMA}`,
      };
    }
    if ((manifest.layout ?? DEFAULT_LAYOUT.key) !== layout.key) {
      return {
        status: 'stale',
        reason: 'the index cache was built for another layout (layout.* in mem.config.json)',
      };
    }
    try {
      return { status: 'loaded', index: await loadGeneration(root, base, manifest) };
    } catch (error) {
      // Another process may have saved a new generation and removed this one while it was read.
      const now = await readManifest(base);
      if (attempt === 0 && typeof now === 'object' && now.generation !== manifest.generation) continue;
      return { status: 'corrupt', reason: `the index cache is damaged (${reasonOf(error)})` };
    }
  }
}

async function loadGeneration(root: string, base: string, manifest: Manifest): Promise<VaultIndex> {
  if (typeof manifest.generation !== 'string' || !Array.isArray(manifest.segments)) {
    throw new Error('the manifest lists no segments');
  }
  const text = TextIndex.loader(manifest.text);
  const fds: number[] = [];
  const sizes: number[] = [];
  // The text index's segments: what an open needs read once here (a terms segment whole, a docs
  // segment's tables), into one buffer reused for each; after it they are read by offset.
  const textFiles: CheckedFile[] = [];
  const scratch = { buffer: Buffer.alloc(0) };
  try {
    let table: { path: string; bytes: number; crc: number } | undefined;
    let trackers: SavedTrackers | undefined;
    for (const segment of manifest.segments) {
      const path = join(base, manifest.generation, segment.file);
      if (segment.part === 'notes') {
        // Kept open and read by offset: each note is checked against its own CRC-32 when read.
        const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
        fds.push(fd);
        const info = fstatSync(fd);
        if (!info.isFile() || info.size !== segment.bytes)
          throw new Error(`${segment.file} is not the file that was saved`);
        sizes.push(info.size);
        continue;
      }
      if (segment.part === 'docs' || segment.part === 'terms') {
        readTextSegment(
          openSegment(join(base, manifest.generation), segment),
          segment,
          text,
          scratch,
          textFiles,
        );
        continue;
      }
      if (segment.part === 'table') {
        // Read after the notes files are open, straight into its arrays (readTable).
        table = { path, bytes: segment.bytes, crc: segment.crc };
        continue;
      }
      const bytes = await readRegularFile(path);
      if (bytes.length !== segment.bytes || crc32(bytes) !== segment.crc) {
        throw new Error(`${segment.file} is not the file that was saved`);
      }
      if (segment.part === 'trackers') trackers = parseTrackers(bytes);
      else throw new Error(`unknown segment ${String(segment.part)}`);
    }
    if (!table) throw new Error('the cache has no note table');
    if (!trackers) throw new Error('the saved trackers are not what a save writes');
    const data = readTable(table.path, table, fds);
    checkExtents(data, sizes);
    if (data.paths.length !== manifest.notes) {
      throw new Error(`${data.paths.length} notes in the table, ${manifest.notes} in the manifest`);
    }
    const notes = NoteTable.over(savedNotes(data, fds));
    if (notes.size !== data.paths.length) throw new Error('the note table names a path twice');
    const textIndex = text.finish();
    const index = VaultIndex.restore(
      notes,
      textIndex,
      new SavedLinkGraph(notes, data.paths, data.links),
      trackers,
    );
    textIndex.holdFiles(textFiles.splice(0));
    // A saved note whose bytes are damaged is read again from its file, never trusted.
    notes.reread = (path) => readNoteNow(root, path, index);
    return index;
  } catch (error) {
    for (const fd of fds) closeSync(fd);
    for (const file of textFiles) file.close();
    throw error;
  }
}

/**
 * Writes the index as a new generation, then switches the manifest to it by a rename, so a crash
 * leaves the old cache or the new one. Never throws: a cache that cannot be written only costs
 * the next open a full re-index, so the caller reports the reason and goes on.
 */
export async function saveIndexCache(root: string, index: VaultIndex): Promise<CacheSave> {
  try {
    const base = join(await ensureCacheDir(root), INDEX_DIR);
    await mkdir(base, { recursive: true });
    const before = await readManifest(base);
    // A cold build's notes, already written where this generation's notes go when nothing changed since.
    const { pending } = index;
    index.pending = undefined;
    let spill = pending?.version === index.changes ? pending.spill : undefined;
    // Changed since the build: its spill is copied from, never saved as it is.
    if (pending && !spill) pending.spill.abandon();
    let generation: string | undefined;
    try {
      generation = spill?.becomeGeneration(base);
    } catch {
      // The spill's folder is gone: its notes are copied from the files the table still has open.
      spill = undefined;
    }
    generation ??= generationName();
    const done = writingInto(generation);
    try {
      return await saveGeneration(
        root,
        index,
        base,
        generation,
        spill,
        typeof before === 'object' ? before.generation : undefined,
      );
    } finally {
      done();
    }
  } catch (error) {
    return { saved: false, reason: `the index cache could not be saved (${reasonOf(error)})` };
  }
}

/** Writes `generation` (from `spill`, when a cold build's notes are there) and switches the manifest to it. */
async function saveGeneration(
  root: string,
  index: VaultIndex,
  base: string,
  generation: string,
  spill: NoteSpill | undefined,
  /** The generation the manifest named when the save began: complete, removed after it */
  previous: string | undefined,
): Promise<CacheSave> {
  const dir = join(base, generation);
  if (!spill) await mkdir(dir);
  const version = index.changes;
  let written: Written;
  for (let attempt = 0; ; attempt++) {
    try {
      written = await writeGeneration(base, dir, generation, index, spill);
      break;
    } catch (error) {
      // The table reads the spilled notes from that folder: a later save removes it.
      if (!spill) await rm(dir, { recursive: true, force: true });
      if (spill || attempt > 0 || !(error instanceof SegmentDamaged)) throw error;
      // A text segment changed on disk since the open: the text index is rebuilt from the
      // notes, and that is what this save writes, never a copy of the damaged bytes.
      index.text.recover(error);
      await mkdir(dir);
    }
  }
  // Nothing changed while the save ran (saves run on the vault's queue): the index now reads its
  // notes and links from the generation it saved, as a fresh open would.
  if (index.changes === version) {
    rebase(root, index, dir, written);
    // A cold build's text index is read from what the save wrote from now on, not held twice.
    readSavedText(index.text, dir, written.segments, written.text);
  }
  // What was written is the text index as it is now, rebuilt or not: the cache is whole again.
  index.text.recovered = false;
  await removeOlder(root, base, generation, previous);
  return { saved: true };
}

/** What a save wrote that the index can read from: the note table and its notes files. */
interface Written {
  table: TableData;
  notesFiles: string[];
  segments: Segment[];
  text: Manifest['text'];
}

/** Points the index's notes and link graph at the generation just written (see NoteTable.rebase). */
function rebase(root: string, index: VaultIndex, dir: string, written: Written): void {
  const fds: number[] = [];
  try {
    for (const file of written.notesFiles)
      fds.push(openSync(join(dir, file), constants.O_RDONLY | constants.O_NONBLOCK));
    index.notes.rebase(savedNotes(written.table, fds));
  } catch {
    // The index keeps reading what it held; the next open reads the new generation.
    for (const fd of fds) closeSync(fd);
    return;
  }
  index.graph = new SavedLinkGraph(index.notes, written.table.paths, written.table.links);
  // A note decoded from here reads its sections later; once the files are closed, from its file.
  index.notes.reread ??= (path) => readNoteNow(root, path, index);
}

async function writeGeneration(
  base: string,
  dir: string,
  generation: string,
  index: VaultIndex,
  /** The notes segments a cold build wrote in `dir` (see note-spill.ts) */
  spill?: NoteSpill,
): Promise<Written> {
  const segments: Segment[] = spill ? [...spill.segments] : [];
  const counts = { notes: segments.length, table: 0, trackers: 0, docs: 0, terms: 0 };
  let current: SegmentFile | undefined;
  const start = async (part: Segment['part']) => {
    const ext = part === 'notes' ? 'jsonl' : part === 'trackers' ? 'tsv' : 'bin';
    const file = `${part}-${String(counts[part]++).padStart(4, '0')}.${ext}`;
    current = new SegmentFile(await open(join(dir, file), 'wx'), part, file);
    return current;
  };
  const end = async () => {
    if (current) segments.push(await current.close());
    current = undefined;
  };
  let table: TableData;
  try {
    table = spill
      ? { ...spilledTable(spill), links: linkRows(index.graph, index.notes) }
      : await writeNotes(index, start, end);
    await (await start('table')).write(encodeTable(table));
    await end();
    await (await start('trackers')).write(formatTrackers(index.saveTrackers()));
    await end();
    for (const piece of index.text.storeSegments()) {
      const file = current ?? (await start(piece.part));
      await file.write(piece.data);
      if (piece.end) await end();
    }
  } finally {
    // On an error, close what is open; the caller removes the generation.
    await current?.close().catch(() => undefined);
  }
  const manifest: Manifest = {
    schema: CACHE_SCHEMA,
    ...(index.layout.key === DEFAULT_LAYOUT.key ? {} : { layout: index.layout.key }),
    generation,
    savedAt: new Date().toISOString(),
    notes: index.notes.size,
    text: index.text.storeHeader(),
    segments,
  };
  const tmp = join(base, `.${MANIFEST}.${generation}.tmp`);
  try {
    await writeFile(tmp, JSON.stringify(manifest));
    await rename(tmp, join(base, MANIFEST));
  } finally {
    await rm(tmp, { force: true });
  }
  const notesFiles = segments.filter((s) => s.part === 'notes').map((s) => s.file);
  return { table, notesFiles, segments, text: manifest.text };
}

/**
 * Writes every note's records (saved-note.ts: head, body, sections, each a line of JSON) into
 * notes segments of about NOTES_SEGMENT_BYTES, and returns the table that finds them. A note
 * restored from the cache and unchanged is copied as its saved bytes (each record checked against
 * its CRC-32), not decoded and encoded again.
 */
async function writeNotes(
  index: VaultIndex,
  start: (part: Segment['part']) => Promise<SegmentFile>,
  end: () => Promise<void>,
): Promise<TableData> {
  const { notes } = index;
  const count = notes.size;
  const table: TableData = {
    paths: [],
    file: new Uint32Array(count),
    offset: new Float64Array(count),
    length: new Uint32Array(count),
    records: new Uint32Array(count + 1),
    recordLength: new Uint32Array(0),
    recordCrc: new Uint32Array(0),
    size: new Float64Array(count),
    mtime: new Float64Array(count),
    links: linkRows(index.graph, index.notes),
  };
  const lengths = new TypedList(Uint32Array);
  const crcs = new TypedList(Uint32Array);
  let file: SegmentFile | undefined;
  let segment = -1;
  let slot = 0;
  for (const [path, entry] of notes.entriesRaw()) {
    const copied = typeof entry === 'number' ? notes.savedBytes(entry) : undefined;
    const pieces: Buffer[] = [];
    if (copied) {
      const from = notes.savedRecords(entry as number);
      for (let r = from.first; r < from.end; r++) {
        lengths.push(from.length[r] as number);
        crcs.push(from.crc[r] as number);
      }
      pieces.push(copied);
    } else {
      for (const record of noteRecords(typeof entry === 'number' ? (notes.get(path) as Note) : entry)) {
        const bytes = Buffer.from(record);
        lengths.push(bytes.length);
        crcs.push(crc32(bytes));
        pieces.push(bytes, NEWLINE);
      }
    }
    if (!file || file.bytes + file.pending >= NOTES_SEGMENT_BYTES) {
      if (file) await end();
      file = await start('notes');
      segment++;
    }
    const stat = typeof entry === 'number' ? notes.savedStat(entry) : entry;
    table.paths.push(path);
    table.file[slot] = segment;
    table.offset[slot] = file.bytes + file.pending;
    table.length[slot] = pieces.reduce((sum, piece) => sum + piece.length, 0);
    table.size[slot] = stat.size;
    table.mtime[slot] = stat.mtimeMs;
    for (const piece of pieces) await file.write(piece);
    slot++;
    table.records[slot] = lengths.length;
  }
  if (file) await end();
  table.recordLength = lengths.done();
  table.recordCrc = crcs.done();
  return table;
}

/** The note table of a cold build's spill, as a save writes it (the links apart). */
function spilledTable(spill: NoteSpill): Omit<TableData, 'links'> {
  const { paths, file, offset, length, records, recordLength, recordCrc, size, mtime } = spill.saved;
  return { paths, file, offset, length, records, recordLength, recordCrc, size, mtime };
}

const NEWLINE = Buffer.from('\n');

/**
 * Removes the generations saved before this one (`previous`, the one the manifest named when this
 * save began, and those no process writes in any more), the spills of builds that are gone, and the
 * single-file cache of older schemas. One a concurrent save made after ours is left alone (its
 * manifest may be about to name it), and so is one another running process may still be writing:
 * removing it failed that save with ENOENT when two processes indexed one vault at once.
 */
async function removeOlder(root: string, base: string, generation: string, previous?: string): Promise<void> {
  const current = await readManifest(base);
  const keep = typeof current === 'object' ? current.generation : generation;
  const mine = stampOf(generation);
  for (const entry of await readdir(base, { withFileTypes: true })) {
    if (!entry.isDirectory() || entry.name === keep) continue;
    const older = entry.name.startsWith('g') && stampOf(entry.name) <= mine;
    if (
      (older && entry.name === previous) ||
      ((older || entry.name.startsWith('s')) && abandoned(entry.name))
    )
      await removeFolder(join(base, entry.name));
  }
  await rm(join(root, CACHE_DIR, LEGACY_FILE), { force: true }).catch(() => undefined);
}

/**
 * Removes an old generation; one that cannot be removed now (on Windows, a file of it another
 * process still reads) is left for a later save: the new manifest is in place, so this save is done.
 */
async function removeFolder(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true }).catch(() => undefined);
}

function stampOf(generation: string): number {
  return Number.parseInt(generation.slice(1, generation.indexOf('-')), 36);
}

function reasonOf(error: unknown): string {
  const code = (error as NodeJS.ErrnoException)?.code;
  const message = error instanceof Error ? error.message : String(error);
  return code && !message.startsWith(code) ? `${code}: ${message}` : message;
}
