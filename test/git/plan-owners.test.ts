import { type ChildProcess, spawn } from 'node:child_process';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/core/config/config.js';
import { commitWrite } from '../../src/git/commit-write.js';
import { withVaultLock } from '../../src/vault/lock.js';
import { remember } from '../../src/write/remember.js';
import { underPlan, withPlan } from '../../src/write/write-plan.js';
import { git, gitVault } from '../helpers/git.js';
import { cleanupVaults } from '../helpers/make-vault.js';
import { planRecords } from '../helpers/plan-records.js';

// Issue 31: a plan record has an owner. Another command commits in its gaps without finishing it
// while the owner runs; once the owner is gone, the next write commits the whole plan on its own.
// Records mem did not write on this device (tracked by git, naming paths outside the vault, not a
// record at all) are set aside with a reason and block nothing.

const children: ChildProcess[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
  await cleanupVaults();
});

const config = { ...defaultConfig(), timezone: 'UTC' };
const at = (hour: number) => new Date(Date.UTC(2026, 10, 30, hour));

/** A live process of this host that is not this one: an owner that is still running. */
function liveProcess(): ChildProcess {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  children.push(child);
  return child;
}

async function plantRecord(root: string, name: string, record: unknown): Promise<void> {
  await mkdir(join(root, '.mem/plans'), { recursive: true });
  await writeFile(
    join(root, '.mem/plans', name),
    typeof record === 'string' ? record : JSON.stringify(record),
  );
}

const owner = (pid: number) => ({ pid, host: hostname(), token: 'other', time: new Date().toISOString() });
const subjects = async (root: string) => (await git(root, 'log', '--format=%s')).trim().split('\n');

describe('a plan whose owner still runs it', () => {
  it('is left alone by commits in its gaps, and committed whole once the owner is gone', async () => {
    const root = await gitVault({ 'notes/a.md': 'a\n' });
    const child = liveProcess();
    await writeFile(join(root, 'notes/a.md'), 'a, moved half-way\n');
    await plantRecord(root, 'other.json', {
      key: 'mv notes/a.md -> notes/b.md',
      message: 'mem: mv notes/a.md -> notes/b.md',
      paths: ['notes/a.md'],
      owner: owner(child.pid!),
    });
    await remember(root, config, { text: 'in the gap', at: at(9) });
    expect(await subjects(root)).toEqual(['mem: remember 2026-11-30#^e1', 'init']);
    expect(await git(root, 'status', '--porcelain')).toBe(' M notes/a.md\n');
    child.kill('SIGKILL');
    await new Promise((done) => child.once('exit', done));
    await remember(root, config, { text: 'after the owner died', at: at(10) });
    expect(await subjects(root)).toEqual([
      'mem: remember 2026-11-30#^e2',
      'mem: mv notes/a.md -> notes/b.md',
      'mem: remember 2026-11-30#^e1',
      'init',
    ]);
    expect(await planRecords(root)).toEqual([]);
  });

  it("this process's plan in steps: a commit between its steps leaves it, its own commit holds all of it", async () => {
    const root = await gitVault({ 'notes/a.md': 'a\n', 'notes/b.md': 'b\n' });
    await withPlan(root, 'two steps', async () => {
      await underPlan(root, config, 'two steps', async (plan) => {
        await plan.record(['notes/a.md', 'notes/b.md'], 'mem: two steps');
        await writeFile(join(root, 'notes/a.md'), 'a changed\n');
      });
      // A chat's group commit between the steps (commits only its own paths, finishes no live plan).
      await remember(root, config, { text: 'between the steps', at: at(9) });
      await underPlan(root, config, 'two steps', async (plan) => {
        await writeFile(join(root, 'notes/b.md'), 'b changed\n');
        return plan.commit(['notes/b.md'], 'mem: two steps');
      });
    });
    expect(await subjects(root)).toEqual(['mem: two steps', 'mem: remember 2026-11-30#^e1', 'init']);
    expect(await git(root, 'show', '--name-only', '--format=', 'HEAD')).toBe('notes/a.md\nnotes/b.md\n');
    expect(await planRecords(root)).toEqual([]);
  });

  it('a plan whose steps threw is given up: the next write commits what it wrote', async () => {
    const root = await gitVault({ 'notes/a.md': 'a\n' });
    await expect(
      withPlan(root, 'fails', async () => {
        await underPlan(root, config, 'fails', (plan) => plan.record(['notes/a.md'], 'mem: fails'));
        await writeFile(join(root, 'notes/a.md'), 'a changed\n');
        throw new Error('the model went away');
      }),
    ).rejects.toThrow('the model went away');
    await remember(root, config, { text: 'next', at: at(9) });
    expect(await subjects(root)).toEqual(['mem: remember 2026-11-30#^e1', 'mem: fails', 'init']);
  });
});

describe('plan records mem did not write here', () => {
  const bad: Array<[string, unknown]> = [
    ['not JSON', '{"key": "mv'],
    ['a path that leaves the vault', { key: 'k', message: 'm', paths: ['../outside.md'] }],
    ['an absolute path', { key: 'k', message: 'm', paths: ['/etc/passwd'] }],
    ['a path into .git', { key: 'k', message: 'm', paths: ['.git/config'] }],
    ['a path into .mem', { key: 'k', message: 'm', paths: ['.mem/adds.jsonl'] }],
    ['a Windows path', { key: 'k', message: 'm', paths: ['C:\\notes\\a.md'] }],
    ['paths that are not text', { key: 'k', message: 'm', paths: [1, null] }],
    ['an owner that is no owner', { key: 'k', message: 'm', paths: ['a.md'], owner: 'me' }],
    ['no paths', { key: 'k', message: 'm' }],
  ];
  it.each(bad)('%s: set aside with its reason, and later writes commit as before', async (_, record) => {
    const root = await gitVault({ 'notes/mine.md': 'mine\n' });
    await writeFile(join(root, 'notes/person.md'), "the person's untracked note\n");
    await plantRecord(root, 'planted.json', record);
    const result = await remember(root, config, { text: 'still committed', at: at(9) });
    expect(result.committed).toBe(true);
    expect(await subjects(root)).toEqual(['mem: remember 2026-11-30#^e1', 'init']);
    expect(await git(root, 'status', '--porcelain')).toBe('?? notes/person.md\n');
    const aside = await readdir(join(root, '.mem/plans-set-aside'));
    expect(aside).toHaveLength(2);
    const why = aside.find((n) => n.endsWith('.why'))!;
    expect((await readFile(join(root, '.mem/plans-set-aside', why), 'utf8')).trim()).not.toBe('');
  });

  it("a record a remote tracks (force-added to .mem/) is never finished: the person's untracked note stays out", async () => {
    const root = await gitVault({ 'notes/mine.md': 'mine\n' });
    await writeFile(join(root, 'notes/person.md'), "the person's untracked note\n");
    // A dead owner, valid paths: only where it came from gives it away.
    await plantRecord(root, 'remote.json', {
      key: 'import x',
      message: 'mem: import x',
      paths: ['notes/person.md'],
      owner: { pid: 2 ** 22 + 7, host: 'another-device', token: 't', time: '2020-01-01T00:00:00Z' },
    });
    await git(root, 'add', '-f', '.mem/plans/remote.json');
    await git(root, 'commit', '-q', '-m', 'from the remote');
    await remember(root, config, { text: 'a write', at: at(9) });
    expect(await git(root, 'log', '--format=%s', '-1')).toBe('mem: remember 2026-11-30#^e1\n');
    expect(await git(root, 'ls-files', 'notes/person.md')).toBe('');
    expect((await readdir(join(root, '.mem/plans-set-aside'))).some((n) => n.endsWith('.why'))).toBe(true);
  });
});

describe('commits need the write lock', () => {
  it('commitWrite takes the proof only withVaultLock gives', async () => {
    const root = await gitVault({ 'notes/a.md': 'a\n' });
    await writeFile(join(root, 'notes/a.md'), 'b\n');
    // @ts-expect-error: a commit made without the lock does not type-check (the root is no lock).
    await expect(commitWrite(root, root, config, ['notes/a.md'], 'mem: x')).rejects.toThrow();
    const made = await withVaultLock(root, (lock) =>
      commitWrite(lock, root, config, ['notes/a.md'], 'mem: x'),
    );
    expect(made.committed).toBe(true);
  });
});
