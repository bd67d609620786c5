import { rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { cacheDir, ensureCacheDir } from '../core/cache-dir.js';
import { readRegularText } from '../core/regular-file.js';
import { tempPathFor } from '../vault/temp-name.js';
import { hashText } from '../vault/write-note.js';

/** Embeds texts in one request; the vectors come back in the texts' order. */
export type EmbedTexts = (texts: string[]) => Promise<number[][]>;

export type EmbedProgress = (embedded: number, total: number) => void;

/** The cache file of one model: `.mem/embeddings-<model>.json`. */
export function vectorCacheFile(root: string, model: string): string {
  return join(cacheDir(root), `embeddings-${model.replace(/[^\w.-]+/g, '_')}.json`);
}

/**
 * Section vectors of one embedding model, keyed by the sha256 of the text embedded: a section
 * whose text is unchanged is never embedded again, wherever it moved; an edited one is.
 */
export class VectorCache {
  readonly model: string;
  private readonly vectors = new Map<string, number[]>();
  /** Hashes asked for by the last fill(): the ones saved (the others belong to old text) */
  private live: Set<string> | undefined;
  private dirty = false;

  private constructor(model: string) {
    this.model = model;
  }

  /** Reads the model's cache file; a missing or unreadable one starts empty (it is only a cache). */
  static async load(root: string, model: string): Promise<VectorCache> {
    const cache = new VectorCache(model);
    try {
      const data = JSON.parse(await readRegularText(vectorCacheFile(root, model))) as {
        model?: unknown;
        vectors?: Record<string, unknown>;
      };
      if (data.model === model && data.vectors && typeof data.vectors === 'object') {
        for (const [hash, vector] of Object.entries(data.vectors)) {
          if (Array.isArray(vector) && vector.every((x) => typeof x === 'number'))
            cache.vectors.set(hash, vector);
        }
      }
    } catch {
      // Missing or damaged: every section is embedded again.
    }
    return cache;
  }

  get(text: string): number[] | undefined {
    return this.vectors.get(hashText(text));
  }

  /**
   * Embeds the texts the cache lacks, `batchSize` per request, and reports progress after each
   * request. Returns how many texts were embedded. A failed request throws; the vectors of the
   * batches before it are kept.
   */
  async fill(texts: Iterable<string>, embed: EmbedTexts, batchSize: number, onProgress?: EmbedProgress) {
    const live = new Set<string>();
    const missing = new Map<string, string>();
    for (const text of texts) {
      const hash = hashText(text);
      live.add(hash);
      if (!this.vectors.has(hash)) missing.set(hash, text);
    }
    if (this.live && (this.live.size !== live.size || [...live].some((h) => !this.live?.has(h))))
      this.dirty = true;
    this.live = live;
    const todo = [...missing];
    let done = 0;
    for (let i = 0; i < todo.length; i += batchSize) {
      const batch = todo.slice(i, i + batchSize);
      const vectors = await embed(batch.map(([, text]) => text));
      batch.forEach(([hash], j) => {
        const vector = vectors[j];
        if (vector) this.vectors.set(hash, vector);
      });
      this.dirty = true;
      done += batch.length;
      onProgress?.(done, todo.length);
    }
    return done;
  }

  /** Writes the cache file (only the vectors of the text last asked for), by a rename. */
  async save(root: string): Promise<void> {
    if (!this.dirty) return;
    await ensureCacheDir(root);
    const vectors: Record<string, number[]> = {};
    for (const [hash, vector] of this.vectors) if (!this.live || this.live.has(hash)) vectors[hash] = vector;
    const file = vectorCacheFile(root, this.model);
    // A temp name of its own, created new ('wx'): a fixed name was shared by two processes saving
    // at once, and a FIFO left there made the write wait for ever.
    const temp = tempPathFor(file);
    try {
      await writeFile(temp, JSON.stringify({ model: this.model, vectors }), { flag: 'wx' });
      await rename(temp, file);
    } catch (error) {
      await rm(temp, { force: true });
      throw error;
    }
    this.dirty = false;
  }
}
