// A section's id is `path#anchor`, and no two sections of a vault share one: a heading holding
// `#` (`x.md#y` in `a.md`) once had the id of a section of another note (`y` in `a.md#x.md`), so
// one shadowed the other and the cache the index saved did not load (rebuilt at every open).
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { loadIndexCache, saveIndexCache } from '../../src/indexing/index-cache.js';
import { refreshIndex } from '../../src/indexing/refresh-index.js';
import { VaultIndex } from '../../src/indexing/vault-index.js';
import { parseNote } from '../../src/vault/markdown/parse-note.js';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';

afterEach(cleanupVaults);

const piece = fc.constantFrom('a', 'x.md', 'y', '#', '%23', ' ', 'C#', '^e1', '(2)', '.md');
const heading = fc.array(piece, { minLength: 1, maxLength: 4 }).map((parts) => parts.join(''));
const path = fc
  .array(fc.constantFrom('a', 'x', '#', '.md', '%23', 'y', ' '), { minLength: 1, maxLength: 4 })
  .map((parts) => `${parts.join('')}.md`);
const notes = fc.uniqueArray(fc.tuple(path, fc.array(heading, { maxLength: 4 })), {
  selector: ([p]) => p,
  minLength: 1,
  maxLength: 6,
});

describe('section ids', () => {
  it('are unique across a vault, and each ends its note’s path at its last #', () => {
    fc.assert(
      fc.property(notes, (vault) => {
        const seen = new Map<string, string>();
        for (const [p, headings] of vault) {
          const text = `intro\n\n${headings.map((h) => `## ${h}\n\nwords\n`).join('\n')}- an entry ^e1\n`;
          for (const section of parseNote(p, text, { size: text.length, mtimeMs: 0 }).sections) {
            expect(section.id.slice(0, section.id.lastIndexOf('#'))).toBe(p);
            expect(seen.get(section.id), section.id).toBeUndefined();
            seen.set(section.id, p);
          }
        }
      }),
      { numRuns: 300 },
    );
  });

  it('of a heading holding `#` and a note named like it: both are found, and the saved cache loads', async () => {
    const root = await makeVault({
      'a.md': '# A\n\n## x.md#y\n\ntea one\n',
      'a.md#x.md': '# B\n\n## y\n\ntea two\n',
    });
    const index = new VaultIndex();
    await refreshIndex(root, index);
    const texts = index.text.search('tea').map((hit) => index.section(hit.id)?.section.text);
    expect(texts.sort()).toEqual(['tea one', 'tea two']);
    expect(await saveIndexCache(root, index)).toEqual({ saved: true });
    const loaded = await loadIndexCache(root);
    expect(loaded.status).toBe('loaded');
    if (loaded.status === 'loaded') expect(loaded.index.text.search('tea')).toHaveLength(2);
  });
});
