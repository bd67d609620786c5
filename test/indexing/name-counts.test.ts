import { rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openVault } from '../../src/api/open-vault.js';
import { LinkGraph } from '../../src/indexing/links/link-graph.js';
import { SavedLinkGraph } from '../../src/indexing/links/saved-links.js';
import { hashOfName, hashOfPath, NameCounts, nameKey } from '../../src/indexing/name-counts.js';
import { refreshIndex } from '../../src/indexing/refresh-index.js';
import type { VaultIndex } from '../../src/indexing/vault-index.js';
import { cleanupVaults, indexOf, makeVault } from '../helpers/make-vault.js';

afterEach(cleanupVaults);

/** File names that fold alike in ways an ASCII fold would miss (NFD, the Kelvin sign, İ, final sigma). */
const NAMES = [
  'Note.md',
  'note.md',
  'NOTE.md',
  'note',
  'Note.MD',
  'café.md',
  'cafe\u0301.md',
  'CAFÉ.md',
  '\u212Aelvin.md',
  'kelvin.md',
  'İstanbul.md',
  'i̇stanbul.md',
  'ΟΔΟΣ.md',
  'οδος.md',
  '会议.md',
  '2024-01-01.md',
  'x/y.md',
];
const FOLDERS = ['', 'a/', 'a/b/', 'Z/', '日记/'];

function naive(paths: Iterable<string>, name: string): number {
  let found = 0;
  for (const path of paths) if (nameKey(path) === name) found++;
  return found;
}

/** A deterministic sequence of numbers in [0, 1). */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return state / 2 ** 32;
  };
}

describe('NameCounts', () => {
  it('hashes a path as it hashes its folded file name', () => {
    for (const folder of FOLDERS) {
      for (const name of NAMES) {
        const path = folder + name;
        expect(hashOfPath(path), path).toBe(hashOfName(nameKey(path)));
      }
    }
  });

  it('counts as a map of folded names does, through adds, removes and growth', () => {
    const next = random(7);
    const all = FOLDERS.flatMap((folder) => NAMES.map((name) => folder + name));
    for (let k = 0; k < 40; k++) all.push(`many/${k % 7}/n${k}.md`);
    const held = new Set<string>(all.slice(0, 10));
    const counts = new NameCounts(held);
    for (let step = 0; step < 3000; step++) {
      const path = all[Math.floor(next() * all.length)] as string;
      if (held.has(path)) {
        expect(counts.remove(path)).toBe(true);
        held.delete(path);
      } else {
        counts.add(path);
        held.add(path);
      }
      expect(counts.remove(`not/${path}`)).toBe(false);
      expect(counts.size).toBe(held.size);
      if (step % 50 === 0) {
        for (const other of all)
          expect(counts.count(nameKey(other)), other).toBe(naive(held, nameKey(other)));
      }
    }
    expect(counts.count('absent.md')).toBe(0);
  });
});

const FILES = {
  'profile/people/Anna.md': '# Anna\n\nA friend.\n',
  'insights/facts/anna.md': '# anna\n\nAnother Anna, another folder.\n',
  'insights/facts/Coffee.md': '# Coffee\n\nWith [[Anna]].\n',
  'episodes/daily/2024-01-01.md': '# 2024-01-01\n\n- Coffee with [[Anna]] ^a1\n',
  'profile/places/café.md': '# Café\n\nA place.\n',
};

/** linkText as its definition says: the bare name when no other note folds to it, else the path. */
function expectedLinkText(paths: readonly string[], path: string): string {
  const full = path.replace(/\.md$/i, '');
  const count = naive(paths, nameKey(path)) + (paths.includes(path) ? 0 : 1);
  return count > 1 ? full : full.slice(full.lastIndexOf('/') + 1);
}

/** What the test asks of an index: a fresh VaultIndex or an open vault's. */
interface Indexed {
  paths(): string[];
  linkText(path: string): string;
  refreshPaths(paths: string[]): Promise<unknown>;
}

/** The notes and some paths that are not notes (yet): each answered as by the definition. */
function expectLinkTexts(vault: Indexed, label: string): void {
  const paths = vault.paths();
  const asked = [
    ...paths,
    'new/ANNA.md',
    'new/coffee.md',
    'new/Fresh.md',
    'new/cafe\u0301.md',
    'new/2024-01-01.md',
    'new/2024-01-02.md',
  ];
  for (const path of asked)
    expect(vault.linkText(path), `${label}: ${path}`).toBe(expectedLinkText(paths, path));
}

/** Adds, removes and renames notes that share file names, checking every answer after each. */
async function changeNotes(root: string, vault: Indexed, label: string, askFirst: boolean): Promise<void> {
  if (askFirst) expectLinkTexts(vault, `${label} before`);
  const steps: Array<[string, () => Promise<unknown>, string[]]> = [
    ['add a third Anna', () => writeFile(join(root, 'insights/ANNA.md'), '# ANNA\n'), ['insights/ANNA.md']],
    ['add a new name', () => writeFile(join(root, 'insights/Fresh.md'), '# Fresh\n'), ['insights/Fresh.md']],
    ['remove an Anna', () => rm(join(root, 'insights/facts/anna.md')), ['insights/facts/anna.md']],
    [
      'rename onto a shared name',
      () => rename(join(root, 'insights/Fresh.md'), join(root, 'insights/coffee.md')),
      ['insights/Fresh.md', 'insights/coffee.md'],
    ],
    [
      'add the same name in NFD',
      () => writeFile(join(root, 'insights/cafe\u0301.md'), '# Café again\n'),
      ['insights/cafe\u0301.md'],
    ],
    [
      'rename away from a shared name',
      () => rename(join(root, 'profile/people/Anna.md'), join(root, 'profile/people/Anna Li.md')),
      ['profile/people/Anna.md', 'profile/people/Anna Li.md'],
    ],
    ['remove the other Anna', () => rm(join(root, 'insights/ANNA.md')), ['insights/ANNA.md']],
  ];
  for (const [step, change, paths] of steps) {
    await change();
    await vault.refreshPaths(paths);
    if (askFirst || step === steps[steps.length - 1]?.[0]) expectLinkTexts(vault, `${label}, ${step}`);
  }
}

describe('linkText', () => {
  for (const askFirst of [true, false]) {
    const when = askFirst ? 'asked before and after each change' : 'first asked after the changes';
    it(`answers alike on a fresh index and on one restored from the cache, ${when}`, async () => {
      // Made from the files, its graph a LinkGraph, each change found by a walk.
      const fresh = await makeVault(FILES);
      const index: VaultIndex = await indexOf(fresh);
      expect(index.graph).toBeInstanceOf(LinkGraph);
      const vault: Indexed = {
        paths: () => [...index.notes.keys()].sort(),
        linkText: (path) => index.linkText(path),
        refreshPaths: () => refreshIndex(fresh, index, new Set()),
      };
      await changeNotes(fresh, vault, 'fresh', askFirst);
      const freshAnswers = vault.paths().map((path) => vault.linkText(path));

      const restoredRoot = await makeVault(FILES);
      await (await openVault({ path: restoredRoot })).close();
      const restored = await openVault({ path: restoredRoot });
      expect(
        (restored as unknown as { live: { index: { graph: unknown } } }).live.index.graph,
      ).toBeInstanceOf(SavedLinkGraph);
      await changeNotes(restoredRoot, restored, 'restored', askFirst);
      expect(restored.paths()).toEqual(vault.paths());
      expect(restored.paths().map((path) => restored.linkText(path))).toEqual(freshAnswers);
      await restored.close();
    });
  }
});
