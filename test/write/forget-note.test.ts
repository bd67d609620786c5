import { access, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openVault } from '../../src/api/open-vault.js';
import { MemError } from '../../src/core/errors.js';
import { git, gitInit } from '../helpers/git.js';
import { ignoreEnvVault } from '../helpers/ignore-env-vault.js';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';
import { mem } from '../helpers/run-cli.js';

const read = (root: string, path: string) => readFile(join(root, path), 'utf8');
const exists = (root: string, path: string) =>
  access(join(root, path)).then(
    () => true,
    () => false,
  );

const TEA =
  '---\ntitle: Oolong tea\nimportance: 0.9\n---\n# Oolong tea\n\nThe user drinks oolong tea every morning.\n';
const FILES = {
  'insights/tea.md': TEA,
  'profile/user.md':
    '# User\n\nLikes [[tea]] and [[insights/tea#Oolong tea|oolong]] and [[/insights/tea|exactly]].\n',
};

ignoreEnvVault();

afterEach(async () => {
  await cleanupVaults();
});

describe('forget', () => {
  it('moves the note to archive/ with status archived, and links still resolve to it', async () => {
    const root = await makeVault(FILES);
    await gitInit(root);
    const vault = await openVault({ path: root, cache: false });
    expect(vault.recall('oolong').hits.map((h) => h.path)).toContain('insights/tea.md');

    const result = await vault.forget('insights/tea', {
      reason: 'no longer true',
      now: new Date('2026-11-30T01:00:00Z'),
    });

    expect(result.path).toBe('insights/tea.md');
    expect(result.archivedAt).toBe('archive/insights/tea.md');
    expect(result.committed).toBe(true);
    expect(await exists(root, 'insights/tea.md')).toBe(false);
    expect(await read(root, 'archive/insights/tea.md')).toBe(
      '---\ntitle: Oolong tea\nimportance: 0.9\nstatus: archived\narchived: 2026-11-30T09:00:00+08:00\narchived_reason: no longer true\n---\n# Oolong tea\n\nThe user drinks oolong tea every morning.\n',
    );
    // A bare name and a path that ends the new path still resolve, as in Obsidian; an exact `/` path is rewritten.
    expect(await read(root, 'profile/user.md')).toBe(
      '# User\n\nLikes [[tea]] and [[insights/tea#Oolong tea|oolong]] and [[/archive/insights/tea|exactly]].\n',
    );
    expect(vault.links('profile/user').map((e) => e.to)).toEqual(Array(3).fill('archive/insights/tea.md'));
    expect(vault.recall('oolong').hits.map((h) => h.path)).not.toContain('archive/insights/tea.md');
    expect(await git(root, 'log', '-1', '--format=%s')).toBe('mem: forget insights/tea.md\n');
    expect(await git(root, 'status', '--porcelain')).toBe('');

    const shown = await mem(['--vault', root, 'show', 'archive/insights/tea', '--json']);
    expect(shown.code).toBe(0);
    expect((JSON.parse(shown.stdout) as { note: { frontmatter: unknown } }).note.frontmatter).toEqual({
      title: 'Oolong tea',
      importance: 0.9,
      status: 'archived',
      archived: '2026-11-30T09:00:00+08:00',
      archived_reason: 'no longer true',
    });
  });

  it('refuses to archive a note that is already in archive/', async () => {
    const root = await makeVault({ 'archive/old.md': '# Old\n' });
    const vault = await openVault({ path: root, cache: false });
    await expect(vault.forget('archive/old')).rejects.toThrow(
      new MemError('INVALID_ARGUMENT', 'archive/old.md is already in archive/; use --hard to delete it'),
    );
  });

  it('--hard is refused without git, and the note stays', async () => {
    const root = await makeVault(FILES);
    const out = await mem(['--vault', root, 'forget', 'insights/tea', '--hard']);
    expect(out).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'mem: insights/tea.md: not deleted: the vault is not in a git repository, so the deletion could not be undone; `mem forget` without --hard archives it instead\n',
    });
    expect(await read(root, 'insights/tea.md')).toBe(TEA);
  });

  it('--hard is refused when auto-commit is off or the note has uncommitted changes', async () => {
    const off = await makeVault(FILES, { config: { timezone: 'UTC', git: { autoCommit: false } } });
    await gitInit(off);
    await expect(
      (await openVault({ path: off, cache: false })).forget('insights/tea', { hard: true }),
    ).rejects.toThrow(/^insights\/tea\.md: not deleted: git\.autoCommit is off/);

    const root = await makeVault(FILES);
    await gitInit(root);
    await writeFile(join(root, 'insights/tea.md'), `${TEA}edited\n`);
    const vault = await openVault({ path: root, cache: false });
    await expect(vault.forget('insights/tea', { hard: true })).rejects.toThrow(
      /^insights\/tea\.md: not deleted: it has changes that are not committed/,
    );
    expect(await read(root, 'insights/tea.md')).toBe(`${TEA}edited\n`);
  });

  it('--hard refuses with CONFLICT, deleting nothing, when the note is edited after the first check', async () => {
    const root = await makeVault(FILES);
    await gitInit(root);
    const vault = await openVault({ path: root, cache: false });
    const edit = () => writeFile(join(root, 'insights/tea.md'), `${TEA}A hand edit.\n`);

    const error = await vault
      .forget('insights/tea', { hard: true, beforeDelete: edit })
      .catch((e: unknown) => e);

    expect(error).toEqual(
      new MemError(
        'CONFLICT',
        'insights/tea.md changed on disk and the change is not committed; nothing was deleted',
      ),
    );
    expect(await read(root, 'insights/tea.md')).toBe(`${TEA}A hand edit.\n`);
    expect(await git(root, 'log', '--format=%s')).toBe('init\n');
  });

  it('--hard deletes the note in one commit, and undo brings it back', async () => {
    const root = await makeVault(FILES);
    await gitInit(root);
    const vault = await openVault({ path: root, cache: false });

    const result = await vault.forget('tea', { hard: true });

    expect(result).toEqual({
      path: 'insights/tea.md',
      paths: ['insights/tea.md'],
      rewritten: [],
      committed: true,
      sha: result.sha,
    });
    expect(await exists(root, 'insights/tea.md')).toBe(false);
    expect(await git(root, 'log', '-1', '--format=%s')).toBe('mem: forget --hard insights/tea.md\n');
    expect(vault.links('profile/user').map((e) => e.to)).toEqual([undefined, undefined, undefined]);

    const undone = await vault.undo();

    expect(undone.undone.subject).toBe('mem: forget --hard insights/tea.md');
    expect(undone.paths).toEqual(['insights/tea.md']);
    expect(await read(root, 'insights/tea.md')).toBe(TEA);
    expect(await git(root, 'log', '-1', '--format=%s')).toBe('mem: undo forget --hard insights/tea.md\n');
    expect(vault.note('tea').path).toBe('insights/tea.md');
    expect(vault.links('profile/user').map((e) => e.to)).toEqual(Array(3).fill('insights/tea.md'));
  });
});
