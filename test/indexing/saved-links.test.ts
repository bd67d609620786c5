import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openVault, type Vault } from '../../src/api/open-vault.js';
import { LinkGraph } from '../../src/indexing/links/link-graph.js';
import { SavedLinkGraph } from '../../src/indexing/links/saved-links.js';
import type { NoteTable } from '../../src/indexing/note-table.js';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';

afterEach(cleanupVaults);

const FILES = {
  'profile/user.md': '# Rain\n\nLives in [[Shanghai]] with [[Mochi]]; see [[#Rain]] and [[nowhere]].\n',
  'profile/places/Shanghai.md': '# Shanghai\n\nA city. [[user]] lives here; [[Later]] may come.\n',
  'insights/facts/Mochi.md': '# Mochi\n\nThe cat of [[user]], from [[Shanghai#Shanghai|the city]].\n',
  'insights/a/Twin.md': '# Twin\n\nOne of two, linking [[Mochi]].\n',
  'insights/b/Twin.md': '# Twin\n\nThe other, linking [[Twin]].\n',
};

/** The graph the vault's index holds, asked as the vault's code asks it. */
function graphOf(vault: Vault) {
  return (vault as unknown as { live: { index: { graph: unknown } } }).live.index.graph;
}

function notesOf(vault: Vault): NoteTable {
  return (vault as unknown as { live: { index: { notes: NoteTable } } }).live.index.notes;
}

/** Every question of the graph, answered by the vault and by a LinkGraph made from its notes now. */
function expectSameAsRebuilt(vault: Vault): void {
  const graph = graphOf(vault) as LinkGraph;
  const reference = LinkGraph.fromNotes(vault.paths().map((path) => vault.note(path)));
  for (const path of vault.paths()) {
    expect(graph.outEdges(path), `out of ${path}`).toEqual(reference.outEdges(path));
    expect(graph.backlinks(path), `backlinks of ${path}`).toEqual(reference.backlinks(path));
    expect(graph.neighbours(path), `neighbours of ${path}`).toEqual(reference.neighbours(path));
    expect(graph.outTargets(path)).toEqual(reference.outTargets(path));
  }
  expect(graph.unresolved()).toEqual(reference.unresolved());
  expect(graph.paths()).toEqual(reference.paths());
  expect(graph.resolve('Twin', 'insights/b/x.md')).toBe(reference.resolve('Twin', 'insights/b/x.md'));
}

describe('the link graph opened from the cache', () => {
  it('answers as the graph made from every note, through edits, new notes and names that take links over', async () => {
    const root = await makeVault(FILES);
    await (await openVault({ path: root })).close();
    const vault = await openVault({ path: root });
    const graph = graphOf(vault) as SavedLinkGraph;
    expect(graph).toBeInstanceOf(SavedLinkGraph);
    expectSameAsRebuilt(vault);

    // An edit to a saved note: its links are held beside the saved rows.
    await writeFile(
      join(root, 'insights/facts/Mochi.md'),
      '# Mochi\n\nNow linking [[Twin]] and [[user#Rain]].\n',
    );
    await vault.refreshPaths(['insights/facts/Mochi.md']);
    expectSameAsRebuilt(vault);
    // A new note of a name nothing names: nothing else can change, still no whole graph.
    await writeFile(join(root, 'insights/fresh.md'), '# Fresh\n\n[[Mochi]], [[Shanghai]] and [[gone]].\n');
    await vault.refreshPaths(['insights/fresh.md']);
    expectSameAsRebuilt(vault);
    // Written twice: the first version's links are forgotten.
    await writeFile(join(root, 'insights/fresh.md'), '# Fresh\n\nOnly [[user]] now.\n');
    await vault.refreshPaths(['insights/fresh.md']);
    expectSameAsRebuilt(vault);
    expect(graph.materialized).toBe(false);

    // A new note that an unresolved link names (`[[Later]]`) takes it over, without the whole graph.
    await writeFile(join(root, 'insights/Later.md'), '# Later\n\nArrived.\n');
    await vault.refreshPaths(['insights/Later.md']);
    expect(graph.materialized).toBe(false);
    expectSameAsRebuilt(vault);
    // And one that a written note's unresolved link names (`[[gone]]`, written above then dropped;
    // `[[nowhere]]` is the saved note's).
    await writeFile(join(root, 'insights/fresh.md'), '# Fresh\n\n[[user]], [[gone]].\n');
    await vault.refreshPaths(['insights/fresh.md']);
    await writeFile(join(root, 'insights/gone.md'), '# Gone\n');
    await vault.refreshPaths(['insights/gone.md']);
    await writeFile(join(root, 'nowhere.md'), '# Nowhere\n\n[[Later]]\n');
    await vault.refreshPaths(['nowhere.md']);
    expect(graph.materialized).toBe(false);
    expectSameAsRebuilt(vault);
    await vault.close();
  });

  it('a new note sharing a file name with another, or a removal, makes the whole graph and stays right', async () => {
    const root = await makeVault(FILES);
    await (await openVault({ path: root })).close();
    const vault = await openVault({ path: root });
    const graph = graphOf(vault) as SavedLinkGraph;
    await writeFile(join(root, 'insights/Mochi.md'), '# Another Mochi\n');
    await vault.refreshPaths(['insights/Mochi.md']);
    expect(vault.paths()).toContain('insights/Mochi.md');
    expect(graph.materialized).toBe(true);
    expectSameAsRebuilt(vault);
    await vault.close();

    const again = await openVault({ path: root });
    const { rm } = await import('node:fs/promises');
    await rm(join(root, 'profile/places/Shanghai.md'));
    await again.refreshPaths(['profile/places/Shanghai.md']);
    expect((graphOf(again) as SavedLinkGraph).materialized).toBe(true);
    expectSameAsRebuilt(again);
    await again.close();
  });

  it('a save after notes were written keeps their links, and the next open answers the same', async () => {
    const root = await makeVault(FILES);
    await (await openVault({ path: root })).close();
    const vault = await openVault({ path: root });
    const graph = graphOf(vault);
    await writeFile(join(root, 'insights/fresh.md'), '# Fresh\n\n[[Mochi]] and [[Shanghai]].\n');
    await vault.refreshPaths(['insights/fresh.md']);
    await vault.save();
    // The save's generation is what the vault reads from now: the written note too.
    expect(graphOf(vault)).not.toBe(graph);
    expect(graphOf(vault)).toBeInstanceOf(SavedLinkGraph);
    expect(notesOf(vault).entry('insights/fresh.md')).toEqual(expect.any(Number));
    expectSameAsRebuilt(vault);
    const before = vault.paths().map((path) => [vault.links(path), vault.backlinks(path)]);
    await vault.close();
    const reopened = await openVault({ path: root });
    expect(reopened.lastRefresh.added).toBe(0);
    expect(graphOf(reopened)).toBeInstanceOf(SavedLinkGraph);
    expect(reopened.paths().map((path) => [reopened.links(path), reopened.backlinks(path)])).toEqual(before);
    expectSameAsRebuilt(reopened);
    await reopened.close();
  });
});
