// `mem sync [remote]`: commit what mem left uncommitted, fetch, merge, commit the merge, push.
// Day notes merge entry by entry (merge-day.ts); other notes through git's three-way merge, and a
// real conflict keeps both versions: ours in place, theirs as `<name>.conflict-<sha>.md` linked
// from it. A person's uncommitted edits to notes the merge would change are committed first, as
// their own commit (`sync: your edits to …`), then merged like any commit. Never rebases or
// forces; refuses unrelated histories, a merge or rebase in progress, and an uncommitted ignored
// or non-note file where the merge would put one. The merge runs under the vault's write lock,
// with the work-tree update recorded first (`.mem/pending-sync.json`), so a kill at any step is
// finished by the next run; the network steps (fetch before it, push after it) run outside the
// lock, so a companion's adds are not held behind a slow remote.
import { unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { cacheDir, ensureCacheDir } from '../../core/cache-dir.js';
import type { MemConfig } from '../../core/config/config.js';
import { MemError } from '../../core/errors.js';
import { readRegularText } from '../../core/regular-file.js';
import { identityArgs } from '../../git/commit-paths.js';
import { commitWrite, finishPendingPlans, removePlanTemps } from '../../git/commit-write.js';
import { git, gitBusy, headCommit } from '../../git/run-git.js';
import {
  aheadBehind,
  blobText,
  changedPaths,
  commitMerge,
  currentBranch,
  editedPaths,
  fetchBranch,
  hasRemote,
  indexPaths,
  isAncestor,
  mergeBase,
  mergeTree,
} from '../../git/sync-git.js';
import { requireRepo, toRepoPath, toVaultPath, type VaultRepo } from '../../git/vault-git.js';
import { crashPoint } from '../../vault/crash-point.js';
import { dayOfEpisodePath } from '../../vault/episode-glob.js';
import { type VaultLockHeld, withVaultLock } from '../../vault/lock.js';
import { writeAtomic } from '../../vault/write-note.js';
import { mergeDay } from './merge-day.js';
import { installMergeDriver, mergeDriverInstalled } from './merge-driver.js';
import { mergeConflicted, rewriteTheirLinks } from './sync-conflicts.js';
import { fetchListed, listRemote, RECORD } from './sync-listed.js';
import { retargetMovedLinks } from './sync-moves.js';
import { checkIncoming, keepOutbound } from './sync-trust.js';

export interface SyncOptions {
  /** The git remote (default: `sync.remote`, `origin`) */
  remote?: string;
  /**
   * Runs the step that changes the vault (under the write lock: merge, commits, work tree), e.g.
   * on a live vault's write queue; the fetch before it and the push after it run outside.
   */
  hold?: <T>(step: () => Promise<T>) => Promise<T>;
}

export interface SyncResult {
  remote: string;
  branch: string;
  /** `merged`: a merge commit was made; `fast-forward`: took the remote's; `pushed`: only sent ours; `up-to-date` */
  code: 'merged' | 'fast-forward' | 'pushed' | 'up-to-date';
  /** HEAD after the sync */
  head?: string;
  /** Day notes merged entry by entry (vault paths) */
  days: string[];
  /** Entries of theirs given a new block id: `2026-11-29#^e7 -> ^e12` */
  renumbered: string[];
  /** Conflict notes written (vault paths): the other side's version of a note both changed */
  conflicts: string[];
  /** Whether a pending sync a kill interrupted was finished first */
  resumed: boolean;
  /** Vault paths the sync changed in the work tree */
  paths: string[];
  /**
   * The person's uncommitted edits to notes the merge changes, committed before merging as their
   * own commit (the repository's identity): its sha, the vault paths, and which were new notes
   */
  yourEdits?: YourEdits;
}

export interface YourEdits {
  commit: string;
  /** Every vault path of the commit */
  paths: string[];
  /** Those that were untracked notes (new to git) */
  added: string[];
}

interface SyncRecord {
  /** HEAD before the work tree was brought to `target` */
  old: string;
  target: string;
  /** Repository paths that differ between them */
  paths: string[];
}

async function readRecord(root: string): Promise<SyncRecord | undefined> {
  try {
    const r = JSON.parse(await readRegularText(join(cacheDir(root), RECORD))) as SyncRecord;
    return typeof r.old === 'string' && typeof r.target === 'string' && Array.isArray(r.paths)
      ? r
      : undefined;
  } catch {
    return undefined;
  }
}

const clearRecord = (root: string) => unlink(join(cacheDir(root), RECORD)).catch(() => undefined);

/**
 * Brings the work tree, HEAD and index from `old` to `target` for `paths`. A file is written only
 * where it is still `old`'s (or already `target`'s), so a hand edit made since stays.
 */
async function moveTo(repo: VaultRepo, record: SyncRecord): Promise<void> {
  for (const path of record.paths) {
    const abs = join(repo.repo, path);
    const now = await readRegularText(abs).catch(() => undefined);
    const [was, next] = await Promise.all([
      blobText(repo.repo, record.old, path),
      blobText(repo.repo, record.target, path),
    ]);
    if (now === next || now !== was) continue;
    if (next === undefined) await unlink(abs).catch(() => undefined);
    else await writeAtomic(abs, next, { label: path });
  }
  crashPoint();
  const head = await headCommit(repo.repo);
  if (head === record.old)
    await git(repo.repo, ['update-ref', '-m', 'mem sync', 'HEAD', record.target, record.old]);
  crashPoint();
  await indexPaths(repo.repo, record.target, record.paths);
}

/** Finishes the work-tree update a killed sync recorded; true when there was one. */
async function resume(root: string, repo: VaultRepo): Promise<boolean> {
  const record = await readRecord(root);
  if (!record) return false;
  await removePlanTemps(
    root,
    record.paths.flatMap((p) => toVaultPath(repo, p) ?? []),
  );
  const head = await headCommit(repo.repo);
  if (head === record.old || head === record.target) await moveTo(repo, record);
  await clearRecord(root);
  return true;
}

interface Merged {
  commit: string;
  days: string[];
  renumbered: string[];
  conflicts: string[];
}

/** The merge commit of HEAD and `theirs` (see the file comment), built without touching the work tree. */
async function buildMerge(
  repo: VaultRepo,
  config: Pick<MemConfig, 'timezone' | 'layout'>,
  head: string,
  theirs: string,
  base: string,
  label: string,
): Promise<Merged> {
  const { tree, conflicts } = await mergeTree(repo.repo, head, theirs);
  const [ours, yours] = await Promise.all([
    changedPaths(repo.repo, base, head),
    changedPaths(repo.repo, base, theirs),
  ]);
  const theirPaths = new Set(yours);
  const both = ours.filter((p) => theirPaths.has(p));
  const files = new Map<string, string | null>();
  const days: string[] = [];
  const renumbered: string[] = [];
  const byDay = new Map<string, Map<string, string>>();
  for (const path of both) {
    const vaultPath = toVaultPath(repo, path);
    if (vaultPath === undefined || !dayOfEpisodePath(vaultPath, config)) continue;
    // Links name a day note by its file name (`2026-11-29`, or the vault's own date format).
    const name = vaultPath.slice(vaultPath.lastIndexOf('/') + 1).replace(/\.md$/, '');
    const [b, o, t] = await Promise.all([base, head, theirs].map((rev) => blobText(repo.repo, rev, path)));
    if (o === undefined || t === undefined) continue;
    const merged = mergeDay(b ?? '', o, t, name);
    files.set(path, merged.text);
    days.push(vaultPath!);
    if (merged.renumbered.size > 0) byDay.set(name, merged.renumbered);
    for (const [from, to] of merged.renumbered) renumbered.push(`${name}#^${from} -> ^${to}`);
  }
  const short = theirs.slice(0, 7);
  const written = await mergeConflicted(
    repo,
    conflicts.filter((c) => !files.has(c.path)),
    short,
    files,
  );
  await rewriteTheirLinks(repo, { tree, head, theirs, paths: yours, days: byDay, files });
  await retargetMovedLinks(repo, { base, head, theirs, tree, changed: { head: ours, theirs: yours }, files });
  const commit = await commitMerge(repo.repo, tree, files, [head, theirs], `mem: sync, merge ${label}`);
  return { commit, days, renumbered, conflicts: written };
}

/**
 * Merges `theirs` (the remote's branch as fetched) into HEAD and brings the work tree to the result:
 * `edits` when the person's edits had to be committed first (then again), else the commit to push
 * (none: nothing to send).
 */
async function mergeFetched(
  root: string,
  repo: VaultRepo,
  config: Pick<MemConfig, 'timezone' | 'layout'>,
  remote: string,
  theirs: string | undefined,
  result: SyncResult,
  runHooks: boolean,
): Promise<'edits' | { push?: string }> {
  const branch = result.branch;
  const head = await headCommit(repo.repo);
  let target = head;
  // Whether HEAD already holds the remote's branch: asked once, read twice below.
  const holdsTheirs = Boolean(
    theirs && head && head !== theirs && (await isAncestor(repo.repo, theirs, head)),
  );
  // What the remote brings is checked before anything is built from it (sync-trust.ts).
  if (theirs && head !== theirs && !holdsTheirs) {
    const from = head
      ? ((await mergeBase(repo.repo, head, theirs)) ?? (await emptyTree(repo)))
      : await emptyTree(repo);
    await checkIncoming(repo, from, theirs);
  }
  if (theirs && head !== theirs) {
    if (!head || (await isAncestor(repo.repo, head, theirs))) {
      target = theirs;
      result.code = 'fast-forward';
    } else if (!holdsTheirs) {
      const base = await mergeBase(repo.repo, head, theirs);
      if (!base) {
        throw new MemError(
          'GIT',
          `${remote}/${branch} shares no history with this vault (unrelated histories); mem sync merges only copies of one vault. Nothing was changed`,
        );
      }
      const merged = await buildMerge(repo, config, head, theirs, base, `${remote}/${branch}`);
      target = merged.commit;
      result.code = 'merged';
      // One by one: `push(...list)` overflows the stack on a day with 150,000 ids renumbered.
      for (const day of merged.days) result.days.push(day);
      for (const line of merged.renumbered) result.renumbered.push(line);
      for (const note of merged.conflicts) result.conflicts.push(note);
    }
  }
  if (head && theirs && target && target !== head) {
    const kept = await keepOutbound(
      root,
      repo,
      head,
      theirs,
      target,
      `mem: sync, merge ${remote}/${branch}, keeping this device's model, embeddings and hook settings`,
    );
    if (kept !== target) result.code = 'merged';
    target = kept;
  }
  if (target && target !== head) {
    const paths = await changedPaths(repo.repo, head ?? (await emptyTree(repo)), target);
    const edited = await editedPaths(repo.repo, paths);
    if (edited.length > 0) {
      // The person's edits to notes the merge changes go in first, as their own commit; then again.
      if (result.yourEdits) throw stillEdited(edited);
      result.yourEdits = await commitYourEdits(repo, edited, runHooks);
      return 'edits';
    }
    await ensureCacheDir(root);
    const record: SyncRecord = { old: head ?? '', target, paths };
    await writeAtomic(join(cacheDir(root), RECORD), `${JSON.stringify(record)}\n`, {
      label: `.mem/${RECORD}`,
    });
    crashPoint();
    await moveTo(repo, record);
    crashPoint();
    await clearRecord(root);
    for (const path of paths) {
      const vaultPath = toVaultPath(repo, path);
      if (vaultPath !== undefined) result.paths.push(vaultPath);
    }
  }
  result.head = target;
  return { push: !target || target === theirs ? undefined : target };
}

/** Pushes `target`; `retry` when refused because the remote moved since `theirs` was fetched. */
async function pushTarget(
  repo: VaultRepo,
  remote: string,
  theirs: string | undefined,
  target: string,
  result: SyncResult,
): Promise<'done' | 'retry'> {
  const { branch } = result;
  const pushed = await git(repo.repo, ['push', '-q', remote, `${target}:refs/heads/${branch}`], {
    allowFail: true,
  });
  if (pushed === undefined) {
    // Refused (the remote moved since the fetch) or unreachable: fetch again to tell which.
    const now = await fetchBranch(repo.repo, remote, branch);
    if (now !== theirs) return 'retry';
    throw new MemError(
      'GIT',
      `git push to ${remote} failed; the merge is committed here and goes out with the next sync`,
    );
  }
  if (result.code === 'up-to-date') result.code = 'pushed';
  return 'done';
}

const stillEdited = (edited: string[]) =>
  new MemError(
    'GIT',
    `uncommitted changes to ${edited.join(', ')}, which the merge would change; commit them (or undo them) and sync again. Nothing was changed`,
  );

/**
 * Commits the person's uncommitted edits to `edited` (repository paths the merge changes) as their
 * own commit, with the repository's identity: tracked files as they are, and untracked notes
 * (Markdown in the vault, not ignored) added. An ignored file, or an untracked one that is no note
 * of the vault, is not the person's to commit here: the sync refuses as before.
 */
async function commitYourEdits(repo: VaultRepo, edited: string[], runHooks: boolean): Promise<YourEdits> {
  const untracked = new Set(
    (await git(repo.repo, ['ls-files', '-z', '--others', '--', ...edited])).split('\0').filter(Boolean),
  );
  const visible = new Set(
    (await git(repo.repo, ['ls-files', '-z', '--others', '--exclude-standard', '--', ...edited]))
      .split('\0')
      .filter(Boolean),
  );
  const refused = edited.filter((p) => {
    if (!untracked.has(p)) return toVaultPath(repo, p) === undefined;
    return !visible.has(p) || !p.endsWith('.md') || toVaultPath(repo, p) === undefined;
  });
  if (refused.length > 0) throw stillEdited(refused);
  const added = edited.filter((p) => untracked.has(p));
  const vaultPaths = edited.map((p) => toVaultPath(repo, p)!);
  if (added.length > 0) await git(repo.repo, ['add', '--', ...added]);
  const message = `sync: your edits to ${vaultPaths.join(', ')} before merging`;
  await git(repo.repo, [...(await identityArgs(repo.repo)), 'commit', '-q', '-m', message, '--', ...edited], {
    hooks: runHooks,
  });
  return {
    commit: (await headCommit(repo.repo))!,
    paths: vaultPaths,
    added: added.map((p) => toVaultPath(repo, p)!),
  };
}

async function emptyTree(repo: VaultRepo): Promise<string> {
  return (await git(repo.repo, ['hash-object', '-t', 'tree', '--stdin'], { input: '' })).trim();
}

/** `mem sync`: see the file comment. */
export async function syncVault(
  root: string,
  config: Pick<MemConfig, 'timezone' | 'git' | 'layout'> & { sync?: { remote: string } },
  options: SyncOptions = {},
): Promise<SyncResult> {
  const repo = await requireRepo(root, 'mem sync');
  const remote = options.remote ?? config.sync?.remote ?? 'origin';
  if (!(await hasRemote(repo.repo, remote))) {
    throw new MemError(
      'INVALID_ARGUMENT',
      `the vault's repository has no remote named ${JSON.stringify(remote)} (git remote add ${remote} <url>)`,
    );
  }
  const hold = options.hold ?? ((step) => step());
  const runHooks = config.git.runHooks;
  const listed = await listRemote(root, repo, remote);
  // A vault not yet set up for syncing (no attributes line, or one not committed) takes the full
  // sync, whose first step sets it up: a clone that was never synced has nothing to fetch either.
  if (listed.upToDate && (await syncSetUp(root, repo, config)))
    return { ...emptyResult(remote, listed.branch, false), code: 'up-to-date', head: listed.sha };
  let result: SyncResult | undefined;
  for (let attempt = 0; attempt < 3; attempt++) {
    // Outside the lock: a fetch only adds objects and moves the remote-tracking ref.
    const fetchedOn = result?.branch ?? listed.branch;
    const fetched =
      attempt === 0
        ? await fetchListed(repo, remote, listed)
        : await fetchBranch(repo.repo, remote, fetchedOn);
    crashPoint();
    const step = await hold(() =>
      withVaultLock(root, async (lock) => {
        const started = result ?? (await prepare(lock, root, repo, config, remote));
        result = started;
        // The branch was switched between the fetch and the lock: fetch what it follows now.
        const theirs =
          started.branch === fetchedOn ? fetched : await fetchBranch(repo.repo, remote, started.branch);
        let merged = await mergeFetched(root, repo, config, remote, theirs, started, runHooks);
        // Committing the person's edits is no attempt of its own (it happens once: see mergeFetched).
        if (merged === 'edits')
          merged = await mergeFetched(root, repo, config, remote, theirs, started, runHooks);
        if (merged === 'edits')
          throw new MemError('GIT', "mem sync: the person's edits could not be committed");
        return { theirs, push: merged.push };
      }),
    );
    // Outside the lock: writes go on while the merge travels; a later commit goes with the next sync.
    if (!step.push || (await pushTarget(repo, remote, step.theirs, step.push, result!)) === 'done')
      return result!;
  }
  throw new MemError('GIT', `${remote} kept moving during the sync; run mem sync again`);
}

/**
 * What goes before the first merge, under the lock: a killed sync finished, no git operation in
 * progress, what mem wrote and a kill left uncommitted committed, and the merge driver's attributes.
 */
async function prepare(
  lock: VaultLockHeld,
  root: string,
  repo: VaultRepo,
  config: Pick<MemConfig, 'timezone' | 'git' | 'layout'>,
  remote: string,
): Promise<SyncResult> {
  const resumed = await resume(root, repo);
  const busy = await gitBusy(repo.repo);
  if (busy)
    throw new MemError(
      'GIT',
      `mem sync: ${busy.replace(/; mem did not commit$/, '')}; finish or abort it first. Nothing was changed`,
    );
  const branch = await currentBranch(repo.repo);
  await finishPendingPlans(lock, root, { runHooks: config.git.runHooks });
  // Also when the line was written by a run killed before its commit.
  await removePlanTemps(root, ['.gitattributes']);
  const wrote = await installMergeDriver(root, config);
  // Committed when written now, or when it differs from HEAD's (written by a run killed before its
  // commit); every later sync (one per group commit on a server) skips the commit's git processes,
  // which it ran under the lock while the vault's adds waited.
  if (wrote.length > 0 || (await attributesUncommitted(root, repo)))
    await commitWrite(
      lock,
      root,
      config,
      ['.gitattributes'],
      'mem: merge day notes entry by entry (.gitattributes)',
    );
  return emptyResult(remote, branch, resumed);
}

const emptyResult = (remote: string, branch: string, resumed: boolean): SyncResult => ({
  remote,
  branch,
  code: 'up-to-date',
  days: [],
  renumbered: [],
  conflicts: [],
  resumed,
  paths: [],
});

/** Whether the merge driver and its committed `.gitattributes` line are in place (what prepare sets up). */
async function syncSetUp(root: string, repo: VaultRepo, config: Pick<MemConfig, 'layout'>): Promise<boolean> {
  // Once a process for each vault: the idle shortcut exists to spare git processes, and the
  // attributes, once committed, stay (a full sync puts back a line a person removed).
  if (setUpVaults.has(root)) return true;
  const ready =
    (await mergeDriverInstalled(root, repo.repo, config)) && !(await attributesUncommitted(root, repo));
  if (ready) setUpVaults.add(root);
  return ready;
}

/** The vaults this process found set up for syncing (syncSetUp). */
const setUpVaults = new Set<string>();

/** Whether the vault's `.gitattributes` is there and differs from HEAD's. */
async function attributesUncommitted(root: string, repo: VaultRepo): Promise<boolean> {
  const text = await readRegularText(join(root, '.gitattributes')).catch(() => undefined);
  if (text === undefined) return false;
  return (await blobText(repo.repo, 'HEAD', toRepoPath(repo, '.gitattributes'))) !== text;
}

/** Ahead and behind the remote's branch as last fetched (undefined before the first fetch). */
export async function syncCounts(
  root: string,
  remote: string,
): Promise<{ ahead: number; behind: number } | undefined> {
  const repo = await requireRepo(root, 'mem sync');
  return aheadBehind(repo.repo, remote, await currentBranch(repo.repo));
}
