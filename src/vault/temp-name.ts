import { randomBytes } from 'node:crypto';
import { lstat, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { isAlive } from '../core/serve-record.js';

/**
 * The temporary name an atomic write uses beside its target: dot-prefixed (watchers and Obsidian
 * ignore it), with the writer's pid and random bytes (two writers never share one).
 */
export function tempPathFor(abs: string): string {
  return join(dirname(abs), `.${basename(abs)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
}

/** tempPathFor's names, and the `.old` second name writeAtomic keeps of a file it replaces. */
const TEMP_NAME = /^\.(.+)\.(\d{1,10})\.[0-9a-f]{12}\.tmp(?:\.old)?$/;

/** The pid that wrote a temp file of mem's, or undefined when `name` is not one of mem's temp names. */
export function tempWriterPid(name: string): number | undefined {
  const match = TEMP_NAME.exec(name);
  return match ? Number(match[2]) : undefined;
}

/** A write lasts milliseconds: a temp file this old whose writer has exited was left by a kill. */
export const DEAD_WRITER_AGE_MS = 60_000;
/** Past this a temp file goes whoever wrote it (its pid may have been reused, or be on another host). */
export const ANY_WRITER_AGE_MS = 24 * 3_600_000;

/**
 * Removes temp files of mem's that a killed write left: only names mem makes (tempPathFor), only
 * regular files, and only when their writer is gone (and the file older than a minute, in case it
 * was written from another host into a shared folder) or the file is a day old. A user's file is
 * never removed. Returns the paths removed.
 */
export async function removeLeftoverTemps(paths: string[], now = Date.now()): Promise<string[]> {
  const removed: string[] = [];
  for (const abs of paths) {
    const pid = tempWriterPid(basename(abs));
    if (pid === undefined) continue;
    const info = await lstat(abs).catch(() => undefined);
    if (!info?.isFile()) continue;
    const age = now - info.mtimeMs;
    const gone = pid !== process.pid && !isAlive(pid);
    if ((gone && age > DEAD_WRITER_AGE_MS) || age > ANY_WRITER_AGE_MS) {
      await unlink(abs).then(
        () => removed.push(abs),
        () => undefined,
      );
    }
  }
  return removed;
}
