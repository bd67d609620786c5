import { lstatSync, realpathSync, statSync } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
import { dirname, join, sep } from 'node:path';
import { MemError } from '../core/errors.js';
import { ignoredReason, isIgnoredName } from '../core/ignored-path.js';

/** Names Windows refuses, with or without an extension (`con.md` is as bad as `CON`). */
const WINDOWS_RESERVED = /^(con|prn|aux|nul|com[1-9]|lpt[1-9])(\..*)?$/i;

/** Extensions Obsidian opens as files of their own; any other "extension" is part of a note name. */
const FILE_EXTENSIONS = new Set(
  'md canvas base pdf png jpg jpeg gif bmp svg webp avif mp3 webm wav m4a ogg 3gp flac mp4 ogv mov mkv'.split(
    ' ',
  ),
);

export interface ResolveOptions {
  /** Throw NOT_FOUND when nothing exists at the path (default: false) */
  mustExist?: boolean;
  /** Accept a folder (and the vault root as `.`) as well as a file (default: false) */
  allowDirs?: boolean;
  /**
   * Accept paths through dot folders and `node_modules` (default: false; `.git/` is refused even
   * then). Only undo needs it: it restores repository paths, and a vault may sit in a dot folder.
   */
  anyFolder?: boolean;
}

function invalid(userPath: string, why: string): MemError {
  return new MemError('INVALID_PATH', `${JSON.stringify(userPath)}: ${why}`);
}

function outside(userPath: string, why: string): MemError {
  return new MemError(
    'PATH_OUTSIDE_VAULT',
    `${JSON.stringify(userPath)}: ${why}; paths must stay inside the vault`,
  );
}

/** Checks the text of a path and returns its segments; touches no file. */
function checkSegments(userPath: string, allowDirs: boolean, anyFolder: boolean): string[] {
  if (typeof userPath !== 'string' || userPath === '') throw invalid(String(userPath), 'empty path');
  // Control characters (NUL above all) truncate or confuse paths in C APIs and terminals.
  if (/[\u0000-\u001f]/.test(userPath)) throw invalid(userPath, 'contains a NUL or control character');
  if (userPath.includes('\\')) throw invalid(userPath, 'contains a backslash; use / between folders');
  if (userPath.startsWith('/') || /^[A-Za-z]:/.test(userPath)) throw outside(userPath, 'absolute path');
  let rest = userPath;
  while (rest.startsWith('./')) rest = rest.slice(2);
  if (allowDirs && rest.endsWith('/')) rest = rest.slice(0, -1);
  if (rest === '' || rest === '.') {
    if (allowDirs) return [];
    throw invalid(userPath, 'names the vault itself, not a note');
  }
  const segments = rest.split('/');
  for (const segment of segments) {
    if (segment === '..') throw outside(userPath, "contains '..'");
    if (segment === '' || segment === '.') throw invalid(userPath, 'has an empty or "." segment');
    if (anyFolder ? segment.toLowerCase() === '.git' : isIgnoredName(segment))
      throw invalid(userPath, ignoredReason(segment));
    if (WINDOWS_RESERVED.test(segment)) throw invalid(userPath, `${segment} is a reserved name on Windows`);
    if (/[ .]$/.test(segment)) throw invalid(userPath, `${JSON.stringify(segment)} ends in a space or dot`);
  }
  return segments;
}

function isInside(realRoot: string, realPath: string): boolean {
  return realPath === realRoot || realPath.startsWith(realRoot.endsWith(sep) ? realRoot : realRoot + sep);
}

async function present(abs: string): Promise<boolean> {
  return lstat(abs).then(
    () => true,
    () => false,
  );
}

/**
 * The absolute path of the entry a vault path (NFC) names on disk. Vault paths are NFC, but a file
 * written on macOS may be stored with decomposed (NFD) names, and Linux compares names byte by byte.
 * Tries the NFC form, then the NFD form, then matches each folder's listing by NFC name; when
 * nothing exists it returns the NFC form, so new files are created NFC.
 */
export async function findOnDisk(root: string, rel: string): Promise<string> {
  const nfc = join(root, rel.normalize('NFC'));
  // ASCII has one normal form; most paths stop here without touching the disk.
  if (/^[\x20-\x7e]*$/.test(rel) || (await present(nfc))) return nfc;
  const nfd = join(root, rel.normalize('NFD'));
  if (nfd !== nfc && (await present(nfd))) return nfd;
  // Mixed forms (an NFD folder holding an NFC file): match one name at a time as the folder lists it.
  let dir = root;
  for (const segment of rel.split('/')) {
    const wanted = segment.normalize('NFC');
    const names = await readdir(dir).catch(() => [] as string[]);
    const found = names.includes(wanted) ? wanted : names.find((name) => name.normalize('NFC') === wanted);
    if (found === undefined) return nfc;
    dir = join(dir, found);
  }
  return dir;
}

/**
 * Resolves a path given by a user, a model or a client to a file inside the vault, or refuses it.
 * The existing part of the path is resolved through symlinks and must stay inside realpath(root).
 * (realpath, lstat and stat synchronously: one system call each, where the thread pool's round trip
 * cost more.)
 * `rel` is NFC, as the index keys notes; `abs` is the entry as stored on disk (see findOnDisk).
 */
export async function resolveInVault(
  root: string,
  userPath: string,
  options: ResolveOptions = {},
): Promise<{ abs: string; rel: string }> {
  const segments = checkSegments(userPath, options.allowDirs ?? false, options.anyFolder ?? false);
  const rel = segments.join('/').normalize('NFC');
  const abs = segments.length === 0 ? root : await findOnDisk(root, rel);

  let realRoot: string;
  try {
    realRoot = realpathSync.native(root);
  } catch (error) {
    throw new MemError('NO_VAULT', `${root}: vault folder cannot be opened (${(error as Error).message})`);
  }

  // Walk up to the deepest ancestor that exists; its real path decides where a write would land.
  let existing = abs;
  let exists = true;
  for (;;) {
    try {
      lstatSync(existing);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT')
        throw invalid(userPath, (error as Error).message);
      exists = false;
      const parent = dirname(existing);
      if (parent === existing) break;
      existing = parent;
    }
  }
  let real: string;
  try {
    real = realpathSync.native(existing);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') throw invalid(userPath, 'goes through a symlink loop');
    if (code === 'ENOENT') throw invalid(userPath, 'goes through a symlink whose target is missing');
    throw invalid(userPath, (error as Error).message);
  }
  if (!isInside(realRoot, real)) throw outside(userPath, 'leads outside the vault through a symlink');

  if (!exists) {
    if (options.mustExist) throw new MemError('NOT_FOUND', `${rel}: no such file in the vault`);
    return { abs, rel };
  }
  const info = statSync(abs);
  if (info.isDirectory() && !options.allowDirs) throw invalid(userPath, 'is a folder, not a note');
  return { abs, rel };
}

/**
 * Normalises a note reference to a vault path ending in `.md`: NFC, without a leading `./`,
 * with `.md` added unless the name already ends in an extension Obsidian opens (`.md`, `.pdf`, `.png` …).
 * `Dr. Smith` and `v1.2 notes` become `Dr. Smith.md` and `v1.2 notes.md`, as in Obsidian.
 */
export function notePath(input: string): string {
  let path = input.normalize('NFC');
  while (path.startsWith('./')) path = path.slice(2);
  const name = path.slice(path.lastIndexOf('/') + 1);
  const dot = name.lastIndexOf('.');
  const extension = dot > 0 ? name.slice(dot + 1).toLowerCase() : '';
  return FILE_EXTENSIONS.has(extension) ? path : `${path}.md`;
}
