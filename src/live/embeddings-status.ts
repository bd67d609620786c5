// `mem status`'s embeddings line: whether they are on, which provider and model, and whether the
// vectors of the notes are cached, read from the config and the cache file's header alone (status
// never opens the vault, never loads a model, never calls an endpoint).
import { relative } from 'node:path';
import type { MemConfig } from '../core/config/config.js';
import { openRegularFile } from '../core/regular-file.js';
import { vectorCacheFile } from '../indexing/vectors/vector-cache.js';
import { vectorFileHead } from '../indexing/vectors/vector-file.js';

export interface EmbeddingsStatus {
  /** `embeddings.enabled`: recall and compile fuse a semantic ranking in */
  enabled: boolean;
  provider: MemConfig['embeddings']['provider'];
  model: string;
  /** The endpoint (provider openai), when one is set */
  baseURL?: string;
  /** The vector cache of this model, when there is one: its vault path, vectors and their size */
  cache?: { file: string; vectors: number; dims: number; bytes: number };
}

/** The embeddings settings of the vault at `root` and the state of its vector cache. */
export async function embeddingsStatus(root: string, config: MemConfig): Promise<EmbeddingsStatus> {
  const { enabled, provider, model, baseURL } = config.embeddings;
  const status: EmbeddingsStatus = { enabled, provider, model, ...(baseURL ? { baseURL } : {}) };
  const file = vectorCacheFile(root, model);
  // Regular files only (a FIFO under the name would make status wait for ever): anything else is no cache.
  const handle = await openRegularFile(file).catch(() => undefined);
  if (!handle) return status;
  try {
    const info = await handle.stat();
    const head = new Uint8Array(32);
    const { bytesRead } = await handle.read(head, 0, head.length, 0);
    const read = vectorFileHead(head.subarray(0, bytesRead));
    if (read)
      status.cache = {
        file: relative(root, file).split('\\').join('/'),
        vectors: read.count,
        dims: read.dims,
        bytes: info.size,
      };
  } finally {
    await handle.close();
  }
  return status;
}
