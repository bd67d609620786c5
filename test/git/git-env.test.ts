import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { commitPaths } from '../../src/git/commit-paths.js';
import { ignoreEnvVault } from '../helpers/ignore-env-vault.js';
import { mem } from '../helpers/run-cli.js';

const run = promisify(execFile);
const dirs: string[] = [];

/** The person's own git, run with a clean environment of its own. */
async function sh(cwd: string, ...args: string[]): Promise<string> {
  const env = { PATH: process.env['PATH'], HOME: cwd, GIT_CONFIG_NOSYSTEM: '1' };
  const { stdout } = await run('git', ['-c', 'user.name=U', '-c', 'user.email=u@x', ...args], { cwd, env });
  return stdout;
}

async function tempDir(): Promise<string> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), 'mem-git-env-')));
  dirs.push(dir);
  return dir;
}

async function vaultRepo(): Promise<string> {
  const root = await tempDir();
  await writeFile(join(root, 'mem.config.json'), JSON.stringify({ timezone: 'UTC' }));
  await sh(root, 'init', '-q', '-b', 'main');
  await sh(root, 'add', '-A');
  await sh(root, 'commit', '-qm', 'start');
  return root;
}

ignoreEnvVault();

afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

describe('git edge cases', () => {
  it('GIT_DIR and GIT_WORK_TREE in the environment (a dotfiles setup) do not redirect the commit', async () => {
    const home = await tempDir();
    const dotfiles = join(home, '.dotfiles');
    await sh(home, 'init', '-q', '--bare', dotfiles);
    await writeFile(join(home, '.bashrc'), 'alias x=y\n');
    await sh(home, `--git-dir=${dotfiles}`, `--work-tree=${home}`, 'add', '.bashrc');
    await sh(home, `--git-dir=${dotfiles}`, `--work-tree=${home}`, 'commit', '-qm', 'dotfiles');
    const before = await sh(home, `--git-dir=${dotfiles}`, 'rev-parse', 'HEAD');
    const root = await vaultRepo();
    vi.stubEnv('GIT_DIR', dotfiles);
    vi.stubEnv('GIT_WORK_TREE', home);
    vi.stubEnv('GIT_INDEX_FILE', join(home, 'index'));

    const out = await mem(['--vault', root, 'remember', 'a private thing', '--at', '2026-11-30T10:00:00Z']);

    expect(out.code).toBe(0);
    vi.unstubAllEnvs();
    expect(await sh(root, 'log', '--format=%s')).toBe('mem: remember 2026-11-30#^e1\nstart\n');
    expect(await sh(root, 'status', '--porcelain')).toBe('');
    expect(await sh(home, `--git-dir=${dotfiles}`, 'rev-parse', 'HEAD')).toBe(before);
  });

  it('on a detached HEAD the file is written, not committed, and the reason says why', async () => {
    const root = await vaultRepo();
    await sh(root, 'checkout', '-q', '--detach');
    const head = await sh(root, 'rev-parse', 'HEAD');
    await mkdir(join(root, 'insights'));
    await writeFile(join(root, 'insights/a.md'), 'a\n');

    const result = await commitPaths(root, ['insights/a.md'], 'mem: note new insights/a.md');

    expect(result).toEqual({
      committed: false,
      code: 'busy',
      reason:
        'HEAD is detached (no branch is checked out), so a commit would be lost when a branch is checked out; mem did not commit',
    });
    expect(await sh(root, 'rev-parse', 'HEAD')).toBe(head);
    expect(await readFile(join(root, 'insights/a.md'), 'utf8')).toBe('a\n');
    const out = await mem(['--vault', root, 'remember', 'x', '--at', '2026-11-30T10:00:00Z']);
    expect(out.code).toBe(0);
    expect(out.stderr).toContain('mem: written, not committed: HEAD is detached');
  });
});

describe('a vault whose folder git ignores', () => {
  it('writes the note and says clearly why it did not commit', async () => {
    const repo = await tempDir();
    await sh(repo, 'init', '-q', '-b', 'main');
    await writeFile(join(repo, '.gitignore'), 'vault/\n');
    await sh(repo, 'add', '.gitignore');
    await sh(repo, 'commit', '-qm', 'start');
    const root = join(repo, 'vault');
    await mkdir(root);
    await writeFile(join(root, 'mem.config.json'), JSON.stringify({ timezone: 'UTC' }));

    const out = await mem(['--vault', root, 'remember', 'x', '--at', '2026-11-30T10:00:00Z']);

    expect(out.code).toBe(0);
    expect(out.stderr).toBe(
      'mem: written, not committed: git ignores vault/episodes/daily/2026-11-30.md (a .gitignore lists it or a folder above it); mem did not commit\n',
    );
    expect(await readFile(join(root, 'episodes/daily/2026-11-30.md'), 'utf8')).toContain('- 10:00 x ^e1');
    expect(await sh(repo, 'log', '--format=%s')).toBe('start\n');
  });
});
