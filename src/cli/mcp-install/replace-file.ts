import { randomBytes } from 'node:crypto';
import { copyFile, mkdir, open, realpath, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { MemError } from '../../core/errors.js';
import { readRegularText } from '../../core/regular-file.js';
import { writeError } from '../../core/write-error.js';

/** A client's config file as read: its real path (links followed) and text ('' when absent). */
export interface ConfigFile {
  path: string;
  realPath: string;
  exists: boolean;
  text: string;
}

/** Its text, or null when there is none; a FIFO, socket or device there is refused, never read. */
function readConfigText(path: string): Promise<string | null> {
  return readRegularText(path).then(
    (t) => t,
    (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return null;
      throw error;
    },
  );
}

/**
 * Reads a client's config file. Through the regular-files-only reader (core/regular-file.ts): a
 * FIFO where the file should be made `mem mcp install` wait for ever for a writer.
 */
export async function readConfigFile(path: string): Promise<ConfigFile> {
  // A config kept in a dotfiles folder and linked here is written where it lives, and stays linked.
  const realPath = await realpath(path).catch(() => path);
  const text = await readConfigText(realPath);
  return { path, realPath, exists: text !== null, text: text ?? '' };
}

/**
 * Replaces the file with `text`, whole or not at all: a copy of the old file is kept as `<file>.bak`,
 * the new text goes to a temporary file beside it (with the old file's mode) and is renamed over.
 * When the file changed since `file` was read (the client rewrote it meanwhile), nothing is written.
 */
export async function replaceConfigFile(file: ConfigFile, text: string): Promise<{ backup?: string }> {
  const target = file.realPath;
  await mkdir(dirname(target), { recursive: true });
  const current = await readConfigText(target);
  const before = current === null ? undefined : await stat(target);
  if ((current ?? '') !== file.text || (current !== null) !== file.exists) {
    throw new MemError(
      'CONFLICT',
      `${file.path} changed while mem was reading it; nothing written, run again`,
    );
  }
  const temp = join(
    dirname(target),
    `.${basename(target)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`,
  );
  let backup: string | undefined;
  try {
    if (before) {
      backup = `${target}.bak`;
      await copyFile(target, backup);
    }
    const handle = await open(temp, 'wx', before ? before.mode & 0o777 : 0o644);
    try {
      await handle.writeFile(text);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, target);
  } catch (error) {
    await rm(temp, { force: true });
    throw writeError(target, error);
  }
  return { backup };
}
