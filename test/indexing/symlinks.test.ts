import { mkdir, mkdtemp, readFile, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openVault } from '../../src/api/open-vault.js';
import { refreshIndex, refreshPaths } from '../../src/indexing/refresh-index.js';
import { VaultIndex } from '../../src/indexing/vault-index.js';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';

afterEach(cleanupVaults);

describe('symlinks that lead out of the vault', () => {
  it('are not indexed, neither by a full refresh nor by a watcher event for a file below one', async () => {
    const outside = await mkdtemp(join(tmpdir(), 'mem-outside-'));
    await mkdir(join(outside, 'dir'));
    await writeFile(join(outside, 'o.md'), 'zebra outside file\n');
    await writeFile(join(outside, 'dir', 'p.md'), 'zebra outside folder\n');
    const root = await makeVault({ 'insights/in.md': 'zebra inside\n' });
    await symlink(join(outside, 'o.md'), join(root, 'insights/o.md'));
    await symlink(join(outside, 'dir'), join(root, 'linked'));
    const index = new VaultIndex();

    await refreshIndex(root, index);
    await refreshPaths(root, index, ['insights/o.md', 'linked/p.md']);

    expect([...index.notes.keys()]).toEqual(['insights/in.md']);
    expect(index.text.search('zebra').map((h) => h.path)).toEqual(['insights/in.md']);
  });
});

describe('with followOutsideSymlinks on', () => {
  async function linkedVault() {
    const outside = await mkdtemp(join(tmpdir(), 'mem-outside-'));
    await mkdir(join(outside, 'dir'));
    await writeFile(join(outside, 'o.md'), 'zebra outside file\n');
    await writeFile(join(outside, 'dir', 'p.md'), '---\ntitle: P\n---\nzebra outside folder\n');
    const root = await makeVault(
      { 'insights/in.md': 'zebra inside\n' },
      { config: { timezone: 'Asia/Shanghai', followOutsideSymlinks: true, git: { autoCommit: false } } },
    );
    await symlink(join(outside, 'o.md'), join(root, 'insights/o.md'));
    await symlink(join(outside, 'dir'), join(root, 'linked'));
    // A loop back to the vault's root: walked once, not forever.
    await symlink(root, join(root, 'insights/loop'));
    return { root, outside };
  }

  it('reads notes through links that lead out of the vault, and a loop ends', async () => {
    const { root } = await linkedVault();
    const vault = await openVault({ path: root, cache: false });
    try {
      expect(vault.paths()).toEqual(['insights/in.md', 'insights/o.md', 'linked/p.md']);
      expect(
        vault
          .recall('zebra')
          .hits.map((h) => h.path)
          .sort(),
      ).toEqual(['insights/in.md', 'insights/o.md', 'linked/p.md']);
    } finally {
      await vault.close();
    }
  });

  it('a watcher event for a file below a linked folder indexes it', async () => {
    const { root } = await linkedVault();
    const index = new VaultIndex();
    index.followSymlinks = true;
    await refreshPaths(root, index, ['linked/p.md']);
    expect([...index.notes.keys()]).toEqual(['linked/p.md']);
  });

  it('still refuses to write through them to a file outside the vault, and the file stays as it was', async () => {
    const { root, outside } = await linkedVault();
    const vault = await openVault({ path: root, cache: false });
    try {
      await expect(vault.updateNote('linked/p.md', { set: { importance: 0.9 } })).rejects.toThrow(
        'leads outside the vault through a symlink',
      );
      await expect(vault.updateNote('insights/o.md', { set: { importance: 0.9 } })).rejects.toThrow(
        'symlink',
      );
    } finally {
      await vault.close();
    }
    expect(await readFile(join(outside, 'dir', 'p.md'), 'utf8')).toBe(
      '---\ntitle: P\n---\nzebra outside folder\n',
    );
    expect(await readFile(join(outside, 'o.md'), 'utf8')).toBe('zebra outside file\n');
  });
});
