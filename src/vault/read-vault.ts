import { type Dirent, readdirSync, realpathSync, type Stats, statSync } from 'node:fs';
import { join } from 'node:path';
import { isIgnoredName, isIgnoredPath } from '../core/ignored-path.js';

export { isIgnoredPath } from '../core/ignored-path.js';

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

/** Entries looked at between two yields to the event loop: a server stays responsive during a walk. */
const WALK_SLICE = 512;

const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Lists every Markdown note below `root`, sorted by path. Symlinks are not followed unless asked:
 * a link that leads outside the vault must not become part of it by accident, and links to a
 * parent would loop.
 *
 * Folders are listed and notes `stat`ed synchronously, a slice at a time with a yield between
 * slices: a promise and a thread-pool round trip per note cost about four times the CPU of the
 * system call itself, and this walk runs on every open and on every fresh read of a server.
 */
export async function readVault(root: string, options: ReadVaultOptions = {}): Promise<VaultFile[]> {
  const files: VaultFile[] = [];
  // Real paths of the folders walked, when symlinks are followed: a link back up is not walked again.
  const walked = new Set<string>();
  if (options.followSymlinks) walked.add(realpathOr(root, root));
  const folders: Array<{ dir: string; rel: string }> = [{ dir: root, rel: '' }];
  let sinceYield = 0;
  for (let folder = folders.pop(); folder !== undefined; folder = folders.pop()) {
    const { dir, rel } = folder;
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch (error) {
      // A folder removed while we walk (or unreadable) is simply not part of the vault now.
      if (rel !== '') continue;
      throw error;
    }
    for (const entry of entries) {
      if (++sinceYield >= WALK_SLICE) {
        sinceYield = 0;
        await yieldToLoop();
      }
      const name = entry.name.normalize('NFC');
      if (isIgnoredName(name)) continue;
      const abs = join(dir, entry.name);
      const childRel = rel === '' ? name : `${rel}/${name}`;
      if (entry.isSymbolicLink()) {
        if (!options.followSymlinks) continue;
        const info = statOrUndefined(abs);
        if (info?.isFile() && name.toLowerCase().endsWith('.md')) {
          files.push({ path: childRel, abs, size: info.size, mtimeMs: info.mtimeMs });
        } else if (info?.isDirectory()) {
          const real = realpathOr(abs, undefined);
          if (real === undefined || walked.has(real)) continue;
          walked.add(real);
          folders.push({ dir: abs, rel: childRel });
        }
      } else if (entry.isDirectory()) {
        folders.push({ dir: abs, rel: childRel });
      } else if (entry.isFile() && name.toLowerCase().endsWith('.md')) {
        const info = statOrUndefined(abs);
        if (info) files.push({ path: childRel, abs, size: info.size, mtimeMs: info.mtimeMs });
      }
    }
  }
  return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** A note removed or unreadable between the listing and the stat is not part of the vault now. */
function statOrUndefined(path: string): Stats | undefined {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}

function realpathOr<T>(path: string, fallback: T): string | T {
  try {
    return realpathSync(path);
  } catch {
    return fallback;
  }
}
