import { access, lstat, readdir, realpath, unlink } from 'node:fs/promises';
import { basename, dirname, join, relative, sep } from 'node:path';
import type { MemConfig } from '../core/config/config.js';
import { MemError } from '../core/errors.js';
import { isAlive } from '../core/serve-record.js';
import { crashPoint } from '../vault/crash-point.js';
import { assertLockHeld, type VaultLockHeld } from '../vault/lock.js';
import { findOnDisk } from '../vault/paths.js';
import { tempWriterPid } from '../vault/temp-name.js';
import { commitPaths, type DeriveContent, type NotCommitted } from './commit-paths.js';
import { forgetCreated } from './created-files.js';
import {
  clearPlan,
  isMine,
  isOwnerAlive,
  type PendingPlan,
  readPlans,
  releasePlan,
  writeOwnPlan,
} from './pending-plan.js';
import { gitRoot, headCommit, isGitAvailable } from './run-git.js';

export type { NotCommitted } from './commit-paths.js';

export interface WriteCommit {
  committed: boolean;
  sha?: string;
  /** Why nothing was committed (auto-commit off, not a repository, a merge in progress …), for a person */
  reason?: string;
  /** Why nothing was committed, for code: the CLI words it, callers decide on it (see NotCommitted) */
  code?: NotCommitted;
}

async function insideGitCheckout(dir: string): Promise<boolean> {
  for (let current = dir; ; current = dirname(current)) {
    const found = await access(join(current, '.git')).then(
      () => true,
      () => false,
    );
    if (found) return true;
    if (dirname(current) === current) return false;
  }
}

/** Commits `vaultPaths` in the vault's repository, when there is one (the config is the caller's to check). */
async function commitToRepo(
  lock: VaultLockHeld,
  root: string,
  vaultPaths: string[],
  message: string,
  derived: Map<string, DeriveContent>,
  /** Run the repository's commit hooks (`git.runHooks`) */
  runHooks: boolean,
): Promise<WriteCommit> {
  assertLockHeld(lock, root);
  if (!(await isGitAvailable())) {
    if (await insideGitCheckout(root)) {
      throw new MemError(
        'GIT',
        'the vault is in a git repository but the git command was not found; install git or set git.autoCommit to false in mem.config.json (the file was written, not committed)',
      );
    }
    return { committed: false, code: 'no-repository', reason: 'not a git repository' };
  }
  const repo = await gitRoot(root);
  if (!repo) return { committed: false, code: 'no-repository', reason: 'not a git repository' };
  const realRoot = await realpath(root);
  const prefix = relative(repo, realRoot).split(sep).join('/');
  const paths = [...new Set(vaultPaths)].map((p) => (prefix ? `${prefix}/${p}` : p));
  const toRepo = (p: string) => (prefix ? `${prefix}/${p}` : p);
  const derivedInRepo = new Map([...derived].map(([p, derive]) => [toRepo(p), derive]));
  const result = await commitPaths(repo, paths, message, derivedInRepo, { runHooks });
  // The notes mem made are in git now (or git keeps them out): no longer only mem's record's.
  if (isSettled(result)) await forgetCreated(root, vaultPaths);
  return result.committed
    ? { committed: true, sha: result.sha }
    : { committed: false, reason: result.reason, code: result.code };
}

/**
 * Whether a plan's commit is settled: made, or never to be made (no repository, nothing left to
 * commit, git ignores the files). A busy repository or a hook's refusal is not: the record stays,
 * and the next run commits the plan (an undo resumes) once git lets it. The one rule for every
 * plan's record, undo's included.
 */
export function isSettled(result: WriteCommit): boolean {
  return result.committed || (result.code !== 'busy' && result.code !== 'refused');
}

const union = (a: string[], b: string[]) => [...new Set([...a, ...b])];

/**
 * Removes the temp files a killed run of a plan left beside its paths: mem's temp names of those
 * very files whose writer is gone. The record says a run was killed here, so unlike the cleanup at
 * open (removeLeftoverTemps) this does not wait for them to be a minute old.
 */
export async function removePlanTemps(root: string, paths: string[]): Promise<void> {
  for (const path of paths) {
    const abs = await findOnDisk(root, path);
    const name = basename(abs);
    const names = await readdir(dirname(abs)).catch(() => [] as string[]);
    for (const entry of names) {
      const pid = tempWriterPid(entry);
      if (pid === undefined || pid === process.pid || isAlive(pid)) continue;
      if (!entry.startsWith(`.${name}.${pid}.`)) continue;
      const temp = join(dirname(abs), entry);
      if ((await lstat(temp).catch(() => undefined))?.isFile()) await unlink(temp).catch(() => undefined);
    }
  }
}

/** What finishing the plans a gone run left made, one result a plan. */
export type FinishedPlan = WriteCommit & { key: string; paths: string[] };

/**
 * Commits every plan whose owner is gone (see pending-plan.ts), each on its own with its own
 * message, and clears the record of each one settled. Plans a live process still runs are left
 * alone, and so are those `which` leaves out (the caller's own plan, which it joins instead).
 */
export async function finishPendingPlans(
  lock: VaultLockHeld,
  root: string,
  options: {
    which?: (key: string) => boolean;
    runHooks?: boolean;
    /** The records as the caller just read them (default: read here) */
    plans?: PendingPlan[];
  } = {},
): Promise<FinishedPlan[]> {
  assertLockHeld(lock, root);
  const done: FinishedPlan[] = [];
  for (const pending of options.plans ?? (await readPlans(root)).plans) {
    if (isOwnerAlive(pending, root)) continue;
    if (options.which && !options.which(pending.key)) continue;
    await removePlanTemps(root, pending.paths);
    const result = await commitToRepo(
      lock,
      root,
      pending.paths,
      pending.message,
      new Map(),
      options.runHooks === true,
    );
    if (isSettled(result)) await clearPlan(root, pending);
    done.push({ ...result, key: pending.key, paths: pending.paths });
  }
  return done;
}

/** The records of plan `key` a commit of that plan holds: this process's own, and any a killed run left. */
function plansToJoin(root: string, plans: PendingPlan[], key: string): PendingPlan[] {
  return plans.filter((p) => p.key === key && (isMine(root, p) || !isOwnerAlive(p, root)));
}

/**
 * Records, before a plan's first write, every vault path it will write and its commit (see
 * pending-plan.ts), so a kill anywhere before the commit leaves nothing out of it. Plans of other
 * commands a gone run left behind are committed first, each on its own; one of the same command
 * (`key`) is joined: its paths go into this run's commit. Call it again to add paths as the plan
 * grows; the record is this process's until the plan's commit (or releasePlan).
 */
export async function startPlan(
  lock: VaultLockHeld,
  root: string,
  config: Pick<MemConfig, 'git'>,
  key: string,
  message: string,
  paths: string[],
): Promise<void> {
  assertLockHeld(lock, root);
  if (!config.git.autoCommit) return;
  // Read once: finishing other commands' plans leaves this key's records as they are.
  const { plans } = await readPlans(root);
  await finishPendingPlans(lock, root, {
    plans,
    which: (other) => other !== key,
    runHooks: config.git.runHooks,
  });
  const joined = plansToJoin(root, plans, key);
  const own = await writeOwnPlan(root, {
    key,
    message,
    paths: union(
      joined.flatMap((p) => p.paths),
      paths,
    ),
  });
  // The killed runs' records are in this one now.
  for (const plan of joined) if (plan.id !== own.id) await clearPlan(root, plan);
}

/**
 * Commits exactly the vault paths mem just wrote, when the vault is in a git repository and
 * `git.autoCommit` is on. A busy repository (index.lock, merge, rebase) is left alone: the files
 * are written, the commit is skipped, and the reason says so. With `plan` (the key given to
 * startPlan) the commit also holds every path this plan recorded, an earlier killed run's too, and
 * is made even when this run wrote nothing itself (then under the recorded message). Plans of other
 * commands whose runs are gone are committed first, each on its own; running ones are left alone.
 * Only the holder of the write lock commits (`lock`).
 */
export async function commitWrite(
  lock: VaultLockHeld,
  root: string,
  config: Pick<MemConfig, 'git'>,
  vaultPaths: string[],
  message: string,
  /** Vault paths mem only appended to: what to commit, from the committed text (see DeriveContent) */
  derived: Map<string, DeriveContent> = new Map(),
  /** The key of the plan these writes belong to (see startPlan) */
  plan?: string,
): Promise<WriteCommit> {
  assertLockHeld(lock, root);
  if (!config.git.autoCommit)
    return { committed: false, code: 'auto-commit-off', reason: 'git.autoCommit is off' };
  const { plans } = await readPlans(root);
  await finishPendingPlans(lock, root, {
    plans,
    which: (other) => other !== plan,
    runHooks: config.git.runHooks,
  });
  const joined = plan === undefined ? [] : plansToJoin(root, plans, plan);
  const recorded = joined.flatMap((p) => p.paths);
  if (joined.length > 0) await removePlanTemps(root, recorded);
  const paths = union(recorded, vaultPaths);
  const text = joined.length > 0 && vaultPaths.length === 0 ? (joined[0]?.message ?? message) : message;
  if (paths.length === 0 && derived.size === 0) {
    if (plan !== undefined) releasePlan(root, plan);
    return { committed: false, code: 'unchanged', reason: 'nothing to commit' };
  }
  // The steps around the commit, for the crash tests: files written and not committed; committed
  // and the plan's record not yet removed.
  crashPoint();
  const result = await commitToRepo(lock, root, paths, text, derived, config.git.runHooks);
  crashPoint();
  if (isSettled(result)) for (const record of joined) await clearPlan(root, record);
  else if (plan !== undefined) releasePlan(root, plan);
  // The killed run had made its commit, only its record was left: the plan is committed.
  if (joined.length > 0 && vaultPaths.length === 0 && result.code === 'unchanged') {
    const repo = await gitRoot(root);
    const sha = repo ? await headCommit(repo) : undefined;
    if (sha) return { committed: true, sha };
  }
  return result;
}
