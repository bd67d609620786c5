import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

// The text index is built on MiniSearch's exported `SearchableMap` alone: a dependency's private
// fields are not an API, and renaming one once made recall fail with a false message.

const SRC = join(import.meta.dirname, '..', '..', 'src');

/** MiniSearch 7's private fields, and the tree's, each a name an upgrade is free to change. */
const PRIVATE = [
  '_index',
  '_tree',
  '_prefix',
  '_documentIds',
  '_idToShortId',
  '_fieldIds',
  '_fieldLength',
  '_avgFieldLength',
  '_nextId',
  '_storedFields',
  '_documentCount',
  '_dirtCount',
  '_options',
];

async function sources(): Promise<Array<{ path: string; text: string }>> {
  const files: Array<{ path: string; text: string }> = [];
  for (const entry of await readdir(SRC, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !/\.[cm]?ts$/.test(entry.name)) continue;
    const path = join(entry.parentPath, entry.name);
    files.push({ path: relative(SRC, path), text: await readFile(path, 'utf8') });
  }
  return files;
}

describe('MiniSearch is used through its public API only', () => {
  it('src imports nothing of minisearch but its SearchableMap', async () => {
    const imports = (await sources()).flatMap(({ path, text }) =>
      [...text.matchAll(/from\s+'(minisearch[^']*)'|import\(\s*'(minisearch[^']*)'/g)].map(
        (match) => `${path}: ${match[1] ?? match[2]}`,
      ),
    );
    expect(imports).toEqual(['indexing/text/term-index.ts: minisearch/SearchableMap']);
  });

  it('no file of the index (or that imports minisearch) names a private field of MiniSearch or of its tree', async () => {
    // Other layers may have fields of those names (commander's `_options`): they never see MiniSearch.
    const index = (await sources()).filter(
      ({ path, text }) => path.startsWith('indexing/') || text.includes("'minisearch"),
    );
    expect(index.length).toBeGreaterThan(10);
    const found = index.flatMap(({ path, text }) =>
      PRIVATE.filter((field) => new RegExp(`\\.${field}\\b|\\b${field}:|'${field}'`).test(text)).map(
        (field) => `${path}: ${field}`,
      ),
    );
    expect(found).toEqual([]);
  });

  it('the tree is made without the constructor arguments MiniSearch keeps for itself', async () => {
    const made = (await sources()).flatMap(({ path, text }) =>
      [...text.matchAll(/new SearchableMap(?:<[^>]*>)?\(([^)]*)\)/g)].map(
        (match) => `${path}: (${match[1]})`,
      ),
    );
    expect(made).toEqual(['indexing/text/term-index.ts: ()']);
  });
});
