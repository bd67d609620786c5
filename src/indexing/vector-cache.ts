import { createHash } from 'node:crypto';
import { open, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { cacheDir, ensureCacheDir } from '../core/cache-dir.js';
import { readRegularFile, readRegularText } from '../core/regular-file.js';
import { tempPathFor } from '../vault/temp-name.js';
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

/** The JSON cache file earlier versions wrote: read once if there is no `.vec`, removed by the next save. */
export function legacyVectorCacheFile(root: string, model: string): string {
  return `${fileStem(root, model)}.json`;
}

export interface VectorCacheOptions {
  /** How new vectors are stored (default DEFAULT_VECTOR_ENCODING); a file in the other is converted */
  encoding?: VectorEncoding;
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

  private constructor(model: string, encoding: VectorEncoding) {
    this.model = model;
    this.encoding = encoding;
  }

  /**
   * Reads the model's cache file (one read, no parse per vector). A missing, damaged, truncated or
   * foreign file starts empty (it is only a cache) and is rewritten by the next save; without a
   * binary file, an earlier version's JSON cache is read once instead.
   */
  static async load(root: string, model: string, options: VectorCacheOptions = {}): Promise<VectorCache> {
    const cache = new VectorCache(model, options.encoding ?? DEFAULT_VECTOR_ENCODING);
    const bytes = await readRegularFile(vectorCacheFile(root, model)).catch(() => undefined);
    const arrays = bytes && decodeVectorFile(bytes, model);
    if (arrays) {
      const store = new VectorStore(arrays);
      if (store.encoding === cache.encoding) cache.store = store;
      else cache.convert(store);
    } else {
      if (bytes) cache.dirty = true;
      await cache.readLegacy(root);
    }
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
   * The `k` vectors closest to `query` by cosine, best first, scanned exactly (see topKByDot);
   * `allow(slot)` can skip some. A query of another dimension than the cache's finds nothing.
   */
  topK(query: ArrayLike<number>, k: number, allow?: (slot: number) => boolean): DotTopK {
    if (!this.store) return { slots: new Int32Array(0), scores: new Float64Array(0) };
    return topKByDot(this.store, query, k, allow);
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
    return done;
  }

  /** Writes the cache file (only the vectors of the text last asked for): a temp file, then a rename. */
  async save(root: string): Promise<void> {
    if (!this.dirty) return;
    await ensureCacheDir(root);
    const store = this.store ?? VectorStore.empty(this.encoding, 0);
    const slots = this.savedSlots(store);
    const file = vectorCacheFile(root, this.model);
    // A temp name of its own, created new ('wx'): a fixed name was shared by two processes saving
    // at once, and a FIFO left there made the write wait for ever.
    const temp = tempPathFor(file);
    try {
      const handle = await open(temp, 'wx');
      try {
        for (const chunk of encodeVectorFile(store, this.model, slots)) {
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
