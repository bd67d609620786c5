import {
  closeSync,
  constants,
  fstatSync,
  fsync,
  lstatSync,
  openSync,
  readFileSync,
  type Stats,
  statSync,
  writeSync,
} from 'node:fs';
import { type FileHandle, open, stat } from 'node:fs/promises';
import { MemError } from './errors.js';

/**
 * The one way mem opens a file of the vault or of `.mem/`. A FIFO, socket or device can hold any
 * name a user or another program gives it (today's note, `write.lock`, `mem.config.json`), and
 * reading one blocks for ever or never ends. So every open is non-blocking (a FIFO opens at once,
 * with or without a writer) and the opened file is checked with fstat before a byte is read:
 * anything but a regular file is refused with an error that names it. Checking the open handle,
 * not the path, leaves no window for the name to be swapped. ENOENT and other errors of the open
 * itself pass through unchanged, so callers keep their handling of a missing file.
 */

const READ = constants.O_RDONLY | constants.O_NONBLOCK;
/** Append, creating the file: O_NONBLOCK makes the open of a FIFO without a reader fail (ENXIO) instead of waiting. */
const APPEND = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NONBLOCK;
/** Append to a file that is there (ENOENT when it is not), never making an empty one. */
const APPEND_EXISTING = constants.O_WRONLY | constants.O_APPEND | constants.O_NONBLOCK;
const FLAGS = { read: READ, append: APPEND, 'append-existing': APPEND_EXISTING };

/** What a file is, for an error message: `a FIFO`, `a socket`, `a directory` … */
export function fileKind(info: Stats): string {
  if (info.isFile()) return 'a regular file';
  if (info.isDirectory()) return 'a directory';
  if (info.isFIFO()) return 'a FIFO (named pipe)';
  if (info.isSocket()) return 'a socket';
  if (info.isCharacterDevice()) return 'a character device';
  if (info.isBlockDevice()) return 'a block device';
  if (info.isSymbolicLink()) return 'a symlink';
  return 'not a regular file';
}

export function notRegularFile(path: string, info: Stats): MemError {
  return new MemError(
    'INVALID_PATH',
    `${path} is ${fileKind(info)}, not a regular file; mem reads and writes only regular files there`,
  );
}

/** Throws unless `info` (from stat, lstat or fstat of `path`) is a regular file. */
export function assertRegularFile(path: string, info: Stats): void {
  if (!info.isFile()) throw notRegularFile(path, info);
}

/** Opens a regular file for reading or appending; refuses anything else without blocking. */
export async function openRegularFile(path: string, mode: 'read' | 'append' = 'read'): Promise<FileHandle> {
  let handle: FileHandle;
  try {
    handle = await open(path, mode === 'read' ? READ : APPEND, 0o644);
  } catch (error) {
    throw await describeOpenError(path, error);
  }
  try {
    assertRegularFile(path, await handle.stat());
  } catch (error) {
    await handle.close();
    throw error;
  }
  return handle;
}

/**
 * openRegularFile, synchronously, as a descriptor: for a file held open across many small writes
 * (the add journal), where the thread pool's round trips cost more than the open itself.
 */
export function openRegularFileSync(path: string, mode: keyof typeof FLAGS = 'read'): number {
  let fd: number;
  try {
    fd = openSync(path, FLAGS[mode], 0o644);
  } catch (error) {
    throw describeOpenErrorSync(path, error);
  }
  try {
    assertRegularFile(path, fstatSync(fd));
  } catch (error) {
    closeSync(fd);
    throw error;
  }
  return fd;
}

/** Writes all of `text` at a descriptor openRegularFileSync gave (a short write is written on). */
export function writeAllSync(fd: number, text: string): void {
  const bytes = Buffer.from(text);
  for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at);
}

/**
 * fsync of a descriptor openRegularFileSync gave, through the thread pool (it waits on the disk),
 * where the small calls around it are synchronous.
 */
export function fsyncDescriptor(fd: number): Promise<void> {
  return new Promise((resolve, reject) => fsync(fd, (error) => (error ? reject(error) : resolve())));
}

/** The bytes of a regular file (refusing a FIFO, socket, device or directory). */
export async function readRegularFile(path: string): Promise<Buffer> {
  const handle = await openRegularFile(path);
  try {
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}

/** The text of a regular file, decoded as UTF-8. */
export async function readRegularText(path: string): Promise<string> {
  return (await readRegularFile(path)).toString('utf8');
}

/** readRegularFile for the few synchronous readers (the index refresh reads notes in a tight loop). */
export function readRegularFileSync(path: string): Buffer {
  return readRegularFileStatSync(path).bytes;
}

/**
 * readRegularFileSync, with the fstat of the handle it read: the file as it was before the read
 * (`info`) and after it. When the two differ, a write ran during the read, which may hold a mix of
 * the old and the new text or only the first part of the new (nothing keeps a reader out while an
 * editor's save copies its pages in).
 */
export function readRegularFileStatSync(path: string): { bytes: Buffer; info: Stats; after: Stats } {
  let fd: number;
  try {
    fd = openSync(path, READ);
  } catch (error) {
    throw describeOpenErrorSync(path, error);
  }
  try {
    const info = fstatSync(fd);
    assertRegularFile(path, info);
    const bytes = readFileSync(fd);
    return { bytes, info, after: fstatSync(fd) };
  } finally {
    closeSync(fd);
  }
}

/** A socket cannot be opened (ENXIO), nor a FIFO for writing without a reader: say what is there. */
async function describeOpenError(path: string, error: unknown): Promise<unknown> {
  if ((error as NodeJS.ErrnoException).code !== 'ENXIO') return error;
  const info = await stat(path).catch(() => undefined);
  return info && !info.isFile() ? notRegularFile(path, info) : error;
}

function describeOpenErrorSync(path: string, error: unknown): unknown {
  if ((error as NodeJS.ErrnoException).code !== 'ENXIO') return error;
  const info = statSync(path, { throwIfNoEntry: false });
  return info && !info.isFile() ? notRegularFile(path, info) : error;
}

/**
 * The entry at `path` (not following a final symlink when `link`), or undefined when there is none
 * or it cannot be looked at: synchronously, one system call, where a thread-pool round trip costs
 * more (the vault walk stats every note; an add looks at its day note).
 */
export function statOrUndefined(path: string, link = false): Stats | undefined {
  try {
    return (link ? lstatSync : statSync)(path, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}
