import type { Dirent } from 'node:fs';
import { readdir, realpath, stat } from 'node:fs/promises';
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

export interface ReadVaultOptions {
  /**
   * Follow symlinks, also ones that lead out of the vault (config `followOutsideSymlinks`; default
   * false). A folder reached twice (a loop, or two links to one folder) is listed once.
   */
  followSymlinks?: boolean;
}

/**
 * Lists every Markdown note below `root`, sorted by path. Symlinks are not followed unless asked:
 * a link that leads outside the vault must not become part of it by accident, and links to a
 * parent would loop.
 */
export async function readVault(root: string, options: ReadVaultOptions = {}): Promise<VaultFile[]> {
  const files: VaultFile[] = [];
  // Real paths of the folders walked, when symlinks are followed: a link back up is not walked again.
  const walked = new Set<string>();
  if (options.followSymlinks) walked.add(await realpath(root).catch(() => root));
  async function walkLink(abs: string, rel: string): Promise<void> {
    const info = await stat(abs).catch(() => undefined);
    if (info?.isFile() && rel.toLowerCase().endsWith('.md')) {
      files.push({ path: rel, abs, size: info.size, mtimeMs: info.mtimeMs });
    } else if (info?.isDirectory()) {
      const real = await realpath(abs).catch(() => undefined);
      if (real === undefined || walked.has(real)) return;
      walked.add(real);
      await walk(abs, rel);
    }
  }
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
      if (entry.isSymbolicLink()) {
        if (options.followSymlinks) pending.push(walkLink(abs, childRel));
      } else if (entry.isDirectory()) {
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
