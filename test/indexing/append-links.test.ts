// Differential: a day note's links, after chat adds that the index reads as appends (each add's
// links added to the graph alone, not every link of the day again), are the links a graph made
// from every note afresh holds: where each points, the section it is in, backlinks, unresolved.

import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openVault } from '../../src/api/open-vault.js';
import { SavedLinkGraph } from '../../src/indexing/links/saved-links.js';
import { isAppendable } from '../../src/vault/markdown/append-note.js';
import { expectSameAsRebuilt, graphOf } from '../helpers/graph-as-rebuilt.js';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';
import { seeded } from '../helpers/seeded.js';

afterEach(cleanupVaults);

const DAY = 'episodes/daily/2026-11-30.md';

const FILES = {
  'profile/user.md': '# Rain\n\nLives in [[Shanghai]] with [[Mochi]].\n',
  'profile/places/Shanghai.md': '# Shanghai\n\nA city. [[user]] lives here; [[Later]] may come.\n',
  'insights/facts/Mochi.md': '# Mochi\n\nThe cat of [[user]], seen on [[2026-11-30#^e2]].\n',
  'insights/a/Twin.md': '# Twin\n\nOne of two.\n',
  'insights/b/Twin.md': '# Twin\n\nThe other.\n',
};

/** Links an entry may hold: resolved, unresolved, ambiguous, to a heading, to the day itself. */
const LINKS = [
  '[[Shanghai]]',
  '[[Mochi]]',
  '[[user|me]]',
  '[[Twin]]',
  '[[Shanghai#Shanghai|the city]]',
  '[[Nobody]]',
  '[[2026-11-30#^e1]]',
  '[[#^e3]]',
  '[a file](insights/facts/Mochi.md)',
  '[[2026-11-29]]',
];
const WORDS = ['pottery', 'tea', 'quokka', '杭州', 'walk', 'rain'];

function sentence(r: () => number): string {
  const out: string[] = [];
  for (let n = 1 + Math.floor(r() * 6); n > 0; n--) {
    const pool = r() < 0.4 ? LINKS : WORDS;
    out.push(pool[Math.floor(r() * pool.length)]!);
  }
  // Now and then a link no note has had yet, so unresolved names keep growing.
  if (r() < 0.2) out.push(`[[Someone ${Math.floor(r() * 1000)}]]`);
  return out.join(' ');
}

describe('a day note with many links, written by chat adds', () => {
  it('holds the links a graph made afresh holds, after every add, over seeds', async () => {
    let appended = 0;
    const kinds = new Set<string>();
    for (let seed = 1; seed <= 8; seed++) {
      const r = seeded(seed);
      const files: Record<string, string> = { ...FILES };
      // Some days start as a person's note with links of its own, under a heading: saved with the
      // cache, the first add reads where they point from the saved rows.
      if (seed % 3 === 0 || seed === 1)
        files[DAY] =
          '# 30 November\n\nMet [[Mochi]] and [[Nobody]].\n\n## Chat\n\n- 08:00 hello [[user]] ^e1\n';
      const root = await makeVault(files, { config: { timezone: 'UTC', git: { autoCommit: false } } });
      // Opened from the cache: the saved graph holds the written day beside its rows.
      await (await openVault({ path: root })).close();
      const vault = await openVault({ path: root });
      if (seed % 2 === 0) {
        // A note of a file name another note has: links may move, so the whole graph is made.
        await writeFile(join(root, 'insights/Mochi.md'), '# Mochi too\n\nSee [[Twin]].\n');
        await vault.refreshPaths(['insights/Mochi.md']);
      } else if (seed % 4 === 1) {
        // A note that an unresolved link names takes it over, the saved graph held.
        await writeFile(join(root, 'insights/Later.md'), '# Later\n\nArrived, see [[Twin]].\n');
        await vault.refreshPaths(['insights/Later.md']);
      }
      const at0 = Date.parse('2026-11-30T09:00:00Z');
      for (let i = 0; i < 24; i++) {
        const before = vault.paths().includes(DAY) ? vault.note(DAY) : undefined;
        if (before && isAppendable(before)) appended++;
        await vault.addExchange({
          user: sentence(r),
          assistant: sentence(r),
          at: new Date(at0 + i * 60_000),
        });
        const graph = graphOf(vault);
        kinds.add(graph instanceof SavedLinkGraph && !graph.materialized ? 'saved' : 'whole');
        if (i === 0 || i % 4 === 3 || i === 23) expectSameAsRebuilt(vault, `seed ${seed}, add ${i}`);
      }
      expect(vault.note(DAY).links.length).toBeGreaterThan(30);
      await vault.close();
    }
    // Most adds were read as appends, on both kinds of graph.
    expect(appended).toBeGreaterThan(8 * 16);
    expect([...kinds].sort()).toEqual(['saved', 'whole']);
  });

  it("reads where a long saved day's links point from the saved rows at its first add, and resolves only the new ones", async () => {
    // A day of some 100 KiB of records: the cache reads it a part at a time (saved-note.ts), and
    // an add to it is an append of the note the table holds.
    const r = seeded(11);
    const entries = Array.from(
      { length: 600 },
      (_, i) =>
        `- ${String(8 + Math.floor(i / 60)).padStart(2, '0')}:${String(i % 60).padStart(2, '0')} ${sentence(r)} ^e${i + 1}`,
    );
    const files = { ...FILES, [DAY]: `# 30 November\n\n## Chat\n\n${entries.join('\n')}\n` };
    const root = await makeVault(files, { config: { timezone: 'UTC', git: { autoCommit: false } } });
    await (await openVault({ path: root })).close();
    const vault = await openVault({ path: root });
    const graph = graphOf(vault);
    expect(graph).toBeInstanceOf(SavedLinkGraph);
    const before = vault.note(DAY).links.length;
    expect(before).toBeGreaterThan(600);
    await vault.addExchange({
      user: 'pottery again',
      assistant: 'noted',
      at: new Date('2026-11-30T20:00:00Z'),
    });
    // No link added, none resolved: no index of every path was made for it.
    expect((graph as unknown as { pathIndex?: unknown }).pathIndex).toBeUndefined();
    expectSameAsRebuilt(vault, 'after an add of no link');
    await vault.addExchange({
      user: `${LINKS.join(' ')} and [[Someone new]]`,
      assistant: '[[Twin]]',
      at: new Date('2026-11-30T20:01:00Z'),
    });
    expect(vault.note(DAY).links.length).toBe(before + LINKS.length + 2);
    expectSameAsRebuilt(vault, 'after an add of every kind of link');
    expect((graph as unknown as { materialized: boolean }).materialized).toBe(false);
    await vault.close();
  });
});
