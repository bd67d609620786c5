import { execFile } from 'node:child_process';
import { lstat, mkdtemp, rm, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { MemError } from '../errors.js';
import { findOnDisk, resolveInVault } from '../vault/paths.js';
import { readForWrite, writeAtomic } from '../vault/write-note.js';

export interface CommitResult {
  committed: boolean;
  sha?: string;
  /** Why nothing was committed (or what went wrong after the commit) */
  reason?: string;
}

export interface HistoryEntry {
  sha: string;
  /** Author date, ISO 8601 with offset */
  date: string;
  subject: string;
  /** The file's path in that commit (it changes across renames) */
  path: string;
}

interface RunOptions {
  env?: Record<string, string>;
  input?: string;
  /** Return undefined instead of throwing when git exits non-zero */
  allowFail?: boolean;
}

const BASE_ENV = {
  // Never wait for a password prompt; paths are literal (a note may be called `a*b.md` or `:x.md`).
  GIT_TERMINAL_PROMPT: '0',
  GIT_LITERAL_PATHSPECS: '1',
  GIT_OPTIONAL_LOCKS: '0',
  LC_ALL: 'C',
};

function git(
  cwd: string,
  args: string[],
  options: RunOptions & { allowFail: true },
): Promise<string | undefined>;
function git(cwd: string, args: string[], options?: RunOptions): Promise<string>;
function git(cwd: string, args: string[], options: RunOptions = {}): Promise<string | undefined> {
  return new Promise((resolvePromise, reject) => {
    const child = execFile(
      'git',
      ['-c', 'core.quotePath=false', ...args],
      { cwd, env: { ...process.env, ...BASE_ENV, ...options.env }, maxBuffer: 256 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (!error) return resolvePromise(stdout);
        if (options.allowFail) return resolvePromise(undefined);
        const detail = String(stderr).trim() || error.message;
        reject(new MemError('GIT', `git ${args[0]} failed in ${cwd}: ${detail}`, { cause: error }));
      },
    );
    // git may exit before reading its input (an error, nothing to do); that is not a failure of ours.
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(options.input ?? '');
  });
}

let available: Promise<boolean> | undefined;

export function isGitAvailable(): Promise<boolean> {
  available ??= git(process.cwd(), ['--version'], { allowFail: true }).then((out) => out !== undefined);
  return available;
}

/** Top folder of the git work tree holding `dir`, or undefined when there is none (or no git). */
export async function gitRoot(dir: string): Promise<string | undefined> {
  const out = await git(dir, ['rev-parse', '--show-toplevel'], { allowFail: true });
  return out?.trim() || undefined;
}

async function gitDir(repoRoot: string): Promise<string> {
  const out = (await git(repoRoot, ['rev-parse', '--git-dir'])).trim();
  return isAbsolute(out) ? out : resolve(repoRoot, out);
}

async function exists(path: string): Promise<boolean> {
  return lstat(path).then(
    () => true,
    () => false,
  );
}

/** A reason not to touch the repository now (another git running, a merge or rebase), or undefined. */
export async function gitBusy(repoRoot: string): Promise<string | undefined> {
  const dir = await gitDir(repoRoot);
  const checks: Array<[string, string]> = [
    ['index.lock', 'another git process is running (index.lock exists)'],
    ['MERGE_HEAD', 'a merge is in progress'],
    ['rebase-merge', 'a rebase is in progress'],
    ['rebase-apply', 'a rebase or am is in progress'],
    ['CHERRY_PICK_HEAD', 'a cherry-pick is in progress'],
    ['REVERT_HEAD', 'a revert is in progress'],
  ];
  for (const [name, reason] of checks) {
    if (await exists(join(dir, name))) return `${reason}; mem did not commit`;
  }
  return undefined;
}

async function headCommit(repoRoot: string): Promise<string | undefined> {
  const out = await git(repoRoot, ['rev-parse', '--verify', '-q', 'HEAD^{commit}'], { allowFail: true });
  return out?.trim() || undefined;
}

/** `-c user.name=… -c user.email=…` when the repository has no identity, so a commit never fails on it. */
async function identityArgs(repoRoot: string): Promise<string[]> {
  const args: string[] = [];
  const name = await git(repoRoot, ['config', 'user.name'], { allowFail: true });
  const email = await git(repoRoot, ['config', 'user.email'], { allowFail: true });
  if (!name?.trim()) args.push('-c', 'user.name=memvault');
  if (!email?.trim()) args.push('-c', 'user.email=memvault@localhost');
  return args;
}

function checkRepoPath(path: string): string {
  const posix = path.replace(/^\.\//, '');
  if (
    posix === '' ||
    isAbsolute(posix) ||
    posix.split('/').some((s) => s === '..' || s === '' || s === '.')
  ) {
    throw new MemError(
      'INVALID_PATH',
      `${JSON.stringify(path)}: expected a path relative to the repository root`,
    );
  }
  return posix;
}

/** Builds a commit of exactly `paths` on top of HEAD in a private index; returns the new commit and tree. */
async function buildCommit(
  repoRoot: string,
  paths: string[],
  message: string,
  head: string | undefined,
): Promise<{ commit: string; tree: string } | undefined> {
  const temp = await mkdtemp(join(tmpdir(), 'mem-index-'));
  const env = { GIT_INDEX_FILE: join(temp, 'index') };
  try {
    await git(repoRoot, head ? ['read-tree', head] : ['read-tree', '--empty'], { env });
    const present: string[] = [];
    const gone: string[] = [];
    for (const path of paths) ((await exists(join(repoRoot, path))) ? present : gone).push(path);
    // An untracked file the user ignores stays out of git, as `git add` would keep it.
    const ignored = new Set(
      (
        await git(repoRoot, ['check-ignore', '-z', '--stdin'], {
          env,
          input: present.join('\0'),
          allowFail: true,
        })
      )
        ?.split('\0')
        .filter(Boolean) ?? [],
    );
    const toAdd = present.filter((path) => !ignored.has(path));
    const nul = { env, input: `${toAdd.join('\0')}\0` };
    if (toAdd.length > 0) await git(repoRoot, ['add', '--pathspec-from-file=-', '--pathspec-file-nul'], nul);
    if (gone.length > 0) {
      await git(
        repoRoot,
        ['rm', '--cached', '-q', '--ignore-unmatch', '--pathspec-from-file=-', '--pathspec-file-nul'],
        {
          env,
          input: `${gone.join('\0')}\0`,
        },
      );
    }
    const tree = (await git(repoRoot, ['write-tree'], { env })).trim();
    const headTree = head ? (await git(repoRoot, ['rev-parse', `${head}^{tree}`])).trim() : undefined;
    if (tree === headTree) return undefined;
    const identity = await identityArgs(repoRoot);
    const parents = head ? ['-p', head] : [];
    const commit = (
      await git(repoRoot, [...identity, 'commit-tree', tree, ...parents, '-F', '-'], { input: message })
    ).trim();
    return { commit, tree };
  } finally {
    await rm(temp, { recursive: true, force: true });
  }
}

/** Makes the real index agree with the commit for just these paths, so `git status` shows them clean. */
async function syncIndex(repoRoot: string, paths: string[], commit: string): Promise<void> {
  const listing = await git(repoRoot, ['ls-tree', '-z', commit, '--', ...paths]);
  const inTree = new Map<string, string>();
  for (const entry of listing.split('\0').filter(Boolean)) {
    const [meta, path] = entry.split('\t');
    const [mode, , sha] = (meta ?? '').split(' ');
    if (path && mode && sha) inTree.set(path, `${mode},${sha},${path}`);
  }
  const adds = paths.flatMap((path) => {
    const info = inTree.get(path);
    return info ? ['--cacheinfo', info] : [];
  });
  const removes = paths.filter((path) => !inTree.has(path));
  if (adds.length > 0) await git(repoRoot, ['update-index', '--add', ...adds]);
  if (removes.length > 0) await git(repoRoot, ['update-index', '--force-remove', '--', ...removes]);
}

/**
 * The paths as git must be given them: a file that exists by its name on disk (macOS may have stored
 * it NFD, and git on Linux compares bytes); a deleted one in both its NFC and NFD forms, so the
 * index entry goes whichever form it was committed in.
 */
async function storedForms(repoRoot: string, paths: string[]): Promise<string[]> {
  const forms: string[] = [];
  for (const path of paths) {
    if (/^[\x20-\x7e]*$/.test(path)) {
      forms.push(path);
      continue;
    }
    const abs = await findOnDisk(repoRoot, path);
    if (await exists(abs)) forms.push(relative(repoRoot, abs).split(sep).join('/'));
    else forms.push(path.normalize('NFC'), path.normalize('NFD'));
  }
  return [...new Set(forms)];
}

/**
 * Commits exactly `paths` (relative to the repository root; added, changed or deleted) and nothing
 * else: the commit is built in a private index and HEAD is moved by compare-and-swap, so the user's
 * staged and unstaged changes to other files stay exactly as they were. No hooks run.
 */
export async function commitPaths(repoRoot: string, paths: string[], message: string): Promise<CommitResult> {
  const unique = await storedForms(repoRoot, [...new Set(paths.map(checkRepoPath))]);
  if (unique.length === 0) return { committed: false, reason: 'no paths to commit' };
  for (let attempt = 0; attempt < 3; attempt++) {
    const busy = await gitBusy(repoRoot);
    if (busy) return { committed: false, reason: busy };
    const head = await headCommit(repoRoot);
    const built = await buildCommit(repoRoot, unique, message, head);
    if (!built) return { committed: false, reason: 'nothing to commit: the files match the last commit' };
    // Compare-and-swap on HEAD: another tool (an auto-commit plugin) may have committed meanwhile.
    const moved = await git(
      repoRoot,
      ['update-ref', '-m', message.split('\n')[0] ?? message, 'HEAD', built.commit, head ?? ''],
      {
        allowFail: true,
      },
    );
    if (moved === undefined) continue;
    try {
      await syncIndex(repoRoot, unique, built.commit);
    } catch (error) {
      return {
        committed: true,
        sha: built.commit,
        reason: `committed, but the index was not refreshed: ${(error as Error).message}`,
      };
    }
    return { committed: true, sha: built.commit };
  }
  return {
    committed: false,
    reason: 'HEAD kept moving while mem committed (another tool is committing); try again',
  };
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
    throw new MemError('INVALID_INPUT', `${JSON.stringify(rev)}: not a revision`);
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
    if (!subject.startsWith('mem: ')) continue;
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

/** Files a commit touched (renames as delete + add), relative to the repository root. */
async function touchedPaths(repoRoot: string, sha: string, parent: string | undefined): Promise<string[]> {
  const args = parent
    ? ['diff-tree', '-r', '-z', '--no-renames', '--name-only', parent, sha]
    : ['diff-tree', '-r', '-z', '--no-renames', '--name-only', '--root', sha];
  const out = await git(repoRoot, args);
  return out.split('\0').filter((p) => p !== '' && p !== sha);
}

/**
 * Undoes one commit by writing back the files it touched as they were before it, then commits
 * `mem: undo <subject>`. Refuses (CONFLICT) when any of those files changed since: a later commit,
 * a staged change, a hand edit. Nothing is written when it refuses.
 */
export async function revertCommit(
  repoRoot: string,
  rev: string,
): Promise<CommitResult & { paths: string[] }> {
  const sha = (
    await git(repoRoot, ['rev-parse', '--verify', '-q', `${checkRev(rev)}^{commit}`], { allowFail: true })
  )?.trim();
  if (!sha) throw new MemError('NOT_FOUND', `${rev}: no such commit`);
  const busy = await gitBusy(repoRoot);
  if (busy) throw new MemError('GIT', `cannot undo ${sha.slice(0, 7)}: ${busy}`);
  const parents = (await git(repoRoot, ['rev-list', '--parents', '-n', '1', sha])).trim().split(' ').slice(1);
  if (parents.length > 1)
    throw new MemError(
      'INVALID_INPUT',
      `${sha.slice(0, 7)} is a merge commit; mem undoes only its own commits`,
    );
  const parent = parents[0];
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
  const changed = status.filter(Boolean).map((line) => line.slice(3));
  if (changed.length > 0) {
    throw new MemError(
      'CONFLICT',
      `${changed.join(', ')} changed since ${sha.slice(0, 7)}; nothing was undone`,
    );
  }

  // Read every current version first, so a refusal (or a late hand edit) leaves all files untouched.
  const plan: Array<{ path: string; abs: string; hash: string | null; old?: Buffer }> = [];
  for (const path of paths) {
    const { abs } = await resolveInVault(repoRoot, path);
    const current = await readForWrite(abs);
    if (current === undefined && (await exists(abs)))
      throw new MemError('CONFLICT', `${path}: cannot be read back`);
    const old = parent ? await gitBlob(repoRoot, `${parent}:${path}`) : undefined;
    plan.push({ path, abs, hash: current?.hash ?? null, old });
  }
  for (const step of plan) {
    if (step.old !== undefined) {
      await writeAtomic(step.abs, step.old, { expectedHash: step.hash, label: step.path });
    } else if (step.hash !== null) {
      const now = await readForWrite(step.abs);
      if (now && now.hash !== step.hash)
        throw new MemError('CONFLICT', `${step.path} changed on disk during undo; stopped`);
      await unlink(step.abs);
    }
  }
  const message = `mem: undo ${subject.replace(/^mem: /, '')}`;
  return { ...(await commitPaths(repoRoot, paths, message)), paths };
}

/** Raw bytes of `rev:path`, or undefined when the path does not exist there. */
function gitBlob(repoRoot: string, spec: string): Promise<Buffer | undefined> {
  return new Promise((resolvePromise) => {
    execFile(
      'git',
      ['cat-file', '--filters', spec],
      {
        cwd: repoRoot,
        env: { ...process.env, ...BASE_ENV },
        encoding: 'buffer',
        maxBuffer: 256 * 1024 * 1024,
      },
      (error, stdout) => resolvePromise(error ? undefined : stdout),
    );
  });
}
