// Writes a planned revert back to disk (git/git-history.ts plans it from git, reading only).
import { unlink } from 'node:fs/promises';
import { MemError } from '../core/errors.js';
import { type CommitResult, commitPaths } from '../git/commit-paths.js';
import { planRevert, type RevertOptions, type RevertStep } from '../git/git-history.js';
import { crashPoint } from '../vault/crash-point.js';
import { hashText, readForWrite, writeAtomic } from '../vault/write-note.js';

/**
 * Writes each file back as it was before the commit, with compare-and-swap against the text the
 * plan read: a file already so is left alone, one the commit added is deleted (unless it changed
 * on disk meanwhile: then it stops).
 */
export async function writeBack(steps: RevertStep[]): Promise<void> {
  for (const step of steps) {
    if (step.old !== undefined) {
      if (step.hash === hashText(step.old)) continue;
      await writeAtomic(step.abs, step.old, { expectedHash: step.hash, label: step.path });
    } else if (step.hash !== null) {
      const now = await readForWrite(step.abs);
      if (now && now.hash !== step.hash)
        throw new MemError('CONFLICT', `${step.path} changed on disk during undo; stopped`);
      await unlink(step.abs);
      crashPoint();
    }
  }
}

export interface RevertCommitOptions extends RevertOptions {
  /** Run the repository's commit hooks on the undo's commit (default: false) */
  runHooks?: boolean;
}

/**
 * Undoes one commit of the repository at `repoRoot` by writing back the files it touched as they
 * were before it, then commits `mem: undo <subject>`. Refuses (CONFLICT) when any of those files
 * changed since; nothing is written when it refuses. `mem undo` goes through write/undo-commit.ts,
 * which does the same under the write lock with a crash-safe plan.
 */
export async function revertCommit(
  repoRoot: string,
  rev: string,
  options: RevertCommitOptions = {},
): Promise<CommitResult & { paths: string[] }> {
  const plan = await planRevert(repoRoot, rev, options);
  await writeBack(plan.steps);
  crashPoint();
  const result = await commitPaths(repoRoot, plan.paths, plan.message, new Map(), {
    runHooks: options.runHooks,
  });
  crashPoint();
  return { ...result, paths: plan.paths };
}
