import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { headOf } from '../../src/git/repo-files.js';
import { gitBusy, gitDir, gitRoot } from '../../src/git/run-git.js';
import { currentBranch } from '../../src/git/sync-git.js';

process.env['GIT_CONFIG_GLOBAL'] = '/dev/null';
process.env['GIT_CONFIG_NOSYSTEM'] = '1';

const run = promisify(execFile);
const git = async (cwd: string, ...args: string[]) =>
  (await run('git', ['-c', 'user.name=U', '-c', 'user.email=u@x', ...args], { cwd })).stdout.trim();
const gitOr = (cwd: string, ...args: string[]) => git(cwd, ...args).catch(() => undefined);

async function repoWithCommit(): Promise<string> {
  const repo = await realpath(await mkdtemp(join(tmpdir(), 'mem-repo-files-')));
  await git(repo, 'init', '-q', '-b', 'main');
  await writeFile(join(repo, 'a.md'), 'a\n');
  await git(repo, 'add', '.');
  await git(repo, 'commit', '-q', '-m', 'start');
  return repo;
}

/** Each state a vault's repository can be in, the folder mem runs in for it. */
const STATES: Array<[string, (repo: string) => Promise<string>]> = [
  ['a branch', async (repo) => repo],
  [
    'a branch with a slash in its name',
    async (repo) => {
      await git(repo, 'checkout', '-q', '-b', 'feature/notes');
      return repo;
    },
  ],
  [
    'a detached HEAD',
    async (repo) => {
      await git(repo, 'checkout', '-q', '--detach');
      return repo;
    },
  ],
  [
    'a vault in a subfolder',
    async (repo) => {
      await mkdir(join(repo, 'vault/profile'), { recursive: true });
      return join(repo, 'vault/profile');
    },
  ],
  [
    'a linked work tree (its .git a file)',
    async (repo) => {
      const tree = `${repo}-wt`;
      await git(repo, 'worktree', 'add', '-q', '-b', 'other', tree);
      return tree;
    },
  ],
  [
    'a linked work tree on a detached HEAD',
    async (repo) => {
      const tree = `${repo}-wt2`;
      await git(repo, 'worktree', 'add', '-q', '--detach', tree);
      return tree;
    },
  ],
];

describe("the repository's files, read without git", () => {
  for (const [name, make] of STATES) {
    it(`agree with git for ${name}`, async () => {
      const dir = await make(await repoWithCommit());
      const top = await git(dir, 'rev-parse', '--show-toplevel');
      // Twice: the second answer comes from what the first found.
      expect(await gitRoot(dir)).toBe(top);
      expect(await gitRoot(dir)).toBe(top);
      const said = await git(top, 'rev-parse', '--git-dir');
      expect(await gitDir(top)).toBe(isAbsolute(said) ? said : resolve(top, said));
      const branch = await gitOr(top, 'symbolic-ref', '-q', '--short', 'HEAD');
      if (branch) expect(await currentBranch(top)).toBe(branch);
      else await expect(currentBranch(top)).rejects.toThrow('HEAD is detached');
      const busy = await gitBusy(top);
      expect(busy === undefined).toBe(branch !== undefined);
    });
  }

  it('a `git init` in the vault after the first answer is seen, as is a removed repository', async () => {
    const repo = await repoWithCommit();
    const vault = join(repo, 'vault');
    await mkdir(join(vault, 'notes'), { recursive: true });
    const inner = join(vault, 'notes');
    expect(await gitRoot(inner)).toBe(repo);
    await git(vault, 'init', '-q', '-b', 'main');
    expect(await gitRoot(inner)).toBe(vault);
    await rm(join(vault, '.git'), { recursive: true });
    expect(await gitRoot(inner)).toBe(repo);
    await rm(join(repo, '.git'), { recursive: true });
    expect(await gitRoot(inner)).toBe(await gitOr(inner, 'rev-parse', '--show-toplevel'));
  });

  it('a HEAD the file does not say plainly is left to git', async () => {
    const repo = await repoWithCommit();
    const dir = join(repo, '.git');
    // A reftable repository keeps this stub; a symbolic ref outside refs/heads/ is git's to read.
    for (const stub of ['ref: refs/heads/.invalid\n', 'ref: refs/remotes/origin/main\n', 'garbage\n']) {
      await writeFile(join(dir, 'HEAD'), stub);
      expect(await headOf(dir)).toBeUndefined();
    }
    await writeFile(join(dir, 'HEAD'), 'ref: refs/heads/main\n');
    expect(await headOf(dir)).toEqual({ branch: 'main' });
  });
});
