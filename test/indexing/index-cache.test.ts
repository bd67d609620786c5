import { readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openVault } from '../../src/api/open-vault.js';
import { CACHE_SCHEMA } from '../../src/indexing/index-cache.js';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';
import { mem } from '../helpers/run-cli.js';

afterEach(cleanupVaults);

const FILES = {
  'profile/user.md': '---\ntitle: Rain\naliases: [林雨]\n---\n# Rain\n\nLives in [[Shanghai]] with a cat.\n',
  'profile/places/Shanghai.md': '# Shanghai\n\nA big city by the river; the lighthouse is far away.\n',
  'episodes/daily/2026-11-21.md': '# 2026-11-21\n\n- 09:00 **Rain:** 今天搬家到上海。 ^e1\n',
};

/** A moment far from "now", so a changed mtime never equals the one the copy got. */
const PAST = new Date('2020-01-02T03:04:05Z');

/** Paths of the hits that matched by text (graph neighbours of those hits are left out). */
function textHits(hits: Array<{ path: string; parts: { text: number } }>): string[] {
  return hits.filter((h) => h.parts.text > 0).map((h) => h.path);
}

async function readCache(
  root: string,
): Promise<{ schema: number; index: { notes: Array<{ path: string }> } }> {
  return JSON.parse(await readFile(join(root, '.mem', 'index.json'), 'utf8'));
}

describe('index cache', () => {
  it('the first open builds the index and saves .mem/index.json with its own .gitignore', async () => {
    const root = await makeVault(FILES);
    const vault = await openVault({ path: root });
    expect(vault.lastRefresh).toEqual({ added: 3, changed: 0, removed: 0, unchanged: 0, touched: 0 });
    const cache = await readCache(root);
    expect(cache.schema).toBe(CACHE_SCHEMA);
    expect(cache.index.notes.map((n) => n.path).sort()).toEqual([
      'episodes/daily/2026-11-21.md',
      'profile/places/Shanghai.md',
      'profile/user.md',
    ]);
    expect(await readFile(join(root, '.mem', '.gitignore'), 'utf8')).toBe('*\n');
  });

  it('a second open reads the cache and parses nothing again', async () => {
    const root = await makeVault(FILES);
    await openVault({ path: root });
    const before = await stat(join(root, '.mem', 'index.json'));
    const vault = await openVault({ path: root });
    expect(vault.lastRefresh).toEqual({ added: 0, changed: 0, removed: 0, unchanged: 3, touched: 0 });
    expect(vault.noteCount).toBe(3);
    // Nothing changed, so the cache is not written again.
    expect((await stat(join(root, '.mem', 'index.json'))).mtimeMs).toBe(before.mtimeMs);
    expect(vault.recall('lighthouse').hits[0]?.path).toBe('profile/places/Shanghai.md');
  });

  it('when one note is edited, exactly that note is parsed again and recall sees the new text', async () => {
    const root = await makeVault(FILES);
    await openVault({ path: root });
    const file = join(root, 'profile/places/Shanghai.md');
    await writeFile(file, '# Shanghai\n\nA big city with a famous zeppelin museum.\n');
    await utimes(file, PAST, PAST);
    const vault = await openVault({ path: root });
    expect(vault.lastRefresh).toEqual({ added: 0, changed: 1, removed: 0, unchanged: 2, touched: 0 });
    expect(textHits(vault.recall('zeppelin').hits)).toEqual(['profile/places/Shanghai.md']);
    expect(vault.recall('lighthouse').hits).toEqual([]);
    // The saved cache holds the edit, so a third open has nothing to do.
    const again = await openVault({ path: root });
    expect(again.lastRefresh).toEqual({ added: 0, changed: 0, removed: 0, unchanged: 3, touched: 0 });
    expect(textHits(again.recall('zeppelin').hits)).toEqual(['profile/places/Shanghai.md']);
  });

  it('a touched note (new mtime, same content) is not parsed again and counts as unchanged', async () => {
    const root = await makeVault(FILES);
    await openVault({ path: root });
    const file = join(root, 'profile/user.md');
    await utimes(file, PAST, PAST);
    const vault = await openVault({ path: root });
    expect(vault.lastRefresh).toEqual({ added: 0, changed: 0, removed: 0, unchanged: 3, touched: 1 });
    expect(vault.note('profile/user.md').mtimeMs).toBe(PAST.getTime());
    // The new mtime was saved, so the next open does not read the file again.
    const third = await openVault({ path: root });
    expect(third.lastRefresh).toEqual({ added: 0, changed: 0, removed: 0, unchanged: 3, touched: 0 });
  });

  it('an added note is counted as added and found by recall', async () => {
    const root = await makeVault(FILES);
    await openVault({ path: root });
    await writeFile(join(root, 'profile', 'zebra.md'), '# Zebra\n\nStriped.\n');
    const vault = await openVault({ path: root });
    expect(vault.lastRefresh).toEqual({ added: 1, changed: 0, removed: 0, unchanged: 3, touched: 0 });
    expect(textHits(vault.recall('striped').hits)).toEqual(['profile/zebra.md']);
    expect((await readCache(root)).index.notes.length).toBe(4);
  });

  it('a removed note is counted as removed and recall no longer finds it', async () => {
    const root = await makeVault(FILES);
    const first = await openVault({ path: root });
    expect(textHits(first.recall('lighthouse').hits)).toEqual(['profile/places/Shanghai.md']);
    await rm(join(root, 'profile/places/Shanghai.md'));
    const vault = await openVault({ path: root });
    expect(vault.lastRefresh).toEqual({ added: 0, changed: 0, removed: 1, unchanged: 2, touched: 0 });
    expect(vault.recall('lighthouse').hits).toEqual([]);
    expect(vault.paths().includes('profile/places/Shanghai.md')).toBe(false);
    // The link to the removed note is unresolved now.
    expect(vault.doctor().unresolved).toEqual([{ from: 'profile/user.md', line: 7, link: '[[Shanghai]]' }]);
  });

  it('a cache from another schema is rebuilt, with a one-line notice that names the schema', async () => {
    const root = await makeVault(FILES);
    await openVault({ path: root });
    const cache = await readCache(root);
    await writeFile(
      join(root, '.mem', 'index.json'),
      JSON.stringify({ ...cache, schema: CACHE_SCHEMA + 98 }),
    );
    const notices: string[] = [];
    const vault = await openVault({ path: root, onNotice: (m) => notices.push(m) });
    expect(notices).toHaveLength(1);
    expect(notices[0]).toContain('schema');
    expect(notices[0]).not.toContain('\n');
    expect(vault.lastRefresh).toEqual({ added: 3, changed: 0, removed: 0, unchanged: 0, touched: 0 });
    expect((await readCache(root)).schema).toBe(CACHE_SCHEMA);
  });

  it('a corrupt cache (garbage bytes) is rebuilt with a notice, without crashing', async () => {
    const root = await makeVault(FILES);
    await openVault({ path: root });
    await writeFile(
      join(root, '.mem', 'index.json'),
      Buffer.from([0xff, 0xfe, 0x00, 0x7b, 0x9c, 0x22, 0x0a]),
    );
    const notices: string[] = [];
    const vault = await openVault({ path: root, onNotice: (m) => notices.push(m) });
    expect(notices).toEqual(['mem: the index cache could not be read; rebuilding it']);
    expect(vault.lastRefresh).toEqual({ added: 3, changed: 0, removed: 0, unchanged: 0, touched: 0 });
    expect(vault.recall('lighthouse').hits[0]?.path).toBe('profile/places/Shanghai.md');
    expect((await readCache(root)).schema).toBe(CACHE_SCHEMA);
  });

  it('a cache that is valid JSON with the right schema but a damaged index is rebuilt with a notice', async () => {
    const root = await makeVault(FILES);
    await openVault({ path: root });
    await writeFile(
      join(root, '.mem', 'index.json'),
      JSON.stringify({ schema: CACHE_SCHEMA, savedAt: 'x', index: { notes: 7 } }),
    );
    const notices: string[] = [];
    const vault = await openVault({ path: root, onNotice: (m) => notices.push(m) });
    expect(notices).toEqual(['mem: the index cache is damaged; rebuilding it']);
    expect(vault.lastRefresh).toEqual({ added: 3, changed: 0, removed: 0, unchanged: 0, touched: 0 });
  });

  it('rebuild: true ignores a good cache and parses every note again, without a notice', async () => {
    const root = await makeVault(FILES);
    await openVault({ path: root });
    const notices: string[] = [];
    const vault = await openVault({ path: root, rebuild: true, onNotice: (m) => notices.push(m) });
    expect(vault.lastRefresh).toEqual({ added: 3, changed: 0, removed: 0, unchanged: 0, touched: 0 });
    expect(notices).toEqual([]);
  });

  it('cache: false neither reads nor writes .mem/', async () => {
    const root = await makeVault(FILES);
    const vault = await openVault({ path: root, cache: false });
    expect(vault.lastRefresh).toEqual({ added: 3, changed: 0, removed: 0, unchanged: 0, touched: 0 });
    await expect(stat(join(root, '.mem'))).rejects.toMatchObject({ code: 'ENOENT' });
  });
});

describe('when the cache is saved', () => {
  const many = (n: number) =>
    Object.fromEntries(
      Array.from({ length: n }, (_, i) => [`insights/n${i}.md`, `# Note ${i}\n\nAbout topic ${i}.\n`]),
    );

  it('waits until one note in a hundred is stale, then saves', async () => {
    const root = await makeVault(many(300));
    await openVault({ path: root });
    const cacheFile = join(root, '.mem', 'index.json');
    const saved = (await stat(cacheFile)).mtimeMs;
    await writeFile(join(root, 'insights/n1.md'), '# Note 1\n\nNow about zeppelins.\n');
    const first = await openVault({ path: root });
    // One stale note of 300: re-reading it on the next open is cheaper than rewriting the cache.
    expect(first.unsavedChanges).toBe(1);
    expect((await stat(cacheFile)).mtimeMs).toBe(saved);
    expect(first.recall('zeppelins').hits[0]?.path).toBe('insights/n1.md');
    const second = await openVault({ path: root });
    expect(second.lastRefresh.changed).toBe(1);
    await writeFile(join(root, 'insights/n2.md'), '# Note 2\n\nNow about airships.\n');
    await writeFile(join(root, 'insights/n3.md'), '# Note 3\n\nNow about balloons.\n');
    const third = await openVault({ path: root });
    expect(third.unsavedChanges).toBe(0);
    expect((await openVault({ path: root })).lastRefresh.changed).toBe(0);
  });

  it('counts changes found by later refreshes and refreshPaths on top of earlier ones', async () => {
    const root = await makeVault(many(300));
    const vault = await openVault({ path: root });
    await writeFile(join(root, 'insights/n1.md'), '# Note 1\n\nzeppelins\n');
    await vault.refreshPaths(['insights/n1.md']);
    await writeFile(join(root, 'insights/n2.md'), '# Note 2\n\nairships\n');
    await vault.refresh();
    // Two stale of 300 (threshold 3): still unsaved, and neither count was lost.
    expect(vault.unsavedChanges).toBe(2);
  });

  it('counts a file that changes again and again once, like a daily note written every turn', async () => {
    const root = await makeVault(many(300));
    const vault = await openVault({ path: root });
    for (let i = 0; i < 5; i++) {
      await writeFile(join(root, 'insights/n1.md'), `# Note 1\n\nturn ${i}\n`);
      await vault.refreshPaths(['insights/n1.md']);
      await vault.saveIfStale();
    }
    expect(vault.unsavedChanges).toBe(1);
  });

  it('mem index saves even one stale note', async () => {
    const root = await makeVault(many(300));
    await openVault({ path: root });
    await writeFile(join(root, 'insights/n1.md'), '# Note 1\n\nNow about zeppelins.\n');
    expect((await mem(['index'], { cwd: root })).code).toBe(0);
    expect((await openVault({ path: root })).lastRefresh).toMatchObject({ changed: 0, unchanged: 300 });
  });
});
