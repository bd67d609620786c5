import { join } from 'node:path';
import { cacheDir, ensureCacheDir } from '../core/cache-dir.js';
import { type LockOptions, withLock } from '../core/lock.js';

export { type LockOptions, withLock } from '../core/lock.js';

/** The vault's one write lock: every mem write to the vault's files takes it. */
export function lockPath(root: string): string {
  return join(cacheDir(root), 'write.lock');
}

/**
 * Runs `fn` holding the vault's write lock, in `.mem/` (created with its `.gitignore` first, so
 * the lock file never shows up in git). Not re-entrant, like withLock.
 */
export async function withVaultLock<T>(
  root: string,
  fn: () => Promise<T>,
  options?: LockOptions,
): Promise<T> {
  await ensureCacheDir(root);
  return withLock(lockPath(root), fn, options);
}
