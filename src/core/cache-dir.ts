// `.mem/`: where mem keeps what it derives from the notes (index, embeddings) and its write lock.
import { statSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CACHE_DIR } from './vault-files.js';

export { CACHE_DIR };

export function cacheDir(root: string): string {
  return join(root, CACHE_DIR);
}

/** Creates `.mem/` with a `.gitignore` of its own, so the cache never lands in git even without the vault's. */
export async function ensureCacheDir(root: string): Promise<string> {
  const dir = cacheDir(root);
  // Made already (every write after the first): one stat, not a mkdir, a stat and an open, each a
  // round trip through the thread pool, on every write of a chat turn.
  if (statSync(join(dir, '.gitignore'), { throwIfNoEntry: false })?.isFile()) return dir;
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, '.gitignore'), '*\n', { flag: 'wx' }).catch(() => undefined);
  return dir;
}
