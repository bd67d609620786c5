// The one tail of every multi-step write (reflect, offline reflect, rollups, forget --stale and --hard,
// note set, mv, ingest, import, undo):
// a preview touches nothing; a run takes the write lock, records its plan (git/pending-plan.ts)
// before its first write, applies it, commits once and clears the record. A kill anywhere between
// the record and the commit leaves the record, and the next run of the same plan commits all of it.
import type { MemConfig } from '../core/config.js';
import type { DeriveContent } from '../git/commit-paths.js';
import { commitWrite, startPlan, type WriteCommit } from '../git/commit-write.js';
import { withVaultLock } from '../vault/lock.js';

/** The plan of one run, as the steps under its lock see it. */
export interface LockedPlan {
  /**
   * Records, before the first write, the vault paths the plan writes and the commit message they
   * get if this run is killed (a plan of another command left behind is committed first). Call it
   * again to grow the plan.
   */
  record(paths: string[], message: string): Promise<void>;
  /**
   * Commits `written` with every path an earlier, killed run of this plan recorded (made even when
   * this run wrote nothing), and clears the record once the commit is settled.
   */
  commit(written: string[], message: string, derived?: Map<string, DeriveContent>): Promise<WriteCommit>;
}

/**
 * Runs `steps` holding the vault's write lock, with the plan `key` (a re-run after a kill joins
 * it). Record, writes and commit all happen under the one lock: a commit made outside it could
 * commit (and clear the record of) another command's plan while that command is still writing.
 * A step that waits on something slow (a model) belongs between two calls, not inside one.
 */
export function underPlan<T>(
  root: string,
  config: Pick<MemConfig, 'git'>,
  key: string,
  steps: (plan: LockedPlan) => Promise<T>,
): Promise<T> {
  return withVaultLock(root, () =>
    steps({
      record: (paths, message) => startPlan(root, config, key, message, paths),
      commit: (written, message, derived) => commitWrite(root, config, written, message, derived, key),
    }),
  );
}

/** What applying a plan wrote: the vault paths changed (what the commit holds), and anything else. */
export interface Applied {
  written: string[];
  /**
   * Paths that held text before the plan: what to commit, made from their committed text with the
   * plan's own change only, so a person's uncommitted edit of the note stays theirs (DeriveContent)
   */
  derived?: Map<string, DeriveContent>;
}

export interface WritePlanSteps<P, A extends Applied> {
  /** The plan's key: a re-run of the same command after a kill joins the record it left */
  key: string;
  /** Return the preview and touch nothing */
  dryRun?: boolean;
  /** What the plan would write, computed without writing (for the dry run) */
  preview: () => Promise<P>;
  /** Every vault path the plan may write; empty: the plan writes nothing and records nothing */
  paths: string[];
  /** The commit message, recorded before the first write and given to the commit */
  message: string;
  /** Writes the plan (under the lock, after the record) */
  apply: () => Promise<A>;
  /** Message of the commit once applied, when it depends on what was applied (default: `message`) */
  commitMessage?: (applied: A) => string;
  /** The reason given when nothing was written and no earlier run's plan was committed */
  nothing: string;
}

export type WritePlanResult<P, A> =
  | { dryRun: true; preview: P }
  | { dryRun: false; applied: A; commit: WriteCommit };

/**
 * The common shape: a preview, or lock, record, apply, commit once, clear. The commit is made even
 * when this run wrote nothing, since a killed run of the same plan may have left its record.
 */
export async function runWritePlan<P, A extends Applied>(
  root: string,
  config: Pick<MemConfig, 'git'>,
  steps: WritePlanSteps<P, A>,
): Promise<WritePlanResult<P, A>> {
  if (steps.dryRun) return { dryRun: true, preview: await steps.preview() };
  return underPlan(root, config, steps.key, async (plan) => {
    if (steps.paths.length > 0) await plan.record(steps.paths, steps.message);
    const applied = await steps.apply();
    const message = steps.commitMessage?.(applied) ?? steps.message;
    const made = await plan.commit(applied.written, message, applied.derived);
    const commit: WriteCommit =
      made.committed || applied.written.length > 0
        ? made
        : { committed: false, code: 'nothing-to-write', reason: steps.nothing };
    return { dryRun: false, applied, commit };
  });
}
