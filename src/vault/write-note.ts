import { createHash, randomBytes } from 'node:crypto';
import { link, lstat, mkdir, open, readFile, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { MemError } from '../core/errors.js';

export interface WriteOptions {
  /** sha256 hex the file must still have; `null`: the file must not exist; undefined: no check */
  expectedHash?: string | null;
  /** Name used in error messages, e.g. the vault-relative path (default: the absolute path) */
  label?: string;
}

export interface UpdateOptions {
  /** How many times to re-read and re-run the transform after a conflict (default: 5) */
  retries?: number;
  /** Name used in error messages (default: the absolute path) */
  label?: string;
}

export function hashText(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** Reads a file with the sha256 of its raw bytes; undefined when it does not exist. */
export async function readForWrite(abs: string): Promise<{ text: string; hash: string } | undefined> {
  let bytes: Buffer;
  try {
    bytes = await readFile(abs);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  return { text: bytes.toString('utf8'), hash: hashText(bytes) };
}

async function currentHash(abs: string): Promise<string | null> {
  const current = await readForWrite(abs);
  return current === undefined ? null : current.hash;
}

function conflict(label: string): MemError {
  return new MemError('CONFLICT', `${label} changed on disk since it was read; nothing was written`);
}

async function removeQuietly(path: string): Promise<void> {
  await unlink(path).catch(() => undefined);
}

/** Flushes the folder entry so the rename survives a crash; not every platform allows it. */
async function syncFolder(dir: string): Promise<void> {
  try {
    const handle = await open(dir, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // Best effort: Windows and some network file systems cannot fsync a folder.
  }
}

/**
 * Writes a whole file atomically: a unique dot-prefixed temp file in the same folder (watchers and
 * Obsidian ignore it), fsync, compare-and-swap against `expectedHash`, then rename over the target.
 * A reader sees the old file or the new one, never a half-written one.
 */
export async function writeAtomic(
  abs: string,
  text: string | Uint8Array,
  options: WriteOptions = {},
): Promise<void> {
  const label = options.label ?? abs;
  let mode: number | undefined;
  try {
    const info = await lstat(abs);
    if (info.isSymbolicLink()) {
      throw new MemError('INVALID_PATH', `${label} is a symlink; mem does not write through symlinks`);
    }
    if (!info.isFile()) throw new MemError('INVALID_PATH', `${label} is not a regular file`);
    mode = info.mode & 0o777;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }

  const dir = dirname(abs);
  await mkdir(dir, { recursive: true });
  // pid + random bytes: two writers (or two processes) never share a temp name.
  const temp = join(dir, `.${basename(abs)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    const handle = await open(temp, 'wx', mode ?? 0o644);
    try {
      await handle.writeFile(text);
      await handle.sync();
    } finally {
      await handle.close();
    }

    if (options.expectedHash === null) {
      // Creating: link() fails when the target appeared meanwhile, so this check has no window at all.
      try {
        await link(temp, abs);
        await removeQuietly(temp);
        await syncFolder(dir);
        return;
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'EEXIST') throw conflict(label);
        // File systems without hard links fall through to check-then-rename.
      }
    }
    if (options.expectedHash !== undefined && (await currentHash(abs)) !== options.expectedHash) {
      throw conflict(label);
    }
    await rename(temp, abs);
    await syncFolder(dir);
  } catch (error) {
    await removeQuietly(temp);
    throw error;
  }
}

/**
 * Read, transform, write with compare-and-swap; on a conflict the transform runs again on the new
 * content (so an append never overwrites a hand edit). `transform` returns undefined for "no change".
 */
export async function updateFile(
  abs: string,
  transform: (current: string | undefined) => string | undefined,
  options: UpdateOptions = {},
): Promise<{ text: string | undefined; changed: boolean }> {
  const retries = options.retries ?? 5;
  const label = options.label ?? abs;
  for (let attempt = 0; ; attempt++) {
    const current = await readForWrite(abs);
    const next = transform(current?.text);
    if (next === undefined || next === current?.text) return { text: current?.text, changed: false };
    try {
      await writeAtomic(abs, next, { expectedHash: current?.hash ?? null, label });
      return { text: next, changed: true };
    } catch (error) {
      if (!(error instanceof MemError) || error.code !== 'CONFLICT') throw error;
      if (attempt >= retries) {
        throw new MemError(
          'CONFLICT',
          `${label} kept changing on disk (${attempt + 1} attempts); nothing was written`,
          {
            cause: error,
          },
        );
      }
    }
  }
}
