import { describe, expect, it } from 'vitest';
import { LinkGraph } from '../../src/indexing/links/link-graph.js';
import { parseNote } from '../../src/vault/markdown/parse-note.js';

const note = (path: string, text: string) => parseNote(path, text, { size: text.length, mtimeMs: 0 });

// Duplicate names in several folders, relative and absolute links, case and `.md` variants: links
// with the same target resolve differently from different folders, and alike from one folder.
const NOTES = [
  note('a/Mei.md', '# Mei\n[[Tokyo]] [[./Tokyo]] [[../b/Tokyo]] [[#Mei]]\n'),
  note('a/Tokyo.md', '# Tokyo\n[[Mei]] [[mei]] [[b/Tokyo]] [[/b/Tokyo]] [[Nowhere]]\n'),
  note('a/deep/Note.md', '# Note\n[[Tokyo]] [[Mei]] [[../Mei]] [[Tokyo.md]] [Mei](../Mei.md)\n'),
  note('b/Tokyo.md', '# Tokyo B\n[[Tokyo]] [[Mei]] [[Note]]\n'),
  note('b/tokyo.md', '# tokyo lower\n[[TOKYO]] [[Tokyo]]\n'),
  note('Top.md', '# Top\n[[Tokyo]] [[Note]] [[deep/Note]] [[Mei#Mei]]\n'),
  note('c/Other.md', '# Other\n[[Tokyo]] [[Nowhere]] [[Top]]\n'),
];

describe('LinkGraph.fromNotes', () => {
  it('resolves every link as adding the notes one by one does', () => {
    const built = LinkGraph.fromNotes(NOTES);
    const added = new LinkGraph();
    for (const n of NOTES) added.upsert(n);
    for (const n of NOTES) {
      expect(built.outEdges(n.path)).toEqual(added.outEdges(n.path));
      expect(built.backlinks(n.path)).toEqual(added.backlinks(n.path));
    }
    expect(built.unresolved()).toEqual(added.unresolved());
    // The same target from different folders lands on different notes.
    const to = (path: string) => built.outEdges(path).find((edge) => edge.link.target === 'Tokyo')?.to;
    expect(to('a/Mei.md')).toBe('a/Tokyo.md');
    expect(to('b/tokyo.md')).toBe('b/Tokyo.md');
  });

  it('keeps resolving incrementally after it is built (the cache loads a graph this way)', () => {
    const built = LinkGraph.fromNotes(NOTES);
    expect(built.unresolved().map((edge) => edge.from)).toEqual(['a/Tokyo.md', 'c/Other.md']);
    built.upsert(note('Nowhere.md', '# Nowhere\n'));
    expect(built.unresolved()).toEqual([]);
    expect(built.backlinks('Nowhere.md').map((edge) => edge.from)).toEqual(['a/Tokyo.md', 'c/Other.md']);
  });
});
