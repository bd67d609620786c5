// Reads history: log, diff, the mem commit to undo, what reverting it writes, and committed file contents.
import { join } from 'node:path';
import { MemError } from '../core/errors.js';
import { resolveInVault } from '../vault/paths.js';
import { hashText, readForWrite } from '../vault/write-note.js';
import { checkRepoPath, exists, git, gitBlob, gitBusy, headCommit } from './run-git.js';

export interface HistoryEntry {
  sha: string;
  /** Author date, ISO 8601 with offset */
  date: string;
  subject: string;
  /** The file's path in that commit (it changes across renames) */
  path: string;
}

const FIELD = '\x1f';
const RECORD = '\x1e';

/** Commits that touched `path`, newest first, following renames. */
export async function history(repoRoot: string, path: string): Promise<HistoryEntry[]> {
  if (!(await headCommit(repoRoot))) return [];
  const out = await git(repoRoot, [
    'log',
    '--follow',
    `--format=${RECORD}%H${FIELD}%aI${FIELD}%s`,
    '--name-only',
    '--',
    checkRepoPath(path),
  ]);
  const entries: HistoryEntry[] = [];
  for (const record of out.split(RECORD).slice(1)) {
    const [header = '', ...rest] = record.split('\n');
    const [sha = '', date = '', subject = ''] = header.split(FIELD);
    const names = rest.filter((line) => line.trim() !== '');
    entries.push({ sha, date, subject, path: names[names.length - 1] ?? path });
  }
  return entries;
}

function checkRev(rev: string): string {
  if (rev.startsWith('-') || /[\s\0]/.test(rev))
    throw new MemError('INVALID_ARGUMENT', `${JSON.stringify(rev)}: not a revision`);
  return rev;
}

/**
 * A unified diff: with no `rev`, the working tree against HEAD (staged and unstaged); with `a..b`, that
 * range; with one revision, the changes that commit made. `paths` limits it to those files.
 */
export async function diff(repoRoot: string, rev?: string, paths: string[] = []): Promise<string> {
  const limit = paths.length > 0 ? ['--', ...paths.map(checkRepoPath)] : [];
  const plain = ['--no-color', '--no-ext-diff'];
  if (rev === undefined) {
    const head = await headCommit(repoRoot);
    return git(
      repoRoot,
      head ? ['diff', ...plain, 'HEAD', ...limit] : ['diff', ...plain, '--cached', ...limit],
    );
  }
  if (checkRev(rev).includes('..')) return git(repoRoot, ['diff', ...plain, rev, ...limit]);
  return git(repoRoot, ['show', ...plain, '--format=', '--patch', rev, ...limit]);
}

export interface MemCommit {
  sha: string;
  date: string;
  subject: string;
}

/** How far back mem looks for its own commits (undo pairs included). */
const MEM_COMMIT_WINDOW = 200;

/**
 * The verbs whose commits `mem undo` may revert. `mem: init vault` is not one of them (undoing it
 * deletes the config and leaves no vault), and a commit a person titled otherwise is never touched.
 */
const UNDOABLE_VERBS = ['remember', 'note', 'ingest', 'import', 'mv', 'forget', 'reflect', 'rollup', 'undo'];

/** Whether `subject` is a commit of one of mem's own write verbs. */
export function isUndoableSubject(subject: string): boolean {
  const verb = /^mem: (\S+)/.exec(subject)?.[1];
  return verb !== undefined && UNDOABLE_VERBS.includes(verb);
}

/**
 * The mem commit `mem undo` should revert: the newest `mem: …` commit that no later `mem: undo …`
 * has undone, so undo, undo takes back the last two writes instead of re-doing the first.
 * Walking newest to oldest, each `mem: undo X` marks the next older `mem: X` as undone (an undo of
 * an undo marks that undo, which brings X back). `undone` counts the mem commits passed over.
 */
export async function findUndoTarget(
  repoRoot: string,
): Promise<{ commit: MemCommit | undefined; undone: number }> {
  if (!(await headCommit(repoRoot))) return { commit: undefined, undone: 0 };
  const out = await git(repoRoot, [
    'log',
    '-n',
    String(MEM_COMMIT_WINDOW),
    '--grep=^mem: ',
    `--format=%H${FIELD}%aI${FIELD}%s`,
  ]);
  const pending = new Map<string, number>();
  let undone = 0;
  for (const line of out.split('\n')) {
    const [sha = '', date = '', subject = ''] = line.split(FIELD);
    if (!isUndoableSubject(subject)) continue;
    const waiting = pending.get(subject) ?? 0;
    if (waiting > 0) {
      pending.set(subject, waiting - 1);
      undone++;
    } else if (subject.startsWith('mem: undo ')) {
      const target = `mem: ${subject.slice('mem: undo '.length)}`;
      pending.set(target, (pending.get(target) ?? 0) + 1);
      undone++;
    } else {
      return { commit: { sha, date, subject }, undone };
    }
  }
  return { commit: undefined, undone };
}

/** The newest mem commit not yet undone (see findUndoTarget), or undefined. */
export async function lastMemCommit(repoRoot: string): Promise<MemCommit | undefined> {
  return (await findUndoTarget(repoRoot)).commit;
}

/** Raw bytes of `path` as committed in HEAD (after git's checkout filters), or undefined. */
export function committedBlob(repoRoot: string, path: string): Promise<Buffer | undefined> {
  return gitBlob(repoRoot, `HEAD:${checkRepoPath(path)}`);
}

/**
 * The one parent of a commit mem may revert. A commit without a parent here (the repository's
 * first, or the edge of a shallow clone, whose parent was never fetched) is refused: reverting it
 * against an empty tree would delete every file it holds. A merge is refused too.
 */
export async function revertibleParent(repoRoot: string, sha: string): Promise<string> {
  const parents = (await git(repoRoot, ['rev-list', '--parents', '-n', '1', sha])).trim().split(' ').slice(1);
  if (parents.length > 1)
    throw new MemError(
      'INVALID_ARGUMENT',
      `${sha.slice(0, 7)} is a merge commit; mem undoes only its own commits`,
    );
  const parent = parents[0];
  if (parent === undefined) {
    const shallow = (
      await git(repoRoot, ['rev-parse', '--is-shallow-repository'], { allowFail: true })
    )?.trim();
    throw new MemError(
      'INVALID_ARGUMENT',
      shallow === 'true'
        ? `${sha.slice(0, 7)} is the oldest commit of this shallow clone and its parent is missing, so mem cannot tell what it changed; nothing was undone (\`git fetch --unshallow\` fetches the history)`
        : `${sha.slice(0, 7)} is the repository's first commit: it has no parent to go back to; nothing was undone`,
    );
  }
  return parent;
}

/** Vault files an undo never deletes: without them the folder is no longer a vault (or an agent). */
export function isKeptByUndo(vaultPath: string, persona = 'persona'): boolean {
  return vaultPath === 'mem.config.json' || vaultPath === persona || vaultPath.startsWith(`${persona}/`);
}

/** Whether a file is as it was in `parent`: the same bytes, or absent in both. */
async function isAsBefore(repoRoot: string, parent: string, path: string): Promise<boolean> {
  const { abs } = await resolveInVault(repoRoot, path, { anyFolder: true });
  const current = await readForWrite(abs);
  const old = await gitBlob(repoRoot, `${parent}:${path}`);
  return old === undefined ? current === undefined : current?.hash === hashText(old);
}

/** Files a commit touched (renames as delete + add), relative to the repository root. */
export async function touchedPaths(
  repoRoot: string,
  sha: string,
  parent: string | undefined,
): Promise<string[]> {
  const args = parent
    ? ['diff-tree', '-r', '-z', '--no-renames', '--name-only', parent, sha]
    : ['diff-tree', '-r', '-z', '--no-renames', '--name-only', '--root', sha];
  const out = await git(repoRoot, args);
  return out.split('\0').filter((p) => p !== '' && p !== sha);
}

/** One file of a planned revert: its text as it was before the commit (none: the commit added it). */
export interface RevertStep {
  /** Repository path */
  path: string;
  abs: string;
  /** Hash of the file as it is now (null: absent), for the compare-and-swap of the write */
  hash: string | null;
  old?: Buffer;
}

/** What reverting a commit writes: each touched file as it was before, and the commit's message. */
export interface RevertPlan {
  sha: string;
  subject: string;
  /** `mem: undo <subject>` */
  message: string;
  /** Every repository path the commit touched */
  paths: string[];
  steps: RevertStep[];
}

export interface RevertOptions {
  /** Repository paths the undo must not delete (see isKeptByUndo) */
  keep?: (repoPath: string) => boolean;
  /**
   * Finishes an undo of this commit that a kill cut short: a file already back as it was before the
   * commit counts as done, not as changed since (default: false)
   */
  resume?: boolean;
}

/**
 * Plans the undo of one commit: the files it touched as they were before it, read from git.
 * Refuses (CONFLICT) when any of those files changed since: a later commit, a staged change, a
 * hand edit. Only reads: the writing back is write/revert-commit.ts's.
 */
export async function planRevert(
  repoRoot: string,
  rev: string,
  options: RevertOptions = {},
): Promise<RevertPlan> {
  const keep = options.keep ?? (() => false);
  const sha = (
    await git(repoRoot, ['rev-parse', '--verify', '-q', `${checkRev(rev)}^{commit}`], { allowFail: true })
  )?.trim();
  if (!sha) throw new MemError('NOT_FOUND', `${rev}: no such commit`);
  const busy = await gitBusy(repoRoot);
  if (busy) throw new MemError('GIT', `cannot undo ${sha.slice(0, 7)}: ${busy}`);
  const parent = await revertibleParent(repoRoot, sha);
  const subject = (await git(repoRoot, ['log', '-1', '--format=%s', sha])).trim();
  const paths = await touchedPaths(repoRoot, sha, parent);

  const isAncestor = await git(repoRoot, ['merge-base', '--is-ancestor', sha, 'HEAD'], { allowFail: true });
  if (isAncestor === undefined)
    throw new MemError(
      'CONFLICT',
      `${sha.slice(0, 7)} is not part of the current branch; nothing was undone`,
    );
  // Later commits that net to nothing (a write and its undo) leave the files as this commit made them.
  const unchanged = await git(repoRoot, ['diff', '--quiet', sha, 'HEAD', '--', ...paths], {
    allowFail: true,
  });
  const later =
    unchanged === undefined
      ? (await git(repoRoot, ['log', '--format=%h', `${sha}..HEAD`, '--', ...paths])).trim()
      : '';
  if (later) {
    throw new MemError(
      'CONFLICT',
      `files of ${sha.slice(0, 7)} were changed by a later commit (${later.split('\n')[0]}); nothing was undone`,
    );
  }
  const status = (
    await git(repoRoot, ['status', '--porcelain', '-z', '--untracked-files=all', '--', ...paths])
  ).split('\0');
  const changed: string[] = [];
  for (const path of status.filter(Boolean).map((line) => line.slice(3))) {
    if (options.resume && (await isAsBefore(repoRoot, parent, path))) continue;
    changed.push(path);
  }
  if (changed.length > 0) {
    throw new MemError(
      'CONFLICT',
      `${changed.join(', ')} changed since ${sha.slice(0, 7)}; nothing was undone`,
    );
  }

  // Read every current version first, so a refusal (or a late hand edit) leaves all files untouched.
  const steps: RevertStep[] = [];
  for (const path of paths) {
    const resolved = await resolveInVault(repoRoot, path, { anyFolder: true });
    // A file to create again gets the name git stored (NFD when it came from a Mac), not the NFC one.
    const abs = (await exists(resolved.abs)) ? resolved.abs : join(repoRoot, path);
    const current = await readForWrite(abs);
    if (current === undefined && (await exists(abs)))
      throw new MemError('CONFLICT', `${path}: cannot be read back`);
    const old = await gitBlob(repoRoot, `${parent}:${path}`);
    if (old === undefined && current !== undefined && keep(path))
      throw new MemError(
        'INVALID_ARGUMENT',
        `undoing ${sha.slice(0, 7)} would delete ${path}, which a vault needs; nothing was undone`,
      );
    steps.push({ path, abs, hash: current?.hash ?? null, old });
  }
  return { sha, subject, message: `mem: undo ${subject.replace(/^mem: /, '')}`, paths, steps };
}
