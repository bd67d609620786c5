// What a repository's own files say without starting git: where its git directory is, and which
// branch HEAD names. A group commit and its sync asked git for these nine times between them (the
// work tree's top three times, HEAD's branch four): a process each, on a server where git's
// processes took as much CPU as the requests. Anything these files do not say plainly (a reftable
// repository, an unexpected `.git` file) is left to git, which the callers then run as before.
import { lstat, readFile, realpath } from 'node:fs/promises';
import { dirname, isAbsolute, join, resolve } from 'node:path';

const exists = (path: string) =>
  lstat(path).then(
    () => true,
    () => false,
  );

/**
 * The work tree's top folder as last found for `dir`, while it still holds: its `.git` is there
 * and no folder from `dir` up to it has gained a `.git` of its own (`git init` in the vault).
 */
const tops = new Map<string, string>();

/** A top folder found for `dir` before, still the top; undefined: ask git. */
export async function knownTop(dir: string): Promise<string | undefined> {
  const top = tops.get(dir);
  if (top === undefined) return undefined;
  if (!(await exists(join(top, '.git')))) return forget(dir);
  const real = await realpath(dir).catch(() => undefined);
  if (real === undefined) return forget(dir);
  for (let folder = real; folder !== top && folder.startsWith(`${top}/`); folder = dirname(folder)) {
    if (await exists(join(folder, '.git'))) return forget(dir);
  }
  return top;
}

export function rememberTop(dir: string, top: string | undefined): void {
  if (top === undefined) tops.delete(dir);
  else tops.set(dir, top);
}

function forget(dir: string): undefined {
  tops.delete(dir);
  return undefined;
}

/**
 * The git directory of the work tree at `top`: its `.git` folder, or the folder a `.git` file
 * points to (a linked work tree, a submodule). Undefined when neither reads plainly.
 */
export async function gitDirOf(top: string): Promise<string | undefined> {
  const dotGit = join(top, '.git');
  const info = await lstat(dotGit).catch(() => undefined);
  if (info?.isDirectory()) return dotGit;
  if (!info?.isFile()) return undefined;
  const text = await readFile(dotGit, 'utf8').catch(() => '');
  const target = /^gitdir: (.+)$/m.exec(text)?.[1]?.trim();
  if (!target) return undefined;
  return isAbsolute(target) ? target : resolve(top, target);
}

/**
 * What HEAD names: `{ branch }` for a branch (`refs/heads/<branch>`), `{ detached: true }` for a
 * commit, undefined when the file does not say plainly (a reftable repository keeps a stub HEAD;
 * a symbolic ref outside `refs/heads/`): ask git.
 */
export async function headOf(gitDir: string): Promise<{ branch: string } | { detached: true } | undefined> {
  const text = await readFile(join(gitDir, 'HEAD'), 'utf8').catch(() => undefined);
  if (text === undefined) return undefined;
  const line = text.trim();
  if (/^[0-9a-f]{40}(?:[0-9a-f]{24})?$/.test(line)) return { detached: true };
  const branch = /^ref: refs\/heads\/(.+)$/.exec(line)?.[1];
  if (!branch || branch === '.invalid') return undefined;
  return { branch };
}
