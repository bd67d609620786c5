// The one tail of every multi-step write (reflect, offline reflect, rollups, forget --stale and --hard,
// note set, mv, ingest, import, undo):
// a preview touches nothing; a run takes the write lock, records its plan (git/pending-plan.ts)
// before its first write, applies it, commits once and clears the record. A kill anywhere between
// the record and the commit leaves the record, and the next run of the same plan commits all of it.
import type { MemConfig } from '../core/config/config.js';
import type { DeriveContent } from '../git/commit-paths.js';
import { commitWrite, startPlan, type WriteCommit } from '../git/commit-write.js';
import { releasePlan } from '../git/pending-plan.js';
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
 * it). Record, writes and commit all happen under the one lock. A plan may run in several calls (a
 * step that waits on something slow, a model, belongs between two calls, not inside one): its
 * record is this process's from the first `record` to the `commit`, so other commands committing
 * in the gaps leave it alone (git/pending-plan.ts). A step that throws gives the plan up: its
 * record stays, owned by no one, and the next write commits what it wrote. Several steps in a row
 * belong in withPlan, which gives the plan up however the steps end.
 */
export async function underPlan<T>(
  root: string,
  config: Pick<MemConfig, 'git'>,
  key: string,
  steps: (plan: LockedPlan) => Promise<T>,
): Promise<T> {
  try {
    return await withVaultLock(root, (lock) =>
      steps({
        record: (paths, message) => startPlan(lock, root, config, key, message, paths),
        commit: (written, message, derived) =>
          commitWrite(lock, root, config, written, message, derived, key),
      }),
    );
  } catch (error) {
    // Inside withPlan the plan goes on past a failed step (a rollup skipped); withPlan ends it.
    if (!sessions.has(sessionOf(root, key))) releasePlan(root, key);
    throw error;
  }
}

/** The plans withPlan runs in this process: `root` and key. */
const sessions = new Set<string>();
const sessionOf = (root: string, key: string) => `${root}\0${key}`;

/**
 * One plan in several steps (forget --stale's moves, rollups between model calls, an ingest's
 * days): `run` calls underPlan as often as it needs, and whatever way it ends, a plan it did not
 * commit is given up (see underPlan), never left looking alive while this process runs on.
 */
export async function withPlan<T>(root: string, key: string, run: () => Promise<T>): Promise<T> {
  const session = sessionOf(root, key);
  // Nested (forget --stale's moves run moveNote under the same plan): the outer one ends it.
  if (sessions.has(session)) return run();
  sessions.add(session);
  try {
    return await run();
  } finally {
    sessions.delete(session);
    releasePlan(root, key);
  }
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
