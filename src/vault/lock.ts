import { join } from 'node:path';
import { cacheDir, ensureCacheDir } from '../core/cache-dir.js';
import { MemError } from '../core/errors.js';
import { type LockOptions, withLock } from '../core/lock.js';

export { type LockOptions, withLock } from '../core/lock.js';

declare const proof: unique symbol;

/**
 * Proof that the caller holds the vault's write lock: only withVaultLock makes one, and every
 * commit asks for it (git/commit-write.ts), so a commit made outside the lock does not type-check.
 */
export interface VaultLockHeld {
  readonly root: string;
  readonly [proof]: true;
}

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
  fn: (lock: VaultLockHeld) => Promise<T>,
  options?: LockOptions,
): Promise<T> {
  await ensureCacheDir(root);
  return withLock(
    lockPath(root),
    async () => {
      const lock = { root } as VaultLockHeld;
      held.add(lock);
      try {
        return await fn(lock);
      } finally {
        held.delete(lock);
      }
    },
    options,
  );
}

/** The proofs of locks held now: one kept past its lock (a callback that ran on) proves nothing. */
const held = new WeakSet<VaultLockHeld>();

/** Throws unless `lock` is the write lock of the vault at `root`, held now (what the types say, at run time). */
export function assertLockHeld(lock: VaultLockHeld, root: string): void {
  if (!held.has(lock) || lock.root !== root)
    throw new MemError('LOCKED', `${root}: a commit was asked for without holding the vault's write lock`);
}
