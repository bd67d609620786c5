import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openVault } from '../../src/api/open-vault.js';
import { CACHE_SCHEMA } from '../../src/indexing/index-cache.js';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';

afterEach(cleanupVaults);

const FILES = {
  'profile/user.md': '---\ntitle: Rain\naliases: [林雨]\n---\n# Rain\n\nLives in [[Shanghai]] with a cat.\n',
  'profile/places/Shanghai.md': '# Shanghai\n\nA big city by the river; the lighthouse is far away.\n',
  'episodes/daily/2026-11-21.md':
    '# 2026-11-21\n\n- 09:00 **Rain:** 今天搬家到上海。 ^e1\n- 10:00 **Rain:** Saw the [[Shanghai#Shanghai|lighthouse]]. ^e2\n',
  'insights/facts/cat.md': '# Cat\n\nThe cat is called Mochi; see [[user]] and [[nowhere]].\n',
  // Larger than a note read whole (64 KiB of records): its links, headings, blocks and each entry
  // are records of their own, decoded when first asked for.
  'episodes/daily/2026-11-20.md': `# 2026-11-20\n\n${Array.from(
    { length: 40 },
    (_, i) =>
      `- 10:${String(i).padStart(2, '0')} **Rain:** ${i % 3 === 0 ? '在港口看船。' : `harbor walk ${i} with [[user]] ${'along the quay '.repeat(200)}`} ^h${i}\n`,
  ).join('')}\n## Later\n\nThe ferry to [[Shanghai]] left at dusk.\n`,
};
const QUERIES = ['lighthouse', '上海', 'Mochi cat', 'Rain', 'harbor walk 17', '港口', 'ferry dusk'];
const INDEX = join('.mem', 'index');
const NOW = new Date('2026-11-22T10:00:00Z');

/** Everything a vault answers that the cache holds: every note, its links both ways, recall. */
async function answers(root: string, notices: string[]): Promise<string> {
  const vault = await openVault({ path: root, onNotice: (m) => notices.push(m) });
  try {
    const paths = vault.paths();
    // Recall first: its hits decode only the records they need, before the whole notes are read.
    const recall = QUERIES.map((q) => vault.recall(q, { now: NOW }).hits.map((hit) => [hit.id, hit.score]));
    const links = paths.map((path) => [vault.links(path), vault.backlinks(path)]);
    return JSON.stringify({ paths, notes: paths.map((path) => vault.note(path)), links, recall });
  } finally {
    await vault.close();
  }
}

/** The files of the cache, by path below `.mem/index/`. */
async function snapshot(root: string): Promise<Map<string, Buffer>> {
  const files = new Map<string, Buffer>();
  for (const entry of await readdir(join(root, INDEX), { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const abs = join(entry.parentPath, entry.name);
    files.set(abs.slice(join(root, INDEX).length + 1), await readFile(abs));
  }
  return files;
}

/** The cache as saved, but `name` holding `bytes`. */
async function restore(root: string, files: Map<string, Buffer>, name: string, bytes: Buffer): Promise<void> {
  await rm(join(root, INDEX), { recursive: true, force: true });
  for (const [file, content] of files) {
    const abs = join(root, INDEX, file);
    await mkdir(join(abs, '..'), { recursive: true });
    await writeFile(abs, file === name ? bytes : content);
  }
}

/** A few points across a file of `length` bytes: both ends, and evenly between. */
function points(length: number, count: number): number[] {
  const found = new Set<number>([0, length - 1]);
  for (let i = 1; i < count; i++) found.add(Math.floor((length * i) / count));
  return [...found].filter((p) => p >= 0 && p < length).sort((a, b) => a - b);
}

describe('a damaged index cache is rebuilt or read around, never trusted', () => {
  it('every truncation and flipped byte of every cache file leaves every answer as a clean open gives it', async () => {
    const root = await makeVault(FILES);
    await (await openVault({ path: root })).close();
    const clean = await answers(root, []);
    const files = await snapshot(root);
    expect([...files.keys()].some((f) => f.endsWith('.jsonl'))).toBe(true);
    let damagedNotes = 0;
    for (const [name, content] of files) {
      const cases: Array<[string, Buffer]> = [];
      for (const at of points(content.length, 6)) cases.push([`cut at ${at}`, content.subarray(0, at)]);
      for (const at of points(content.length, 10)) {
        const flipped = Buffer.from(content);
        flipped[at] = (flipped[at] as number) ^ 0x10;
        cases.push([`byte ${at} flipped`, flipped]);
      }
      for (const [what, bytes] of cases) {
        await restore(root, files, name, bytes);
        const notices: string[] = [];
        const got = await answers(root, notices);
        expect(got, `${name}, ${what}`).toBe(clean);
        if (notices.some((n) => /copy of .* is damaged/.test(n))) damagedNotes++;
      }
    }
    // Some flips landed inside a saved note: that note alone was read from its file.
    expect(damagedNotes).toBeGreaterThan(0);
  });

  it('a flipped byte in any record of a large note (head, links, any entry) reads that note from its file', async () => {
    const root = await makeVault(FILES);
    await (await openVault({ path: root })).close();
    const clean = await answers(root, []);
    const files = await snapshot(root);
    const [name, content] = [...files].find(([file]) => file.endsWith('.jsonl')) as [string, Buffer];
    // The notes file is one record a line; the large note's are its head line and those after it.
    const lines = content.toString('utf8').split('\n');
    const head = lines.findIndex((line) => line.includes('"path":"episodes/daily/2026-11-20.md"'));
    const next = lines.findIndex((line, i) => i > head && line.startsWith('[{"path":'));
    const records = (next === -1 ? lines.length - 1 : next) - head;
    // The head, the body (links, headings, blocks) and one record per section: 40 entries, `## Later`.
    expect(records).toBe(2 + 41);
    let at = lines.slice(0, head).reduce((sum, line) => sum + Buffer.byteLength(line) + 1, 0);
    for (let r = 0; r < records; r++) {
      const line = lines[head + r] as string;
      const flipped = Buffer.from(content);
      const byte = at + Math.floor(Buffer.byteLength(line) / 2);
      flipped[byte] = (flipped[byte] as number) ^ 0x10;
      await restore(root, files, name, flipped);
      const notices: string[] = [];
      expect(await answers(root, notices), `record ${r}`).toBe(clean);
      expect(notices.join('\n'), `record ${r}`).toMatch(/2026-11-20\.md.*damaged/);
      at += Buffer.byteLength(line) + 1;
    }
  });

  it('a cache of the schema before is rebuilt once, then opened', async () => {
    const root = await makeVault(FILES);
    await (await openVault({ path: root })).close();
    const manifestFile = join(root, INDEX, 'manifest.json');
    const manifest = JSON.parse(await readFile(manifestFile, 'utf8'));
    await writeFile(manifestFile, JSON.stringify({ ...manifest, schema: CACHE_SCHEMA - 1 }));
    const first: string[] = [];
    const rebuilt = await openVault({ path: root, onNotice: (m) => first.push(m) });
    expect(rebuilt.lastRefresh.added).toBe(Object.keys(FILES).length);
    expect(first).toEqual([
      `mem: the index cache is from schema ${CACHE_SCHEMA - 1}, not ${CACHE_SCHEMA}; rebuilding it`,
    ]);
    await rebuilt.close();
    const second: string[] = [];
    const opened = await openVault({ path: root, onNotice: (m) => second.push(m) });
    expect(second).toEqual([]);
    expect(opened.lastRefresh).toMatchObject({ added: 0, unchanged: Object.keys(FILES).length });
    await opened.close();
  });
});
