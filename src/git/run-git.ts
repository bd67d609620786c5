// Runs git: the execFile wrapper, whether git is available, the repository root, and whether it is busy.
import { execFile, execFileSync } from 'node:child_process';
import { lstat } from 'node:fs/promises';
import { isAbsolute, join, resolve } from 'node:path';
import { MemError } from '../core/errors.js';
import { gitDirOf, headOf, knownTop, rememberTop } from './repo-files.js';

interface RunOptions {
  env?: Record<string, string>;
  /** Let the repository's hooks run (default: never; see gitEnv) */
  hooks?: boolean;
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

/**
 * Variables that point git at another repository, index or object store. A dotfiles setup exports
 * GIT_DIR and GIT_WORK_TREE, and mem once committed a vault's note into that repository; mem's git
 * always finds the vault's own repository from the folder it runs in.
 */
const REDIRECTING_VARS = [
  'GIT_DIR',
  'GIT_WORK_TREE',
  'GIT_INDEX_FILE',
  'GIT_OBJECT_DIRECTORY',
  'GIT_ALTERNATE_OBJECT_DIRECTORIES',
  'GIT_COMMON_DIR',
  'GIT_NAMESPACE',
  'GIT_PREFIX',
  'GIT_REPLACE_REF_BASE',
  'GIT_NO_REPLACE_OBJECTS',
  'GIT_GRAFT_FILE',
  'GIT_SHALLOW_FILE',
];

/**
 * The environment mem runs git with: the caller's, without redirections, plus mem's settings. No
 * hook runs unless asked (`hooks`): mem's plumbing would still start `reference-transaction` and
 * `post-index-change`, and a user's hook could block or slow a background commit. The setting is
 * added after any the caller passes in GIT_CONFIG_COUNT (git 2.31+; older git ignores it).
 */
export function gitEnv(extra: Record<string, string> = {}, hooks = false): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of REDIRECTING_VARS) delete env[name];
  const noHooks: Record<string, string> = {};
  if (!hooks) {
    const count = Number.parseInt(env['GIT_CONFIG_COUNT'] ?? '0', 10) || 0;
    noHooks['GIT_CONFIG_COUNT'] = String(count + 1);
    noHooks[`GIT_CONFIG_KEY_${count}`] = 'core.hooksPath';
    noHooks[`GIT_CONFIG_VALUE_${count}`] = '/dev/null';
  }
  return { ...env, ...BASE_ENV, ...noHooks, ...extra };
}

/** Niceness mem's git processes run with (lowerGitPriority); 0: the caller's own */
let gitNiceness = 0;

/**
 * Runs mem's git processes (commits, syncs, their children) `niceness` steps below this process,
 * when `nice` can run git here: on a busy server, git's processes took as much CPU as the requests
 * they are the background work of, and a search waited behind a push. Returns whether it applies.
 */
export function lowerGitPriority(niceness = 10): boolean {
  if (process.platform === 'win32') return false;
  try {
    execFileSync('nice', ['-n', '0', 'git', '--version'], { stdio: 'ignore', env: gitEnv() });
  } catch {
    return false;
  }
  gitNiceness = niceness;
  return true;
}

/** The program and arguments that run `git args` at mem's git priority. */
export function gitCommand(args: string[]): [string, string[]] {
  return gitNiceness > 0 ? ['nice', ['-n', String(gitNiceness), 'git', ...args]] : ['git', args];
}

export function git(
  cwd: string,
  args: string[],
  options: RunOptions & { allowFail: true },
): Promise<string | undefined>;
export function git(cwd: string, args: string[], options?: RunOptions): Promise<string>;
export function git(cwd: string, args: string[], options: RunOptions = {}): Promise<string | undefined> {
  return new Promise((resolvePromise, reject) => {
    const child = execFile(
      ...gitCommand(['-c', 'core.quotePath=false', ...args]),
      { cwd, env: gitEnv(options.env, options.hooks), maxBuffer: 256 * 1024 * 1024 },
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

/**
 * Top folder of the git work tree holding `dir`, or undefined when there is none (or no git). Asked
 * of git once per folder; later calls check the files that would change the answer (repo-files.ts).
 */
export async function gitRoot(dir: string): Promise<string | undefined> {
  const known = await knownTop(dir);
  if (known !== undefined) return known;
  const out = await git(dir, ['rev-parse', '--show-toplevel'], { allowFail: true });
  const top = out?.trim() || undefined;
  rememberTop(dir, top);
  return top;
}

export async function gitDir(repoRoot: string): Promise<string> {
  const read = await gitDirOf(repoRoot);
  if (read !== undefined) return read;
  const out = (await git(repoRoot, ['rev-parse', '--git-dir'])).trim();
  return isAbsolute(out) ? out : resolve(repoRoot, out);
}

export async function exists(path: string): Promise<boolean> {
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
  // A commit on a detached HEAD vanishes from view when the person checks out their branch.
  const head = await headOf(dir);
  const detached = head
    ? 'detached' in head
    : (await git(repoRoot, ['symbolic-ref', '-q', 'HEAD'], { allowFail: true })) === undefined;
  if (detached) {
    return 'HEAD is detached (no branch is checked out), so a commit would be lost when a branch is checked out; mem did not commit';
  }
  return undefined;
}

export async function headCommit(repoRoot: string): Promise<string | undefined> {
  const out = await git(repoRoot, ['rev-parse', '--verify', '-q', 'HEAD^{commit}'], { allowFail: true });
  return out?.trim() || undefined;
}

export function checkRepoPath(path: string): string {
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

/** Raw bytes of `rev:path`, or undefined when the path does not exist there. */
export function gitBlob(repoRoot: string, spec: string): Promise<Buffer | undefined> {
  return new Promise((resolvePromise) => {
    execFile(
      ...gitCommand(['cat-file', '--filters', spec]),
      {
        cwd: repoRoot,
        env: gitEnv(),
        encoding: 'buffer',
        maxBuffer: 256 * 1024 * 1024,
      },
      (error, stdout) => resolvePromise(error ? undefined : stdout),
    );
  });
}
