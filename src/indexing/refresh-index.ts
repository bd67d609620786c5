import { realpathSync, statSync } from 'node:fs';
import { join, sep } from 'node:path';
import { ensureCacheDir } from '../core/cache-dir.js';
import { readRegularFileSync, statOrUndefined } from '../core/regular-file.js';
import type { Note } from '../core/types.js';
import type { VaultLayout } from '../vault/layout.js';
import { appendToNote, keepAppendState } from '../vault/markdown/append-note.js';
import { parseNote, parseNoteParts } from '../vault/markdown/parse-note.js';
import { findOnDisk } from '../vault/paths.js';
import { dropRepeatedPaths, isNotePath, type VaultFile, walkVault } from '../vault/read-vault.js';
import { statKey } from '../vault/steady-read.js';
import { removeLeftoverTemps } from '../vault/temp-name.js';
import type { FolderHook } from '../vault/track-changes.js';
import { hashText, type OwnRead, ownText } from '../vault/write-note.js';
import { boundLinks, boundNote } from './bound-note.js';
import { ColdBuild } from './cold-build.js';
import type { VaultIndex } from './vault-index.js';

export interface RefreshStats {
  added: number;
  changed: number;
  removed: number;
  unchanged: number;
  /** Of the unchanged: files whose mtime moved but whose content did not (the cache needs their new mtime) */
  touched: number;
}

/** Notes read so far out of those a refresh has to read (the unchanged ones are not counted) */
export type RefreshProgress = (read: number, total: number) => void;

/** How many files are read at once: enough to hide disk latency, few enough to keep memory flat. */
const READ_BATCH = 64;

/**
 * Brings `index` up to date with the files on disk. A file whose size and mtime match the indexed
 * version is not read; one whose content hash matches is not parsed again.
 */
export async function refreshIndex(
  root: string,
  index: VaultIndex,
  changed?: Set<string>,
  onProgress?: RefreshProgress,
  onFolder?: FolderHook,
): Promise<RefreshStats> {
  const stats: RefreshStats = { added: 0, changed: 0, removed: 0, unchanged: 0, touched: 0 };
  const toRead: VaultFile[] = [];
  // How many of the paths walked the index holds: when that is all of the index, no note was
  // removed, and the set of every path that would tell which is never built.
  let known = 0;
  const options = {
    followSymlinks: index.followSymlinks,
    ...(index.skipPath ? { skip: index.skipPath } : {}),
  };
  // Temp files of writes killed before their rename: removed here, at the first refresh after.
  const temps: string[] = [];
  const onTempFile = (abs: string) => temps.push(abs);
  const mayRepeat = await walkVault(
    root,
    { ...options, onFolder, onTempFile },
    (path, abs, size, mtimeMs) => {
      // The size and mtime the index holds: a note restored from the cache is not decoded for them.
      const same = index.notes.sameStat(path, size, mtimeMs);
      if (same !== undefined) known++;
      if (same === true) stats.unchanged++;
      else toRead.push({ path, abs, size, mtimeMs });
    },
  );
  if (temps.length > 0) await removeLeftoverTemps(temps);
  // In path order, as a listing would give them: a new vault's notes enter the index in one order.
  toRead.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  // Always: a file system that does not move a folder's times when its entries change could repeat
  // a path unannounced.
  dropRepeatedPaths(toRead);
  const indexed = index.notes.size;
  // Every note of an empty index that will be saved: each leaves the heap once indexed.
  // `.mem/` and its .gitignore first: the build writes into it before any save.
  if (ColdBuild.wanted(index, toRead.length)) await ensureCacheDir(root).catch(() => undefined);
  const cold = ColdBuild.start(root, index, toRead.length);
  try {
    await readInto(index, toRead, stats, changed, onProgress, false, cold);
  } catch (error) {
    cold?.abandon();
    throw error;
  } finally {
    cold?.finish();
  }
  // Notes were removed (or a path may have been walked twice and counted as two): a second walk
  // lists the paths. Once per removal, not per refresh: afterwards the counts agree.
  if (known < indexed || mayRepeat) {
    const seen = new Set<string>();
    await walkVault(root, options, (path) => seen.add(path));
    let stayed = 0;
    for (const path of [...index.notes.keys()]) {
      if (seen.has(path)) stayed++;
      else if (index.remove(path)) tally(stats, 'removed', path, changed);
    }
    // A path visited twice was counted at each visit: the notes that stayed are counted once.
    if (mayRepeat) stats.unchanged = Math.max(0, stayed - stats.added - stats.changed);
  }
  return stats;
}

/** Counts one change, and remembers its path in `changed` when the caller keeps such a set. */
function tally(
  stats: RefreshStats,
  kind: 'added' | 'changed' | 'removed' | 'touched',
  path: string,
  changed: Set<string> | undefined,
): void {
  stats[kind]++;
  changed?.add(path);
}

/** A file to read, or its text and bytes when this process's own append left it so (ownText). */
type FileToRead = VaultFile & { known?: OwnRead };

/**
 * Re-reads only the given vault paths (from a watcher): a path that is no longer a readable note
 * is removed from the index. Much cheaper than walking the whole vault for one change.
 */
export async function refreshPaths(
  root: string,
  index: VaultIndex,
  paths: Iterable<string>,
  changed?: Set<string>,
): Promise<RefreshStats> {
  const stats: RefreshStats = { added: 0, changed: 0, removed: 0, unchanged: 0, touched: 0 };
  const toRead: FileToRead[] = [];
  for (const path of new Set(paths)) {
    const rel = path.normalize('NFC');
    if (!isNotePath(rel) || index.skipPath?.(rel)) {
      if (index.remove(rel)) tally(stats, 'removed', rel, changed);
      continue;
    }
    // The file may be stored with NFD names (written on macOS); the index keys it by its NFC path.
    const abs = await findOnDisk(root, rel);
    // Synchronously: one system call, where a thread-pool round trip cost more (on every chat turn).
    const info = statOrUndefined(abs, !index.followSymlinks);
    // lstat follows a symlinked folder on the way: a file reached through one may lie outside the
    // vault, and readVault never lists it, so a watcher's event for it must not index it either
    // (unless the vault follows symlinks on purpose).
    if (info?.isFile() && (index.followSymlinks || (await insideVault(root, abs)))) {
      // A note this process just appended to, unchanged since: its text as the append's read found it.
      const known = ownText(abs, statKey(info));
      toRead.push({ path: rel, abs, size: info.size, mtimeMs: info.mtimeMs, ...(known ? { known } : {}) });
    } else if (index.remove(rel)) tally(stats, 'removed', rel, changed);
  }
  // A write's note (a chat turn's day) is read as an append to the version indexed when it is one.
  await readInto(index, toRead, stats, changed, undefined, true);
  return stats;
}

/** Whether `abs`, with every symlink resolved, is still below the vault's own folder. */
async function insideVault(root: string, abs: string): Promise<boolean> {
  // Synchronously: one C library call each, where the thread pool's round trips cost more.
  const real = (path: string) => {
    try {
      return realpathSync.native(path);
    } catch {
      return undefined;
    }
  };
  const realRoot = real(root) ?? root;
  const realFile = real(abs);
  return realFile?.startsWith(`${realRoot}${sep}`) === true;
}

async function readInto(
  index: VaultIndex,
  toRead: FileToRead[],
  stats: RefreshStats,
  changed: Set<string> | undefined,
  onProgress?: RefreshProgress,
  /** Read a note that had text appended as that (append-note.ts), and keep what the next append needs */
  appends = false,
  /** A cold build the notes are added through (see cold-build.ts) */
  cold?: ColdBuild,
): Promise<void> {
  for (let i = 0; i < toRead.length; i += READ_BATCH) {
    onProgress?.(i, toRead.length);
    // A yield between batches keeps a server answering during a long read.
    if (i > 0) await yieldToLoop();
    for (const file of toRead.slice(i, i + READ_BATCH)) {
      // Read synchronously: a promise and a thread-pool round trip per note cost more CPU than
      // the read itself (open, fstat, read and close each went through the pool).
      const text = file.known?.text ?? readOrUndefined(file.abs);
      if (text === undefined) continue; // removed while we read; the next refresh drops it
      const hash = file.known?.hash ?? hashText(text);
      const known = index.notes.get(file.path);
      if (known && known.hash === hash) {
        index.touch(file.path, file.size, file.mtimeMs);
        stats.unchanged++;
        tally(stats, 'touched', file.path, changed);
        continue;
      }
      const stat = { size: file.size, mtimeMs: file.mtimeMs };
      const note = noteOf(
        index,
        file.path,
        text,
        hash,
        stat,
        appends ? (known ?? null) : undefined,
        file.known?.bytes,
      );
      if (cold) cold.add(note);
      else index.upsert(note);
      tally(stats, known ? 'changed' : 'added', file.path, changed);
    }
  }
  if (toRead.length > 0) onProgress?.(toRead.length, toRead.length);
}

/** The note a file's text makes, as the index holds it (limits applied); never throws. */
function noteOf(
  index: VaultIndex,
  path: string,
  text: string,
  hash: string,
  stat: { size: number; mtimeMs: number },
  /**
   * The note's version indexed before (null: none), when the text may be that version's with
   * entries appended: then only those are read, and what the next append needs is kept
   */
  previous?: Note | null,
  /** The file's bytes, when the caller holds them (append-note.ts) */
  bytes?: Buffer,
): Note {
  try {
    if (previous) {
      const appended = appendToNote(previous, text, hash, stat, index.limits, bytes);
      if (appended) return appended;
    }
    const bounded = boundNote(path, text, index.limits);
    // The hash is the file's, so an unchanged file is still recognised as unchanged.
    const parts = parseNoteParts(path, bounded.text, stat, hash, index.layout);
    const note = boundLinks(parts.note, index.limits);
    if (previous !== undefined && !bounded.reason && note === parts.note) keepAppendState(parts, text);
    if (bounded.reason)
      note.truncated = note.truncated ? `${bounded.reason}; ${note.truncated}` : bounded.reason;
    return note;
  } catch (error) {
    // Whatever a note holds, indexing goes on: the note is kept by its name, with the reason.
    return unreadableNote(path, text, stat, error, index.layout);
  }
}

/**
 * A note read now from its file, as a refresh would index it: what the cache holds for a saved
 * note whose bytes turned out damaged. A file that cannot be read gives a note of its name only.
 */
export function readNoteNow(root: string, path: string, index: VaultIndex): Note {
  const abs = join(root, path);
  const text = readOrUndefined(abs) ?? '';
  const info = statSync(abs, { throwIfNoEntry: false });
  const stat = { size: info?.size ?? 0, mtimeMs: info?.mtimeMs ?? 0 };
  return noteOf(index, path, text, hashText(text), stat);
}

const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

function readOrUndefined(path: string): string | undefined {
  try {
    return readRegularFileSync(path).toString('utf8');
  } catch {
    return undefined;
  }
}

/** A note that could not be parsed, indexed by its file name only, with the reason as a warning. */
function unreadableNote(
  path: string,
  text: string,
  stat: { size: number; mtimeMs: number },
  error: unknown,
  layout: VaultLayout,
): Note {
  const note = parseNote(path, '', stat, undefined, layout);
  const reason = error instanceof Error ? error.message : String(error);
  return {
    ...note,
    hash: hashText(text),
    warnings: [`${path}: could not be indexed (${reason}); only its name is searchable`],
  };
}
