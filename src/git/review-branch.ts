// Writes a run's files as one commit on a new branch, never touching HEAD, the index or the work tree.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemError } from '../core/errors.js';
import { identityArgs } from './commit-paths.js';
import { git, gitBlob, headCommit } from './run-git.js';
import { findVaultRepo, toRepoPath } from './vault-git.js';

export interface ReviewCommit {
  /** The new branch, e.g. `mem/reflect-2026-12-01` (or `…-2` when that name was taken) */
  branch: string;
  sha: string;
  /** The commit the branch starts from: HEAD when it was made */
  base: string;
}

/** A file's text as HEAD has it (vault path), or undefined when HEAD has no such file. */
export async function committedText(root: string, vaultPath: string): Promise<string | undefined> {
  const repo = await findVaultRepo(root);
  const head = repo && (await headCommit(repo.repo));
  if (!repo || !head) return undefined;
  return (await gitBlob(repo.repo, `${head}:${toRepoPath(repo, vaultPath)}`))?.toString('utf8');
}

/** `name`, or `name-2`, `name-3` … : the first that no branch has yet. */
async function freeBranch(repo: string, name: string): Promise<string> {
  for (let n = 1; ; n++) {
    const candidate = n === 1 ? name : `${name}-${n}`;
    const taken = await git(repo, ['rev-parse', '--verify', '-q', `refs/heads/${candidate}`], {
      allowFail: true,
    });
    if (taken === undefined) return candidate;
  }
}

/**
 * One commit on top of HEAD holding `files` (vault path → new text), on a new branch `name`,
 * built with plumbing in a private index: the checked-out branch, HEAD, the index and the work
 * tree stay exactly as they were, so a person can look at the branch and merge it or not.
 */
export async function commitReviewBranch(
  root: string,
  files: Array<{ path: string; text: string }>,
  message: string,
  name: string,
): Promise<ReviewCommit> {
  const repo = await findVaultRepo(root);
  if (!repo)
    throw new MemError('GIT', `${root}: not in a git repository (or git is missing); --review needs git`);
  const base = await headCommit(repo.repo);
  if (!base)
    throw new MemError('GIT', `${root}: the repository has no commit yet; --review needs one to branch from`);
  const temp = await mkdtemp(join(tmpdir(), 'mem-review-'));
  const env = { GIT_INDEX_FILE: join(temp, 'index') };
  try {
    await git(repo.repo, ['read-tree', base], { env });
    for (const file of files) {
      const path = toRepoPath(repo, file.path);
      const listed = (await git(repo.repo, ['ls-tree', '-z', base, '--', path])).split(' ')[0];
      const mode = listed && /^100(644|755)$/.test(listed) ? listed : '100644';
      const blob = (await git(repo.repo, ['hash-object', '-w', '--stdin'], { input: file.text })).trim();
      await git(repo.repo, ['update-index', '--add', '--cacheinfo', `${mode},${blob},${path}`], { env });
    }
    const tree = (await git(repo.repo, ['write-tree'], { env })).trim();
    const identity = await identityArgs(repo.repo);
    const sha = (
      await git(repo.repo, [...identity, 'commit-tree', tree, '-p', base, '-F', '-'], { input: message })
    ).trim();
    // Create-only (`''` as the old value): a branch made meanwhile by someone else is never moved.
    for (let attempt = 0; attempt < 3; attempt++) {
      const branch = await freeBranch(repo.repo, name);
      const made = await git(
        repo.repo,
        ['update-ref', '-m', `mem: review ${branch}`, `refs/heads/${branch}`, sha, ''],
        { allowFail: true },
      );
      if (made !== undefined) return { branch, sha, base };
    }
    throw new MemError('GIT', `could not create a branch named ${name}: others of that name keep appearing`);
  } finally {
    await rm(temp, { recursive: true, force: true });
  }
}
