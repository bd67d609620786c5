// The git merge driver for day notes, so a plain `git pull` (obsidian-git, the command line)
// merges days entry by entry as `mem sync` does. The vault's `.gitattributes` names git's built-in
// `union` driver for day notes: a clone where mem never ran (a phone) merges a day both sides wrote
// with no conflict markers, both sides' lines kept, and mem repairs the result at its next write
// (repair-union.ts). A clone where mem runs defines `merge.union.driver` in its local config (git
// looks up drivers the config defines before its built-in ones), as a shell line that runs `mem
// merge-driver %O %A %B %P` from PATH, and `git merge-file --union` where mem is not on PATH: no
// clone's path or Node binary is written into the config, so a moved or copied clone still merges.
// The driver merges a day note with mergeDay and any other file `merge=union` names as union does.
import { dirname, join, relative, resolve, sep } from 'node:path';
import { CONFIG_FILE, loadConfig, type MemConfig } from '../../core/config/config.js';
import { readRegularText } from '../../core/regular-file.js';
import { exists, git } from '../../git/run-git.js';
import { findVaultRepo } from '../../git/vault-git.js';
import { dayOfEpisodePath, EPISODE_MERGE_DRIVER, episodeGlob } from '../../vault/episode-glob.js';
import { writeAtomic } from '../../vault/write-note.js';

/** The git driver the attribute names: built in where mem is not set up, mem's where it is. */
export const UNION_DRIVER = 'union';

/**
 * The vault folder holding repository path `path` (the nearest folder up from it with
 * `mem.config.json`, within the repository at `top`), or undefined.
 */
async function vaultOf(top: string, path: string): Promise<string | undefined> {
  for (let dir = dirname(join(top, path)); ; dir = dirname(dir)) {
    if (await exists(join(dir, CONFIG_FILE))) return dir;
    if (dir === top || dirname(dir) === dir || relative(top, dir).startsWith('..')) return undefined;
  }
}

/** Whether repository path `path` is a day note of a vault in the repository at `top`. */
async function isDayNote(top: string, path: string): Promise<boolean> {
  const vault = await vaultOf(top, path);
  if (!vault) return false;
  const config = await loadConfig(vault).catch(() => undefined);
  if (!config) return false;
  const vaultPath = relative(vault, join(top, path)).split(sep).join('/');
  return dayOfEpisodePath(vaultPath, config) !== undefined;
}

/**
 * Merges the file at repository path `path` from git's three temp files (`%O %A %B`) into `ours`
 * (%A), as git asks of a merge driver: a day note entry by entry (mergeDay), any other file as
 * git's union merge does (both sides' lines). Never leaves conflict markers: the result is clean.
 * `top` is the repository's work tree (git runs drivers there).
 */
export async function mergeEpisodeFiles(
  base: string,
  ours: string,
  theirs: string,
  path: string,
  top: string = process.cwd(),
): Promise<void> {
  // git's temp file names are relative to the work tree, where git runs the driver.
  [base, ours, theirs] = [base, ours, theirs].map((f) => resolve(top, f)) as [string, string, string];
  // Regular files only (git's temp files are): anything else is refused, not waited on.
  const read = (file: string) =>
    readRegularText(file).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return '';
      throw error;
    });
  const [b, o, t] = await Promise.all([read(base), read(ours), read(theirs)]);
  if (!(await isDayNote(top, path))) {
    await git(top, ['merge-file', '--union', '-q', ours, base, theirs]);
    return;
  }
  // Links name a day note by its file name, whatever the vault's date format.
  // The merge (and its line diff) loads when git calls the driver, not with `mem init`.
  const { mergeDay } = await import('./merge-day.js');
  const name = path.slice(path.lastIndexOf('/') + 1).replace(/\.md$/, '');
  const merged = mergeDay(b, o, t, name);
  await writeAtomic(ours, merged.text);
}

/**
 * The command git runs (through `sh -c`, with %P already quoted by git): `mem` from PATH, and
 * git's own union merge where there is none (an app whose PATH lacks it): mem repairs that later.
 */
export const DRIVER_COMMAND =
  'if command -v mem >/dev/null 2>&1; then exec mem merge-driver %O %A %B %P; else exec git merge-file --union -q %A %O %B; fi';

const DRIVER_NAME = 'memvault: day notes merged entry by entry, other files as union';

/** Config keys and values: the union driver, and the old attribute's name for days committed with it. */
const DRIVER_CONFIG: [string, string][] = [UNION_DRIVER, EPISODE_MERGE_DRIVER].flatMap((name) => [
  [`merge.${name}.name`, DRIVER_NAME],
  [`merge.${name}.driver`, DRIVER_COMMAND],
]);

/** Repositories this process has set the driver in. */
const configured = new Set<string>();

/**
 * Sets the merge driver in the repository's local config where it is not already so; once a process
 * for each repository (a second call reads nothing), so every write may call it.
 */
export async function configureMergeDriver(repo: string): Promise<void> {
  if (configured.has(repo)) return;
  const out =
    (await git(repo, ['config', '--local', '-z', '--get-regexp', '^merge\\.'], { allowFail: true })) ?? '';
  const have = new Map<string, string>();
  for (const item of out.split('\0')) {
    const nl = item.indexOf('\n');
    if (nl > 0) have.set(item.slice(0, nl), item.slice(nl + 1));
  }
  for (const [key, value] of DRIVER_CONFIG)
    if (have.get(key) !== value) await git(repo, ['config', '--local', key, value]);
  configured.add(repo);
}

const attributeLine = (config: Pick<MemConfig, 'layout'>) => `${episodeGlob(config)} merge=${UNION_DRIVER}`;

/**
 * Whether the vault is set up for syncing as installMergeDriver leaves it: the merge driver in the
 * repository's config and the `.gitattributes` line on disk. (Whether the file is committed is
 * the caller's question.)
 */
export async function mergeDriverInstalled(
  root: string,
  repo: string,
  config: Pick<MemConfig, 'layout'>,
): Promise<boolean> {
  await configureMergeDriver(repo);
  const text = await readRegularText(join(root, '.gitattributes')).catch(() => '');
  const line = attributeLine(config);
  return text.split(/\r?\n/).some((l) => l.trim() === line);
}

/**
 * Sets the merge driver in the vault's repository and adds the `.gitattributes` line to the vault
 * when missing (replacing the `merge=memvault-episodes` line earlier versions wrote, which a clone
 * without mem's config merged with conflict markers). Returns the vault paths written
 * (`.gitattributes`, to commit), or [] when there is no repository or nothing to add.
 */
export async function installMergeDriver(root: string, config: Pick<MemConfig, 'layout'>): Promise<string[]> {
  const repo = await findVaultRepo(root);
  if (!repo) return [];
  await configureMergeDriver(repo.repo);
  const file = join(root, '.gitattributes');
  const text = await readRegularText(file).catch(() => '');
  const line = attributeLine(config);
  const old = `${episodeGlob(config)} merge=${EPISODE_MERGE_DRIVER}`;
  const lines = text.split(/\r?\n/);
  if (lines.some((l) => l.trim() === line)) return [];
  const at = lines.findIndex((l) => l.trim() === old);
  if (at >= 0) {
    lines[at] = line;
    await writeAtomic(file, lines.join(text.includes('\r\n') ? '\r\n' : '\n'));
  } else await writeAtomic(file, `${text}${text === '' || text.endsWith('\n') ? '' : '\n'}${line}\n`);
  return ['.gitattributes'];
}
