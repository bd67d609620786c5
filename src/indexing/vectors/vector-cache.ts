import { createHash } from 'node:crypto';
import { open, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { cacheDir, ensureCacheDir } from '../../core/cache-dir.js';
import { readRegularFile, readRegularText } from '../../core/regular-file.js';
import { tempPathFor } from '../../vault/temp-name.js';
import {
  annTopK,
  loadUsearch,
  NO_MATCHES,
  removeAnnFiles,
  type UsearchLoader,
  type UsearchModule,
  VectorAnn,
} from './vector-ann.js';
import { decodeVectorFile, encodeVectorFile } from './vector-file.js';
import { keyWords, type VectorEncoding, VectorStore } from './vector-store.js';
import { type DotTopK, dotAt, topKByDot, unitQuery } from './vector-top-k.js';

export type { VectorEncoding } from './vector-store.js';
export type { DotTopK } from './vector-top-k.js';

/** Embeds texts in one request; the vectors come back in the texts' order. */
export type EmbedTexts = (texts: string[]) => Promise<number[][]>;

export type EmbedProgress = (embedded: number, total: number) => void;

/**
 * How vectors are kept, in memory and in the file: int8 with a scale per vector. At 100k notes
 * (about 200k vectors of 384 dimensions) it is a quarter of Float32's bytes, opens and scans
 * faster, and finds the same top 10 as Float32 to within rounding (docs/benchmarks.md, "Vectors at
 * 100k notes").
 */
export const DEFAULT_VECTOR_ENCODING: VectorEncoding = 'int8';

const fileStem = (root: string, model: string) =>
  join(cacheDir(root), `embeddings-${model.replace(/[^\w.-]+/g, '_')}`);

/** The cache file of one model: `.mem/embeddings-<model>.vec` (format: vector-file.ts). */
export function vectorCacheFile(root: string, model: string): string {
  return `${fileStem(root, model)}.vec`;
}

/** The ANN index beside the cache file: `.mem/embeddings-<model>.usearch` (and its `.meta` sidecar). */
export function vectorIndexFile(root: string, model: string): string {
  return `${fileStem(root, model)}.usearch`;
}

/**
 * From how many vectors `topK` asks the ANN index instead of scanning them all. An exact top-10
 * over int8 vectors of 384 dimensions costs about 0.3 ms per 1,000 vectors here (2 loaded cores),
 * so this is where it passes ~5 ms; the index answers in about 1–3 ms at any size measured.
 */
export const ANN_MIN_VECTORS = 16_000;

/** The JSON cache file earlier versions wrote: read once if there is no `.vec`, removed by the next save. */
export function legacyVectorCacheFile(root: string, model: string): string {
  return `${fileStem(root, model)}.json`;
}

export interface VectorCacheOptions {
  /** How new vectors are stored (default DEFAULT_VECTOR_ENCODING); a file in the other is converted */
  encoding?: VectorEncoding;
  /** Told once when the ANN index cannot be used (usearch not installed or not loadable): search stays exact */
  onNotice?: (message: string) => void;
  /** How usearch is loaded (default: imported from where it is installed) */
  loadAnn?: UsearchLoader;
  /** From how many vectors the ANN index is used (default ANN_MIN_VECTORS) */
  annMinVectors?: number;
}

const HEX_KEY = /^[0-9a-f]{64}$/;

function textKey(text: string): Int32Array {
  return keyWords(createHash('sha256').update(text).digest());
}

/**
 * Section vectors of one embedding model, keyed by the sha256 of the text embedded: a section
 * whose text is unchanged is never embedded again, wherever it moved; an edited one is. Vectors
 * are normalized when stored (so `get` returns a unit vector, and a dot product is the cosine).
 * Every vector has a slot, stable while this object lives; `topK` answers with slots.
 */
export class VectorCache {
  readonly model: string;
  readonly encoding: VectorEncoding;
  /** Undefined until the first vector says how many dimensions the model has */
  private store: VectorStore | undefined;
  /** Texts already looked up, to their slot: a repeated fill() hashes only new text */
  private slotByText = new Map<string, number>();
  /** Slots asked for by the last fill(): the ones saved (the others belong to old text) */
  private live: Uint8Array | undefined;
  private liveCount = 0;
  private dirty = false;
  /** A JSON cache of an earlier version was there: removed once the binary file is written */
  private legacy = false;
  private readonly root: string;
  private readonly options: VectorCacheOptions;
  /** The vector file on disk (its sha256) and how many vectors it holds */
  private file: { digest: string; count: number } | undefined;
  /** The store's slots [0, file.count) are the file's, in its order (an index saved with it fits them) */
  private fileSlots = false;
  /** usearch, once loaded; null when it could not be */
  private usearch: UsearchModule | null | undefined;
  private ann: VectorAnn | undefined;
  /** The store `ann` holds vectors of (a new store, of another dimension, drops it) */
  private annStore: VectorStore | undefined;

  private constructor(root: string, model: string, options: VectorCacheOptions) {
    this.root = root;
    this.model = model;
    this.options = options;
    this.encoding = options.encoding ?? DEFAULT_VECTOR_ENCODING;
  }

  /**
   * Reads the model's cache file (one read, no parse per vector). A missing, damaged, truncated or
   * foreign file starts empty (it is only a cache) and is rewritten by the next save; without a
   * binary file, an earlier version's JSON cache is read once instead.
   */
  static async load(root: string, model: string, options: VectorCacheOptions = {}): Promise<VectorCache> {
    const cache = new VectorCache(root, model, options);
    const bytes = await readRegularFile(vectorCacheFile(root, model)).catch(() => undefined);
    const arrays = bytes && decodeVectorFile(bytes, model);
    if (arrays) {
      const store = new VectorStore(arrays);
      cache.file = {
        digest: Buffer.from(bytes.subarray(bytes.byteLength - 32)).toString('hex'),
        count: store.count,
      };
      if (store.encoding === cache.encoding) {
        cache.store = store;
        cache.fileSlots = true;
      } else cache.convert(store);
    } else {
      if (bytes) cache.dirty = true;
      await cache.readLegacy(root);
    }
    await cache.prepareAnn();
    return cache;
  }

  /** How many vectors are held (the file's and those embedded since). */
  get size(): number {
    return this.store?.count ?? 0;
  }

  /** The text's vector (unit length), undefined when it has none. */
  get(text: string): number[] | undefined {
    const slot = this.slotOf(text);
    return slot === undefined ? undefined : this.store?.vectorAt(slot);
  }

  /** The text's slot, undefined when it has no vector. */
  slotOf(text: string): number | undefined {
    const cached = this.slotByText.get(text);
    if (cached !== undefined) return cached;
    const slot = this.store ? this.store.find(textKey(text)) : -1;
    if (slot < 0) return undefined;
    this.slotByText.set(text, slot);
    return slot;
  }

  /** The sha256 (hex) of the text whose vector is in `slot`. */
  hashAt(slot: number): string {
    if (!this.store || slot < 0 || slot >= this.store.count)
      throw new RangeError(`no vector in slot ${slot}`);
    return this.store.hashAt(slot);
  }

  /**
   * The `k` vectors closest to `query` by cosine, best first (equal scores: the lower slot first);
   * `allow(slot)` can skip some, and the vectors of text the last fill() was not given are skipped.
   * A query of another dimension than the cache's finds nothing. From `annMinVectors` vectors on,
   * the ANN index proposes 4k candidates (at least 40) and they are scored exactly from the stored
   * vectors; below it, or when the index cannot be used, every vector is scored (topKByDot).
   */
  topK(query: ArrayLike<number>, k: number, allow?: (slot: number) => boolean): DotTopK {
    const store = this.store;
    if (!store) return NO_MATCHES;
    const live = this.live;
    const allowed =
      live && allow
        ? (slot: number) => live[slot] === 1 && allow(slot)
        : live
          ? (slot: number) => live[slot] === 1
          : allow;
    if ((live ? this.liveCount : store.count) >= this.annMinVectors) {
      const ann = this.annFor(store);
      const found = ann && annTopK(ann, store, query, k, allowed);
      if (found) return found;
    }
    return topKByDot(store, query, k, allowed);
  }

  private get annMinVectors(): number {
    return this.options.annMinVectors ?? ANN_MIN_VECTORS;
  }

  /** Loads usearch once the cache is big enough to use it; when it cannot be, says so once. */
  private async prepareAnn(): Promise<void> {
    if (this.usearch !== undefined || this.size < this.annMinVectors) return;
    try {
      this.usearch = await (this.options.loadAnn ?? loadUsearch)();
    } catch (error) {
      this.annFailed(error);
    }
  }

  private annFailed(error: unknown): void {
    this.usearch = null;
    this.ann = undefined;
    this.options.onNotice?.(
      `mem: the vector index (usearch) cannot be used (${(error as Error)?.message ?? error}); semantic search scans every vector instead`,
    );
  }

  /**
   * The ANN index over the store, in step with it: the saved one when it was saved with the vector
   * file loaded (checked, then memory-mapped), else built whole; vectors stored since are added.
   * Undefined when usearch is not available.
   */
  private annFor(store: VectorStore): VectorAnn | undefined {
    const usearch = this.usearch;
    if (!usearch) return undefined;
    try {
      if (this.annStore !== store || this.ann?.dims !== store.dims) {
        this.ann = undefined;
        const file = this.file;
        if (file && this.fileSlots)
          this.ann = VectorAnn.open(usearch, vectorIndexFile(this.root, this.model), {
            model: this.model,
            dims: store.dims,
            vecDigest: file.digest,
            count: file.count,
          });
        this.ann ??= VectorAnn.create(usearch, store.dims);
        this.annStore = store;
      }
      this.ann.sync(store, this.live);
      return this.ann;
    } catch (error) {
      this.annFailed(error);
      return undefined;
    }
  }

  /**
   * The cosine of `query` with a text's vector, undefined when the text has none (or the query is
   * not of the cache's dimension): for scoring many texts against one query without building an
   * array per text, as `get` does.
   */
  similarity(query: ArrayLike<number>): (text: string) => number | undefined {
    const store = this.store;
    const q = store && unitQuery(query, store.dims);
    return (text) => {
      const slot = this.slotOf(text);
      return q && store && slot !== undefined && this.store === store ? dotAt(store, q, slot) : undefined;
    };
  }

  /**
   * Embeds the texts the cache lacks, `batchSize` per request, and reports progress after each
   * request. Returns how many texts were embedded. A failed request throws; the vectors of the
   * batches before it are kept.
   */
  async fill(texts: Iterable<string>, embed: EmbedTexts, batchSize: number, onProgress?: EmbedProgress) {
    let liveSlots: number[] = [];
    const missing = new Map<string, Int32Array>();
    const prune = this.slotByText.size > 2 * this.liveCount + 1024;
    const seen = prune ? new Map<string, number>() : this.slotByText;
    for (const text of texts) {
      let slot = this.slotByText.get(text);
      if (slot === undefined && !missing.has(text)) {
        const key = textKey(text);
        const found = this.store ? this.store.find(key) : -1;
        if (found >= 0) slot = found;
        else missing.set(text, key);
      }
      if (slot !== undefined) {
        liveSlots.push(slot);
        seen.set(text, slot);
      }
    }
    this.slotByText = seen;
    if (this.markLive(liveSlots)) this.dirty = true;
    const todo = [...missing];
    let done = 0;
    try {
      for (let i = 0; i < todo.length; i += batchSize) {
        const batch = todo.slice(i, i + batchSize);
        const vectors = await embed(batch.map(([text]) => text));
        const dims = vectors[0]?.length ?? 0;
        if (dims > 0 && this.store?.dims !== dims) {
          // The first vectors, or the model now answers in another dimension: the old ones are useless.
          this.store = VectorStore.empty(this.encoding, dims);
          this.slotByText.clear();
          liveSlots = [];
        }
        batch.forEach(([text, key], j) => {
          const vector = vectors[j];
          const slot = vector && this.store ? this.store.add(key, vector) : false;
          if (slot === false) return;
          liveSlots.push(slot);
          this.slotByText.set(text, slot);
        });
        this.dirty = true;
        done += batch.length;
        onProgress?.(done, todo.length);
      }
    } finally {
      // The vectors embedded before a failed request are live too (saved by the next save).
      if (done > 0) this.markLive(liveSlots);
    }
    await this.prepareAnn();
    return done;
  }

  /**
   * Writes the cache file (only the vectors of the text last asked for): a temp file, then a rename.
   * From `annMinVectors` vectors on, the ANN index is brought in step with it (vectors added,
   * those not written removed; built whole if there is no index that fits) and saved too.
   */
  async save(root: string): Promise<void> {
    await this.prepareAnn();
    // The saved index fits the file loaded: opened before that file is replaced.
    if (this.store && this.usearch && this.size >= this.annMinVectors) this.annFor(this.store);
    if (this.dirty) await this.writeVectors(root);
    const store = this.store;
    const file = this.file;
    if (!store || !file || !this.usearch || file.count < this.annMinVectors) return;
    const ann = this.annFor(store);
    if (!ann) return;
    try {
      if (this.live) ann.prune(store, this.live);
      if (ann.dirty)
        ann.save(vectorIndexFile(root, this.model), {
          model: this.model,
          vecDigest: file.digest,
          count: file.count,
        });
    } catch (error) {
      this.annFailed(error);
    }
  }

  private async writeVectors(root: string): Promise<void> {
    await ensureCacheDir(root);
    const store = this.store ?? VectorStore.empty(this.encoding, 0);
    const slots = this.savedSlots(store);
    const file = vectorCacheFile(root, this.model);
    // A temp name of its own, created new ('wx'): a fixed name was shared by two processes saving
    // at once, and a FIFO left there made the write wait for ever.
    const temp = tempPathFor(file);
    let digest: Uint8Array = new Uint8Array(0);
    try {
      const handle = await open(temp, 'wx');
      try {
        for (const chunk of encodeVectorFile(store, this.model, slots)) {
          digest = chunk;
          for (let at = 0; at < chunk.byteLength; ) {
            const { bytesWritten } = await handle.write(chunk, at, chunk.byteLength - at);
            at += bytesWritten;
          }
        }
      } finally {
        await handle.close();
      }
      await rename(temp, file);
    } catch (error) {
      await rm(temp, { force: true });
      throw error;
    }
    if (this.legacy) {
      await rm(legacyVectorCacheFile(root, this.model), { force: true }).catch(() => undefined);
      this.legacy = false;
    }
    this.dirty = false;
    // The last chunk written is the file's sha256.
    this.file = { digest: Buffer.from(digest).toString('hex'), count: slots.length };
    this.fileSlots = slots.every((slot, i) => slot === i);
    if (slots.length < this.annMinVectors) {
      removeAnnFiles(vectorIndexFile(root, this.model));
      this.ann = undefined;
      this.annStore = undefined;
    }
  }

  /** Records the slots of the last fill(); true when they differ from the fill() before. */
  private markLive(slots: number[]): boolean {
    const live = new Uint8Array(this.store?.count ?? 0);
    let count = 0;
    for (const slot of slots) {
      if (live[slot] === 0) count++;
      live[slot] = 1;
    }
    const before = this.live;
    this.live = live;
    this.liveCount = count;
    if (!before) return false;
    if (before.length !== live.length) return true;
    for (let i = 0; i < live.length; i++) if (before[i] !== live[i]) return true;
    return false;
  }

  private savedSlots(store: VectorStore): Int32Array {
    const live = this.live;
    if (!live) return Int32Array.from({ length: store.count }, (_, i) => i);
    const slots = new Int32Array(this.liveCount);
    let n = 0;
    for (let slot = 0; slot < live.length && slot < store.count; slot++) if (live[slot]) slots[n++] = slot;
    return slots.subarray(0, n);
  }

  /** Takes the vectors of a file written in the other encoding (saved in this one next time). */
  private convert(from: VectorStore): void {
    const store = VectorStore.empty(this.encoding, from.dims);
    const keys = from.keyRows();
    for (let slot = 0; slot < from.count; slot++)
      store.add(keys.subarray(slot * 8, slot * 8 + 8), from.vectorAt(slot));
    this.store = store;
    this.dirty = true;
  }

  /** An earlier version's `.mem/embeddings-<model>.json`, read once so nothing is embedded again. */
  private async readLegacy(root: string): Promise<void> {
    let data: { model?: unknown; vectors?: unknown };
    try {
      data = JSON.parse(await readRegularText(legacyVectorCacheFile(root, this.model)));
    } catch (error) {
      // Missing: nothing to migrate. Damaged: removed by the next save all the same.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') this.legacy = this.dirty = true;
      return;
    }
    this.legacy = this.dirty = true;
    if (data?.model !== this.model || !data.vectors || typeof data.vectors !== 'object') return;
    for (const [hash, vector] of Object.entries(data.vectors)) {
      if (!HEX_KEY.test(hash) || !Array.isArray(vector) || vector.length === 0) continue;
      this.store ??= VectorStore.empty(this.encoding, vector.length);
      this.store.add(keyWords(Buffer.from(hash, 'hex')), vector);
    }
  }
}
