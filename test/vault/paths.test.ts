import { mkdir, mkdtemp, realpath, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { MemError } from '../../src/core/errors.js';
import { findOnDisk, notePath, resolveInVault } from '../../src/vault/paths.js';

let base: string;
let root: string;

beforeEach(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), 'mem-paths-')));
  root = join(base, 'vault');
  await mkdir(join(root, 'profile'), { recursive: true });
  await writeFile(join(root, 'profile', 'user.md'), 'hi');
  await mkdir(join(base, 'outside'));
  await writeFile(join(base, 'outside', 'secret.md'), 'secret');
});

async function codeOf(userPath: string, options = {}): Promise<string> {
  try {
    await resolveInVault(root, userPath, options);
    return 'resolved';
  } catch (error) {
    expect(error).toBeInstanceOf(MemError);
    expect((error as MemError).message).toContain(JSON.stringify(userPath).slice(1, 4));
    return (error as MemError).code;
  }
}

describe('resolveInVault', () => {
  it('returns the absolute path and the vault-relative POSIX path', async () => {
    expect(await resolveInVault(root, 'profile/user.md')).toEqual({
      abs: join(root, 'profile', 'user.md'),
      rel: 'profile/user.md',
    });
    expect(await resolveInVault(root, './insights/new/idea.md')).toEqual({
      abs: join(root, 'insights', 'new', 'idea.md'),
      rel: 'insights/new/idea.md',
    });
  });

  it('refuses paths that climb out or are absolute', async () => {
    expect(await codeOf('../outside/secret.md')).toBe('PATH_OUTSIDE_VAULT');
    expect(await codeOf('profile/../../x.md')).toBe('PATH_OUTSIDE_VAULT');
    expect(await codeOf('/etc/passwd')).toBe('PATH_OUTSIDE_VAULT');
    expect(await codeOf('C:/x.md')).toBe('PATH_OUTSIDE_VAULT');
  });

  it('refuses malformed names', async () => {
    for (const bad of [
      'a\0b.md',
      'profile\\user.md',
      'profile//user.md',
      'profile/./user.md',
      '',
      'CON',
      'con.md',
      'x/LPT9.txt',
      'aux',
      'note /x.md',
      'trailing.',
      'trailing ',
    ]) {
      expect([bad, await codeOf(bad)]).toEqual([bad, 'INVALID_PATH']);
    }
  });

  it('refuses the folders mem never touches, at any depth and in any case', async () => {
    for (const bad of [
      '.git/config',
      '.obsidian/workspace.json',
      '.trash/a.md',
      '.mem/index.json',
      'x/node_modules/y.md',
      '.GIT/HEAD',
    ]) {
      expect([bad, await codeOf(bad)]).toEqual([bad, 'INVALID_PATH']);
    }
  });

  it('refuses every dot folder and dot file, and node_modules in any case: mem never reads them', async () => {
    for (const bad of ['.hidden/x.md', 'insights/.drafts/x.md', '.x.md', 'Node_Modules/y.md']) {
      expect([bad, await codeOf(bad)]).toEqual([bad, 'INVALID_PATH']);
    }
    await expect(resolveInVault(root, 'insights/.drafts/x.md')).rejects.toThrow(
      '"insights/.drafts/x.md": .drafts starts with a dot; mem never reads hidden files and folders, so a note there would never be indexed',
    );
    await expect(resolveInVault(root, 'node_modules/x.md')).rejects.toThrow(
      'node_modules/ is never read by mem, so a note there would never be indexed',
    );
  });

  it('with anyFolder (undo of repository paths), accepts dot folders but never .git', async () => {
    expect((await resolveInVault(root, '.vault/x.md', { anyFolder: true })).rel).toBe('.vault/x.md');
    expect(await codeOf('.git/config', { anyFolder: true })).toBe('INVALID_PATH');
  });

  it('accepts names Obsidian users write: CJK, emoji, # ^ | :, inner dots, CONSOLE', async () => {
    for (const good of [
      '人物/张三.md',
      '🎉 party.md',
      'a#b ^c|d:e.md',
      'v1.2 notes.md',
      'CONSOLE.md',
      'com10.md',
    ]) {
      expect((await resolveInVault(root, good)).rel).toBe(good);
    }
  });

  it('refuses a symlink that leads outside the vault, even for a file that does not exist yet', async () => {
    await symlink(join(base, 'outside'), join(root, 'escape'));
    expect(await codeOf('escape/secret.md')).toBe('PATH_OUTSIDE_VAULT');
    expect(await codeOf('escape/new/file.md')).toBe('PATH_OUTSIDE_VAULT');
  });

  it('refuses a symlinked file that points outside and a symlink to a parent folder', async () => {
    await symlink(join(base, 'outside', 'secret.md'), join(root, 'link.md'));
    await symlink(base, join(root, 'up'));
    expect(await codeOf('link.md')).toBe('PATH_OUTSIDE_VAULT');
    expect(await codeOf('up/outside/secret.md')).toBe('PATH_OUTSIDE_VAULT');
    expect(await codeOf('up/new.md')).toBe('PATH_OUTSIDE_VAULT');
  });

  it('refuses symlink loops and dangling symlinks', async () => {
    await symlink(join(root, 'loop-b'), join(root, 'loop-a'));
    await symlink(join(root, 'loop-a'), join(root, 'loop-b'));
    await symlink(join(root, 'missing-target.md'), join(root, 'dangling.md'));
    expect(await codeOf('loop-a/x.md')).toBe('INVALID_PATH');
    expect(await codeOf('dangling.md')).toBe('INVALID_PATH');
  });

  it('accepts a symlink that stays inside the vault', async () => {
    await symlink(join(root, 'profile'), join(root, 'me'));
    expect(await resolveInVault(root, 'me/user.md')).toEqual({
      abs: join(root, 'me', 'user.md'),
      rel: 'me/user.md',
    });
  });

  it('mustExist refuses a missing file with NOT_FOUND; folders need allowDirs', async () => {
    expect(await codeOf('profile/nobody.md', { mustExist: true })).toBe('NOT_FOUND');
    expect(await codeOf('profile')).toBe('INVALID_PATH');
    expect(await resolveInVault(root, 'profile/', { allowDirs: true })).toEqual({
      abs: join(root, 'profile'),
      rel: 'profile',
    });
    expect(await resolveInVault(root, '.', { allowDirs: true })).toEqual({ abs: root, rel: '' });
  });

  it('names the offending path in the message', async () => {
    await expect(resolveInVault(root, '../outside/secret.md')).rejects.toThrow(
      '"../outside/secret.md": contains \'..\'; paths must stay inside the vault',
    );
  });
});

describe('notePath', () => {
  it('adds .md when the name has no file extension', () => {
    expect(notePath('Tokyo')).toBe('Tokyo.md');
    expect(notePath('people/Alice')).toBe('people/Alice.md');
    expect(notePath('Dr. Smith')).toBe('Dr. Smith.md');
    expect(notePath('v1.2 notes')).toBe('v1.2 notes.md');
    expect(notePath('John.Smith')).toBe('John.Smith.md');
  });

  it('keeps .md and attachment extensions, strips a leading ./', () => {
    expect(notePath('Tokyo.md')).toBe('Tokyo.md');
    expect(notePath('./profile/user.md')).toBe('profile/user.md');
    expect(notePath('img/photo.png')).toBe('img/photo.png');
  });

  it('normalises to NFC', () => {
    const nfd = 'Cafe\u0301';
    expect(notePath(nfd)).toBe('Caf\u00e9.md');
  });
});

describe('findOnDisk and NFD names (as macOS stores them)', () => {
  it('resolves an NFC path to a file stored under its NFD name, and returns the NFC path', async () => {
    await writeFile(join(root, 'Cafe\u0301.md'), 'x');
    expect(await resolveInVault(root, 'Caf\u00e9.md', { mustExist: true })).toEqual({
      abs: join(root, 'Cafe\u0301.md'),
      rel: 'Caf\u00e9.md',
    });
    expect(await resolveInVault(root, 'Cafe\u0301.md', { mustExist: true })).toEqual({
      abs: join(root, 'Cafe\u0301.md'),
      rel: 'Caf\u00e9.md',
    });
  });

  it('matches each name by its NFC form when folder and file use different forms', async () => {
    await mkdir(join(root, 'Re\u0301sume\u0301'));
    await writeFile(join(root, 'Re\u0301sume\u0301', 'caf\u00e9.md'), 'x');
    expect(await findOnDisk(root, 'R\u00e9sum\u00e9/caf\u00e9.md')).toBe(
      join(root, 'Re\u0301sume\u0301', 'caf\u00e9.md'),
    );
  });

  it('gives the NFC form for a path that does not exist, so new files are created NFC', async () => {
    expect(await findOnDisk(root, 'Cafe\u0301.md')).toBe(join(root, 'Caf\u00e9.md'));
    expect(await resolveInVault(root, 'insights/Cafe\u0301.md')).toEqual({
      abs: join(root, 'insights', 'Caf\u00e9.md'),
      rel: 'insights/Caf\u00e9.md',
    });
  });
});
