// The approximate nearest-neighbour index beside the vector file (issue 25): an HNSW graph kept by
// usearch (a maintained library with prebuilt native binaries, an optional dependency), in
// `.mem/embeddings-<model>.usearch`, with a small sidecar `.usearch.meta` saying which vector file
// it was saved with and the index file's own size and CRC-32. A graph file is handed to usearch only
// when all of that matches: a damaged one could make native code read out of bounds, so it is
// rebuilt from the vectors instead, never trusted.
//
// Keys are the first 63 bits of each vector's sha256 key, not its slot: the vector file is written
// without the vectors of text no longer in the vault, which renumbers the slots, while a key stays
// the same. A key is turned back into the current slot through the store's table.
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { crc32 } from 'node:zlib';
import { readRegularFileSync } from '../../core/regular-file.js';
import { tempPathFor } from '../../vault/temp-name.js';
import { KEY_WORDS, type VectorStore } from './vector-store.js';
import { type DotTopK, dotAt, unitQuery } from './vector-top-k.js';

/** What the cache uses of usearch's Index (typed here, so usearch's own types are not needed). */
export interface UsearchIndex {
  add(keys: BigUint64Array, vectors: Float32Array, threads?: number): void;
  search(vector: Float32Array, k: number, threads: number): { keys: BigUint64Array; distances: Float32Array };
  remove(keys: BigUint64Array): number | number[];
  size(): number;
  save(path: string): void;
  load(path: string): void;
  view(path: string): void;
}

export interface UsearchModule {
  Index: new (config: {
    dimensions: number;
    metric: string;
    quantization: string;
    connectivity: number;
    expansion_add: number;
    expansion_search: number;
    multi: boolean;
  }) => UsearchIndex;
}

/** Loads usearch; rejects when it cannot be (not installed, no binary for this platform). */
export type UsearchLoader = () => Promise<UsearchModule>;

/** The real module, imported where it is installed (never bundled: its loader finds its binary from its own path). */
export const loadUsearch: UsearchLoader = async () => {
  const module = (await import('usearch')) as unknown as { default?: UsearchModule } & UsearchModule;
  const usearch = module.default ?? module;
  if (typeof usearch?.Index !== 'function') throw new Error('usearch has no Index');
  return usearch;
};

/**
 * Graph settings. Random unit vectors of 384 dimensions are the hard case for a graph (every
 * neighbour is nearly as far as the next): connectivity 16 with a search breadth of 1024 found
 * 95 % of the exact top 10 at 20k vectors, connectivity 32 found all of them at about 1 ms.
 */
const CONNECTIVITY = 32;
const EXPANSION_ADD = 128;
const EXPANSION_SEARCH = 1024;
/** Vectors handed to usearch per call when building (dequantized into one Float32Array) */
const ADD_CHUNK = 8192;
/**
 * Threads usearch inserts on: one. usearch's concurrent add() (2.25 at least, unum-cloud/USearch
 * issue 735) can leave a node stored but unreachable: linked in at an upper level before its level-0
 * links exist, a node inserted beside it gets one fragile edge that the neighbour heuristic later
 * evicts. contains() says it is there, yet no search ever finds it, not even by its own vector.
 * Building 1,000 random vectors of 32 dims ten times, 2 threads stranded 1 to 6 vectors in 4 of the
 * builds, 8 threads up to 11; one thread none. Saved, such an index kept the loss for ever. (At 100k
 * vectors the 2-thread build took 415 s wall for 264 s of CPU here: the second thread bought little.)
 */
const ADD_THREADS = 1;
/** 2: indexes saved by version 1 were built on several threads and may hold unreachable vectors */
const META_VERSION = 2;

/** What the sidecar records: the index matches the vector file of `vecDigest` and is exactly these bytes. */
interface AnnMeta {
  version: number;
  model: string;
  dims: number;
  vecDigest: string;
  count: number;
  /** usearch's size() of the index saved */
  size: number;
  bytes: number;
  crc32: number;
}

/** The vector file an index must have been saved with, and how many vectors it must hold */
export interface AnnExpect {
  model: string;
  dims: number;
  vecDigest: string;
  count: number;
}

const mask31 = 0x7fffffff;

/** The index key of a slot: the low 63 bits of the first two words of its sha256 key. */
function keyOf(keys: Int32Array, slot: number): bigint {
  const at = slot * KEY_WORDS;
  return BigInt((keys[at] ?? 0) >>> 0) | (BigInt((keys[at + 1] ?? 0) & mask31) << 32n);
}

export class VectorAnn {
  private index: UsearchIndex;
  private readonly usearch: UsearchModule;
  /** A memory-mapped index is read-only: the file it maps, loaded into memory before a change */
  private viewed: { file: string; expect: AnnExpect } | undefined;
  /** 1 for each slot of the store whose vector is in the index */
  private held: Uint8Array;
  /** The live set and store size the last sync() saw (nothing to do while they are the same) */
  private synced: { live: Uint8Array | undefined; count: number } | undefined;
  readonly dims: number;
  /** Changed since it was opened or last saved */
  dirty: boolean;

  private constructor(
    usearch: UsearchModule,
    dims: number,
    held: number,
    viewed: VectorAnn['viewed'],
    dirty: boolean,
  ) {
    this.usearch = usearch;
    this.index = VectorAnn.make(usearch, dims);
    this.dims = dims;
    this.held = new Uint8Array(held).fill(1);
    this.viewed = viewed;
    this.dirty = dirty;
  }

  private static make(usearch: UsearchModule, dims: number): UsearchIndex {
    return new usearch.Index({
      dimensions: dims,
      metric: 'ip',
      quantization: 'i8',
      connectivity: CONNECTIVITY,
      expansion_add: EXPANSION_ADD,
      expansion_search: EXPANSION_SEARCH,
      multi: false,
    });
  }

  /** A new, empty index (sync() fills it: the whole build). */
  static create(usearch: UsearchModule, dims: number): VectorAnn {
    return new VectorAnn(usearch, dims, 0, undefined, true);
  }

  /**
   * The saved index, memory-mapped, when its sidecar says it was saved with the vector file of
   * `vecDigest` holding `count` vectors and the file is exactly the bytes it describes; otherwise
   * undefined (the caller builds it again).
   */
  static open(usearch: UsearchModule, file: string, expect: AnnExpect): VectorAnn | undefined {
    try {
      const meta = VectorAnn.verify(file, expect);
      if (!meta) return undefined;
      const ann = new VectorAnn(usearch, expect.dims, expect.count, { file, expect }, false);
      ann.index.view(file);
      if (ann.index.size() !== meta.size) return undefined;
      return ann;
    } catch {
      return undefined;
    }
  }

  /** The sidecar, when it describes this index file and the vector file expected. */
  private static verify(file: string, expect: AnnExpect): AnnMeta | undefined {
    // Regular files only (checked on the open file): reading a FIFO left under the name would wait for ever.
    const meta = JSON.parse(readRegularFileSync(metaFileOf(file)).toString('utf8')) as AnnMeta;
    if (
      meta?.version !== META_VERSION ||
      meta.model !== expect.model ||
      meta.dims !== expect.dims ||
      meta.vecDigest !== expect.vecDigest ||
      meta.count !== expect.count
    )
      return undefined;
    const bytes = readRegularFileSync(file);
    return bytes.byteLength === meta.bytes && crc32(bytes) === meta.crc32 ? meta : undefined;
  }

  /**
   * Adds every vector of the store that is live (all of them when `live` is undefined) and not in
   * the index yet: those stored since, and those of text that came back.
   */
  sync(store: VectorStore, live: Uint8Array | undefined): void {
    const synced = this.synced;
    if (synced && synced.live === live && synced.count === store.count) return;
    if (this.held.length < store.count) {
      const held = new Uint8Array(Math.max(store.count, this.held.length * 2));
      held.set(this.held);
      this.held = held;
    }
    const todo: number[] = [];
    for (let slot = 0; slot < store.count; slot++)
      if (this.held[slot] !== 1 && (!live || live[slot] === 1)) todo.push(slot);
    if (todo.length > 0) this.add(store, todo);
    this.synced = { live, count: store.count };
  }

  /** Removes the vectors of slots no longer live (before a save: the file holds only live ones). */
  prune(store: VectorStore, live: Uint8Array): void {
    const keys = store.keyRows();
    const gone: number[] = [];
    for (let slot = 0; slot < this.held.length; slot++)
      if (this.held[slot] === 1 && live[slot] !== 1) gone.push(slot);
    if (gone.length === 0) return;
    this.mutable();
    this.index.remove(BigUint64Array.from(gone, (slot) => keyOf(keys, slot)));
    for (const slot of gone) this.held[slot] = 0;
    this.synced = undefined;
    this.dirty = true;
  }

  private add(store: VectorStore, todo: number[]): void {
    this.mutable();
    const dims = store.dims;
    const keys = store.keyRows();
    const slots: number[] = [];
    const flush = () => {
      if (slots.length === 0) return;
      const batchKeys = new BigUint64Array(slots.length);
      const vectors = new Float32Array(slots.length * dims);
      slots.forEach((slot, i) => {
        batchKeys[i] = keyOf(keys, slot);
        const base = slot * dims;
        if (store.f32) vectors.set(store.f32.subarray(base, base + dims), i * dims);
        else if (store.i8 && store.scales) {
          const scale = store.scales[slot] ?? 0;
          for (let j = 0; j < dims; j++) vectors[i * dims + j] = (store.i8[base + j] ?? 0) * scale;
        }
      });
      this.index.add(batchKeys, vectors, ADD_THREADS);
      slots.length = 0;
    };
    for (const slot of todo) {
      slots.push(slot);
      if (slots.length === ADD_CHUNK) flush();
    }
    flush();
    for (const slot of todo) this.held[slot] = 1;
    this.dirty = true;
  }

  /**
   * Up to `count` candidate slots for a unit query, best first by the index's (quantized) score:
   * keys the store no longer holds are left out.
   */
  candidates(store: VectorStore, q: Float64Array, count: number): number[] {
    const size = this.index.size();
    if (size === 0 || count <= 0) return [];
    const found = this.index.search(Float32Array.from(q), Math.min(count, size), 1);
    const slots: number[] = [];
    for (const key of found.keys) {
      const slot = store.findPrefix(Number(key & 0xffffffffn) | 0, Number(key >> 32n));
      if (slot >= 0 && this.held[slot] === 1) slots.push(slot);
    }
    return slots;
  }

  get size(): number {
    return this.index.size();
  }

  /**
   * Writes the index and then its sidecar, each to a temp file renamed over the old one: a reader
   * sees the old pair, the new pair, or a mismatched pair that fails verification (rebuilt, never used).
   */
  save(file: string, meta: { model: string; vecDigest: string; count: number }): void {
    const temp = tempPathFor(file);
    const metaFile = metaFileOf(file);
    const metaTemp = tempPathFor(metaFile);
    try {
      this.index.save(temp);
      const bytes = readFileSync(temp);
      const record: AnnMeta = {
        version: META_VERSION,
        model: meta.model,
        dims: this.dims,
        vecDigest: meta.vecDigest,
        count: meta.count,
        size: this.index.size(),
        bytes: bytes.byteLength,
        crc32: crc32(bytes),
      };
      writeFileSync(metaTemp, `${JSON.stringify(record)}\n`, { flag: 'wx' });
      renameSync(temp, file);
      renameSync(metaTemp, metaFile);
    } catch (error) {
      rmSync(temp, { force: true });
      rmSync(metaTemp, { force: true });
      throw error;
    }
    this.dirty = false;
  }

  /** A viewed index is read-only: its file (checked again) is loaded into memory to change it. */
  private mutable(): void {
    if (!this.viewed) return;
    const { file, expect } = this.viewed;
    if (!VectorAnn.verify(file, expect)) throw new Error(`${file} changed since it was opened`);
    const index = VectorAnn.make(this.usearch, this.dims);
    index.load(file);
    if (index.size() !== this.index.size()) throw new Error(`${file} changed since it was opened`);
    this.index = index;
    this.viewed = undefined;
  }
}

/** The sidecar of an index file. */
export function metaFileOf(file: string): string {
  return `${file}.meta`;
}

/** Removes an index file and its sidecar (the vault became too small to need one). */
export function removeAnnFiles(file: string): void {
  rmSync(file, { force: true });
  rmSync(metaFileOf(file), { force: true });
}

/** The empty answer. */
export const NO_MATCHES: DotTopK = { slots: new Int32Array(0), scores: new Float64Array(0) };

/** How many candidates the index is asked for, per result wanted (and at least) */
const CANDIDATES_PER_RESULT = 4;
const MIN_CANDIDATES = 40;

/**
 * The `k` best of the index's candidates for `query`, scored exactly from the stored vectors, best
 * first (equal scores: the lower slot first), as topKByDot orders them. Undefined when the
 * candidates `allow` leaves are fewer than `k` while the index holds more: the caller scans them all.
 */
export function annTopK(
  ann: VectorAnn,
  store: VectorStore,
  query: ArrayLike<number>,
  k: number,
  allow?: (slot: number) => boolean,
): DotTopK | undefined {
  const q = unitQuery(query, store.dims);
  const want = q ? Math.max(0, Math.min(Math.floor(k), store.count)) : 0;
  if (!q || want === 0) return NO_MATCHES;
  const ask = Math.max(CANDIDATES_PER_RESULT * want, MIN_CANDIDATES);
  const candidates = ann.candidates(store, q, ask);
  const slots = allow ? candidates.filter((slot) => allow(slot)) : candidates;
  if (slots.length < want && ask < ann.size) return undefined;
  const scored = slots.map((slot) => ({ slot, score: dotAt(store, q, slot) }));
  scored.sort((a, b) => b.score - a.score || a.slot - b.slot);
  const best = scored.slice(0, want);
  return {
    slots: Int32Array.from(best, (entry) => entry.slot),
    scores: Float64Array.from(best, (entry) => entry.score),
  };
}
