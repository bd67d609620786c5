import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openVault } from '../../src/api/open-vault.js';
import { MemError } from '../../src/core/errors.js';
import { moveNote } from '../../src/write/move-note.js';
import { git, gitInit } from '../helpers/git.js';
import { ignoreEnvVault } from '../helpers/ignore-env-vault.js';
import { cleanupVaults, indexOf, makeVault } from '../helpers/make-vault.js';

/** Every file of the vault (except .git and .mem) with its text, for "nothing changed" checks. */
async function snapshot(root: string): Promise<Record<string, string>> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  const files: Record<string, string> = {};
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    const path = relative(root, join(entry.parentPath, entry.name)).split('\\').join('/');
    if (path.startsWith('.git/') || path.startsWith('.mem/')) continue;
    files[path] = await readFile(join(root, path), 'utf8');
  }
  return files;
}

const read = (root: string, path: string) => readFile(join(root, path), 'utf8');

/** Where each link of each note points, read from a freshly opened vault (no cache). */
async function resolvedLinks(
  root: string,
  paths: string[],
): Promise<Record<string, Array<string | undefined>>> {
  const fresh = await openVault({ path: root, cache: false });
  return Object.fromEntries(paths.map((p) => [p, fresh.links(p).map((edge) => edge.to)]));
}

const OLD = [
  '---',
  'id: n1',
  '---',
  '# Old Name',
  '',
  '## Heading',
  '',
  'Text ^b1',
  '',
  'See [[#Heading]] and [[Old Name#Heading]] and [s](./sibling.md).',
  '',
].join('\n');

const LINKING = [
  '---',
  'related: "[[Old Name]]"',
  '---',
  '[[Old Name]] and [[Old Name|alias]] and [[Old Name#Heading]] and ![[Old Name#^b1]]',
  '[t](Old%20Name.md) [u](<folder/Old Name.md>) [v](folder/Old%20Name.md#Heading)',
  '',
  '| a | b |',
  '|---|---|',
  '| [[Old Name\\|a]] | x |',
  '',
].join('\n');

ignoreEnvVault();

afterEach(async () => {
  await cleanupVaults();
});

describe('moveNote', () => {
  it('rewrites inbound links in every style, and each one resolves to the new path afterwards', async () => {
    const root = await makeVault({
      'folder/Old Name.md': OLD,
      'folder/sibling.md': '# Sibling\n',
      'a.md': LINKING,
      'folder/sub/b.md': 'Up: [up](../Old%20Name.md) and [[../Old Name]]\n',
      'c.md': 'With extension: [[old name.md]] and untouched [[Other]]\n',
    });
    await gitInit(root);
    const vault = await openVault({ path: root, cache: false });

    const result = await vault.move('folder/Old Name', 'notes/New Note');

    expect(result.from).toBe('folder/Old Name.md');
    expect(result.to).toBe('notes/New Note.md');
    expect(result.committed).toBe(true);
    expect(result.rewritten).toEqual([
      { path: 'a.md', links: 9 },
      { path: 'c.md', links: 1 },
      { path: 'folder/sub/b.md', links: 2 },
      { path: 'notes/New Note.md', links: 2 },
    ]);
    expect(await read(root, 'a.md')).toBe(
      [
        '---',
        'related: "[[New Note]]"',
        '---',
        '[[New Note]] and [[New Note|alias]] and [[New Note#Heading]] and ![[New Note#^b1]]',
        '[t](New%20Note.md) [u](<notes/New Note.md>) [v](notes/New%20Note.md#Heading)',
        '',
        '| a | b |',
        '|---|---|',
        '| [[New Note\\|a]] | x |',
        '',
      ].join('\n'),
    );
    expect(await read(root, 'folder/sub/b.md')).toBe(
      'Up: [up](../../notes/New%20Note.md) and [[../../notes/New Note]]\n',
    );
    expect(await read(root, 'c.md')).toBe('With extension: [[New Note.md]] and untouched [[Other]]\n');
    // The note's own link to itself follows it, and its same-folder link to a sibling now needs a path.
    expect(await read(root, 'notes/New Note.md')).toBe(
      OLD.replace('[[Old Name#Heading]]', '[[New Note#Heading]]').replace(
        '[s](./sibling.md)',
        '[s](../folder/sibling.md)',
      ),
    );
    expect((await snapshot(root))['folder/Old Name.md']).toBeUndefined();

    const links = await resolvedLinks(root, ['a.md', 'folder/sub/b.md', 'c.md', 'notes/New Note.md']);
    expect(links).toEqual({
      'a.md': Array(9).fill('notes/New Note.md'),
      'folder/sub/b.md': ['notes/New Note.md', 'notes/New Note.md'],
      'c.md': ['notes/New Note.md', undefined],
      'notes/New Note.md': ['notes/New Note.md', 'notes/New Note.md', 'folder/sibling.md'],
    });
    // The index of the open vault was refreshed as well.
    expect(vault.backlinks('notes/New Note').length).toBe(14);
    expect(vault.paths().includes('folder/Old Name.md')).toBe(false);
  });

  it('keeps percent-encoded and literal non-ASCII names, link titles, Markdown embeds and the .md-less form', async () => {
    const root = await makeVault({
      '中文.md': '# 中文\n',
      'a.md': '[e](%E4%B8%AD%E6%96%87.md) [l](中文.md "title") ![m](中文.md#^b) [n](中文) `[[中文]]`\n',
    });
    const vault = await openVault({ path: root, cache: false });
    await vault.move('中文', 'profile/新 名字');
    expect(await read(root, 'a.md')).toBe(
      '[e](%E6%96%B0%20%E5%90%8D%E5%AD%97.md) [l](新%20名字.md "title") ![m](新%20名字.md#^b) [n](新%20名字) `[[中文]]`\n',
    );
    expect(await resolvedLinks(root, ['a.md'])).toEqual({ 'a.md': Array(4).fill('profile/新 名字.md') });
  });

  it('makes one commit of every touched path, the deleted one included, and leaves the tree clean', async () => {
    const root = await makeVault({ 'Old.md': '# Old\n', 'a.md': 'see [[Old]]\n', 'b.md': 'nothing\n' });
    await gitInit(root);
    const vault = await openVault({ path: root, cache: false });
    await vault.move('Old', 'insights/New');

    expect((await git(root, 'log', '--format=%s')).split('\n')).toEqual([
      'mem: mv Old.md -> insights/New.md',
      'init',
      '',
    ]);
    expect(await git(root, 'show', '--no-renames', '--name-status', '--format=', 'HEAD')).toBe(
      'D\tOld.md\nM\ta.md\nA\tinsights/New.md\n',
    );
    expect(await git(root, 'status', '--porcelain')).toBe('');
  });

  it('moves a note stored under an NFD name (as macOS writes Café.md) and commits its deletion', async () => {
    const root = await makeVault({ 'Cafe\u0301.md': '# Café\n', 'a.md': 'see [[Caf\u00e9]]\n' });
    await gitInit(root);
    const vault = await openVault({ path: root, cache: false });

    const result = await vault.move('Caf\u00e9', 'Bistro');

    expect([result.from, result.to, result.rewritten]).toEqual([
      'Caf\u00e9.md',
      'Bistro.md',
      [{ path: 'a.md', links: 1 }],
    ]);
    expect(await snapshot(root)).toEqual({
      'Bistro.md': '# Café\n',
      'a.md': 'see [[Bistro]]\n',
      'mem.config.json': '{"timezone":"Asia/Shanghai"}',
    });
    expect(
      await git(
        root,
        '-c',
        'core.quotePath=false',
        'show',
        '--no-renames',
        '--name-status',
        '--format=',
        'HEAD',
      ),
    ).toBe('A\tBistro.md\nD\tCafe\u0301.md\nM\ta.md\n');
    expect(await git(root, 'status', '--porcelain')).toBe('');
  });

  it("keeps a user's unrelated staged and unstaged changes out of the commit", async () => {
    const root = await makeVault({ 'Old.md': '# Old\n', 'a.md': 'see [[Old]]\n', 'mine.md': 'v1\n' });
    await gitInit(root);
    await writeFile(join(root, 'mine.md'), 'v2 staged\n');
    await git(root, 'add', 'mine.md');
    await writeFile(join(root, 'mine.md'), 'v3 unstaged\n');
    const vault = await openVault({ path: root, cache: false });

    await vault.move('Old', 'New');

    expect(await git(root, 'show', '--no-renames', '--name-only', '--format=', 'HEAD')).toBe(
      'New.md\nOld.md\na.md\n',
    );
    expect(await git(root, 'diff', '--cached', '--name-only')).toBe('mine.md\n');
    expect(await git(root, 'show', ':mine.md')).toBe('v2 staged\n');
    expect(await read(root, 'mine.md')).toBe('v3 unstaged\n');
  });

  it('keeps links pointing where they did when the new name takes over a bare link elsewhere', async () => {
    const root = await makeVault({
      'Old.md': '# Old\n',
      'x/Dup.md': '# Dup in x\n',
      'y/m.md': 'to x: [[Dup]]\n',
      'a.md': 'to old: [[Old]]\n',
    });
    const vault = await openVault({ path: root, cache: false });

    const result = await vault.move('Old', 'y/Dup');

    expect(result.committed).toBe(false);
    expect(result.reason).toBe('not a git repository');
    // From y/, `[[Dup]]` would now mean y/Dup.md: it is written as a path to keep meaning x/Dup.md.
    expect(await read(root, 'y/m.md')).toBe('to x: [[x/Dup]]\n');
    // From the root, `[[Dup]]` is ambiguous between x/ and y/: the path says which.
    expect(await read(root, 'a.md')).toBe('to old: [[y/Dup]]\n');
    expect(await resolvedLinks(root, ['y/m.md', 'a.md'])).toEqual({
      'y/m.md': ['x/Dup.md'],
      'a.md': ['y/Dup.md'],
    });
  });

  it('leaves a bare link alone when it still resolves to the moved note', async () => {
    const root = await makeVault({ 'Old.md': '# Old\n', 'a.md': 'see [[Old]] and [t](Old.md)\n' });
    const vault = await openVault({ path: root, cache: false });
    const result = await vault.move('Old', 'archive/Old');
    expect(result.rewritten).toEqual([]);
    expect(await read(root, 'a.md')).toBe('see [[Old]] and [t](Old.md)\n');
    expect(await resolvedLinks(root, ['a.md'])).toEqual({ 'a.md': ['archive/Old.md', 'archive/Old.md'] });
  });

  it('stops with CONFLICT when a linking note is edited by hand between read and write, and changes nothing', async () => {
    const root = await makeVault({
      'Old.md': '# Old\n',
      'a.md': 'one [[Old]]\n',
      'b.md': 'two [[Old]]\n',
    });
    await gitInit(root);
    const vault = await openVault({ path: root, cache: false });
    const index = await indexOf(root);
    const before = await snapshot(root);

    const moving = moveNote(root, vault.config, index, 'Old.md', 'New.md', {
      beforeWrite: () => writeFile(join(root, 'b.md'), 'two [[Old]] and a hand edit\n'),
    });

    await expect(moving).rejects.toThrow(
      new MemError('CONFLICT', 'b.md changed on disk since it was read; nothing was written'),
    );
    expect(await snapshot(root)).toEqual({ ...before, 'b.md': 'two [[Old]] and a hand edit\n' });
    expect(await git(root, 'log', '--format=%s')).toBe('init\n');
  });

  it('rewrites at the right offsets when a note was edited after the index read it', async () => {
    const root = await makeVault({ 'Old.md': '# Old\n', 'a.md': 'see [[Old]]\n' });
    const vault = await openVault({ path: root, cache: false });
    await writeFile(join(root, 'a.md'), 'a longer first line\nsee [[Old|it]] and [[Old]]\n');

    await vault.move('Old', 'New');

    expect(await read(root, 'a.md')).toBe('a longer first line\nsee [[New|it]] and [[New]]\n');
  });

  it('refuses a target that exists, a path outside the vault and a dot folder', async () => {
    const root = await makeVault({ 'Old.md': '# Old\n', 'New.md': '# New\n', 'a.md': '[[Old]]\n' });
    const vault = await openVault({ path: root, cache: false });
    const before = await snapshot(root);

    await expect(vault.move('Old', 'New')).rejects.toThrow(
      new MemError('EXISTS', 'New.md already exists; Old.md was not moved'),
    );
    await expect(vault.move('Old', '../x')).rejects.toMatchObject({ code: 'PATH_OUTSIDE_VAULT' });
    await expect(vault.move('Old', '.obsidian/x')).rejects.toMatchObject({ code: 'INVALID_PATH' });
    await expect(vault.move('Old', 'x/.drafts/Old')).rejects.toMatchObject({ code: 'INVALID_PATH' });
    await expect(vault.move('Old', 'a#b')).rejects.toMatchObject({ code: 'INVALID_PATH' });
    expect(await snapshot(root)).toEqual(before);
  });
});
