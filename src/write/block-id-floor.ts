// The highest id number mem has given out in each daily note (`^eN`, or `^eN-k7q2` with this
// device's tag: device-tag.ts), kept in `.mem/block-ids.json`, so an id is never handed out twice:
// a person who deletes mem's last entries (or its whole section) frees their ids in the note, but a
// citation elsewhere (`[[2026-12-02#^e3]]`, in an insight, a rollup, the person's own note) still
// means the entry that was deleted, never the next one written.
// Read and raised under the vault's write lock. It is a cache like the rest of `.mem/`: without it,
// ids start above those in the note and those the vault's links cite (the caller's floor).
import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cacheDir, ensureCacheDir } from '../core/cache-dir.js';
import { readRegularFileSync } from '../core/regular-file.js';
import { tempPathFor } from '../vault/temp-name.js';
import { blockIdNumber, MAX_CITED_ID } from './episode-entry.js';

const FILE = 'block-ids.json';

/**
 * The floors of every note, as `.mem/block-ids.json` holds them; read once per write, under the lock.
 * Synchronously, as it is written: a small file in `.mem/`, where an open, an fstat, a read and a
 * close through the thread pool cost more than the calls, on every chat turn.
 */
export async function readFloors(root: string): Promise<Record<string, number>> {
  try {
    const data = JSON.parse(readRegularFileSync(join(cacheDir(root), FILE)).toString('utf8')) as unknown;
    return data !== null && typeof data === 'object' && !Array.isArray(data)
      ? (data as Record<string, number>)
      : {};
  } catch {
    return {};
  }
}

/**
 * The highest id number given out in the note at vault path `path` (0: none known, or one past
 * MAX_CITED_ID, which the counter does not follow: episode-entry.ts).
 */
export async function blockIdFloor(
  root: string,
  path: string,
  /** The floors as read under the lock held now (readFloors), when the caller read them */
  read?: Record<string, number>,
): Promise<number> {
  const floor = (read ?? (await readFloors(root)))[path];
  return typeof floor === 'number' && Number.isSafeInteger(floor) && floor > 0 && floor <= MAX_CITED_ID
    ? floor
    : 0;
}

/** Records that ids numbered up to the highest of `ids` (`eN`, `eN-tag`) were given out in the note at `path`. */
export async function raiseBlockIdFloor(
  root: string,
  path: string,
  ids: string[],
  /** The floors as read under the lock held now (readFloors): only this process writes them meanwhile */
  read?: Record<string, number>,
): Promise<void> {
  // A loop, not Math.max(...ids): an import's day of 150,000 ids overflows the stack as arguments.
  let top = 0;
  for (const id of ids) top = Math.max(top, blockIdNumber(id));
  if (top === 0) return;
  const floors = read ?? (await readFloors(root));
  if ((floors[path] ?? 0) >= top) return;
  floors[path] = top;
  const file = join(await ensureCacheDir(root), FILE);
  const temp = tempPathFor(file);
  // Replaced by rename, so a reader never sees half a file; not synced: losing it costs nothing
  // the note and the vault's links do not still say.
  writeFileSync(temp, JSON.stringify(floors));
  renameSync(temp, file);
}
