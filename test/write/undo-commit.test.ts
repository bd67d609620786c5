// `mem undo` through the write pipeline (src/write/undo-commit.ts): git/ plans the revert, write/
// writes it back under the lock with the undo's plan recorded first.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MemError } from '../../src/core/errors.js';
import { undoLastMemCommit } from '../../src/write/undo-commit.js';
import { git, gitInit } from '../helpers/git.js';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';

afterEach(cleanupVaults);

describe('undoLastMemCommit', () => {
  it('writes the files back and commits "mem: undo …" even with git.autoCommit off', async () => {
    const root = await makeVault({ 'insights/a.md': 'a\n' }, { config: { git: { autoCommit: false } } });
    await gitInit(root);
    await writeFile(join(root, 'insights/a.md'), 'changed\n');
    await git(root, 'commit', '-q', '-am', 'mem: note set insights/a.md');

    const result = await undoLastMemCommit(root);

    expect(result).toMatchObject({ committed: true, paths: ['insights/a.md'] });
    expect(await readFile(join(root, 'insights/a.md'), 'utf8')).toBe('a\n');
    expect(await git(root, 'log', '-1', '--format=%s')).toBe('mem: undo note set insights/a.md\n');
    expect(await git(root, 'status', '--porcelain')).toBe('');
  });

  it('refuses a commit that also changed files outside the vault, and writes nothing', async () => {
    const repo = await makeVault({ 'outside.md': 'o\n', 'vault/mem.config.json': '{}', 'vault/a.md': 'a\n' });
    await gitInit(repo);
    await writeFile(join(repo, 'outside.md'), 'o changed\n');
    await writeFile(join(repo, 'vault/a.md'), 'a changed\n');
    await git(repo, 'commit', '-q', '-am', 'mem: note set a.md');
    const head = await git(repo, 'rev-parse', 'HEAD');

    const error = await undoLastMemCommit(join(repo, 'vault')).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(MemError);
    expect((error as MemError).message).toBe(
      `${head.slice(0, 7)} also changed outside.md, outside the vault; nothing was undone`,
    );
    expect(await readFile(join(repo, 'outside.md'), 'utf8')).toBe('o changed\n');
    expect(await readFile(join(repo, 'vault/a.md'), 'utf8')).toBe('a changed\n');
    expect(await git(repo, 'rev-parse', 'HEAD')).toBe(head);
  });
});
