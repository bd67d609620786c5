import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { refreshIndex, refreshPaths } from '../../src/indexing/refresh-index.js';
import { VaultIndex } from '../../src/indexing/vault-index.js';
import { hashText } from '../../src/vault/write-note.js';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';

/** `Café.md` as macOS stores it: e + combining acute accent (NFD). */
const NFD_NAME = 'Cafe\u0301.md';
const NFC_PATH = 'Caf\u00e9.md';

afterEach(cleanupVaults);

describe('refreshPaths', () => {
  it('keeps a note stored under an NFD name indexed by its NFC path after the file changes', async () => {
    const root = await makeVault({ [NFD_NAME]: '# Café\n\nv1\n' });
    const index = new VaultIndex();
    await refreshIndex(root, index);
    expect([...index.notes.keys()]).toEqual([NFC_PATH]);

    await writeFile(join(root, NFD_NAME), '# Café\n\nv2, longer\n');
    const stats = await refreshPaths(root, index, [NFC_PATH]);

    expect(stats).toEqual({ added: 0, changed: 1, removed: 0, unchanged: 0, touched: 0 });
    expect([...index.notes.keys()]).toEqual([NFC_PATH]);
    expect(index.notes.get(NFC_PATH)?.hash).toBe(hashText('# Café\n\nv2, longer\n'));
  });

  it('reads the NFD path a watcher reports as the same NFC note', async () => {
    const root = await makeVault({ [NFD_NAME]: '# Café\n' });
    const index = new VaultIndex();
    await refreshIndex(root, index);
    await writeFile(join(root, NFD_NAME), '# Café\n\nmore\n');

    const stats = await refreshPaths(root, index, [NFD_NAME]);

    expect(stats).toEqual({ added: 0, changed: 1, removed: 0, unchanged: 0, touched: 0 });
    expect([...index.notes.keys()]).toEqual([NFC_PATH]);
  });

  it('still removes a note whose file is gone', async () => {
    const root = await makeVault({ [NFD_NAME]: '# Café\n' });
    const index = new VaultIndex();
    await refreshIndex(root, index);
    await rm(join(root, NFD_NAME));

    const stats = await refreshPaths(root, index, [NFC_PATH]);

    expect(stats).toEqual({ added: 0, changed: 0, removed: 1, unchanged: 0, touched: 0 });
    expect([...index.notes.keys()]).toEqual([]);
  });
});

describe('refreshIndex', () => {
  it('removes the notes whose files are gone and keeps the others', async () => {
    const root = await makeVault({ 'a.md': '# A\n', 'b/b.md': '# B\n', 'c.md': '# C\n' });
    const index = new VaultIndex();
    await refreshIndex(root, index);
    await rm(join(root, 'b'), { recursive: true });
    await writeFile(join(root, 'd.md'), '# D\n');

    const stats = await refreshIndex(root, index);

    expect(stats).toEqual({ added: 1, changed: 0, removed: 1, unchanged: 2, touched: 0 });
    expect([...index.notes.keys()].sort()).toEqual(['a.md', 'c.md', 'd.md']);
  });

  it('removes a gone note when an NFD and an NFC file name make one path (the walk sees it twice)', async () => {
    // Both spellings of Café.md on disk, one note in the index: counting the paths walked would
    // count that note twice and miss that b.md is gone.
    const root = await makeVault({ [NFC_PATH]: '# Café\n', [NFD_NAME]: '# Café\n', 'b.md': '# B\n' });
    const index = new VaultIndex();
    await refreshIndex(root, index);
    expect([...index.notes.keys()].sort()).toEqual([NFC_PATH, 'b.md']);
    await rm(join(root, 'b.md'));

    await refreshIndex(root, index);

    expect([...index.notes.keys()]).toEqual([NFC_PATH]);
  });
});
