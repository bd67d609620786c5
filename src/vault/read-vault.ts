import { type Dirent, readdirSync, realpathSync } from 'node:fs';
import { resolve, sep } from 'node:path';
import { isIgnoredName, isIgnoredPath } from '../core/ignored-path.js';
import { statOrUndefined } from '../core/regular-file.js';
import { tempWriterPid } from './temp-name.js';

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
  /** Called with each folder (absolute and vault path) before it is listed (a change tracker watches it) */
  onFolder?: (abs: string, rel: string) => void;
  /**
   * Called with each entry named like a note that is not a regular file (a FIFO, socket or device):
   * the walk leaves it out, and `mem doctor` names it.
   */
  onNotAFile?: (path: string, abs: string) => void;
  /** Called with each temp file of mem's (an atomic write's, see temp-name.ts) the walk passes over */
  onTempFile?: (abs: string) => void;
  /** Vault paths (folders and notes) the walk passes by: the vault's templates (template-notes.ts) */
  skip?: (relPath: string) => boolean;
}

/** Entries looked at between two yields to the event loop: a server stays responsive during a walk. */
const WALK_SLICE = 512;

const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Called with each note a walk finds: its vault path (NFC), absolute path, size and mtime. */
export type VisitNote = (path: string, abs: string, size: number, mtimeMs: number) => void;

/**
 * Lists every Markdown note below `root`, sorted by path. Symlinks are not followed unless asked:
 * a link that leads outside the vault must not become part of it by accident, and links to a
 * parent would loop.
 */
export async function readVault(root: string, options: ReadVaultOptions = {}): Promise<VaultFile[]> {
  const files: VaultFile[] = [];
  await walkVault(root, options, (path, abs, size, mtimeMs) => files.push({ path, abs, size, mtimeMs }));
  return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/**
 * Calls `visit` for every Markdown note below `root`, in no particular order; resolves to whether
 * two names on disk may have come to the same vault path (an NFD and an NFC spelling of one name:
 * the only way a path can be visited twice).
 *
 * Folders are listed and notes `stat`ed synchronously, a slice at a time with a yield between
 * slices: a promise and a thread-pool round trip per note cost about four times the CPU of the
 * system call itself, and this walk runs on every open and on every fresh read of a server. Nothing
 * is kept per note but what `visit` keeps: at 100,000 notes an array of them, sorted, and the
 * young-generation garbage collections that copied it cost more than the stat calls.
 */
export async function walkVault(root: string, options: ReadVaultOptions, visit: VisitNote): Promise<boolean> {
  // Real paths of the folders walked, when symlinks are followed: a link back up is not walked again.
  const walked = new Set<string>();
  if (options.followSymlinks) walked.add(realpathOr(root, root));
  const top = resolve(root);
  const folders: Array<{ dir: string; rel: string }> = [{ dir: top, rel: '' }];
  let sinceYield = 0;
  let renamed = false;
  for (let folder = folders.pop(); folder !== undefined; folder = folders.pop()) {
    const { dir, rel } = folder;
    options.onFolder?.(dir, rel);
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch (error) {
      // A folder removed while we walk (or unreadable) is simply not part of the vault now.
      if (rel !== '') continue;
      throw error;
    }
    const prefix = rel === '' ? '' : `${rel}/`;
    for (const entry of entries) {
      if (++sinceYield >= WALK_SLICE) {
        sinceYield = 0;
        await yieldToLoop();
      }
      const name = entry.name.normalize('NFC');
      if (name !== entry.name) renamed = true;
      if (isIgnoredName(name)) {
        if (options.onTempFile && entry.isFile() && tempWriterPid(name) !== undefined)
          options.onTempFile(`${dir}${sep}${entry.name}`);
        continue;
      }
      if (options.skip?.(prefix + name)) continue;
      // Concatenated, not join()ed: `dir` is already normal, and join's normalising is a tenth of the walk.
      const abs = `${dir}${sep}${entry.name}`;
      if (entry.isSymbolicLink()) {
        if (!options.followSymlinks) continue;
        const info = statOrUndefined(abs);
        if (info?.isFile() && isMarkdownName(name)) {
          visit(prefix + name, abs, info.size, info.mtimeMs);
        } else if (info?.isDirectory()) {
          const real = realpathOr(abs, undefined);
          if (real === undefined || walked.has(real)) continue;
          walked.add(real);
          folders.push({ dir: abs, rel: prefix + name });
        }
      } else if (entry.isDirectory()) {
        folders.push({ dir: abs, rel: prefix + name });
      } else if (entry.isFile() && isMarkdownName(name)) {
        const info = statOrUndefined(abs);
        if (info) visit(prefix + name, abs, info.size, info.mtimeMs);
      } else if (isMarkdownName(name)) {
        options.onNotAFile?.(prefix + name, abs);
      }
    }
  }
  return renamed;
}

const isMarkdownName = (name: string) => name.endsWith('.md') || name.toLowerCase().endsWith('.md');

function realpathOr<T>(path: string, fallback: T): string | T {
  try {
    return realpathSync(path);
  } catch {
    return fallback;
  }
}
