import { realpath } from 'node:fs/promises';
import { relative, sep } from 'node:path';
import { expectString, MemError } from '../core/errors.js';
import { diff, type HistoryEntry, history } from './git-history.js';
import { gitRoot, isGitAvailable } from './run-git.js';

/** The vault's git repository and the vault's folder inside it (`''` when the vault is the top). */
export interface VaultRepo {
  repo: string;
  prefix: string;
}

/** The repository holding the vault, or undefined when there is none (or no git command). */
export async function findVaultRepo(root: string): Promise<VaultRepo | undefined> {
  if (!(await isGitAvailable())) return undefined;
  const repo = await gitRoot(root);
  if (!repo) return undefined;
  const prefix = relative(await realpath(repo), await realpath(root))
    .split(sep)
    .join('/');
  return { repo, prefix };
}

export async function requireRepo(root: string, what: string): Promise<VaultRepo> {
  const found = await findVaultRepo(root);
  if (!found)
    throw new MemError('GIT', `${root}: not in a git repository (or git is missing); ${what} needs git`);
  return found;
}

export function toRepoPath(repo: VaultRepo, vaultPath: string): string {
  return repo.prefix ? `${repo.prefix}/${vaultPath}` : vaultPath;
}

/** A repository path as a vault path, or undefined when it lies outside the vault's folder. */
export function toVaultPath(repo: VaultRepo, repoPath: string): string | undefined {
  if (!repo.prefix) return repoPath;
  return repoPath.startsWith(`${repo.prefix}/`) ? repoPath.slice(repo.prefix.length + 1) : undefined;
}

/** Commits that touched a note, newest first, following renames; paths are vault paths. */
export async function noteHistory(root: string, path: string): Promise<HistoryEntry[]> {
  const repo = await requireRepo(root, 'mem history');
  const entries = await history(repo.repo, toRepoPath(repo, path));
  return entries.map((entry) => ({ ...entry, path: toVaultPath(repo, entry.path) ?? entry.path }));
}

/** `git diff` limited to the vault: the working tree against HEAD, a range `a..b`, or one commit's changes. */
export async function vaultDiff(root: string, rev?: string): Promise<string> {
  if (rev !== undefined) expectString(rev, 'the revision');
  const repo = await requireRepo(root, 'mem diff');
  return diff(repo.repo, rev, repo.prefix ? [repo.prefix] : []);
}
