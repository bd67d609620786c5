import type { Dirent } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { isIgnoredName, isIgnoredPath } from './ignored-path.js';

export { isIgnoredPath } from './ignored-path.js';

export interface VaultFile {
  /** Vault-relative POSIX path, NFC-normalised */
  path: string;
  abs: string;
  size: number;
  mtimeMs: number;
}

export function isNotePath(relPath: string): boolean {
  return relPath.toLowerCase().endsWith('.md') && !isIgnoredPath(relPath);
}

/**
 * Lists every Markdown note below `root`, sorted by path. Symlinks are not followed: a link that
 * leads outside the vault must never become part of it, and links to a parent would loop.
 */
export async function readVault(root: string): Promise<VaultFile[]> {
  const files: VaultFile[] = [];
  async function walk(dir: string, rel: string): Promise<void> {
    let entries: Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch (error) {
      // A folder removed while we walk (or unreadable) is simply not part of the vault now.
      if (rel !== '') return;
      throw error;
    }
    const pending: Promise<void>[] = [];
    for (const entry of entries) {
      const name = entry.name.normalize('NFC');
      if (isIgnoredName(name)) continue;
      const abs = join(dir, entry.name);
      const childRel = rel === '' ? name : `${rel}/${name}`;
      if (entry.isDirectory()) {
        pending.push(walk(abs, childRel));
      } else if (entry.isFile() && name.toLowerCase().endsWith('.md')) {
        pending.push(
          stat(abs).then(
            (s) => {
              files.push({ path: childRel, abs, size: s.size, mtimeMs: s.mtimeMs });
            },
            () => undefined,
          ),
        );
      }
    }
    await Promise.all(pending);
  }
  await walk(root, '');
  return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
