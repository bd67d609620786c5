// Reads of a file that a person's editor may be saving at the same moment. An in-place save
// truncates the file, then copies the new text in page by page, and nothing keeps a reader out
// meanwhile: a read can find the file empty, or the first pages of the new text, which may end with
// a line break like a whole note. An append planned on such a read adds lines the note already
// holds, after the rest of it (write-note.ts's appendVerified).
import type { Stats } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { MemError } from '../core/errors.js';
import { readRegularFileStatSync } from '../core/regular-file.js';
import { racePoint } from './race-point.js';

/**
 * The key an unchanged file keeps: its size, mtime, ctime and inode. The ctime too: a tool that
 * rewrites a file in place and sets its mtime back (`touch -d`, `cp -p`, `rsync -t`) cannot set
 * the ctime back, and a same-size rewrite with the mtime restored was otherwise this file still.
 */
export function statKey(info: Pick<Stats, 'size' | 'mtimeMs' | 'ctimeMs' | 'ino'>): string {
  return `${info.size}:${info.mtimeMs}:${info.ctimeMs}:${info.ino}`;
}

/** One read of a file: its bytes, its stat key before the read, and whether no write ran during it. */
export interface FileRead {
  bytes: Buffer;
  key: string;
  /** The file's stat was the same after the read as before: the bytes are the file at one moment */
  steady: boolean;
}

/** Reads a regular file synchronously; undefined when it does not exist. */
export function readSteady(abs: string): FileRead | undefined {
  try {
    const { bytes, info, after } = readRegularFileStatSync(abs);
    const key = statKey(info);
    return { bytes, key, steady: key === statKey(after) };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/**
 * A read an append can build on: the file is missing, or was read while no write ran, is not empty,
 * ends with a line break and is not the first part of `seen`, the text this process last found in
 * the file (a save whose first writes are done stands still between them, and what it has written
 * so far may end with a line break too).
 */
export function isWhole(read: FileRead | undefined, seen?: Buffer): boolean {
  if (read === undefined) return true;
  const { bytes } = read;
  if (!read.steady || bytes.length === 0 || bytes.at(-1) !== 0x0a) return false;
  return !(seen && seen.length > bytes.length && seen.subarray(0, bytes.length).equals(bytes));
}

/**
 * How long an empty or cut-short file must stay so before an append trusts it: an in-place save
 * truncates, then writes, and under load the two can be a hundred milliseconds apart or more.
 */
const PARTIAL_SETTLE_MS = 1000;

/**
 * Reads a file an editor may be saving in place, until two steady reads a moment apart agree and
 * the text is whole, or, for a file that keeps changing, until a read is whole; a text that is not
 * whole is taken only once it has stayed the same for PARTIAL_SETTLE_MS (a note a person emptied,
 * or cut the end of).
 * Throws CONFLICT when nothing settles.
 */
export async function settledRead(abs: string, label: string, seen?: Buffer): Promise<FileRead | undefined> {
  let last = readSteady(abs);
  let since = Date.now();
  for (let i = 0; i < 60; i++) {
    await sleep(Math.min(2 + 3 * i, 50));
    racePoint('settling', abs);
    const next = readSteady(abs);
    const same = next?.key === last?.key && (next === undefined || next.bytes.equals(last!.bytes));
    if (!same || next?.steady === false) since = Date.now();
    if (isWhole(next, seen) && (same || i >= 7)) return next;
    if (same && Date.now() - since >= PARTIAL_SETTLE_MS) return next;
    last = next;
  }
  throw new MemError('CONFLICT', `${label} changed on disk since it was read; nothing was written`);
}

/**
 * readSteady, read again (1 ms apart, at most `tries` more times) while writes run during it: the
 * file as it stands right after a write of this process, when another writer lets it stand.
 */
export async function readSteadySoon(abs: string, tries = 20): Promise<FileRead | undefined> {
  let read = readSteady(abs);
  for (let i = 0; read?.steady === false && i < tries; i++) {
    await sleep(1);
    read = readSteady(abs);
  }
  return read;
}
