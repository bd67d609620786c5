import { describe, expect, it } from 'vitest';
import { personaNotes } from '../../src/compile/select-notes.js';
import type { Note } from '../../src/core/types.js';
import { VaultIndex } from '../../src/indexing/vault-index.js';
import { parseNote } from '../../src/vault/parse-note.js';

// A facet is the set of notes one test holds for, kept as notes change, with a version that moves
// only when one of them changes, joins or leaves: compile's persona, profile and rollup views are
// made of facets, so a turn's write to today's note does not make them scan the vault again.

const note = (path: string, text: string): Note => parseNote(path, text, { size: text.length, mtimeMs: 0 });
const isPinned = (n: Note) => n.frontmatter['pinned'] === true;

describe('VaultIndex.facet', () => {
  it('holds the notes its test holds for, through adds, edits and removals', () => {
    const index = new VaultIndex();
    index.upsert(note('insights/a.md', '---\npinned: true\n---\n# A\n'));
    index.upsert(note('insights/b.md', '# B\n'));
    const facet = index.facet('pinned', isPinned);
    expect([...facet.notes.keys()]).toEqual(['insights/a.md']);
    const start = facet.version;

    // A note outside the facet changes, arrives or leaves: the version stays.
    index.upsert(note('insights/b.md', '# B\n\nMore.\n'));
    index.upsert(note('episodes/daily/2026-11-30.md', '# 2026-11-30\n\n- 09:00 **Rain:** tea ^e1\n'));
    index.remove('insights/b.md');
    expect(facet.version).toBe(start);

    // One joins, one member changes, one leaves by an edit, one by removal: each moves it.
    index.upsert(note('insights/c.md', '---\npinned: true\n---\n# C\n'));
    expect([...facet.notes.keys()].sort()).toEqual(['insights/a.md', 'insights/c.md']);
    index.upsert(note('insights/a.md', '---\npinned: true\n---\n# A again\n'));
    expect(facet.notes.get('insights/a.md')?.title).toBe('A again');
    index.upsert(note('insights/c.md', '# C, not pinned\n'));
    index.remove('insights/a.md');
    expect([...facet.notes.keys()]).toEqual([]);
    expect(facet.version).toBe(start + 4);
    // The same name gives the same facet.
    expect(index.facet('pinned', isPinned)).toBe(facet);
  });

  it('keeps a view of a facet until the facet changes', () => {
    const index = new VaultIndex();
    index.upsert(note('persona/voice.md', '---\norder: 2\n---\n# Voice\n'));
    const first = personaNotes(index);
    expect(first.map((n) => n.path)).toEqual(['persona/voice.md']);
    index.upsert(note('episodes/daily/2026-11-30.md', '# 2026-11-30\n\n- 09:00 **Rain:** tea ^e1\n'));
    expect(personaNotes(index)).toBe(first);
    index.upsert(note('insights/rule.md', '---\npinned: true\norder: 1\n---\n# Rule\n'));
    expect(personaNotes(index).map((n) => n.path)).toEqual(['insights/rule.md', 'persona/voice.md']);
    index.upsert(note('persona/voice.md', '---\nstatus: superseded\n---\n# Voice\n'));
    expect(personaNotes(index).map((n) => n.path)).toEqual(['insights/rule.md']);
  });
});
