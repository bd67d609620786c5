// The notes mem made and has not committed yet, in `.mem/created.json`. A note mem creates is mem's
// whether or not git has it yet: a process killed after creating a day note and before its commit
// left a note that the next process would otherwise take for the person's (git does not have it,
// so mem invents no version of it) and never commit, nor any entry appended to it later. Recorded
// under the write lock before the note is made, and dropped once a commit holds the note.
import { join } from 'node:path';
import { CACHE_DIR, cacheDir, ensureCacheDir } from '../core/cache-dir.js';
import { readRegularFileSync } from '../core/regular-file.js';
import { writeAtomic } from '../vault/write-note.js';
import { badPlanPath } from './pending-plan.js';
import { git, isGitAvailable } from './run-git.js';

const FILE = 'created.json';
const fileOf = (root: string) => join(cacheDir(root), FILE);

/** The paths in the record; none when it is missing, unreadable, or tracked by git (a remote's). */
async function readCreated(root: string): Promise<string[]> {
  // Read synchronously: a small file in `.mem/`, looked for on every append to a day note.
  let text: string | undefined;
  try {
    text = readRegularFileSync(fileOf(root)).toString('utf8');
  } catch {
    text = undefined;
  }
  if (text === undefined) return [];
  let paths: unknown;
  try {
    paths = JSON.parse(text);
  } catch {
    return [];
  }
  if (!Array.isArray(paths) || paths.length === 0) return [];
  const valid = paths.filter((p): p is string => badPlanPath(p) === undefined);
  return valid.length > 0 && (await trackedByGit(root)) ? [] : valid;
}

/** Whether git tracks the record (a remote's: mem never commits `.mem/`); asked once a process a vault. */
const tracked = new Map<string, Promise<boolean>>();
function trackedByGit(root: string): Promise<boolean> {
  let found = tracked.get(root);
  if (!found) {
    found = (async () =>
      (await isGitAvailable()) &&
      Boolean((await git(root, ['ls-files', '--', `${CACHE_DIR}/${FILE}`], { allowFail: true }))?.trim()))();
    tracked.set(root, found);
  }
  return found;
}

/** Records that mem is about to make the note at `path` (call it under the write lock, before the write). */
export async function recordCreated(root: string, path: string): Promise<void> {
  const paths = await readCreated(root);
  if (paths.includes(path)) return;
  await ensureCacheDir(root);
  await writeAtomic(fileOf(root), `${JSON.stringify([...paths, path])}\n`, { label: `.mem/${FILE}` });
}

/** Whether mem made the note at `path` and no commit holds it yet. */
export async function createdByMem(root: string, path: string): Promise<boolean> {
  return (await readCreated(root)).includes(path);
}

/** Drops `paths` from the record: a commit holds them now (call it under the write lock). */
export async function forgetCreated(root: string, paths: string[]): Promise<void> {
  const recorded = await readCreated(root);
  if (recorded.length === 0) return;
  const left = recorded.filter((p) => !paths.includes(p));
  if (left.length === recorded.length) return;
  await writeAtomic(fileOf(root), `${JSON.stringify(left)}\n`, { label: `.mem/${FILE}` });
}
