import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openVault } from '../../src/api/open-vault.js';
import { MemError } from '../../src/core/errors.js';
import { hashText } from '../../src/vault/write-note.js';
import { parseAssignment } from '../../src/write/update-note.js';
import { git, gitInit } from '../helpers/git.js';
import { ignoreEnvVault } from '../helpers/ignore-env-vault.js';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';
import { mem } from '../helpers/run-cli.js';

const read = (root: string, path: string) => readFile(join(root, path), 'utf8');

ignoreEnvVault();

afterEach(async () => {
  await cleanupVaults();
});

describe('parseAssignment', () => {
  it('reads values as YAML scalars and flow lists, and keeps an unquoted link a string', () => {
    expect(parseAssignment('confidence=0.8')).toEqual(['confidence', 0.8]);
    expect(parseAssignment('pinned=true')).toEqual(['pinned', true]);
    expect(parseAssignment('tags=[a, b]')).toEqual(['tags', ['a', 'b']]);
    expect(parseAssignment('supersedes="[[X]]"')).toEqual(['supersedes', '[[X]]']);
    expect(parseAssignment('supersedes=[[X]]')).toEqual(['supersedes', '[[X]]']);
    expect(parseAssignment('code="007"')).toEqual(['code', '007']);
    expect(parseAssignment('note=a = b')).toEqual(['note', 'a = b']);
  });

  it('refuses an empty value, a missing = and a key YAML would misread', () => {
    expect(() => parseAssignment('status=')).toThrow(
      new MemError(
        'INVALID_ARGUMENT',
        `status= has no value; use --unset status to delete it, or status='""' for ""`,
      ),
    );
    expect(() => parseAssignment('status')).toThrow(
      new MemError('INVALID_ARGUMENT', '"status": expected key=value'),
    );
    expect(() => parseAssignment('a:b=1')).toThrow(
      new MemError('INVALID_ARGUMENT', '"a:b" is not a property name mem can write'),
    );
    expect(() => parseAssignment('#x=1')).toThrow(
      new MemError('INVALID_ARGUMENT', '"#x" is not a property name mem can write'),
    );
  });
});

describe('createNote', () => {
  it('writes id, title, created, updated, the extra keys and a heading, and commits', async () => {
    const root = await makeVault();
    await gitInit(root);
    const vault = await openVault({ path: root, cache: false });
    const now = new Date('2026-11-30T01:15:30Z');

    const result = await vault.createNote({
      path: 'insights/tea',
      title: 'Tea habits',
      set: { confidence: 0.8, tags: ['tea', 'habit'], supersedes: '[[Old tea]]' },
      now,
    });

    expect(result.path).toBe('insights/tea.md');
    expect(result.id).toMatch(/^[a-z][a-z0-9]{7}$/);
    expect(await read(root, 'insights/tea.md')).toBe(
      [
        '---',
        `id: ${result.id}`,
        'title: Tea habits',
        'created: 2026-11-30T09:15:30+08:00',
        'updated: 2026-11-30T09:15:30+08:00',
        'confidence: 0.8',
        'tags:',
        '  - tea',
        '  - habit',
        'supersedes: "[[Old tea]]"',
        '---',
        '# Tea habits',
        '',
      ].join('\n'),
    );
    expect(await git(root, 'log', '-1', '--format=%s')).toBe('mem: note new insights/tea.md\n');
    expect(vault.note('insights/tea').frontmatter['confidence']).toBe(0.8);
  });

  it('refuses an existing note and leaves it as it was', async () => {
    const root = await makeVault({ 'insights/tea.md': 'mine\n' });
    const vault = await openVault({ path: root, cache: false });
    await expect(vault.createNote({ path: 'insights/tea' })).rejects.toThrow(
      new MemError('EXISTS', 'insights/tea.md already exists; use mem note set to change it'),
    );
    expect(await read(root, 'insights/tea.md')).toBe('mine\n');
  });

  it('refuses paths outside the vault and into dot folders', async () => {
    const root = await makeVault();
    const vault = await openVault({ path: root, cache: false });
    await expect(vault.createNote({ path: '../escape' })).rejects.toMatchObject({
      code: 'PATH_OUTSIDE_VAULT',
    });
    await expect(vault.createNote({ path: '.obsidian/x' })).rejects.toMatchObject({ code: 'INVALID_PATH' });
    await expect(vault.createNote({ path: 'insights/a|b' })).rejects.toMatchObject({ code: 'INVALID_PATH' });
  });

  it('refuses a note in any dot folder, which would never be indexed, and writes nothing', async () => {
    const root = await makeVault();
    const refused = await mem(['--vault', root, 'note', 'new', '.hidden/x']);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain(
      '".hidden/x.md": .hidden starts with a dot; mem never reads hidden files and folders, so a note there would never be indexed',
    );
    const vault = await openVault({ path: root, cache: false });
    await expect(vault.createNote({ path: 'insights/.drafts/x' })).rejects.toMatchObject({
      code: 'INVALID_PATH',
    });
    expect((await readdir(root)).sort()).toEqual(['mem.config.json']);
  });
});

describe('updateNote', () => {
  const CRLF = [
    '---',
    "title: 'Quoted'  # keep this comment",
    'code: 007',
    'created: 2024-01-05',
    'confidence: 0.5',
    'status: active',
    '---',
    'Body with [[Link]] stays.',
    '',
  ].join('\r\n');

  it('changes only the given keys and keeps comments, quoting, 007, dates, CRLF and the body', async () => {
    const root = await makeVault({ 'profile/user.md': CRLF });
    await gitInit(root);
    const vault = await openVault({ path: root, cache: false });

    const result = await vault.updateNote('profile/user', {
      set: { confidence: 0.8, pinned: true },
      unset: ['status'],
    });

    expect(result).toEqual({ path: 'profile/user.md', changed: true, committed: true, sha: result.sha });
    expect(await read(root, 'profile/user.md')).toBe(
      [
        '---',
        "title: 'Quoted'  # keep this comment",
        'code: 007',
        'created: 2024-01-05',
        'confidence: 0.8',
        'pinned: true',
        '---',
        'Body with [[Link]] stays.',
        '',
      ].join('\r\n'),
    );
    expect(await git(root, 'log', '-1', '--format=%s')).toBe(
      'mem: note set profile/user.md confidence, pinned, status\n',
    );
  });

  it('writes nothing and commits nothing when the values are already there', async () => {
    const root = await makeVault({ 'profile/user.md': CRLF });
    const vault = await openVault({ path: root, cache: false });
    const result = await vault.updateNote('profile/user', { set: { confidence: 0.5 } });
    expect(result).toEqual({
      path: 'profile/user.md',
      changed: false,
      committed: false,
      code: 'no-change',
      reason: 'no change',
    });
    expect(await read(root, 'profile/user.md')).toBe(CRLF);
  });

  it('stops with CONFLICT when the note changed since the caller read it', async () => {
    const root = await makeVault({ 'profile/user.md': CRLF });
    const vault = await openVault({ path: root, cache: false });
    const seen = hashText(CRLF);
    await writeFile(join(root, 'profile/user.md'), `${CRLF}hand edit\r\n`);

    await expect(
      vault.updateNote('profile/user', { set: { confidence: 0.9 }, expectedHash: seen }),
    ).rejects.toThrow(
      new MemError('CONFLICT', 'profile/user.md changed on disk since it was read; nothing was written'),
    );
    expect(await read(root, 'profile/user.md')).toBe(`${CRLF}hand edit\r\n`);
  });
});

describe('mem note', () => {
  it('note new and note set parse key=value from the command line', async () => {
    const root = await makeVault();
    const created = await mem([
      '--vault',
      root,
      'note',
      'new',
      'insights/tea',
      '--set',
      'confidence=0.8',
      '--set',
      'tags=[a, b]',
    ]);
    expect(created).toEqual({ code: 0, stdout: 'insights/tea.md\n', stderr: '' });
    const changed = await mem([
      '--vault',
      root,
      'note',
      'set',
      'tea',
      'confidence=0.9',
      'pinned=true',
      '--json',
    ]);
    expect(changed.code).toBe(0);
    expect(JSON.parse(changed.stdout)).toEqual({
      path: 'insights/tea.md',
      changed: true,
      committed: false,
      code: 'no-repository',
      reason: 'not a git repository',
    });
    const text = await read(root, 'insights/tea.md');
    expect(text).toContain('\nconfidence: 0.9\ntags:\n  - a\n  - b\npinned: true\n---\n# tea\n');
    const refused = await mem(['--vault', root, 'note', 'new', 'insights/tea']);
    expect(refused).toEqual({
      code: 1,
      stdout: '',
      stderr: 'mem: insights/tea.md already exists; use mem note set to change it\n',
    });
  });
});

describe('a note stored under an NFD name (as macOS writes Café.md)', () => {
  it('note set finds it, writes it in place and commits it under the name git knows', async () => {
    const root = await makeVault({ 'Cafe\u0301.md': '---\ntitle: Café\n---\n# Café\n' });
    await gitInit(root);

    const result = await mem(['--vault', root, 'note', 'set', 'Caf\u00e9', 'importance=0.5']);

    expect(result).toEqual({ code: 0, stdout: 'Caf\u00e9.md\n', stderr: '' });
    expect(await readdir(root)).toEqual(['.git', '.mem', 'Cafe\u0301.md', 'mem.config.json']);
    expect(await read(root, 'Cafe\u0301.md')).toBe('---\ntitle: Café\nimportance: 0.5\n---\n# Café\n');
    expect(await git(root, 'log', '-1', '--format=%s')).toBe('mem: note set Caf\u00e9.md importance\n');
    expect(await git(root, 'status', '--porcelain')).toBe('');
  });
});
