import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { basenameOf, PathIndex, resolveLink } from '../../src/vault/links/resolve-link.js';

const SPELLINGS = ['foo', 'Foo', 'FOO', 'fOo', 'café', 'Café', 'cafe\u0301'];
const FOLDERS = ['', 'a', 'a/b', 'B', 'notes/deep/er'];
const fold = (text: string) => text.normalize('NFC').toLowerCase();

const file = fc
  .tuple(fc.constantFrom(...FOLDERS), fc.constantFrom(...SPELLINGS))
  .map(([folder, name]) => (folder === '' ? `${name}.md` : `${folder}/${name}.md`));

describe('resolveLink and the case of names', () => {
  it('picks a file spelled exactly like the link whenever one exists, and a file of the name otherwise', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(file, { minLength: 1, maxLength: 8, selector: (p) => p.normalize('NFC') }),
        fc.constantFrom(...SPELLINGS),
        fc.constantFrom(...FOLDERS),
        (paths, link, from) => {
          const index = new PathIndex();
          for (const path of paths) index.add(path);
          const fromPath = from === '' ? 'from.md' : `${from}/from.md`;
          const found = resolveLink(link, fromPath, index);
          const spelled = `${link.normalize('NFC')}.md`;
          const sameName = paths.filter((p) => fold(basenameOf(p)) === fold(spelled));
          if (sameName.length === 0) {
            expect(found).toBeUndefined();
            return;
          }
          expect(sameName).toContain(found);
          if (sameName.some((p) => basenameOf(p).normalize('NFC') === spelled))
            expect(basenameOf(found!).normalize('NFC')).toBe(spelled);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('keeps Obsidian’s order among files of the exact spelling: near the linking note first, then shortest', () => {
    const index = new PathIndex();
    for (const path of ['Foo.md', 'a/foo.md', 'a/b/foo.md', 'B/foo.md']) index.add(path);
    expect(resolveLink('foo', 'B/x.md', index)).toBe('B/foo.md');
    // Equally short: the first in code-unit order (upper case sorts first).
    expect(resolveLink('foo', 'x.md', index)).toBe('B/foo.md');
    expect(resolveLink('Foo', 'B/x.md', index)).toBe('Foo.md');
    // No file spelled `FOO`: Obsidian's rules over every spelling, where the vault path `foo.md` comes first.
    expect(resolveLink('FOO', 'B/x.md', index)).toBe('Foo.md');
    // A path in the link still has to match: `[[b/Foo]]` is not `Foo.md` but the vault path `B/foo.md`.
    expect(resolveLink('b/Foo', 'x.md', index)).toBe('B/foo.md');
  });
});
