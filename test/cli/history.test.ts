import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { HistoryEntry } from '../../src/git/git-history.js';
import { git, gitVault } from '../helpers/git.js';
import { ignoreEnvVault } from '../helpers/ignore-env-vault.js';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';
import { mem } from '../helpers/run-cli.js';

const read = (root: string, path: string) => readFile(join(root, path), 'utf8');

const NOTE = '---\ntitle: Tea\nconfidence: 0.5\n---\n# Tea\n';

ignoreEnvVault();

afterEach(async () => {
  await cleanupVaults();
});

describe('mem history', () => {
  it("lists a note's commits newest first, following its rename", async () => {
    const root = await gitVault({ 'insights/tea.md': NOTE });
    const cli = (...args: string[]) => mem(['--vault', root, ...args]);
    expect((await cli('note', 'set', 'insights/tea', 'confidence=0.9')).code).toBe(0);
    expect((await cli('mv', 'insights/tea', 'insights/oolong')).code).toBe(0);

    const out = await cli('history', 'insights/oolong', '--json');

    expect(out.code).toBe(0);
    const entries = JSON.parse(out.stdout) as HistoryEntry[];
    expect(entries.map((e) => [e.subject, e.path])).toEqual([
      ['mem: mv insights/tea.md -> insights/oolong.md', 'insights/oolong.md'],
      ['mem: note set insights/tea.md confidence', 'insights/tea.md'],
      ['init', 'insights/tea.md'],
    ]);
    const text = await cli('history', 'oolong');
    expect(text.stdout.split('\n')[0]).toMatch(
      /^[0-9a-f]{7} {2}\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d {2}mem: mv insights\/tea\.md -> insights\/oolong\.md {2}\(insights\/oolong\.md\)$/,
    );
  });

  it('fails with a clear message when the vault is not in git', async () => {
    const root = await makeVault({ 'a.md': '# A\n' });
    const out = await mem(['--vault', root, 'history', 'a']);
    expect(out).toEqual({
      code: 1,
      stdout: '',
      stderr: `mem: ${root}: not in a git repository (or git is missing); mem history needs git\n`,
    });
  });
});

describe('mem undo', () => {
  it("reverts mem's last commit and re-indexes the files", async () => {
    const root = await gitVault({ 'insights/tea.md': NOTE });
    const cli = (...args: string[]) => mem(['--vault', root, ...args]);
    await cli('note', 'set', 'insights/tea', 'confidence=0.9');

    const out = await cli('undo', '--json');

    expect(out.code).toBe(0);
    const result = JSON.parse(out.stdout) as {
      paths: string[];
      committed: boolean;
      undone: { subject: string };
    };
    expect(result.paths).toEqual(['insights/tea.md']);
    expect(result.committed).toBe(true);
    expect(result.undone.subject).toBe('mem: note set insights/tea.md confidence');
    expect(await read(root, 'insights/tea.md')).toBe(NOTE);
    expect(await git(root, 'log', '--format=%s')).toBe(
      'mem: undo note set insights/tea.md confidence\nmem: note set insights/tea.md confidence\ninit\n',
    );
    const shown = await cli('show', 'insights/tea', '--json');
    expect((JSON.parse(shown.stdout) as { note: { frontmatter: unknown } }).note.frontmatter).toEqual({
      title: 'Tea',
      confidence: 0.5,
    });
  });

  it('takes back a move: the old path and every rewritten link come back', async () => {
    const files = { 'Old.md': '# Old\n', 'a.md': 'see [[Old|it]]\n' };
    const root = await gitVault(files);
    const cli = (...args: string[]) => mem(['--vault', root, ...args]);
    expect((await cli('mv', 'Old', 'New')).stdout).toBe(
      'Old.md -> New.md; 1 link(s) rewritten in 1 note(s)\n  a.md: 1\n',
    );
    expect(await read(root, 'a.md')).toBe('see [[New|it]]\n');

    expect((await cli('undo')).code).toBe(0);

    expect(await read(root, 'a.md')).toBe(files['a.md']);
    expect(await read(root, 'Old.md')).toBe(files['Old.md']);
    expect(await git(root, 'status', '--porcelain')).toBe('');
  });

  it('walks back on repeated undos: undo, undo takes back the last two writes, then says nothing is left', async () => {
    const root = await gitVault({ 'a.md': '# A\n' });
    const cli = (...args: string[]) => mem(['--vault', root, ...args]);
    const day = 'episodes/daily/2026-11-30.md';
    expect((await cli('remember', 'Alpha fact', '--at', '2026-11-30T10:00:00+08:00')).code).toBe(0);
    expect((await cli('remember', 'Beta fact', '--at', '2026-11-30T11:00:00+08:00')).code).toBe(0);
    const [beta, alpha] = (await git(root, 'log', '-2', '--format=%s')).trim().split('\n');

    const first = await cli('undo');
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/^undid [0-9a-f]{7} mem: remember 2026-11-30#\^\w+\n$/);
    expect(first.stdout).toContain(beta?.slice('mem: '.length));
    const kept = await read(root, day);
    expect([kept.includes('Alpha fact'), kept.includes('Beta fact')]).toEqual([true, false]);

    const second = await cli('undo');
    expect(second.stderr).toBe('');
    expect(second.code).toBe(0);
    expect(second.stdout).toContain(alpha?.slice('mem: '.length));
    await expect(read(root, day)).rejects.toThrow('ENOENT');

    const third = await cli('undo');
    expect(third).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'mem: nothing left to undo: the last 4 mem commits are writes that were undone and their undos (mem never undoes `mem: init vault` or a commit a person made)\n',
    });
    expect((await git(root, 'log', '--format=%s')).split('\n').length).toBe(6);
    expect(await git(root, 'status', '--porcelain')).toBe('');
  });

  it('refuses when a file of that commit was edited by hand since, and leaves it alone', async () => {
    const root = await gitVault({ 'insights/tea.md': NOTE });
    const cli = (...args: string[]) => mem(['--vault', root, ...args]);
    await cli('note', 'set', 'insights/tea', 'confidence=0.9');
    const edited = `${await read(root, 'insights/tea.md')}A hand edit.\n`;
    await writeFile(join(root, 'insights/tea.md'), edited);

    const out = await cli('undo');

    expect(out.code).toBe(1);
    expect(out.stderr).toMatch(/^mem: insights\/tea\.md changed since [0-9a-f]{7}; nothing was undone\n$/);
    expect(await read(root, 'insights/tea.md')).toBe(edited);
    expect(await git(root, 'log', '-1', '--format=%s')).toBe('mem: note set insights/tea.md confidence\n');
  });
});

describe('mem diff', () => {
  it('prints uncommitted changes, and one commit when given a revision', async () => {
    const root = await gitVault({ 'insights/tea.md': NOTE });
    const cli = (...args: string[]) => mem(['--vault', root, ...args]);
    await cli('note', 'set', 'insights/tea', 'confidence=0.9');
    await writeFile(join(root, 'insights/tea.md'), `${await read(root, 'insights/tea.md')}Hand.\n`);

    const working = await cli('diff');
    expect(working.code).toBe(0);
    expect(working.stdout).toContain('\n # Tea\n+Hand.\n');
    expect(working.stdout).not.toContain('+confidence');

    const last = await cli('diff', 'HEAD', '--json');
    const json = JSON.parse(last.stdout) as { rev: string; diff: string };
    expect(json.rev).toBe('HEAD');
    expect(json.diff).toContain('\n-confidence: 0.5\n+confidence: 0.9\n');
  });
});
