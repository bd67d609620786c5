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
