// The git merge driver for day notes, so a plain `git pull` (obsidian-git, the command line)
// merges days entry by entry as `mem sync` does, without mem running: git calls
// `mem merge-driver %O %A %B %P`, which writes the merge over %A. Also its setup: one
// `.gitattributes` line in the vault and the driver's command in the repository's local config.
import { existsSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { MemConfig } from '../core/config.js';
import { readRegularText } from '../core/regular-file.js';
import { git } from '../git/run-git.js';
import { findVaultRepo } from '../git/vault-git.js';
import { EPISODE_MERGE_DRIVER, episodeGlob } from '../vault/episode-glob.js';
import { writeAtomic } from '../vault/write-note.js';

/**
 * Merges the day note at repository path `path` from git's three temp files (`%O %A %B`) into
 * `ours` (%A), as git asks of a merge driver. Never leaves conflict markers: the result is clean.
 */
export async function mergeEpisodeFiles(
  base: string,
  ours: string,
  theirs: string,
  path: string,
): Promise<void> {
  // Regular files only (git's temp files are): anything else is refused, not waited on.
  const read = (file: string) =>
    readRegularText(file).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return '';
      throw error;
    });
  const [b, o, t] = await Promise.all([read(base), read(ours), read(theirs)]);
  // Links name a day note by its file name, whatever the vault's date format.
  // The merge (and its line diff) loads when git calls the driver, not with `mem init`.
  const { mergeDay } = await import('./merge-day.js');
  const merged = mergeDay(b, o, t, basename(path).replace(/\.md$/, ''));
  await writeAtomic(ours, merged.text);
}

/** The command git runs: this install's CLI under this Node, whatever the PATH of the app calling git. */
function driverCommand(): string {
  const cli = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));
  const quote = (s: string) => `'${s.replaceAll("'", "'\\''")}'`;
  const mem = existsSync(cli) ? `${quote(process.execPath)} ${quote(cli)}` : 'mem';
  return `${mem} merge-driver %O %A %B %P`;
}

const attributeLine = (config: Pick<MemConfig, 'layout'>) =>
  `${episodeGlob(config)} merge=${EPISODE_MERGE_DRIVER}`;

/**
 * Sets the merge driver in the vault's repository (local config, every time: the install may have
 * moved) and adds the `.gitattributes` line to the vault when missing. Returns the vault paths
 * written (`.gitattributes`, to commit), or [] when there is no repository or nothing to add.
 */
export async function installMergeDriver(root: string, config: Pick<MemConfig, 'layout'>): Promise<string[]> {
  const repo = await findVaultRepo(root);
  if (!repo) return [];
  const key = `merge.${EPISODE_MERGE_DRIVER}`;
  await git(repo.repo, ['config', '--local', `${key}.name`, 'memvault: day notes merged entry by entry']);
  await git(repo.repo, ['config', '--local', `${key}.driver`, driverCommand()]);
  const file = join(root, '.gitattributes');
  const text = await readRegularText(file).catch(() => '');
  const line = attributeLine(config);
  if (text.split(/\r?\n/).some((l) => l.trim() === line)) return [];
  await writeAtomic(file, `${text}${text === '' || text.endsWith('\n') ? '' : '\n'}${line}\n`);
  return ['.gitattributes'];
}
