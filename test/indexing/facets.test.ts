import { describe, expect, it } from 'vitest';
import { personaNotes } from '../../src/compile/select-notes.js';
import type { Note } from '../../src/core/types.js';
import { VaultIndex } from '../../src/indexing/vault-index.js';
import { parseNote } from '../../src/vault/markdown/parse-note.js';

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

describe('VaultIndex.tally', () => {
  const speakers = function* (n: Note) {
    for (const section of n.sections) if (section.speaker) yield section.speaker.toLowerCase();
  };
  const day = (date: string, lines: string) => note(`episodes/daily/${date}.md`, `# ${date}\n\n${lines}`);

  it('counts keys over notes and moves its version only when a key comes or goes', () => {
    const index = new VaultIndex();
    index.upsert(day('2026-11-29', '- 09:00 **Rain:** tea ^e1\n- 09:05 **Lin:** coffee ^e2\n'));
    const tally = index.tally('speakers', speakers);
    expect([...tally.keys].sort()).toEqual([
      ['lin', 1],
      ['rain', 1],
    ]);
    const start = tally.version;
    // Another entry by a known speaker, another note by the same two: the keys stay.
    index.upsert(
      day(
        '2026-11-29',
        '- 09:00 **Rain:** tea ^e1\n- 09:05 **Lin:** coffee ^e2\n- 09:10 **Rain:** yes ^e3\n',
      ),
    );
    index.upsert(day('2026-11-30', '- 10:00 **Lin:** hello ^e1\n'));
    expect(tally.version).toBe(start);
    expect(tally.keys.get('lin')).toBe(2);
    // A new speaker comes, then goes with the note that held it.
    index.upsert(day('2026-12-01', '- 10:00 **Mo:** hi ^e1\n'));
    expect(tally.version).toBe(start + 1);
    index.remove('episodes/daily/2026-12-01.md');
    expect(tally.version).toBe(start + 2);
    expect(tally.keys.has('mo')).toBe(false);
    // Lin leaves one note but is still in the other: no change; then leaves the last.
    index.upsert(day('2026-11-30', '- 10:00 **Rain:** hello ^e1\n'));
    expect(tally.version).toBe(start + 2);
    index.upsert(day('2026-11-29', '- 09:00 **Rain:** tea ^e1\n'));
    expect(tally.version).toBe(start + 3);
    expect([...tally.keys]).toEqual([['rain', 2]]);
  });
});
