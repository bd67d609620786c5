// A cold index spills each parsed note to the generation its save writes (cold-build.ts): the
// index holds slots, not notes, past each batch; the cache it saves is the one a build that held
// every note saves, byte for byte; and a build that dies half-way leaves the old cache whole.
import { mkdir, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadIndexCache, saveIndexCache } from '../../src/indexing/index-cache.js';
import { SavedLinkGraph } from '../../src/indexing/links/saved-links.js';
import { refreshIndex } from '../../src/indexing/refresh-index.js';
import { VaultIndex } from '../../src/indexing/vault-index.js';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';

afterEach(cleanupVaults);

const INDEX = join('.mem', 'index');

/** Some 200 notes (more than a read batch of 64) linking each other, days, and names no note has. */
function files(): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < 150; i++) {
    out[`insights/facts/fact-${i}.md`] =
      `# Fact ${i}\n\nRain said [[person-${i % 7}]] likes tea number ${i} [[fact-${(i * 13) % 150}]] ` +
      `[[missing-${i % 5}]] [[#Fact ${i}]]\n\n## Later\n\nmore words ${i} on [[2026-11-${10 + (i % 9)}]]\n`;
  }
  for (let p = 0; p < 7; p++)
    out[`profile/people/person-${p}.md`] = `# person-${p}\n\nA friend. [[fact-${p}]]\n`;
  for (let d = 10; d < 19; d++)
    out[`episodes/daily/2026-11-${d}.md`] =
      `# 2026-11-${d}\n\n- 09:00 **Rain:** tea with [[person-${d % 7}]] ^e1\n`;
  return out;
}

/** The current generation's files by name, and its folder. */
async function generation(root: string): Promise<{ dir: string; files: Map<string, Buffer> }> {
  const manifest = JSON.parse(await readFile(join(root, INDEX, 'manifest.json'), 'utf8'));
  const dir = join(root, INDEX, manifest.generation);
  const out = new Map<string, Buffer>();
  for (const name of (await readdir(dir)).sort()) out.set(name, await readFile(join(dir, name)));
  return { dir, files: out };
}

async function generations(root: string): Promise<string[]> {
  return (await readdir(join(root, INDEX))).filter((name) => /^[gs]/.test(name)).sort();
}

describe('a cold index that spills its notes', () => {
  it('holds no parsed note past a batch, and saves the cache a build holding every note saves', async () => {
    const root = await makeVault(files());
    const held = new VaultIndex();
    await refreshIndex(root, held);
    expect(await saveIndexCache(root, held)).toEqual({ saved: true });
    const expected = await generation(root);

    const index = new VaultIndex();
    index.spillFrom = 1;
    const objects: number[] = [];
    await refreshIndex(root, index, undefined, (read) => {
      // Past each batch, every note read so far is a slot in the spill.
      if (read > 0)
        objects.push([...index.notes.entriesRaw()].filter(([, e]) => typeof e !== 'number').length);
    });
    expect(objects.length).toBeGreaterThan(1);
    expect(objects.every((n) => n === 0)).toBe(true);
    expect([...index.notes.entriesRaw()].every(([, entry]) => typeof entry === 'number')).toBe(true);
    expect(index.graph).toBeInstanceOf(SavedLinkGraph);
    // Read back from the spill, the notes and links are those of the index that held them.
    for (const path of held.notes.keys()) {
      expect(index.notes.get(path)).toEqual(held.notes.get(path));
      expect(index.graph.outEdges(path)).toEqual(held.graph.outEdges(path));
      expect(index.graph.backlinks(path)).toEqual(held.graph.backlinks(path));
    }
    expect(index.graph.unresolved()).toEqual(held.graph.unresolved());
    const query = 'tea person';
    expect(index.text.search(query)).toEqual(held.text.search(query));

    expect(await saveIndexCache(root, index)).toEqual({ saved: true });
    const spilled = await generation(root);
    expect([...spilled.files.keys()]).toEqual([...expected.files.keys()]);
    for (const [name, bytes] of expected.files)
      expect(spilled.files.get(name)?.equals(bytes), name).toBe(true);
    // The save wrote its generation beside the spilled notes, and removed the one before.
    expect(await generations(root)).toEqual([spilled.dir.slice(spilled.dir.lastIndexOf('/') + 1)]);
  });

  it('a build that dies half-way leaves the old cache whole; the next save removes what it wrote', async () => {
    const root = await makeVault(files());
    const first = new VaultIndex();
    await refreshIndex(root, first);
    expect(await saveIndexCache(root, first)).toEqual({ saved: true });
    const before = await generation(root);

    const index = new VaultIndex();
    index.spillFrom = 1;
    const died = refreshIndex(root, index, undefined, (read) => {
      if (read > 64) throw new Error('killed');
    });
    await expect(died).rejects.toThrow('killed');
    index.close();
    // Notes were spilled into a folder no manifest names: the cache loads as it was saved.
    expect((await generations(root)).length).toBe(2);
    const loaded = await loadIndexCache(root);
    expect(loaded.status).toBe('loaded');
    if (loaded.status !== 'loaded') return;
    expect([...loaded.index.notes.keys()].sort()).toEqual([...first.notes.keys()].sort());
    loaded.index.close();
    expect(await generation(root)).toEqual(before);

    const again = new VaultIndex();
    again.spillFrom = 1;
    await refreshIndex(root, again);
    expect(await saveIndexCache(root, again)).toEqual({ saved: true });
    const after = await generation(root);
    expect(await generations(root)).toEqual([after.dir.slice(after.dir.lastIndexOf('/') + 1)]);
    for (const [name, bytes] of before.files) expect(after.files.get(name)?.equals(bytes), name).toBe(true);
  });

  it("another save while the build runs leaves its spill alone, and the build's save is the generation the manifest names", async () => {
    const root = await makeVault(files());
    const first = new VaultIndex();
    await refreshIndex(root, first);
    expect(await saveIndexCache(root, first)).toEqual({ saved: true });
    // The build has spilled every note; before its save, another index of the vault saves (as a
    // server would while `mem index --rebuild` runs), removing every generation older than its own.
    const build = new VaultIndex();
    build.spillFrom = 1;
    await refreshIndex(root, build);
    const other = new VaultIndex();
    await refreshIndex(root, other);
    other.remove('insights/facts/fact-9.md');
    expect(await saveIndexCache(root, other)).toEqual({ saved: true });
    expect((await generations(root)).filter((name) => name.startsWith('s'))).toHaveLength(1);
    // The build saves after it: its generation is named now, so it is the newest, and the one loaded.
    expect(await saveIndexCache(root, build)).toEqual({ saved: true });
    const current = await generation(root);
    expect(await generations(root)).toEqual([current.dir.slice(current.dir.lastIndexOf('/') + 1)]);
    const loaded = await loadIndexCache(root);
    expect(loaded.status).toBe('loaded');
    if (loaded.status !== 'loaded') return;
    expect([...loaded.index.notes.keys()].sort()).toEqual([...build.notes.keys()].sort());
    loaded.index.close();
    build.close();
    other.close();
    first.close();
  });

  it("a save removes the spill folder of a process that is gone, and leaves a running one's", async () => {
    const root = await makeVault(files());
    const index = new VaultIndex();
    await refreshIndex(root, index);
    // A pid no process has (above the kernel's largest), and this test's parent, which runs.
    const gone = join(root, INDEX, 'sabc123-4194305-zz9');
    const running = join(root, INDEX, `sabc124-${process.ppid}-zz9`);
    await mkdir(gone, { recursive: true });
    await mkdir(running, { recursive: true });
    expect(await saveIndexCache(root, index)).toEqual({ saved: true });
    const left = await readdir(join(root, INDEX));
    expect(left).not.toContain('sabc123-4194305-zz9');
    expect(left).toContain(`sabc124-${process.ppid}-zz9`);
    index.close();
  });

  it('a note changed after the build is saved in a generation of its own, the spill copied', async () => {
    const root = await makeVault(files());
    const index = new VaultIndex();
    index.spillFrom = 1;
    await refreshIndex(root, index);
    const spillDir = (await generations(root))[0];
    index.remove('insights/facts/fact-3.md');
    expect(await saveIndexCache(root, index)).toEqual({ saved: true });
    const saved = await generations(root);
    expect(saved).toHaveLength(1);
    expect(saved[0]).not.toBe(spillDir);
    const loaded = await loadIndexCache(root);
    expect(loaded.status).toBe('loaded');
    if (loaded.status !== 'loaded') return;
    expect(loaded.index.notes.size).toBe(index.notes.size);
    expect(loaded.index.notes.get('insights/facts/fact-4.md')).toEqual(
      index.notes.get('insights/facts/fact-4.md'),
    );
    expect(loaded.index.graph.backlinks('profile/people/person-3.md')).toEqual(
      index.graph.backlinks('profile/people/person-3.md'),
    );
    loaded.index.close();
  });
});
