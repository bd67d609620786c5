import { realpath } from 'node:fs/promises';
import { relative, sep } from 'node:path';
import { MemError } from '../core/errors.js';
import { withVaultLock } from '../vault/lock.js';
import type { CommitResult } from './commit-paths.js';
import {
  diff,
  findUndoTarget,
  type HistoryEntry,
  history,
  isKeptByUndo,
  revertCommit,
  revertibleParent,
  touchedPaths,
} from './git-history.js';
import { gitRoot, isGitAvailable } from './run-git.js';

/** The vault's git repository and the vault's folder inside it (`''` when the vault is the top). */
export interface VaultRepo {
  repo: string;
  prefix: string;
}

export interface UndoOptions {
  /** Say which commit would be reverted and which files, and change nothing (default: false) */
  dryRun?: boolean;
}

export interface UndoResult extends CommitResult {
  /** True when nothing was changed because `dryRun` was asked for */
  dryRun?: boolean;
  /** The commit that was undone */
  undone: { sha: string; date: string; subject: string };
  /** Vault paths written back or deleted */
  paths: string[];
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

async function requireRepo(root: string, what: string): Promise<VaultRepo> {
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
  const repo = await requireRepo(root, 'mem diff');
  return diff(repo.repo, rev, repo.prefix ? [repo.prefix] : []);
}

/**
 * Reverts mem's newest commit (`mem: …`) that is not undone yet, under the write lock, when none of
 * its files changed since; otherwise refuses with CONFLICT and writes nothing. Repeated undos walk
 * back through mem's writes.
 */
export async function undoLastMemCommit(root: string, options: UndoOptions = {}): Promise<UndoResult> {
  const repo = await requireRepo(root, 'mem undo');
  const { commit: last, undone } = await findUndoTarget(repo.repo);
  if (!last) {
    const never = 'mem never undoes `mem: init vault` or a commit a person made';
    throw new MemError(
      'NOT_FOUND',
      undone > 0
        ? `nothing left to undo: the last ${undone} mem commits are writes that were undone and their undos (${never})`
        : `no mem commit to undo: no commit in this repository was made by a mem write (${never})`,
    );
  }
  if (options.dryRun) {
    const parent = await revertibleParent(repo.repo, last.sha);
    const touched = await touchedPaths(repo.repo, last.sha, parent);
    const paths = touched.flatMap((path) => toVaultPath(repo, path) ?? []);
    return { committed: false, reason: 'dry run: nothing was changed', dryRun: true, undone: last, paths };
  }
  return withVaultLock(root, async () => {
    const result = await revertCommit(repo.repo, last.sha, (path) => {
      const vaultPath = toVaultPath(repo, path);
      return vaultPath !== undefined && isKeptByUndo(vaultPath);
    });
    const paths = result.paths.flatMap((path) => toVaultPath(repo, path) ?? []);
    return { ...result, undone: last, paths };
  });
}
