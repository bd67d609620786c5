// Recall follows the links to its strongest hits from where the cache saved each link (the section
// it is written in, the anchor it names: indexing/links/link-places.ts) and ranks the linking
// section by what the text index stores of it, without decoding the linking note (issue 33). The
// promises: the neighbours found that way are the ones the notes themselves give, read from the
// cache, after edits, or built fresh; and a hit cited by many notes decodes none of them.

import { appendFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { openVault, type Vault } from '../../src/api/open-vault.js';
import type { Section } from '../../src/core/types.js';
import {
  NO_SECTION,
  PlacePacker,
  placesFit,
  UNKNOWN_PLACE,
  unpackPlace,
} from '../../src/indexing/links/link-places.js';
import { refreshIndex } from '../../src/indexing/refresh-index.js';
import type { VaultIndex } from '../../src/indexing/vault-index.js';
import { graphNeighbours } from '../../src/recall/graph-neighbours.js';
import { cleanupVaults, indexOf, makeVault } from '../helpers/make-vault.js';
import { liveIndexOf, notesReadBy } from '../helpers/notes-read.js';
import { seeded } from '../helpers/seeded.js';

afterAll(cleanupVaults);

const NOW = new Date('2026-12-01T09:00:00+08:00');

const HEADINGS = ['Plans', 'plans', 'Notes', 'Trip #2', 'A [b]', 'Notes'];
const SUBPATHS = [
  '',
  '#Plans',
  '#plans',
  '#PLANS',
  '#Notes',
  '#Trip #2',
  '#A b',
  '#^e1',
  '#^e2',
  '#Missing',
  '#',
];

/** A vault of notes that link to each other in every way a place can be written: a generator, by seed. */
function linkedVault(seed: number): Record<string, string> {
  const next = seeded(seed);
  const r = {
    next,
    chance: (p: number) => next() < p,
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T,
  };
  const names = Array.from({ length: 12 }, (_, i) => `n${i}`);
  const link = () => `[[${r.pick(names)}${r.pick(SUBPATHS)}]]`;
  const files: Record<string, string> = {};
  for (const name of names) {
    const parts: string[] = [];
    if (r.chance(0.4)) parts.push(`---\nrelated: "${link()}"\nimportance: ${r.pick(['0.2', '0.9'])}\n---\n`);
    if (r.chance(0.5)) parts.push(`Preamble ${name} ${r.chance(0.5) ? link() : ''}\n`);
    const headings = r.chance(0.2) ? 0 : 1 + Math.floor(r.next() * 4);
    for (let h = 0; h < headings; h++) {
      parts.push(
        `\n${'#'.repeat(1 + Math.floor(r.next() * 3))} ${r.pick(HEADINGS)}\n\nText ${name} ${h} ${link()}\n`,
      );
      if (r.chance(0.4)) parts.push(`- entry ${h} ${link()} ^e${1 + Math.floor(r.next() * 2)}\n`);
    }
    files[`${r.pick(['insights', 'profile', 'episodes/daily'])}/${name}.md`] =
      parts.join('') || `${link()}\n`;
  }
  return files;
}

/**
 * Every section's neighbours through links, as recall's graph step finds them (the entries next to
 * an entry are weighed by word counts, which an edited index counts with its discarded sections).
 */
function allNeighbours(index: VaultIndex): string[] {
  const out: string[] = [];
  for (const path of [...index.notes.keys()].sort()) {
    const note = index.notes.get(path);
    if (!note) continue;
    for (const section of note.sections) {
      for (const n of graphNeighbours(index, note, section))
        if (!n.adjacent)
          out.push(`${section.id} <- ${n.id} ${n.date ?? ''} ${n.weight} ${n.reason} ${n.adjacent ?? ''}`);
    }
  }
  return out;
}

describe('backlinks from the saved link places', () => {
  it('are the neighbours the notes give, read from the cache, after edits, or built fresh', async () => {
    for (let seed = 1; seed <= 12; seed++) {
      const files = linkedVault(seed);
      const root = await makeVault(files);
      await (await openVault({ path: root })).close();
      const vault = await openVault({ path: root });
      const cached = allNeighbours(liveIndexOf(vault));
      expect(cached, `seed ${seed}`).toEqual(allNeighbours(await indexOf(root)));
      expect(
        cached.some((line) => line.includes('links to')),
        `seed ${seed}: vacuous`,
      ).toBe(true);

      // An edit moves the places of one note's links; another note gets a new link.
      const [first, second] = Object.keys(files) as [string, string];
      await writeFile(join(root, first), `# Moved\n\nNow here [[n3#Plans]] and [[n5]].\n`);
      await appendFile(join(root, second), `\n## Added\n\nSee [[n1#^e1]] and [[n2#notes]].\n`);
      await vault.refresh();
      expect(allNeighbours(liveIndexOf(vault)), `seed ${seed} edited`).toEqual(
        allNeighbours(await indexOf(root)),
      );
      await vault.close();
      const reopened = await openVault({ path: root });
      expect(allNeighbours(liveIndexOf(reopened)), `seed ${seed} reopened`).toEqual(
        allNeighbours(await indexOf(root)),
      );
      await reopened.close();
    }
  });

  it("move with every kind of edit that keeps a note's links, in every state of the graph", async () => {
    // Edits that leave the links as they were (same text, same offsets) or append some: the graph
    // keeps their edges, and where each one is written must still be what the note says.
    const EDITS: Array<[string, Record<string, string>, string, (text: string) => string]> = [
      [
        'a note without sections gains a body',
        { 'insights/a.md': '---\nrelated: "[[b]]"\n---\n' },
        'insights/a.md',
        (t) => `${t}Now a body about glazes.\n`,
      ],
      [
        'a heading whose anchor links as nothing is appended',
        { 'insights/a.md': '---\nrelated: "[[b]]"\n---\n# Title\n\nText.\n' },
        'insights/a.md',
        (t) => `${t}\n## :\n\nMore.\n`,
      ],
      [
        'a heading before a link is renamed to one of the same length',
        { 'insights/a.md': '# Title\n\n## Foo\n\nSee [[b]].\n' },
        'insights/a.md',
        (t) => t.replace('## Foo', '## Bar'),
      ],
      [
        'an entry with a link is appended to a day',
        { 'episodes/daily/2026-11-28.md': '# 2026-11-28\n\n- 10:00 Pottery [[b]] ^e1\n' },
        'episodes/daily/2026-11-28.md',
        (t) => `${t}- 10:05 Glaze [[b#B]] ^e2\n`,
      ],
    ];
    for (const [kind, extra, path, edit] of EDITS) {
      for (const state of ['fresh', 'cached', 'cached, whole graph']) {
        const files = {
          ...extra,
          'insights/b.md': '# B\n\nThe target note about pottery.\n',
          'insights/c.md': 'c\n',
        };
        const root = await makeVault(files);
        const where = `${kind} (${state})`;
        const index = state === 'fresh' ? await indexOf(root) : undefined;
        if (state !== 'fresh') await (await openVault({ path: root })).close();
        const vault = state === 'fresh' ? undefined : await openVault({ path: root });
        // A removal makes the saved graph whole: the edit then meets a LinkGraph.
        if (state === 'cached, whole graph') await rm(join(root, 'insights/c.md'));
        await writeFile(join(root, path), edit(files[path as keyof typeof files] as string));
        if (index) await refreshIndex(root, index);
        else await vault?.refresh();
        const live = index ?? liveIndexOf(vault as Vault);
        const fresh = await indexOf(root);
        expect(allNeighbours(live), where).toEqual(allNeighbours(fresh));
        expect(
          allNeighbours(live).some((line) => line.includes('links to')),
          `${where}: vacuous`,
        ).toBe(true);
        if (vault) {
          await vault.close();
          const reopened = await openVault({ path: root });
          expect(allNeighbours(liveIndexOf(reopened)), `${where}, reopened`).toEqual(allNeighbours(fresh));
          await reopened.close();
        }
      }
    }
  });

  it('hold for a link in any section of a note, past the 65,535th too', async () => {
    const headings = Array.from({ length: 65_537 }, (_, i) => `# h${i}\n`);
    const body = (at: number) =>
      [...headings.slice(0, at + 1), 'pottery [[b]]\n', ...headings.slice(at + 1)].join('');
    const root = await makeVault({
      'insights/at-65535.md': body(65_535),
      'insights/at-65536.md': body(65_536),
      'insights/b.md': '# B\n\nThe target note about pottery.\n',
    });
    await (await openVault({ path: root })).close();
    const vault = await openVault({ path: root });
    const index = liveIndexOf(vault);
    const b = index.notes.get('insights/b.md');
    const ids = b ? graphNeighbours(index, b, b.sections[0] as Section).map((n) => n.id) : [];
    expect(ids.sort()).toEqual(['insights/at-65535.md#h65535', 'insights/at-65536.md#h65536']);
    await vault.close();
  }, 120_000);

  it('decode none of the notes that cite a hit', async () => {
    const day = 'episodes/daily/2026-11-28.md';
    const files: Record<string, string> = {
      [day]: '---\ndate: 2026-11-28\n---\n# 2026-11-28\n\n- 10:00 **Rain:** Pottery class today. ^e1\n',
    };
    for (let i = 0; i < 120; i++)
      files[`insights/facts/glaze-${i}.md`] =
        `# Glaze ${i}\n\nA glaze recipe, number ${i} ([[2026-11-28#^e1]]).\n`;
    const root = await makeVault(files);
    await (await openVault({ path: root })).close();
    const vault = await openVault({ path: root });
    const { result, read } = notesReadBy(vault, () => vault.recall('pottery', { k: 8, now: NOW }));
    const { hits } = result;
    // The entry and 7 of the 120 insights that cite it are shown; the rest were ranked undecoded.
    expect(hits).toHaveLength(8);
    expect(hits.filter((hit) => hit.reasons.includes('links to [[2026-11-28]]'))).toHaveLength(7);
    expect(read.size).toBeLessThanOrEqual(8);
    await vault.close();
  });
});

describe('packed link places', () => {
  it('read back as packed, or as unknown when they do not fit', () => {
    const place = fc.record({
      source: fc.oneof(fc.integer({ min: 0, max: 0x10010 }), fc.constantFrom(NO_SECTION, 0xfffe, 0xffff)),
      subpath: fc.option(fc.string({ maxLength: 4 }), { nil: undefined }),
    });
    fc.assert(
      fc.property(fc.array(place, { maxLength: 40 }), (places) => {
        const packer = new PlacePacker();
        const packed = Int32Array.from(places.map((p) => packer.pack(p)));
        expect(placesFit(packed, packer.subpaths)).toBe(true);
        places.forEach((p, i) => {
          const back = unpackPlace(packed[i] as number, packer.subpaths);
          if (p.source > 0xfffe) expect(back).toBeUndefined();
          else expect(back).toEqual(p);
        });
      }),
    );
  });

  it('that name an anchor the table does not list are not trusted', () => {
    const packer = new PlacePacker();
    const packed = Int32Array.from([packer.pack({ source: 1, subpath: 'a' }), UNKNOWN_PLACE]);
    expect(placesFit(packed, packer.subpaths)).toBe(true);
    expect(placesFit(packed, [])).toBe(false);
    expect(placesFit(Int32Array.from([-5]), [])).toBe(false);
  });
});
