import { spawn } from 'node:child_process';
import { mkdir, readdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
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

const MANIFEST = join('.mem', 'index', 'manifest.json');

/** The pid of a process that has exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
  await new Promise((resolve) => child.once('exit', resolve));
  return child.pid as number;
}

interface Manifest {
  schema: number;
  generation: string;
  notes: number;
  segments: Array<{ part: string; file: string; bytes: number; crc: number }>;
}

async function readManifest(root: string): Promise<Manifest> {
  return JSON.parse(await readFile(join(root, MANIFEST), 'utf8'));
}

/** The paths of the notes the cache holds, read from its notes segments. */
async function cachedPaths(root: string): Promise<string[]> {
  const manifest = await readManifest(root);
  const paths: string[] = [];
  for (const segment of manifest.segments.filter((s) => s.part === 'notes')) {
    const file = join(root, '.mem', 'index', manifest.generation, segment.file);
    // One record a line: a note's head (`[note, outline]`), its body, its sections.
    for (const line of (await readFile(file, 'utf8')).split('\n')) {
      const record = line ? JSON.parse(line) : undefined;
      if (Array.isArray(record) && record.length === 2 && typeof record[0]?.path === 'string')
        paths.push(record[0].path);
    }
  }
  return paths.sort();
}

/** A file of the current generation, by part. */
async function segmentFile(root: string, part: string): Promise<string> {
  const manifest = await readManifest(root);
  const segment = manifest.segments.find((s) => s.part === part);
  if (!segment) throw new Error(`no ${part} segment`);
  return join(root, '.mem', 'index', manifest.generation, segment.file);
}

describe('index cache', () => {
  it('notes read back from the cache one line at a time are the notes that were saved, whatever they hold', async () => {
    const odd = {
      ...FILES,
      // Newlines, CRLF, a line separator, quotes, backslashes, brackets and commas at line ends.
      'insights/odd.md':
        '---\ntitle: "Odd, [really]"\n---\n# Odd\r\n\r\nA line,\nanother\u2028line "quoted" \\ back],\n\n## 二\n\n结尾，[[Shanghai]],\n',
      'insights/empty.md': '',
    };
    const root = await makeVault(odd);
    const built = await openVault({ path: root });
    const expected = built.paths().map((path) => built.note(path));
    await built.close();
    const loaded = await openVault({ path: root });
    // Nothing was re-read: every note came from the cache.
    expect(loaded.lastRefresh).toMatchObject({ added: 0, changed: 0, unchanged: Object.keys(odd).length });
    expect(loaded.paths().map((path) => loaded.note(path))).toEqual(expected);
    await loaded.close();
  });

  it('a saved note whose bytes changed (the notes file whole, its manifest entry agreeing) is read from its file, not trusted', async () => {
    const root = await makeVault(FILES);
    const built = await openVault({ path: root });
    const expected = built.note('profile/places/Shanghai.md');
    await built.close();
    const file = await segmentFile(root, 'notes');
    const text = await readFile(file, 'utf8');
    // Same length, and the manifest's size and CRC of the file made to agree: only the note's own
    // CRC-32 in the table can tell.
    const changed = Buffer.from(text.replace('lighthouse', 'lightHOUSE'));
    expect(changed.equals(Buffer.from(text))).toBe(false);
    await writeFile(file, changed);
    const manifest = await readManifest(root);
    const segment = manifest.segments.find((s) => s.part === 'notes');
    if (!segment) throw new Error('no notes segment');
    segment.crc = crc32(changed);
    await writeFile(join(root, MANIFEST), JSON.stringify(manifest));
    const notices: string[] = [];
    const vault = await openVault({ path: root, onNotice: (message) => notices.push(message) });
    expect(vault.lastRefresh.unchanged).toBe(Object.keys(FILES).length);
    expect(vault.note('profile/places/Shanghai.md')).toEqual(expected);
    expect(notices.join('\n')).toMatch(/profile\/places\/Shanghai\.md.*damaged/);
    await vault.close();
  });

  it('the first open builds the index and saves a manifest and one generation, with its own .gitignore', async () => {
    const root = await makeVault(FILES);
    const vault = await openVault({ path: root });
    expect(vault.lastRefresh).toEqual({ added: 3, changed: 0, removed: 0, unchanged: 0, touched: 0 });
    const manifest = await readManifest(root);
    expect(manifest.schema).toBe(CACHE_SCHEMA);
    expect(manifest.segments.map((s) => s.part)).toEqual(['notes', 'table', 'trackers', 'docs', 'terms']);
    expect(await readdir(join(root, '.mem', 'index'))).toEqual([manifest.generation, 'manifest.json']);
    expect(await cachedPaths(root)).toEqual([
      'episodes/daily/2026-11-21.md',
      'profile/places/Shanghai.md',
      'profile/user.md',
    ]);
    expect(await readFile(join(root, '.mem', '.gitignore'), 'utf8')).toBe('*\n');
  });

  it('a second open reads the cache and parses nothing again', async () => {
    const root = await makeVault(FILES);
    await openVault({ path: root });
    const before = await stat(join(root, MANIFEST));
    const vault = await openVault({ path: root });
    expect(vault.lastRefresh).toEqual({ added: 0, changed: 0, removed: 0, unchanged: 3, touched: 0 });
    expect(vault.noteCount).toBe(3);
    // Nothing changed, so the cache is not written again.
    expect((await stat(join(root, MANIFEST))).mtimeMs).toBe(before.mtimeMs);
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
    expect(await cachedPaths(root)).toHaveLength(4);
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
    const manifest = await readManifest(root);
    await writeFile(join(root, MANIFEST), JSON.stringify({ ...manifest, schema: CACHE_SCHEMA + 98 }));
    const notices: string[] = [];
    const vault = await openVault({ path: root, onNotice: (m) => notices.push(m) });
    expect(notices).toEqual([
      `mem: the index cache is from schema ${CACHE_SCHEMA + 98}, not ${CACHE_SCHEMA}; rebuilding it`,
    ]);
    expect(vault.lastRefresh).toEqual({ added: 3, changed: 0, removed: 0, unchanged: 0, touched: 0 });
    expect((await readManifest(root)).schema).toBe(CACHE_SCHEMA);
  });

  it('the single-file cache of schema 3 is rebuilt with a notice, and removed', async () => {
    const root = await makeVault(FILES);
    await mkdir(join(root, '.mem'));
    await writeFile(join(root, '.mem', 'index.json'), JSON.stringify({ schema: 3, index: {} }));
    const notices: string[] = [];
    const vault = await openVault({ path: root, onNotice: (m) => notices.push(m) });
    expect(notices).toEqual([
      'mem: the index cache is in the single-file layout of schema 3 or before; rebuilding it',
    ]);
    expect(vault.lastRefresh.added).toBe(3);
    await expect(stat(join(root, '.mem', 'index.json'))).rejects.toMatchObject({ code: 'ENOENT' });
    expect((await openVault({ path: root })).lastRefresh.unchanged).toBe(3);
  });

  it('a corrupt manifest (garbage bytes) is rebuilt with a notice, without crashing', async () => {
    const root = await makeVault(FILES);
    await openVault({ path: root });
    await writeFile(join(root, MANIFEST), Buffer.from([0xff, 0xfe, 0x00, 0x7b, 0x9c, 0x22, 0x0a]));
    const notices: string[] = [];
    const vault = await openVault({ path: root, onNotice: (m) => notices.push(m) });
    expect(notices).toEqual(['mem: the index cache could not be read; rebuilding it']);
    expect(vault.lastRefresh).toEqual({ added: 3, changed: 0, removed: 0, unchanged: 0, touched: 0 });
    expect(vault.recall('lighthouse').hits[0]?.path).toBe('profile/places/Shanghai.md');
    expect((await readManifest(root)).schema).toBe(CACHE_SCHEMA);
  });

  it('a segment filled with garbage of the same length is caught by its checksum and rebuilt', async () => {
    const root = await makeVault(FILES);
    await openVault({ path: root });
    const file = await segmentFile(root, 'terms');
    await writeFile(file, Buffer.alloc((await stat(file)).size, 0x5a));
    const notices: string[] = [];
    const vault = await openVault({ path: root, onNotice: (m) => notices.push(m) });
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatch(
      /^mem: the index cache is damaged \(terms-0000\.bin is not the file that was saved\); rebuilding it$/,
    );
    expect(vault.lastRefresh.added).toBe(3);
    expect(vault.recall('lighthouse').hits[0]?.path).toBe('profile/places/Shanghai.md');
  });

  it('a missing segment, or one whose checksum matches but whose content is wrong, is rebuilt with a notice', async () => {
    const root = await makeVault(FILES);
    await openVault({ path: root });
    await rm(await segmentFile(root, 'docs'));
    const notices: string[] = [];
    expect((await openVault({ path: root, onNotice: (m) => notices.push(m) })).lastRefresh.added).toBe(3);
    expect(notices[0]).toMatch(/^mem: the index cache is damaged \(ENOENT: /);

    // Valid JSON with the right checksum, but not notes: the loader refuses it rather than trust it.
    const manifest = await readManifest(root);
    const notes = manifest.segments.find((s) => s.part === 'notes')!;
    const bad = Buffer.from('{"notes":7}');
    await writeFile(join(root, '.mem', 'index', manifest.generation, notes.file), bad);
    Object.assign(notes, { bytes: bad.length, crc: crc32(bad) });
    await writeFile(join(root, MANIFEST), JSON.stringify(manifest));
    const again: string[] = [];
    const vault = await openVault({ path: root, onNotice: (m) => again.push(m) });
    expect(again).toHaveLength(1);
    expect(again[0]).toMatch(/^mem: the index cache is damaged \(.+\); rebuilding it$/);
    expect(vault.lastRefresh.added).toBe(3);
  });

  it('a generation written without its manifest switch (a crash) is ignored, then cleaned up', async () => {
    const root = await makeVault(FILES);
    await openVault({ path: root });
    const before = await readManifest(root);
    // What a crash mid-save leaves: a newer, half-written generation that no manifest names, of a
    // process that is gone.
    const stray = join(
      root,
      '.mem',
      'index',
      `g${(Date.now() - 1000).toString(36)}-${await deadPid()}-crash`,
    );
    await mkdir(stray);
    await writeFile(join(stray, 'notes-0000.json'), '[{"path":');
    const notices: string[] = [];
    const vault = await openVault({ path: root, onNotice: (m) => notices.push(m) });
    expect(notices).toEqual([]);
    expect(vault.lastRefresh.unchanged).toBe(3);
    await vault.save();
    const after = await readManifest(root);
    expect(after.generation).not.toBe(before.generation);
    expect(await readdir(join(root, '.mem', 'index'))).toEqual([after.generation, 'manifest.json']);
  });

  it('a generation another running process is still writing is left to it, then removed once it is gone', async () => {
    const root = await makeVault(FILES);
    await openVault({ path: root });
    // Another process's save, begun before ours and still writing (two servers indexing one vault
    // at once): removing it failed that save with ENOENT.
    const writer = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)'], { stdio: 'ignore' });
    const gone = new Promise((resolve) => writer.once('exit', resolve));
    try {
      const name = `g${(Date.now() - 1000).toString(36)}-${writer.pid}-writing`;
      const other = join(root, '.mem', 'index', name);
      await mkdir(other);
      await writeFile(join(other, 'notes-0000.json'), '[{"path":');
      const vault = await openVault({ path: root });
      await writeFile(join(root, 'profile', 'new.md'), '# New\n\nA note.\n');
      await vault.refresh();
      await vault.save();
      const first = await readManifest(root);
      expect((await readdir(join(root, '.mem', 'index'))).sort()).toEqual(
        [first.generation, name, 'manifest.json'].sort(),
      );
      writer.kill();
      await gone;
      await writeFile(join(root, 'profile', 'newer.md'), '# Newer\n\nAnother note.\n');
      await vault.refresh();
      await vault.save();
      const second = await readManifest(root);
      expect(await readdir(join(root, '.mem', 'index'))).toEqual([second.generation, 'manifest.json']);
      await vault.close();
    } finally {
      writer.kill();
    }
  });

  it('a cache that cannot be written is one notice, and the command goes on', async () => {
    const root = await makeVault(FILES);
    // A file where the cache's folder should be: mkdir fails, even for root.
    await mkdir(join(root, '.mem'));
    await writeFile(join(root, '.mem', 'index'), 'in the way');
    const notices: string[] = [];
    const vault = await openVault({ path: root, onNotice: (m) => notices.push(m) });
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatch(
      /^mem: the index cache could not be saved \(EEXIST: .+\); the next run indexes what it lacks again$/,
    );
    expect(vault.recall('lighthouse').hits[0]?.path).toBe('profile/places/Shanghai.md');
    expect(vault.unsavedChanges).toBe(3);
    // Said once per vault, however often it saves.
    await vault.save();
    await vault.close();
    expect(notices).toHaveLength(1);

    const run = await mem(['index'], { cwd: root });
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/^mem: the index cache could not be saved/);
    expect(run.stdout).toMatch(/^3 notes indexed/);
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
    const cacheFile = join(root, MANIFEST);
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
