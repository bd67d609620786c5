import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openVault } from '../../src/api/open-vault.js';
import { MemError } from '../../src/core/errors.js';
import { ignoreEnvVault } from '../helpers/ignore-env-vault.js';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';
import { mem } from '../helpers/run-cli.js';

const empties: string[] = [];

/** A temp folder with no mem.config.json in it or above it. */
async function emptyDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'memvault-empty-'));
  empties.push(dir);
  return dir;
}

ignoreEnvVault();

afterEach(async () => {
  await cleanupVaults();
  await Promise.all(empties.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

describe('openVault discovery', () => {
  it('an explicit path wins over MEM_VAULT and the working folder', async () => {
    const explicit = await makeVault({ 'profile/a.md': '# A' });
    const fromEnv = await makeVault({ 'profile/b.md': '# B' });
    const fromCwd = await makeVault({ 'profile/c.md': '# C' });
    vi.stubEnv('MEM_VAULT', fromEnv);
    const vault = await openVault({ path: explicit, cwd: fromCwd, cache: false });
    expect(vault.root).toBe(explicit);
    expect(vault.paths()).toEqual(['profile/a.md']);
  });

  it('MEM_VAULT wins over the working folder when no path is given', async () => {
    const fromEnv = await makeVault({ 'profile/b.md': '# B' });
    const fromCwd = await makeVault({ 'profile/c.md': '# C' });
    vi.stubEnv('MEM_VAULT', fromEnv);
    const vault = await openVault({ cwd: fromCwd, cache: false });
    expect(vault.root).toBe(fromEnv);
  });

  it('a relative path is resolved from cwd', async () => {
    const root = await makeVault({ 'profile/a.md': '# A' });
    const vault = await openVault({ path: '../..', cwd: join(root, 'profile', 'people'), cache: false });
    expect(vault.root).toBe(root);
  });

  it('without a path or MEM_VAULT, the nearest folder upward with mem.config.json is the vault', async () => {
    const outer = await makeVault({ 'profile/outer.md': '# Outer' });
    // A vault nested inside another: the inner one is nearer, so it wins.
    const inner = join(outer, 'projects', 'inner');
    await mkdir(inner, { recursive: true });
    await writeFile(join(inner, 'mem.config.json'), '{"timezone":"UTC"}');
    const deep = join(inner, 'episodes', 'daily', 'deeper');
    await mkdir(deep, { recursive: true });
    const vault = await openVault({ cwd: deep, cache: false });
    expect(vault.root).toBe(inner);
    expect(vault.config.timezone).toBe('UTC');
    const fromOuter = await openVault({ cwd: join(outer, 'projects'), cache: false });
    expect(fromOuter.root).toBe(outer);
  });

  it('with no vault anywhere, it throws NO_VAULT and suggests `mem init`', async () => {
    const dir = await emptyDir();
    const error = await openVault({ cwd: dir, cache: false }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MemError);
    expect((error as MemError).code).toBe('NO_VAULT');
    expect((error as MemError).exitCode).toBe(1);
    expect((error as MemError).message).toContain('mem init');
    expect((error as MemError).message).toContain(dir);
  });

  it('an explicit path that is not a folder throws NO_VAULT naming it', async () => {
    const dir = await emptyDir();
    const missing = join(dir, 'nope');
    await expect(openVault({ path: missing, cache: false })).rejects.toThrow(
      new MemError('NO_VAULT', `vault folder not found: ${missing}`),
    );
  });
});

describe('vault.note', () => {
  const FILES = {
    'profile/user.md': '---\ntitle: Rain\naliases: [林雨]\n---\nLives in [[Shanghai]].\n',
    'profile/places/Shanghai.md': '# Shanghai\n',
    'insights/facts/lives-in-shanghai.md': '# Lives in Shanghai\n\nSee [[user]].\n',
  };

  it('finds a note by vault path, with or without .md, and with a leading ./', async () => {
    const vault = await openVault({ path: await makeVault(FILES), cache: false });
    expect(vault.note('profile/places/Shanghai.md').path).toBe('profile/places/Shanghai.md');
    expect(vault.note('profile/places/Shanghai').path).toBe('profile/places/Shanghai.md');
    expect(vault.note('./profile/user.md').title).toBe('Rain');
  });

  it('finds a note by link text, as Obsidian resolves [[ref]] (file name, any case)', async () => {
    const vault = await openVault({ path: await makeVault(FILES), cache: false });
    expect(vault.note('Shanghai').path).toBe('profile/places/Shanghai.md');
    expect(vault.note('shanghai').path).toBe('profile/places/Shanghai.md');
    expect(vault.note('user').path).toBe('profile/user.md');
    expect(vault.note('facts/lives-in-shanghai').path).toBe('insights/facts/lives-in-shanghai.md');
  });

  it('links and backlinks follow the resolved note', async () => {
    const vault = await openVault({ path: await makeVault(FILES), cache: false });
    expect(vault.links('user').map((e) => [e.link.raw, e.to])).toEqual([
      ['[[Shanghai]]', 'profile/places/Shanghai.md'],
    ]);
    expect(vault.backlinks('user').map((e) => e.from)).toEqual(['insights/facts/lives-in-shanghai.md']);
  });

  it('an alias does not resolve, as in Obsidian, and a missing note throws NOT_FOUND', async () => {
    const vault = await openVault({ path: await makeVault(FILES), cache: false });
    expect(() => vault.note('林雨')).toThrow(new MemError('NOT_FOUND', 'note not found: 林雨'));
    expect(() => vault.note('profile/nobody.md')).toThrow(
      new MemError('NOT_FOUND', 'note not found: profile/nobody.md'),
    );
    try {
      vault.note('Tokyo');
      expect.unreachable();
    } catch (error) {
      expect((error as MemError).code).toBe('NOT_FOUND');
      expect((error as MemError).exitCode).toBe(1);
    }
  });
});

describe('the Vault write queue', () => {
  it('writes started together land one at a time, in call order, each searchable once it resolves', async () => {
    const vault = await openVault({ path: await makeVault({}), cache: false });
    const at = new Date('2026-11-30T09:00:00+08:00');
    const writes = Array.from({ length: 20 }, (_, i) =>
      vault.remember({ text: `turn ${i + 1} mentions pelican${i + 1}`, at }).then((result) => {
        // Read-your-writes: the entry is in the index as soon as its write resolves.
        expect(vault.recall(`pelican${i + 1}`).hits[0]?.text).toContain(`turn ${i + 1} `);
        return result.blockId;
      }),
    );
    expect(await Promise.all(writes)).toEqual(Array.from({ length: 20 }, (_, i) => `e${i + 1}`));
    const text = await readFile(join(vault.root, 'episodes/daily/2026-11-30.md'), 'utf8');
    const turns = [...text.matchAll(/turn (\d+) /g)].map((m) => Number(m[1]));
    expect(turns).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
  });

  it('close() saves what is unsaved, so the next open reads nothing again', async () => {
    const root = await makeVault({ 'insights/a.md': '# A\n' });
    const vault = await openVault({ path: root });
    await writeFile(join(root, 'insights/b.md'), '# B\n');
    await vault.refreshPaths(['insights/b.md']);
    expect(vault.unsavedChanges).toBe(1);
    await vault.close();
    expect(vault.unsavedChanges).toBe(0);
    const reopened = await openVault({ path: root });
    expect(reopened.lastRefresh).toMatchObject({ added: 0, changed: 0, unchanged: 2 });
  });
});

describe('a folder that is not a vault', () => {
  it('is read as it is, leaves no cache behind, and refuses writes with a hint to run mem init', async () => {
    const dir = await emptyDir();
    await writeFile(join(dir, 'notes.md'), '# Notes\nThe kettle is blue.\n');
    const vault = await openVault({ path: dir });
    expect(vault.initialized).toBe(false);
    expect(vault.recall('kettle').hits.map((h) => h.path)).toEqual(['notes.md']);
    const refused = `${dir} is not a vault (no mem.config.json); run \`mem init ${dir}\` to make it one. Reading works without it, writing and indexing do not`;
    await expect(vault.remember({ text: 'hello' })).rejects.toThrow(new MemError('NO_VAULT', refused));
    await expect(vault.createNote({ path: 'insights/x' })).rejects.toThrow(refused);
    await vault.close();
    expect(await readdir(dir)).toEqual(['notes.md']);
  });

  it('mem index refuses it (exit 1, the hint), instead of crawling it and leaving .mem/ there', async () => {
    const dir = await emptyDir();
    await writeFile(join(dir, 'notes.md'), '# Notes\n');
    const run = await mem(['--vault', dir, 'index']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('is not a vault (no mem.config.json); run `mem init');
    expect(await readdir(dir)).toEqual(['notes.md']);
  });
});
