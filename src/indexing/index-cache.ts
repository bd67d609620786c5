import { type FileHandle, mkdir, open, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { CACHE_DIR, ensureCacheDir } from '../core/cache-dir.js';
import { readRegularFile, readRegularText } from '../core/regular-file.js';
import type { Note } from '../core/types.js';
import { DEFAULT_LAYOUT, type VaultLayout } from '../vault/layout.js';
import { TextIndex } from './text-index.js';
import { VaultIndex } from './vault-index.js';

/**
 * Bump whenever the shape of a parsed note, the tokenizer, the index options or the cache layout
 * change: a cache from another schema is rebuilt, never trusted.
 */
export const CACHE_SCHEMA = 8;

/**
 * The layout, in `.mem/index/`:
 * - `manifest.json`: the schema, the current generation and its segments with their sizes and
 *   CRC-32s. It is small, and replaced by a rename: the switch from one cache to the next.
 * - `g<time>-<pid>-<random>/`: one generation, its segments written one at a time, each a few MiB
 *   (notes as JSON arrays, the text index as in text-index-store.ts), so no string or buffer grows
 *   with the vault. A crash before the rename leaves the old manifest and the old generation.
 */
const INDEX_DIR = 'index';
const MANIFEST = 'manifest.json';
/** The single-file cache of schema 3 and before, removed by the first save in this layout */
const LEGACY_FILE = 'index.json';
/** A notes segment is closed once its JSON holds this many characters (plus one note) */
const NOTES_SEGMENT_CHARS = 8 << 20;

interface Segment {
  part: 'notes' | 'docs' | 'terms';
  file: string;
  bytes: number;
  crc: number;
}

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
      return { status: 'loaded', index: await loadGeneration(base, manifest) };
    } catch (error) {
      // Another process may have saved a new generation and removed this one while it was read.
      const now = await readManifest(base);
      if (attempt === 0 && typeof now === 'object' && now.generation !== manifest.generation) continue;
      return { status: 'corrupt', reason: `the index cache is damaged (${reasonOf(error)})` };
    }
  }
}

async function loadGeneration(base: string, manifest: Manifest): Promise<VaultIndex> {
  if (typeof manifest.generation !== 'string' || !Array.isArray(manifest.segments)) {
    throw new Error('the manifest lists no segments');
  }
  const text = TextIndex.loader(manifest.text);
  const notes: Note[] = [];
  for (const segment of manifest.segments) {
    const bytes = await readRegularFile(join(base, manifest.generation, segment.file));
    if (bytes.length !== segment.bytes || crc32(bytes) !== segment.crc) {
      throw new Error(`${segment.file} is not the file that was saved`);
    }
    if (segment.part === 'notes') readNotes(bytes, notes);
    else if (segment.part === 'docs') text.docs(bytes.toString('utf8'));
    else if (segment.part === 'terms') text.terms(bytes);
    else throw new Error(`unknown segment ${String(segment.part)}`);
  }
  if (notes.length !== manifest.notes) {
    throw new Error(`${notes.length} notes in the segments, ${manifest.notes} in the manifest`);
  }
  return VaultIndex.restore(notes, text.finish());
}

/**
 * Reads a notes segment (`[note,\nnote,\n…note]`, as writeGeneration writes it) one note at a
 * time: a note's JSON never holds a raw newline, so each line is one note. Decoding and parsing
 * a line at a time leaves small strings that die young, where the whole segment as one string
 * (16 MiB of UTF-16 for 8 MiB of Chinese text) went to the large-object space, which only a full
 * collection frees: at 100,000 notes, 0.4 s less CPU and 40 MiB less peak memory on open.
 */
function readNotes(bytes: Buffer, into: Note[]): void {
  const last = bytes.length - 1;
  if (bytes[0] !== 0x5b || bytes[last] !== 0x5d) throw new Error('a notes segment is not a JSON array');
  let start = 1;
  while (start < last) {
    const newline = bytes.indexOf(0x0a, start);
    const end = newline === -1 || newline > last ? last : newline - 1;
    if (end !== last && bytes[end] !== 0x2c)
      throw new Error('a notes segment has a line that is not one note');
    into.push(JSON.parse(bytes.toString('utf8', start, end)) as Note);
    start = end === last ? last : newline + 1;
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
    const generation = `g${Date.now().toString(36)}-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
    const dir = join(base, generation);
    await mkdir(dir);
    try {
      await writeGeneration(base, dir, generation, index);
    } catch (error) {
      await rm(dir, { recursive: true, force: true });
      throw error;
    }
    await removeOlder(root, base, generation);
    return { saved: true };
  } catch (error) {
    return { saved: false, reason: `the index cache could not be saved (${reasonOf(error)})` };
  }
}

/** Pieces are gathered up to this many characters before a write: small enough for V8's young generation */
const WRITE_CHARS = 32 * 1024;

/**
 * One segment file written piece by piece, with its size and CRC-32 kept as it goes. No piece is
 * joined with the rest of its segment: joined strings of many MiB went to V8's large-object space,
 * which only a full collection frees, and a save left hundreds of MiB of them behind.
 */
class SegmentFile {
  private pieces: string[] = [];
  private chars = 0;
  bytes = 0;
  crc = 0;

  constructor(
    private readonly handle: FileHandle,
    readonly part: Segment['part'],
    readonly file: string,
  ) {}

  async write(data: string | Uint8Array): Promise<void> {
    if (typeof data !== 'string') {
      await this.flush();
      await this.out(data);
      return;
    }
    this.pieces.push(data);
    this.chars += data.length;
    if (this.chars >= WRITE_CHARS) await this.flush();
  }

  async close(): Promise<Segment> {
    try {
      await this.flush();
    } finally {
      await this.handle.close();
    }
    return { part: this.part, file: this.file, bytes: this.bytes, crc: this.crc };
  }

  private async flush(): Promise<void> {
    if (this.pieces.length === 0) return;
    const bytes = Buffer.from(this.pieces.join(''));
    this.pieces = [];
    this.chars = 0;
    await this.out(bytes);
  }

  private async out(bytes: Uint8Array): Promise<void> {
    this.crc = crc32(bytes, this.crc);
    this.bytes += bytes.length;
    await this.handle.writeFile(bytes);
  }
}

async function writeGeneration(base: string, dir: string, generation: string, index: VaultIndex) {
  const segments: Segment[] = [];
  const counts = { notes: 0, docs: 0, terms: 0 };
  let current: SegmentFile | undefined;
  const start = async (part: Segment['part']) => {
    const file = `${part}-${String(counts[part]++).padStart(4, '0')}.${part === 'terms' ? 'bin' : 'json'}`;
    current = new SegmentFile(await open(join(dir, file), 'wx'), part, file);
    return current;
  };
  const end = async () => {
    if (current) segments.push(await current.close());
    current = undefined;
  };
  try {
    let chars = -1;
    for (const note of index.notes.values()) {
      const file = chars < 0 ? await start('notes') : (current as SegmentFile);
      await file.write(chars < 0 ? '[' : ',\n');
      const json = JSON.stringify(note);
      await file.write(json);
      chars = Math.max(0, chars) + json.length;
      if (chars >= NOTES_SEGMENT_CHARS) {
        await file.write(']');
        await end();
        chars = -1;
      }
    }
    if (chars >= 0) {
      await current?.write(']');
      await end();
    }
    if (index.notes.size === 0) {
      await (await start('notes')).write('[]');
      await end();
    }
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
}

/**
 * Removes the generations saved before this one, and the single-file cache of older schemas.
 * One a concurrent save made after ours is left alone: its manifest may be about to name it.
 */
async function removeOlder(root: string, base: string, generation: string): Promise<void> {
  const current = await readManifest(base);
  const keep = typeof current === 'object' ? current.generation : generation;
  const mine = stampOf(generation);
  for (const entry of await readdir(base, { withFileTypes: true })) {
    if (!entry.isDirectory() || entry.name === keep || !entry.name.startsWith('g')) continue;
    if (stampOf(entry.name) <= mine) await rm(join(base, entry.name), { recursive: true, force: true });
  }
  await rm(join(root, CACHE_DIR, LEGACY_FILE), { force: true });
}

function stampOf(generation: string): number {
  return Number.parseInt(generation.slice(1, generation.indexOf('-')), 36);
}

function reasonOf(error: unknown): string {
  const code = (error as NodeJS.ErrnoException)?.code;
  const message = error instanceof Error ? error.message : String(error);
  return code && !message.startsWith(code) ? `${code}: ${message}` : message;
}
