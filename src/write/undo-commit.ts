// `mem undo`: reverts mem's newest commit that is not undone yet, through the write pipeline
// (write-plan.ts): under the write lock, the undo's plan is recorded before the first file is
// written back, and a re-run after a kill finishes that undo instead of undoing one more.
import { loadConfig } from '../core/config/config.js';
import { MemError } from '../core/errors.js';
import type { CommitResult } from '../git/commit-paths.js';
import { finishPendingPlans, removePlanTemps } from '../git/commit-write.js';
import {
  findUndoTarget,
  isKeptByUndo,
  type MemCommit,
  planRevert,
  revertibleParent,
  touchedPaths,
} from '../git/git-history.js';
import { clearPlan, isOwnerAlive, readPlans } from '../git/pending-plan.js';
import { git } from '../git/run-git.js';
import { requireRepo, toVaultPath } from '../git/vault-git.js';
import { withVaultLock } from '../vault/lock.js';
import { writeBack } from './revert-commit.js';
import { underPlan } from './write-plan.js';

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
 * back through mem's writes. The undo is committed whatever `git.autoCommit` says: it is a git
 * operation asked for by name.
 */
export async function undoLastMemCommit(root: string, options: UndoOptions = {}): Promise<UndoResult> {
  const repo = await requireRepo(root, 'mem undo');
  // A plan a kill left uncommitted is committed first, so this undo takes all of it back; an undo
  // a kill cut short is finished rather than followed by the undo of the commit before.
  const undoKey = (key: string) => key.startsWith(UNDO_PLAN);
  if (!options.dryRun)
    await withVaultLock(root, (lock) =>
      finishPendingPlans(lock, root, { which: (key) => !undoKey(key), runHooks: options.runHooks }),
    );
  const pending = options.dryRun
    ? undefined
    : (await readPlans(root)).plans.find((p) => undoKey(p.key) && !isOwnerAlive(p, root));
  const resumed = pending?.key.slice(UNDO_PLAN.length);
  if (pending && resumed !== undefined) {
    await removePlanTemps(root, pending.paths);
    // Killed after its commit, before the record went: the undo is done.
    const head = await memCommit(repo.repo, 'HEAD');
    if (head.subject === pending.message.split('\n')[0]) {
      await clearPlan(root, pending);
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
    return {
      committed: false,
      code: 'dry-run',
      reason: 'dry run: nothing was changed',
      dryRun: true,
      undone: last,
      paths,
    };
  }
  const git = { autoCommit: true, runHooks: options.runHooks === true };
  // A config that does not load (being fixed by hand) must not stop an undo: persona/ then.
  const persona = (await loadConfig(root).catch(() => undefined))?.layout.persona;
  return underPlan(root, { git }, `${UNDO_PLAN}${last.sha}`, async (plan) => {
    const revert = await planRevert(repo.repo, last.sha, {
      keep: (path) => {
        const vaultPath = toVaultPath(repo, path);
        return vaultPath !== undefined && isKeptByUndo(vaultPath, persona);
      },
      resume: resumed !== undefined,
    });
    // mem commits only vault paths: a commit that reaches outside the vault is not mem's to revert.
    const outside = revert.paths.filter((path) => toVaultPath(repo, path) === undefined);
    if (outside.length > 0)
      throw new MemError(
        'CONFLICT',
        `${last.sha.slice(0, 7)} also changed ${outside.join(', ')}, outside the vault; nothing was undone`,
      );
    const paths = revert.paths.flatMap((path) => toVaultPath(repo, path) ?? []);
    await plan.record(paths, revert.message);
    await writeBack(revert.steps);
    const result = await plan.commit(paths, revert.message);
    return { ...result, undone: last, paths };
  });
}
