import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, realpath, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { beforeEach, describe, expect, it } from 'vitest';
import { MemError } from '../../src/core/errors.js';
import { commitPaths } from '../../src/git/commit-paths.js';
import { diff, findUndoTarget, history, lastMemCommit } from '../../src/git/git-history.js';
import { gitBusy, gitRoot, isGitAvailable } from '../../src/git/run-git.js';
import { revertCommit } from '../../src/write/revert-commit.js';

// The tests must not depend on (or be changed by) the machine's git config: no user.name anywhere.
process.env['GIT_CONFIG_GLOBAL'] = '/dev/null';
process.env['GIT_CONFIG_NOSYSTEM'] = '1';

const run = promisify(execFile);
let repo: string;

/** The user's own git, with an identity of its own. */
async function sh(...args: string[]): Promise<string> {
  const { stdout } = await run(
    'git',
    ['-c', 'user.name=User', '-c', 'user.email=user@example.com', ...args],
    {
      cwd: repo,
    },
  );
  return stdout;
}

async function put(path: string, text: string): Promise<void> {
  await mkdir(dirname(join(repo, path)), { recursive: true });
  await writeFile(join(repo, path), text);
}

async function snapshot(): Promise<{ staged: string; unstaged: string; status: string }> {
  return {
    staged: await sh('diff', '--cached'),
    unstaged: await sh('diff'),
    status: await sh('status', '--porcelain', '--untracked-files=all'),
  };
}

beforeEach(async () => {
  repo = await realpath(await mkdtemp(join(tmpdir(), 'mem-git-')));
  await sh('init', '-q', '-b', 'main');
});

async function seed(): Promise<void> {
  await put('a.md', 'a\n');
  await put('b.md', 'b\n');
  await put('c.md', 'c\n');
  await sh('add', '.');
  await sh('commit', '-q', '-m', 'user: start');
}

describe('commitPaths', () => {
  it('git is available on this machine', async () => {
    expect(await isGitAvailable()).toBe(true);
  });

  it("commits only the given paths and leaves the user's staged and unstaged changes exactly as they were", async () => {
    await seed();
    await put('b.md', 'b staged by the user\n');
    await sh('add', 'b.md');
    await put('c.md', 'c edited, not staged\n');
    await put('untracked.md', 'mine\n');
    const before = await snapshot();

    await put('a.md', 'a written by mem\n');
    await put('notes/new.md', 'new note\n');
    const result = await commitPaths(repo, ['a.md', 'notes/new.md'], 'mem: remember two things');

    expect(result.committed).toBe(true);
    expect(result.sha).toBe((await sh('rev-parse', 'HEAD')).trim());
    expect(await sh('show', '--name-only', '--format=%s', 'HEAD')).toBe(
      'mem: remember two things\n\na.md\nnotes/new.md\n',
    );
    expect(await snapshot()).toEqual(before);
    expect(await sh('show', 'HEAD:a.md')).toBe('a written by mem\n');
    expect(await sh('show', 'HEAD:b.md')).toBe('b\n');
  });

  it('commits a deleted path as a deletion', async () => {
    await seed();
    await rm(join(repo, 'a.md'));
    const result = await commitPaths(repo, ['a.md'], 'mem: forget a');
    expect(result.committed).toBe(true);
    expect(await sh('show', '--name-status', '--format=', 'HEAD')).toBe('D\ta.md\n');
    expect(await sh('status', '--porcelain')).toBe('');
  });

  it('takes paths literally, even with glob characters', async () => {
    await seed();
    await put('notes/[draft] a*b.md', 'x\n');
    await put('notes/[draft] aXb.md', 'not mine\n');
    await commitPaths(repo, ['notes/[draft] a*b.md'], 'mem: draft');
    expect(await sh('show', '--name-only', '--format=', 'HEAD')).toBe('notes/[draft] a*b.md\n');
  });

  it('makes the first commit in an empty repository, without any user.name configured', async () => {
    await put('profile/user.md', 'hello\n');
    const result = await commitPaths(repo, ['profile/user.md'], 'mem: init');
    expect(result.committed).toBe(true);
    expect(await sh('log', '--format=%an <%ae> %s %P')).toBe('memvault <memvault@localhost> mem: init \n');
    expect(await sh('status', '--porcelain')).toBe('');
  });

  it('works when the vault is a subfolder of the repository', async () => {
    await seed();
    await put('vault/profile/user.md', 'me\n');
    expect(await gitRoot(join(repo, 'vault'))).toBe(repo);
    const result = await commitPaths(repo, ['vault/profile/user.md'], 'mem: profile');
    expect(result.committed).toBe(true);
    expect(await sh('show', '--name-only', '--format=', 'HEAD')).toBe('vault/profile/user.md\n');
  });

  it('does not commit while index.lock exists; the written file stays on disk', async () => {
    await seed();
    const head = await sh('rev-parse', 'HEAD');
    await writeFile(join(repo, '.git', 'index.lock'), '');
    await put('a.md', 'written by mem\n');
    const result = await commitPaths(repo, ['a.md'], 'mem: x');
    expect(result).toEqual({
      committed: false,
      code: 'busy',
      reason: 'another git process is running (index.lock exists); mem did not commit',
    });
    expect(await sh('rev-parse', 'HEAD')).toBe(head);
    expect(await readFile(join(repo, 'a.md'), 'utf8')).toBe('written by mem\n');
  });

  it('does not commit during a merge or a rebase', async () => {
    await seed();
    const head = (await sh('rev-parse', 'HEAD')).trim();
    await writeFile(join(repo, '.git', 'MERGE_HEAD'), `${head}\n`);
    expect(await commitPaths(repo, ['a.md'], 'mem: x')).toEqual({
      committed: false,
      code: 'busy',
      reason: 'a merge is in progress; mem did not commit',
    });
    await rm(join(repo, '.git', 'MERGE_HEAD'));
    await mkdir(join(repo, '.git', 'rebase-merge'));
    expect(await gitBusy(repo)).toBe('a rebase is in progress; mem did not commit');
  });

  it('finds the git dir of a linked worktree', async () => {
    await seed();
    const tree = join(repo, '..', `${repo.split('/').pop()}-wt`);
    await sh('worktree', 'add', '-q', tree);
    expect(await gitBusy(tree)).toBeUndefined();
    const gitDir = (await run('git', ['rev-parse', '--git-dir'], { cwd: tree })).stdout.trim();
    await writeFile(join(gitDir, 'index.lock'), '');
    expect(await gitBusy(tree)).toBe(
      'another git process is running (index.lock exists); mem did not commit',
    );
  });

  it('says so when there is nothing to commit', async () => {
    await seed();
    expect(await commitPaths(repo, ['a.md'], 'mem: x')).toEqual({
      committed: false,
      code: 'unchanged',
      reason: 'nothing to commit: the files match the last commit',
    });
  });

  it('refuses paths that are not relative to the repository', async () => {
    await expect(commitPaths(repo, ['../x.md'], 'mem: x')).rejects.toThrow(MemError);
    await expect(commitPaths(repo, ['/etc/passwd'], 'mem: x')).rejects.toThrow(
      '"/etc/passwd": expected a path relative to the repository root',
    );
  });
});

describe('history, diff, lastMemCommit', () => {
  it('history follows a rename', async () => {
    await put('insights/a.md', 'a fact that is long enough to be recognised after the rename\n');
    await commitPaths(repo, ['insights/a.md'], 'mem: create a');
    await rename(join(repo, 'insights/a.md'), join(repo, 'insights/b.md'));
    await commitPaths(repo, ['insights/a.md', 'insights/b.md'], 'mem: rename a to b');
    await put('insights/b.md', 'a fact that is long enough to be recognised after the rename\nmore\n');
    await commitPaths(repo, ['insights/b.md'], 'mem: extend b');

    const entries = await history(repo, 'insights/b.md');
    expect(entries.map((e) => [e.subject, e.path])).toEqual([
      ['mem: extend b', 'insights/b.md'],
      ['mem: rename a to b', 'insights/b.md'],
      ['mem: create a', 'insights/a.md'],
    ]);
    expect(entries[0]?.sha).toBe((await sh('rev-parse', 'HEAD')).trim());
    expect(Number.isNaN(Date.parse(entries[0]?.date ?? ''))).toBe(false);
  });

  it('history of a repository without commits is empty', async () => {
    expect(await history(repo, 'a.md')).toEqual([]);
  });

  it('diff shows uncommitted changes, or what one commit changed', async () => {
    await seed();
    await put('a.md', 'a\nmore\n');
    expect(await diff(repo, undefined, ['a.md'])).toContain('\n+more\n');
    await commitPaths(repo, ['a.md'], 'mem: more');
    expect(await diff(repo, undefined, ['a.md'])).toBe('');
    expect(await diff(repo, 'HEAD')).toContain('\n+more\n');
    await expect(diff(repo, '--output=/tmp/x')).rejects.toThrow('"--output=/tmp/x": not a revision');
  });

  it('lastMemCommit finds the newest commit whose subject starts with "mem: "', async () => {
    await seed();
    expect(await lastMemCommit(repo)).toBeUndefined();
    await put('a.md', 'changed\n');
    const { sha } = await commitPaths(repo, ['a.md'], 'mem: note set a');
    await put('b.md', 'user\n');
    await sh('commit', '-q', '-am', 'user: not mem\n\nmem: in the body does not count');
    const last = await lastMemCommit(repo);
    expect([last?.sha, last?.subject]).toEqual([sha, 'mem: note set a']);
  });
});

describe('findUndoTarget', () => {
  it('skips each undo together with the write it undid, newest first', async () => {
    await seed();
    await put('a.md', 'a1\n');
    const a = await commitPaths(repo, ['a.md'], 'mem: remember a');
    await put('b.md', 'b1\n');
    const b = await commitPaths(repo, ['b.md'], 'mem: remember b');
    expect(await lastMemCommit(repo)).toMatchObject({ sha: b.sha, subject: 'mem: remember b' });

    await put('b.md', 'b\n');
    await commitPaths(repo, ['b.md'], 'mem: undo remember b');
    expect(await findUndoTarget(repo)).toMatchObject({
      commit: { sha: a.sha, subject: 'mem: remember a' },
      undone: 2,
    });

    await put('a.md', 'a\n');
    await commitPaths(repo, ['a.md'], 'mem: undo remember a');
    expect(await findUndoTarget(repo)).toEqual({ commit: undefined, undone: 4 });
  });

  it('an undo of an undo brings the write back as the one to undo', async () => {
    await seed();
    await put('a.md', 'a1\n');
    const a = await commitPaths(repo, ['a.md'], 'mem: remember a');
    await put('a.md', 'a\n');
    await commitPaths(repo, ['a.md'], 'mem: undo remember a');
    await put('a.md', 'a1\n');
    await commitPaths(repo, ['a.md'], 'mem: undo undo remember a');
    expect(await findUndoTarget(repo)).toMatchObject({ commit: { sha: a.sha }, undone: 2 });
  });

  it('finds nothing, and nothing undone, in a repository without mem commits', async () => {
    await seed();
    expect(await findUndoTarget(repo)).toEqual({ commit: undefined, undone: 0 });
  });
});

describe('revertCommit', () => {
  async function memChange(): Promise<string> {
    await seed();
    await put('a.md', 'a changed by mem\n');
    await put('new.md', 'created by mem\n');
    const { sha } = await commitPaths(repo, ['a.md', 'new.md'], 'mem: remember x');
    return sha ?? '';
  }

  it('writes the old contents back, removes files the commit added, and commits "mem: undo …"', async () => {
    const sha = await memChange();
    await put('c.md', 'user edit elsewhere\n');
    const result = await revertCommit(repo, sha);
    expect(result.committed).toBe(true);
    expect(result.paths).toEqual(['a.md', 'new.md']);
    expect(await readFile(join(repo, 'a.md'), 'utf8')).toBe('a\n');
    await expect(readFile(join(repo, 'new.md'), 'utf8')).rejects.toThrow('ENOENT');
    expect(await sh('log', '-1', '--format=%s')).toBe('mem: undo remember x\n');
    expect(await sh('status', '--porcelain')).toBe(' M c.md\n');
  });

  it('refuses after a hand edit and changes nothing', async () => {
    const sha = await memChange();
    await put('a.md', 'edited by hand\n');
    const error = await revertCommit(repo, sha).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MemError);
    expect((error as MemError).code).toBe('CONFLICT');
    expect((error as MemError).message).toBe(`a.md changed since ${sha.slice(0, 7)}; nothing was undone`);
    expect(await readFile(join(repo, 'a.md'), 'utf8')).toBe('edited by hand\n');
    expect(await readFile(join(repo, 'new.md'), 'utf8')).toBe('created by mem\n');
    expect(await sh('log', '-1', '--format=%s')).toBe('mem: remember x\n');
  });

  it('refuses when the change is staged, or a later commit touched the file', async () => {
    const sha = await memChange();
    await put('new.md', 'staged\n');
    await sh('add', 'new.md');
    await expect(revertCommit(repo, sha)).rejects.toThrow(`new.md changed since ${sha.slice(0, 7)}`);
    await sh('commit', '-q', '-m', 'user: later');
    await expect(revertCommit(repo, sha)).rejects.toThrow('were changed by a later commit');
  });

  it('refuses an unknown commit', async () => {
    await seed();
    await expect(revertCommit(repo, 'deadbeef')).rejects.toThrow('deadbeef: no such commit');
  });
});
