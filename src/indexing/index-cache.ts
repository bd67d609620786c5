import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { cacheDir, ensureCacheDir } from '../vault/cache-dir.js';
import { VaultIndex } from './vault-index.js';

/**
 * Bump whenever the shape of a parsed note, the tokenizer or the index options change: a cache
 * from another schema is rebuilt, never trusted.
 */
export const CACHE_SCHEMA = 4;

const CACHE_FILE = 'index.json';

interface CacheFile {
  schema: number;
  savedAt: string;
  index: ReturnType<VaultIndex['toJSON']>;
}

export type CacheLoad =
  | { status: 'loaded'; index: VaultIndex }
  | { status: 'missing' | 'stale' | 'corrupt'; reason: string };

export async function loadIndexCache(root: string): Promise<CacheLoad> {
  let text: string;
  try {
    text = await readFile(join(cacheDir(root), CACHE_FILE), 'utf8');
  } catch {
    return { status: 'missing', reason: 'no index cache yet' };
  }
  let data: CacheFile;
  try {
    data = JSON.parse(text) as CacheFile;
  } catch {
    return { status: 'corrupt', reason: 'the index cache could not be read' };
  }
  if (data?.schema !== CACHE_SCHEMA) {
    return {
      status: 'stale',
      reason: `the index cache is from schema ${String(data?.schema)}, not ${CACHE_SCHEMA}`,
    };
  }
  try {
    return { status: 'loaded', index: VaultIndex.fromJSON(data.index) };
  } catch {
    return { status: 'corrupt', reason: 'the index cache is damaged' };
  }
}

/** Writes the cache through a temp file and a rename, so a crash leaves the old cache or the new one. */
export async function saveIndexCache(root: string, index: VaultIndex): Promise<void> {
  const dir = await ensureCacheDir(root);
  const data: CacheFile = { schema: CACHE_SCHEMA, savedAt: new Date().toISOString(), index: index.toJSON() };
  const tmp = join(dir, `.${CACHE_FILE}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`);
  try {
    await writeFile(tmp, JSON.stringify(data));
    await rename(tmp, join(dir, CACHE_FILE));
  } finally {
    await rm(tmp, { force: true });
  }
}
