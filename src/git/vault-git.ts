import { realpath } from 'node:fs/promises';
import { relative, sep } from 'node:path';
import { MemError } from '../core/errors.js';
import { withVaultLock } from '../vault/lock.js';
import type { CommitResult } from './commit-paths.js';
import { finishPendingPlan, removePlanTemps } from './commit-write.js';
import {
  diff,
  findUndoTarget,
  type HistoryEntry,
  history,
  isKeptByUndo,
  type MemCommit,
  revertCommit,
  revertibleParent,
  touchedPaths,
} from './git-history.js';
import { clearPendingPlan, readPendingPlan, writePendingPlan } from './pending-plan.js';
import { git, gitRoot, isGitAvailable } from './run-git.js';

/** The vault's git repository and the vault's folder inside it (`''` when the vault is the top). */
export interface VaultRepo {
  repo: string;
  prefix: string;
}

export interface UndoOptions {
  /** Say which commit would be reverted and which files, and change nothing (default: false) */
  dryRun?: boolean;
  /** Run the repository's commit hooks on the undo's commit, as on every other (`git.runHooks`) */
  runHooks?: boolean;
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

/** The key of an undo's plan (see pending-plan.ts), followed by the sha it reverts. */
const UNDO_PLAN = 'undo ';

/** A commit's sha, date and subject; NOT_FOUND when the repository does not have it. */
async function memCommit(repoRoot: string, sha: string): Promise<MemCommit> {
  const line = await git(repoRoot, ['log', '-1', `--format=%H${'\x1f'}%aI${'\x1f'}%s`, sha, '--'], {
    allowFail: true,
  });
  const [full = '', date = '', subject = ''] = (line ?? '').trim().split('\x1f');
  if (!full) throw new MemError('NOT_FOUND', `${sha}: the commit an interrupted undo was reverting is gone`);
  return { sha: full, date, subject };
}

/**
 * Reverts mem's newest commit (`mem: …`) that is not undone yet, under the write lock, when none of
 * its files changed since; otherwise refuses with CONFLICT and writes nothing. Repeated undos walk
 * back through mem's writes.
 */
export async function undoLastMemCommit(root: string, options: UndoOptions = {}): Promise<UndoResult> {
  const repo = await requireRepo(root, 'mem undo');
  // A plan a kill left uncommitted is committed first, so this undo takes all of it back; an undo
  // a kill cut short is finished rather than followed by the undo of the commit before.
  const pending = options.dryRun ? undefined : await readPendingPlan(root);
  const resumed = pending?.key.startsWith(UNDO_PLAN) ? pending.key.slice(UNDO_PLAN.length) : undefined;
  if (pending && resumed === undefined) await finishPendingPlan(root, pending.key, options.runHooks);
  if (pending && resumed !== undefined) {
    await removePlanTemps(root, pending.paths);
    // Killed after its commit, before the record went: the undo is done.
    const head = await memCommit(repo.repo, 'HEAD');
    if (head.subject === pending.message.split('\n')[0]) {
      await clearPendingPlan(root);
      return {
        committed: true,
        sha: head.sha,
        undone: await memCommit(repo.repo, resumed),
        paths: pending.paths,
      };
    }
  }
  const { commit: last, undone } = resumed
    ? { commit: await memCommit(repo.repo, resumed), undone: 0 }
    : await findUndoTarget(repo.repo);
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
    const result = await revertCommit(repo.repo, last.sha, {
      keep: (path) => {
        const vaultPath = toVaultPath(repo, path);
        return vaultPath !== undefined && isKeptByUndo(vaultPath);
      },
      resume: resumed !== undefined,
      runHooks: options.runHooks,
      beforeWrite: (paths, message) =>
        writePendingPlan(root, {
          key: `${UNDO_PLAN}${last.sha}`,
          message,
          paths: paths.flatMap((path) => toVaultPath(repo, path) ?? []),
        }),
    });
    if (result.committed || /nothing to commit/.test(result.reason ?? '')) await clearPendingPlan(root);
    const paths = result.paths.flatMap((path) => toVaultPath(repo, path) ?? []);
    return { ...result, undone: last, paths };
  });
}
