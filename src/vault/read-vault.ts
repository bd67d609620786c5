import { type Dir, type Dirent, opendirSync, realpathSync, type Stats } from 'node:fs';
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
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  dropRepeatedPaths(files);
  return files;
}

/**
 * Keeps the last of each run of files with one path, in place, in a list sorted by path (a stable
 * sort keeps the walk's order within a run): a path the walk visited twice (see walkVault) counts
 * once, as the later look found it.
 */
export function dropRepeatedPaths(files: VaultFile[]): void {
  let kept = 0;
  for (let i = 0; i < files.length; i++) {
    if (files[i]?.path !== files[i + 1]?.path) files[kept++] = files[i] as VaultFile;
  }
  files.length = kept;
}

/**
 * Calls `visit` for every Markdown note below `root`, in no particular order; resolves to whether
 * a path may have been visited twice: an NFD and an NFC spelling of one name on disk, or a folder
 * that changed while it was read (a directory read while entries come and go may return an entry
 * renamed into place a second time; one that stayed is returned once). A folder changed just
 * before its read, where a change during the read could share its timestamp, is read keeping the
 * names it returned, and visits each once.
 *
 * Folders are read and notes `stat`ed synchronously, a slice at a time with a yield between
 * slices: a promise and a thread-pool round trip per note cost about four times the CPU of the
 * system call itself, and this walk runs on every open and on every fresh read of a server.
 * Nothing is kept per note but what `visit` keeps. A folder is read a few entries at a time
 * (`opendir`), not listed whole: at 100,000 notes a listing's entries lived through the young
 * generation's collections, which grew it to its largest size, 30 MiB of memory a process kept
 * after the walk; and copying an array of every note was dearer than the stat calls.
 */
export async function walkVault(root: string, options: ReadVaultOptions, visit: VisitNote): Promise<boolean> {
  // Real paths of the folders walked, when symlinks are followed: a link back up is not walked again.
  const walked = new Set<string>();
  if (options.followSymlinks) walked.add(realpathOr(root, root));
  const top = resolve(root);
  const folders: Array<{ dir: string; rel: string }> = [{ dir: top, rel: '' }];
  let sinceYield = 0;
  let mayRepeat = false;
  for (let folder = folders.pop(); folder !== undefined; folder = folders.pop()) {
    const { dir, rel } = folder;
    options.onFolder?.(dir, rel);
    const before = statOrUndefined(dir);
    // A folder whose timestamps cannot show a change during its read keeps the names it returned.
    const keepNames = racy(before);
    let reader: Dir;
    try {
      reader = opendirSync(dir, { bufferSize: DIR_BATCH });
    } catch (error) {
      // A folder removed while we walk (or unreadable) is simply not part of the vault now.
      if (rel !== '') continue;
      throw error;
    }
    const prefix = rel === '' ? '' : `${rel}/`;
    for (const entry of entriesOf(reader, rel, keepNames)) {
      if (++sinceYield >= WALK_SLICE) {
        sinceYield = 0;
        await yieldToLoop();
      }
      const name = entry.name.normalize('NFC');
      if (name !== entry.name) mayRepeat = true;
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
    if (!keepNames && !unchanged(before, statOrUndefined(dir))) mayRepeat = true;
  }
  return mayRepeat;
}

/** Entries a folder read fetches at once: more kept no fewer system calls, only more memory. */
const DIR_BATCH = 32;

/**
 * A folder's change within this long before its read began may share its timestamp with one made
 * during the read: a file system's clock ticks coarsely (a jiffy on Linux, 2 s on FAT), and a
 * network file system's runs on its server.
 */
const RACY_MS = 2000;

/**
 * A folder's entries, read a few at a time, each name once when `keepNames`; it ends early when a
 * folder below the top goes meanwhile, and the folder is closed once the caller is done with it.
 */
function* entriesOf(reader: Dir, rel: string, keepNames: boolean): Generator<Dirent> {
  const returned = keepNames ? new Set<string>() : undefined;
  try {
    for (;;) {
      let entry: Dirent | null;
      try {
        entry = reader.readSync();
      } catch (error) {
        if (rel !== '') return;
        throw error;
      }
      if (entry === null) return;
      if (returned?.has(entry.name)) continue;
      returned?.add(entry.name);
      yield entry;
    }
  } finally {
    reader.closeSync();
  }
}

/** Whether a folder's last change is too recent to be told by its timestamps from one made now. */
function racy(folder: Stats | undefined): boolean {
  return folder === undefined || Math.max(folder.mtimeMs, folder.ctimeMs) >= Date.now() - RACY_MS;
}

/** Whether a folder is the same, with no entry added, removed or renamed (each moves its mtime and ctime). */
function unchanged(before: Stats | undefined, after: Stats | undefined): boolean {
  return (
    before !== undefined &&
    after !== undefined &&
    before.ino === after.ino &&
    before.mtimeMs === after.mtimeMs &&
    before.ctimeMs === after.ctimeMs
  );
}

const isMarkdownName = (name: string) => name.endsWith('.md') || name.toLowerCase().endsWith('.md');

function realpathOr<T>(path: string, fallback: T): string | T {
  try {
    return realpathSync(path);
  } catch {
    return fallback;
  }
}
