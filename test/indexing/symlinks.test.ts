import { mkdir, mkdtemp, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
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
