import { access, realpath } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import type { MemConfig } from '../core/config.js';
import { MemError } from '../core/errors.js';
import { commitPaths, type DeriveContent } from './commit-paths.js';
import { gitRoot, isGitAvailable } from './run-git.js';

export interface WriteCommit {
  committed: boolean;
  sha?: string;
  /** Why nothing was committed (auto-commit off, not a repository, a merge in progress …) */
  reason?: string;
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

/**
 * Commits exactly the vault paths mem just wrote, when the vault is in a git repository and
 * `git.autoCommit` is on. A busy repository (index.lock, merge, rebase) is left alone: the files
 * are written, the commit is skipped, and the reason says so.
 */
export async function commitWrite(
  root: string,
  config: MemConfig,
  vaultPaths: string[],
  message: string,
  /** Vault paths mem only appended to: what to commit, from the committed text (see DeriveContent) */
  derived: Map<string, DeriveContent> = new Map(),
): Promise<WriteCommit> {
  if (!config.git.autoCommit) return { committed: false, reason: 'git.autoCommit is off' };
  if (!(await isGitAvailable())) {
    if (await insideGitCheckout(root)) {
      throw new MemError(
        'GIT',
        'the vault is in a git repository but the git command was not found; install git or set git.autoCommit to false in mem.config.json (the file was written, not committed)',
      );
    }
    return { committed: false, reason: 'not a git repository' };
  }
  const repo = await gitRoot(root);
  if (!repo) return { committed: false, reason: 'not a git repository' };
  const realRoot = await realpath(root);
  const prefix = relative(repo, realRoot).split(sep).join('/');
  const paths = [...new Set(vaultPaths)].map((p) => (prefix ? `${prefix}/${p}` : p));
  const toRepo = (p: string) => (prefix ? `${prefix}/${p}` : p);
  const derivedInRepo = new Map([...derived].map(([p, derive]) => [toRepo(p), derive]));
  const result = await commitPaths(repo, paths, message, derivedInRepo, { runHooks: config.git.runHooks });
  return result.committed
    ? { committed: true, sha: result.sha }
    : { committed: false, reason: result.reason };
}
