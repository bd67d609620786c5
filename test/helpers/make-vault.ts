import { createHash } from 'node:crypto';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { refreshIndex } from '../../src/indexing/refresh-index.js';
import { VaultIndex } from '../../src/indexing/vault-index.js';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const EXAMPLE_VAULT = join(REPO_ROOT, 'vault-example');

const made: string[] = [];

/** Writes `files` (vault path → text) into a fresh temp folder and returns its path. */
export async function makeVault(
  files: Record<string, string> = {},
  options: { config?: object } = {},
): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'memvault-test-'));
  made.push(root);
  await writeFile(
    join(root, 'mem.config.json'),
    JSON.stringify(options.config ?? { timezone: 'Asia/Shanghai' }),
  );
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), text);
  }
  return root;
}

/** A private copy of vault-example/, so tests can write to it. */
export async function copyExampleVault(): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'memvault-example-'));
  made.push(root);
  await cp(EXAMPLE_VAULT, root, {
    recursive: true,
    filter: (src) => !src.includes(`${join('vault-example', '.mem')}`),
  });
  return root;
}

export async function cleanupVaults(): Promise<void> {
  await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
}

/** A fresh index of the notes under `root`, for tests of modules that take an index. */
export async function indexOf(root: string): Promise<VaultIndex> {
  const index = new VaultIndex();
  await refreshIndex(root, index, new Set());
  return index;
}

/** Every file of the vault but git's and mem's own, by path, as a hash of its bytes. */
export async function snapshotVault(root: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const e of await readdir(root, { recursive: true, withFileTypes: true })) {
    const path = relative(root, join(e.parentPath, e.name)).split('\\').join('/');
    if (!e.isFile() || /^(\.git|\.mem)\//.test(path)) continue;
    out[path] = createHash('sha256')
      .update(await readFile(join(root, path)))
      .digest('hex');
  }
  return out;
}
