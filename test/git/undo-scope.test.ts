import { execFileSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ignoreEnvVault } from '../helpers/ignore-env-vault.js';
import { mem } from '../helpers/run-cli.js';

const dirs: string[] = [];
const gitLog = (dir: string) => execFileSync('git', ['log', '--format=%s'], { cwd: dir, encoding: 'utf8' });

ignoreEnvVault();

afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

async function initVault(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'memvault-undo-'));
  dirs.push(dir);
  expect((await mem(['init'], { cwd: dir })).code).toBe(0);
  return dir;
}

describe('mem undo reverts only the write verbs of mem', () => {
  it('remember, undo, undo: the second undo refuses and the vault stays a vault', async () => {
    const dir = await initVault();
    const cli = (...args: string[]) => mem(['--vault', dir, ...args]);
    expect((await cli('remember', 'Alpha', '--at', '2026-11-30T10:00:00Z')).code).toBe(0);
    expect((await cli('undo')).code).toBe(0);

    const second = await cli('undo');

    expect(second.code).toBe(1);
    expect(second.stderr).toBe(
      'mem: nothing left to undo: the last 2 mem commits are writes that were undone and their undos (mem never undoes `mem: init vault` or a commit a person made)\n',
    );
    expect((await stat(join(dir, 'mem.config.json'))).isFile()).toBe(true);
    expect((await stat(join(dir, 'profile/user.md'))).isFile()).toBe(true);
    expect((await cli('doctor', '--json')).code).toBe(0);
  });

  it('skips a commit a person made, even one titled like mem', async () => {
    const dir = await initVault();
    await writeFile(join(dir, 'profile/user.md'), 'a person wrote this\n');
    execFileSync(
      'git',
      ['-c', 'user.name=P', '-c', 'user.email=p@x', 'commit', '-qam', 'mem: my own notes'],
      {
        cwd: dir,
      },
    );
    const out = await mem(['--vault', dir, 'undo']);
    expect(out.code).toBe(1);
    expect(out.stderr).toMatch(/^mem: no mem commit to undo/);
    expect(await readFile(join(dir, 'profile/user.md'), 'utf8')).toBe('a person wrote this\n');
  });

  it('--dry-run says what it would revert and changes nothing', async () => {
    const dir = await initVault();
    const cli = (...args: string[]) => mem(['--vault', dir, ...args]);
    expect((await cli('remember', 'Alpha', '--at', '2026-11-30T10:00:00Z')).code).toBe(0);
    const before = gitLog(dir);
    const day = await readFile(join(dir, 'episodes/daily/2026-11-30.md'), 'utf8');

    const out = await cli('undo', '--dry-run', '--json');

    expect(out.code).toBe(0);
    const result = JSON.parse(out.stdout) as {
      dryRun: boolean;
      paths: string[];
      undone: { subject: string };
    };
    expect(result).toMatchObject({
      dryRun: true,
      committed: false,
      paths: ['episodes/daily/2026-11-30.md'],
      undone: { subject: 'mem: remember 2026-11-30#^e1' },
    });
    const text = await cli('undo', '--dry-run');
    expect(text.stdout).toMatch(
      /^would undo [0-9a-f]{7} mem: remember 2026-11-30#\^e1\n {2}episodes\/daily\/2026-11-30\.md\n$/,
    );
    expect(gitLog(dir)).toBe(before);
    expect(await readFile(join(dir, 'episodes/daily/2026-11-30.md'), 'utf8')).toBe(day);
  });
});

describe('mem undo in a shallow clone', () => {
  /** A vault with init, then two remembers, cloned with `git clone --depth <depth>`. */
  async function shallowClone(depth: number): Promise<string> {
    const dir = await initVault();
    const cli = (...args: string[]) => mem(['--vault', dir, ...args]);
    expect((await cli('remember', 'Alpha', '--at', '2026-11-29T10:00:00Z')).code).toBe(0);
    expect((await cli('remember', 'Beta', '--at', '2026-11-30T10:00:00Z')).code).toBe(0);
    const clone = await mkdtemp(join(tmpdir(), 'memvault-shallow-'));
    dirs.push(clone);
    execFileSync('git', ['clone', '-q', '--depth', String(depth), `file://${dir}`, clone]);
    expect(
      execFileSync('git', ['rev-parse', '--is-shallow-repository'], { cwd: clone, encoding: 'utf8' }),
    ).toBe('true\n');
    return clone;
  }

  it('refuses to revert the boundary commit, whose parent is missing, and deletes nothing', async () => {
    const clone = await shallowClone(1);
    const files = (await readdir(clone, { recursive: true })).filter((f) => !f.startsWith('.')).sort();
    const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: clone, encoding: 'utf8' });

    for (const args of [['undo', '--dry-run'], ['undo']]) {
      const out = await mem(['--vault', clone, ...args]);
      expect(out.code).toBe(2);
      expect(out.stderr).toMatch(
        /^mem: [0-9a-f]{7} is the oldest commit of this shallow clone and its parent is missing, so mem cannot tell what it changed; nothing was undone \(`git fetch --unshallow` fetches the history\)\n$/,
      );
    }
    expect((await readdir(clone, { recursive: true })).filter((f) => !f.startsWith('.')).sort()).toEqual(
      files,
    );
    expect(execFileSync('git', ['rev-parse', 'HEAD'], { cwd: clone, encoding: 'utf8' })).toBe(head);
    expect((await stat(join(clone, 'mem.config.json'))).isFile()).toBe(true);
  });

  it('undoes a commit whose parent the clone has, then refuses at the boundary', async () => {
    const clone = await shallowClone(2);
    const cli = (...args: string[]) => mem(['--vault', clone, ...args]);
    const first = await cli('undo');
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    await expect(stat(join(clone, 'episodes/daily/2026-11-30.md'))).rejects.toThrow();
    expect(await readFile(join(clone, 'episodes/daily/2026-11-29.md'), 'utf8')).toContain('Alpha');
    const second = await cli('undo');
    expect(second.code).toBe(2);
    expect(second.stderr).toMatch(/oldest commit of this shallow clone/);
    expect(await readFile(join(clone, 'episodes/daily/2026-11-29.md'), 'utf8')).toContain('Alpha');
    expect((await stat(join(clone, 'mem.config.json'))).isFile()).toBe(true);
  });

  it('never deletes mem.config.json or persona/, even when a mem commit added them', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'memvault-undo-'));
    dirs.push(dir);
    await writeFile(join(dir, 'README'), 'x\n');
    execFileSync('git', ['init', '-q'], { cwd: dir });
    execFileSync('git', ['-c', 'user.name=P', '-c', 'user.email=p@x', 'add', 'README'], { cwd: dir });
    execFileSync('git', ['-c', 'user.name=P', '-c', 'user.email=p@x', 'commit', '-qm', 'start'], {
      cwd: dir,
    });
    await writeFile(join(dir, 'mem.config.json'), '{"timezone":"UTC"}\n');
    execFileSync('git', ['add', 'mem.config.json'], { cwd: dir });
    execFileSync(
      'git',
      ['-c', 'user.name=P', '-c', 'user.email=p@x', 'commit', '-qm', 'mem: note set config'],
      {
        cwd: dir,
      },
    );
    const out = await mem(['--vault', dir, 'undo']);
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(/would delete mem\.config\.json, which a vault needs; nothing was undone/);
    expect((await stat(join(dir, 'mem.config.json'))).isFile()).toBe(true);
  });
});
