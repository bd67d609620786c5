import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { basenameOf, foldPath, PathIndex, resolveLink } from '../../src/vault/links/resolve-link.js';

function vault(...paths: string[]): PathIndex {
  const index = new PathIndex();
  for (const path of paths) index.add(path);
  return index;
}

describe('PathIndex', () => {
  it('finds paths by lower-cased file name and forgets removed ones', () => {
    const index = vault('A.md', 'x/a.md', 'x/B.md');
    expect(index.candidates('a.md')).toEqual(['A.md', 'x/a.md']);
    expect(index.has('x/a.md')).toBe(true);
    expect(index.remove('x/a.md')).toBe(true);
    expect(index.remove('x/a.md')).toBe(false);
    expect(index.candidates('a.md')).toEqual(['A.md']);
    expect(index.has('x/a.md')).toBe(false);
    expect(index.paths()).toEqual(['A.md', 'x/B.md']);
  });

  it('reports whether an added path is new', () => {
    const index = new PathIndex();
    expect(index.add('a.md')).toBe(true);
    expect(index.add('a.md')).toBe(false);
    expect(index.candidates('a.md')).toEqual(['a.md']);
  });

  it('answers as a list of the paths in the order last added, for any adds and removes', () => {
    // Names that fold alike (case, NFC and NFD, folders), so that one name holds one path, then
    // several, then one again.
    const pool = [
      'a.md',
      'A.md',
      'x/a.md',
      'x/y/A.MD',
      'b.md',
      'x/b.md',
      'caf\u00e9.md',
      'x/cafe\u0301.md',
      'CAF\u00c9.md',
    ];
    const names = [...new Set(pool.map((path) => foldPath(basenameOf(path))))];
    const step = fc.record({ add: fc.boolean(), path: fc.constantFrom(...pool) });
    fc.assert(
      fc.property(fc.array(step, { maxLength: 60 }), (steps) => {
        const index = new PathIndex();
        let model: string[] = [];
        for (const { add, path } of steps) {
          const present = model.includes(path);
          if (add) {
            expect(index.add(path)).toBe(!present);
            if (!present) model.push(path);
          } else {
            expect(index.remove(path)).toBe(present);
            model = model.filter((p) => p !== path);
          }
          for (const name of names)
            expect(index.candidates(name)).toEqual(model.filter((p) => foldPath(basenameOf(p)) === name));
          for (const p of pool) expect(index.has(p)).toBe(model.includes(p));
          expect(index.size).toBe(model.length);
          expect(index.paths()).toEqual([...model].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
        }
      }),
    );
  });
});

describe('resolveLink', () => {
  it('resolves a bare name case-insensitively: [[note]] -> Note.md', () => {
    expect(resolveLink('note', 'x/from.md', vault('Projects/Note.md'))).toBe('Projects/Note.md');
  });

  it('resolves [[Note.md]] like [[Note]]', () => {
    const index = vault('x/Note.md');
    expect(resolveLink('Note.md', 'a.md', index)).toBe('x/Note.md');
    expect(resolveLink('Note', 'a.md', index)).toBe('x/Note.md');
  });

  it('leaves a link to a missing note unresolved', () => {
    expect(resolveLink('Missing', 'a.md', vault('Note.md'))).toBeUndefined();
  });

  it('resolves a same-note link ([[#H]], target "") to the linking note', () => {
    expect(resolveLink('', 'x/self.md', vault('x/self.md'))).toBe('x/self.md');
  });

  it('does not resolve through aliases: [[Alias]] stays unresolved', () => {
    // The index knows file names only; a note aliased "Alias" is still named Target.md.
    expect(resolveLink('Alias', 'a.md', vault('Target.md'))).toBeUndefined();
    expect(resolveLink('Target', 'a.md', vault('Target.md'))).toBe('Target.md');
  });

  it('resolves images by their full file name', () => {
    const index = vault('assets/img.png');
    expect(resolveLink('img.png', 'notes/a.md', index)).toBe('assets/img.png');
    expect(resolveLink('IMG.PNG', 'notes/a.md', index)).toBe('assets/img.png');
    expect(resolveLink('img', 'notes/a.md', index)).toBeUndefined();
  });

  it('tries the name as written before adding .md (a file named like the link wins)', () => {
    const index = vault('2024.01.05.md', 'data/2024.01');
    expect(resolveLink('2024.01.05', 'a.md', index)).toBe('2024.01.05.md');
    expect(resolveLink('2024.01', 'a.md', index)).toBe('data/2024.01');
  });

  describe('duplicate names', () => {
    it('an exact vault path beats a duplicate in the linking folder: A.md and x/A.md', () => {
      const index = vault('A.md', 'x/A.md');
      expect(resolveLink('A', 'root.md', index)).toBe('A.md');
      expect(resolveLink('A', 'x/from.md', index)).toBe('A.md');
      expect(resolveLink('x/A', 'root.md', index)).toBe('x/A.md');
      expect(resolveLink('x/A', 'x/from.md', index)).toBe('x/A.md');
    });

    it('a duplicate in the linking note folder beats one elsewhere', () => {
      const index = vault('x/A.md', 'yy/A.md');
      expect(resolveLink('A', 'x/from.md', index)).toBe('x/A.md');
      expect(resolveLink('A', 'yy/from.md', index)).toBe('yy/A.md');
    });

    it('counts subfolders of the linking note folder as near', () => {
      const index = vault('b/A.md', 'x/deep/A.md');
      expect(resolveLink('A', 'x/from.md', index)).toBe('x/deep/A.md');
    });

    it('does not count a sibling folder sharing a name prefix as near', () => {
      const index = vault('xy/long/A.md', 'z/A.md');
      expect(resolveLink('A', 'x/from.md', index)).toBe('z/A.md');
    });

    it('otherwise picks the shortest path, then the first in code-unit order', () => {
      expect(resolveLink('A', 'from.md', vault('long/path/A.md', 'b/A.md'))).toBe('b/A.md');
      expect(resolveLink('A', 'q/from.md', vault('c/A.md', 'b/A.md'))).toBe('b/A.md');
    });

    it('a new duplicate in the linking folder changes where an old link points', () => {
      const index = vault('y/A.md');
      expect(resolveLink('A', 'x/from.md', index)).toBe('y/A.md');
      index.add('x/A.md');
      expect(resolveLink('A', 'x/from.md', index)).toBe('x/A.md');
    });

    it('chooses deterministically between Note.md and note.md, preferring the exact spelling', () => {
      const forward = vault('Note.md', 'note.md');
      const backward = vault('note.md', 'Note.md');
      for (const index of [forward, backward]) {
        expect(resolveLink('Note', 'a.md', index)).toBe('Note.md');
        expect(resolveLink('note', 'a.md', index)).toBe('note.md');
        expect(resolveLink('NOTE', 'a.md', index)).toBe('Note.md');
      }
    });
  });

  describe('paths in links', () => {
    it('matches a path only at a folder boundary: [[b/Note]] does not match ab/Note.md', () => {
      expect(resolveLink('b/Note', 'from.md', vault('ab/Note.md'))).toBeUndefined();
      expect(resolveLink('b/Note', 'from.md', vault('ab/Note.md', 'c/b/Note.md'))).toBe('c/b/Note.md');
    });

    it('resolves a partial path against the end of a vault path', () => {
      expect(resolveLink('projects/Note', 'x.md', vault('work/Projects/Note.md', 'Note.md'))).toBe(
        'work/Projects/Note.md',
      );
    });

    it('resolves [[./x]] against the linking note folder', () => {
      const index = vault('a/x.md', 'x.md', 'b/x.md');
      expect(resolveLink('./x', 'a/from.md', index)).toBe('a/x.md');
      expect(resolveLink('./x', 'from.md', index)).toBe('x.md');
    });

    it('resolves [[../x]] against the parent of the linking note folder', () => {
      const index = vault('a/x.md', 'a/b/x.md', 'x.md');
      expect(resolveLink('../x', 'a/b/from.md', index)).toBe('a/x.md');
      expect(resolveLink('../../x', 'a/b/from.md', index)).toBe('x.md');
      expect(resolveLink('./../x', 'a/b/from.md', index)).toBe('a/x.md');
    });

    it('treats [[/x]] as an exact vault path only', () => {
      const index = vault('x.md', 'sub/y.md', 'y2/y.md');
      expect(resolveLink('/x', 'sub/from.md', index)).toBe('x.md');
      expect(resolveLink('/y', 'sub/from.md', index)).toBeUndefined();
      expect(resolveLink('/sub/y', 'from.md', index)).toBe('sub/y.md');
    });

    it('ignores the path of a bare-name link only when the name is unique (Obsidian)', () => {
      // A path link must match; a bare name with one file of that name always resolves.
      expect(resolveLink('Note', 'deep/in/here.md', vault('far/away/Note.md'))).toBe('far/away/Note.md');
      expect(resolveLink('gone/Note', 'from.md', vault('far/away/Note.md'))).toBeUndefined();
    });
  });

  it('matches NFD file names with NFC links and the other way round', () => {
    const nfc = 'Caf\u00e9';
    const nfd = 'Cafe\u0301';
    expect(resolveLink(nfc, 'a.md', vault(`notes/${nfd}.md`))).toBe(`notes/${nfd}.md`);
    expect(resolveLink(nfd, 'a.md', vault(`notes/${nfc}.md`))).toBe(`notes/${nfc}.md`);
    expect(resolveLink(`/notes/${nfd}`, 'a.md', vault(`notes/${nfc}.md`))).toBe(`notes/${nfc}.md`);
  });

  it('resolves CJK names', () => {
    expect(resolveLink('东京', 'a.md', vault('places/东京.md'))).toBe('places/东京.md');
  });
});
