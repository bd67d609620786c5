// The git plumbing `mem sync` is made of: the remote's branch, merge bases, git's three-way merge
// of two commits into a tree (`git merge-tree --write-tree`, git 2.38+: no work tree, no index,
// no conflict markers anywhere but in objects mem replaces), blobs, and a merge commit built in a
// private index. Writes objects and refs only, never a note.
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemError } from '../core/errors.js';
import { identityArgs } from './commit-paths.js';
import { headOf } from './repo-files.js';
import { git, gitCommand, gitDir, gitEnv } from './run-git.js';

export async function currentBranch(repo: string): Promise<string> {
  const head = await headOf(await gitDir(repo));
  if (head && 'branch' in head) return head.branch;
  const out = head
    ? undefined
    : await git(repo, ['symbolic-ref', '-q', '--short', 'HEAD'], { allowFail: true });
  if (!out?.trim())
    throw new MemError('GIT', 'HEAD is detached (no branch is checked out); mem sync needs a branch');
  return out.trim();
}

export async function hasRemote(repo: string, remote: string): Promise<boolean> {
  const out = await git(repo, ['remote'], { allowFail: true });
  return (out ?? '').split('\n').includes(remote);
}

/** Fetches `branch` of `remote`; the fetched commit, or undefined when the remote has no such branch. */
export async function fetchBranch(repo: string, remote: string, branch: string): Promise<string | undefined> {
  const heads = await git(repo, ['ls-remote', '--heads', remote, `refs/heads/${branch}`]);
  if (heads.trim() === '') return undefined;
  await git(repo, [
    'fetch',
    '-q',
    '--no-tags',
    remote,
    `+refs/heads/${branch}:refs/remotes/${remote}/${branch}`,
  ]);
  return (await git(repo, ['rev-parse', `refs/remotes/${remote}/${branch}^{commit}`])).trim();
}

export async function mergeBase(repo: string, a: string, b: string): Promise<string | undefined> {
  const out = await git(repo, ['merge-base', a, b], { allowFail: true });
  return out?.trim() || undefined;
}

export async function isAncestor(repo: string, a: string, b: string): Promise<boolean> {
  return (await git(repo, ['merge-base', '--is-ancestor', a, b], { allowFail: true })) !== undefined;
}

/** A path git could not merge: its blob on each side that has one (stage 1 base, 2 ours, 3 theirs). */
export interface Conflicted {
  path: string;
  stages: Partial<Record<1 | 2 | 3, string>>;
}

/** Git's merge of two commits into a tree (conflicted paths hold markers in it; see `conflicts`). */
export async function mergeTree(
  repo: string,
  ours: string,
  theirs: string,
): Promise<{ tree: string; conflicts: Conflicted[] }> {
  // Exit 1 means conflicts and still prints the tree; anything else is a failure.
  const out = await new Promise<string>((resolve, reject) => {
    execFile(
      ...gitCommand(['merge-tree', '--write-tree', '-z', '--no-messages', ours, theirs]),
      { cwd: repo, env: gitEnv(), maxBuffer: 256 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (!error || (error.code === 1 && /^[0-9a-f]{40,64}\0/.test(stdout))) resolve(stdout);
        else
          reject(
            new MemError(
              'GIT',
              `git merge-tree failed in ${repo}: ${String(stderr).trim() || error.message}`,
            ),
          );
      },
    );
  });
  const parts = out.split('\0');
  const tree = parts[0]!;
  const byPath = new Map<string, Conflicted>();
  for (const part of parts.slice(1)) {
    if (part === '') break;
    const m = /^(\d+) ([0-9a-f]+) ([123])\t(.*)$/s.exec(part);
    if (!m) continue;
    const c = byPath.get(m[4]!) ?? { path: m[4]!, stages: {} };
    c.stages[Number(m[3]) as 1 | 2 | 3] = m[2]!;
    byPath.set(m[4]!, c);
  }
  return { tree, conflicts: [...byPath.values()] };
}

/** Paths that differ between two commits (no rename pairing: a move is a delete and an add). */
export async function changedPaths(repo: string, a: string, b: string): Promise<string[]> {
  const out = await git(repo, ['diff', '--name-only', '-z', '--no-renames', a, b]);
  return out.split('\0').filter(Boolean);
}

/** The text of `rev:path`, or undefined when it has no such file. */
export async function blobText(repo: string, rev: string, path: string): Promise<string | undefined> {
  return git(repo, ['cat-file', 'blob', `${rev}:${path}`], { allowFail: true });
}

export async function blobById(repo: string, oid: string): Promise<string> {
  return git(repo, ['cat-file', 'blob', oid]);
}

/** The mode and blob of `path` in a tree-ish, or undefined. */
export async function treeEntry(
  repo: string,
  rev: string,
  path: string,
): Promise<{ mode: string; oid: string } | undefined> {
  const out = await git(repo, ['ls-tree', '-z', rev, '--', path]);
  const m = /^(\d+) blob ([0-9a-f]+)\t/.exec(out);
  return m ? { mode: m[1]!, oid: m[2]! } : undefined;
}

/**
 * The merge commit of `parents`: git's tree `base`, with `files` (path → text, or null to delete)
 * put over it, built in a private index so the person's index is left alone.
 */
export async function commitMerge(
  repo: string,
  base: string,
  files: Map<string, string | null>,
  parents: string[],
  message: string,
): Promise<string> {
  const temp = await mkdtemp(join(tmpdir(), 'mem-sync-'));
  const env = { GIT_INDEX_FILE: join(temp, 'index') };
  try {
    await git(repo, ['read-tree', base], { env });
    const lines: string[] = [];
    for (const [path, text] of files) {
      if (text === null) {
        lines.push(`0 ${'0'.repeat(40)}\t${path}`);
        continue;
      }
      const oid = (await git(repo, ['hash-object', '-w', '--stdin'], { input: text })).trim();
      lines.push(`100644 ${oid}\t${path}`);
    }
    if (lines.length > 0)
      await git(repo, ['update-index', '-z', '--index-info'], { env, input: `${lines.join('\0')}\0` });
    const tree = (await git(repo, ['write-tree'], { env })).trim();
    const args = [
      ...(await identityArgs(repo)),
      'commit-tree',
      tree,
      ...parents.flatMap((p) => ['-p', p]),
      '-m',
      message,
    ];
    return (await git(repo, args)).trim();
  } finally {
    await rm(temp, { recursive: true, force: true });
  }
}

/**
 * Paths among `paths` whose file in the work tree (or in the index) is not HEAD's: a person's
 * uncommitted edit, or an untracked file where the merge would put one.
 */
export async function editedPaths(repo: string, paths: string[]): Promise<string[]> {
  const found = new Set<string>();
  // In chunks: neither command reads paths from stdin in every git mem supports.
  for (let i = 0; i < paths.length; i += 200) {
    const chunk = paths.slice(i, i + 200);
    const changed = await git(repo, ['diff', '--name-only', '-z', 'HEAD', '--', ...chunk]);
    const untracked = await git(repo, ['ls-files', '-z', '--others', '--', ...chunk]);
    for (const p of [...changed.split('\0'), ...untracked.split('\0')]) if (p) found.add(p);
  }
  return [...found];
}

/** Points the index at `commit` for `paths` (others left as they are). */
export async function indexPaths(repo: string, commit: string, paths: string[]): Promise<void> {
  const lines: string[] = [];
  for (const path of paths) {
    const entry = await treeEntry(repo, commit, path);
    lines.push(entry ? `${entry.mode} ${entry.oid}\t${path}` : `0 ${'0'.repeat(40)}\t${path}`);
  }
  if (lines.length > 0)
    await git(repo, ['update-index', '-z', '--index-info'], { input: `${lines.join('\0')}\0` });
}

/** Commits on HEAD not on `remote`/`branch` as last fetched, and the other way round. */
export async function aheadBehind(
  repo: string,
  remote: string,
  branch: string,
): Promise<{ ahead: number; behind: number } | undefined> {
  const out = await git(
    repo,
    ['rev-list', '--left-right', '--count', `HEAD...refs/remotes/${remote}/${branch}`],
    {
      allowFail: true,
    },
  );
  const m = /^(\d+)\s+(\d+)/.exec(out ?? '');
  return m ? { ahead: Number(m[1]), behind: Number(m[2]) } : undefined;
}
