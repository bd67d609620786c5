import { describe, expect, it } from 'vitest';
import type { LinkRef, Note, Section } from '../../src/core/types.js';
import { LinkGraph } from '../../src/indexing/links/link-graph.js';

/** A Note with only what the graph reads; offsets default to one link every 100 characters. */
function note(path: string, links: Partial<LinkRef>[], sections: Partial<Section>[] = []): Note {
  return {
    path,
    layer: 'other',
    frontmatter: {},
    title: path,
    aliases: [],
    tags: [],
    links: links.map((link, i) => {
      const target = link.target ?? '';
      const start = link.start ?? i * 100;
      const raw = link.raw ?? `[[${target}${link.subpath ?? ''}]]`;
      return { kind: 'wiki', raw, target, start, end: start + raw.length, line: i + 1, ...link };
    }),
    headings: [],
    sections: sections.map((s) => ({
      id: `${path}#${s.anchor ?? ''}`,
      anchor: '',
      kind: 'heading',
      text: '',
      start: 0,
      end: 0,
      line: 1,
      ...s,
    })),
    blocks: [],
    warnings: [],
    hash: '',
    size: 0,
    mtimeMs: 0,
  };
}

function targets(graph: LinkGraph, path: string): (string | undefined)[] {
  return graph.outEdges(path).map((edge) => edge.to);
}

describe('LinkGraph', () => {
  it('keeps out-edges in source order with where each points', () => {
    const graph = new LinkGraph();
    graph.upsert(note('b.md', []));
    graph.upsert(note('a.md', [{ target: 'b' }, { target: 'missing' }, { target: 'B', subpath: '#H' }]));
    expect(graph.outEdges('a.md').map((e) => [e.link.raw, e.to])).toEqual([
      ['[[b]]', 'b.md'],
      ['[[missing]]', undefined],
      ['[[B#H]]', 'b.md'],
    ]);
    expect(graph.outEdges('nope.md')).toEqual([]);
  });

  it('gives each edge the anchor of the innermost section holding the link, or "" for frontmatter', () => {
    const graph = new LinkGraph();
    graph.upsert(
      note(
        'a.md',
        [
          { target: 't', kind: 'frontmatter', property: 'sources', start: 5 },
          { target: 't', start: 40 },
          { target: 't', start: 120 },
          { target: 't', start: 160 },
          { target: 't', start: 999 },
        ],
        [
          { anchor: '', kind: 'preamble', start: 30, end: 100 },
          { anchor: 'Work', start: 100, end: 300 },
          { anchor: '^e7', kind: 'block', start: 150, end: 200 },
        ],
      ),
    );
    expect(graph.outEdges('a.md').map((e) => e.section)).toEqual(['', '', 'Work', '^e7', '']);
  });

  it('lists backlinks with their section anchor, sorted by linking note then offset', () => {
    const graph = new LinkGraph();
    graph.upsert(
      note(
        'Tokyo.md',
        [{ target: '', subpath: '#Food', start: 50 }],
        [{ anchor: 'Intro', start: 0, end: 100 }],
      ),
    );
    graph.upsert(note('z.md', [{ target: 'tokyo', start: 10 }], [{ anchor: 'Trips', start: 0, end: 100 }]));
    graph.upsert(
      note('a.md', [
        { target: 'Tokyo', start: 300 },
        { target: 'Tokyo', start: 20 },
      ]),
    );
    expect(graph.backlinks('Tokyo.md').map((e) => [e.from, e.link.start, e.section])).toEqual([
      ['Tokyo.md', 50, 'Intro'],
      ['a.md', 20, ''],
      ['a.md', 300, ''],
      ['z.md', 10, 'Trips'],
    ]);
  });

  it('resolves a same-note link ([[#H]]) to the note itself', () => {
    const graph = new LinkGraph();
    graph.upsert(note('x/self.md', [{ target: '', subpath: '#H' }]));
    expect(targets(graph, 'x/self.md')).toEqual(['x/self.md']);
    expect(graph.unresolved()).toEqual([]);
  });

  it('keeps [[Alias]] unresolved while [[Target|Alias]] resolves', () => {
    const graph = new LinkGraph();
    const target = note('Target.md', []);
    target.aliases = ['Alias'];
    graph.upsert(target);
    graph.upsert(
      note('a.md', [{ target: 'Alias' }, { target: 'Target', alias: 'Alias', raw: '[[Target|Alias]]' }]),
    );
    expect(targets(graph, 'a.md')).toEqual([undefined, 'Target.md']);
    expect(graph.unresolved().map((e) => e.link.raw)).toEqual(['[[Alias]]']);
  });

  it('resolves a link made before its note exists once the note is created', () => {
    const graph = new LinkGraph();
    graph.upsert(note('a.md', [{ target: 'Later' }]));
    expect(graph.unresolved().map((e) => e.from)).toEqual(['a.md']);
    graph.upsert(note('notes/later.md', []));
    expect(targets(graph, 'a.md')).toEqual(['notes/later.md']);
    expect(graph.unresolved()).toEqual([]);
    expect(graph.backlinks('notes/later.md').map((e) => e.from)).toEqual(['a.md']);
  });

  it('when a note is deleted its backlinks become unresolved, and resolve again when it is re-added', () => {
    const graph = new LinkGraph();
    graph.upsert(note('B.md', []));
    graph.upsert(note('a.md', [{ target: 'B' }]));
    graph.remove('B.md');
    expect(graph.has('B.md')).toBe(false);
    expect(targets(graph, 'a.md')).toEqual([undefined]);
    expect(graph.backlinks('B.md')).toEqual([]);
    expect(graph.unresolved().map((e) => e.link.target)).toEqual(['B']);
    graph.upsert(note('B.md', []));
    expect(targets(graph, 'a.md')).toEqual(['B.md']);
    expect(graph.unresolved()).toEqual([]);
  });

  it('when a duplicate is deleted, links that chose it fall back to the other one', () => {
    const graph = new LinkGraph();
    graph.upsert(note('x/A.md', []));
    graph.upsert(note('y/A.md', []));
    graph.upsert(note('x/from.md', [{ target: 'A' }]));
    expect(targets(graph, 'x/from.md')).toEqual(['x/A.md']);
    graph.remove('x/A.md');
    expect(targets(graph, 'x/from.md')).toEqual(['y/A.md']);
    expect(graph.backlinks('y/A.md').map((e) => e.from)).toEqual(['x/from.md']);
  });

  it('a new duplicate in the linking folder takes over an old link', () => {
    const graph = new LinkGraph();
    graph.upsert(note('y/A.md', []));
    graph.upsert(note('x/from.md', [{ target: 'A' }]));
    graph.upsert(note('root.md', [{ target: 'A' }]));
    expect(targets(graph, 'x/from.md')).toEqual(['y/A.md']);
    graph.upsert(note('x/A.md', []));
    expect(targets(graph, 'x/from.md')).toEqual(['x/A.md']);
    // From the root every folder is "near": the shorter path still wins.
    expect(targets(graph, 'root.md')).toEqual(['x/A.md']);
    expect(graph.backlinks('y/A.md')).toEqual([]);
    // A root A.md is an exact vault path and wins from everywhere.
    graph.upsert(note('A.md', []));
    expect(targets(graph, 'x/from.md')).toEqual(['A.md']);
    expect(targets(graph, 'root.md')).toEqual(['A.md']);
    expect(graph.backlinks('A.md').map((e) => e.from)).toEqual(['root.md', 'x/from.md']);
  });

  it('a new file named exactly like the link (no .md) takes over from Note.md', () => {
    const graph = new LinkGraph();
    graph.upsert(note('Note.md', []));
    graph.upsert(note('a.md', [{ target: 'Note' }]));
    graph.addFile('files/Note');
    expect(targets(graph, 'a.md')).toEqual(['files/Note']);
    graph.remove('files/Note');
    expect(targets(graph, 'a.md')).toEqual(['Note.md']);
  });

  it('resolves embeds of images added as files', () => {
    const graph = new LinkGraph();
    graph.upsert(note('a.md', [{ kind: 'embed', target: 'img.png', raw: '![[img.png|100]]' }]));
    expect(targets(graph, 'a.md')).toEqual([undefined]);
    graph.addFile('assets/img.png');
    expect(targets(graph, 'a.md')).toEqual(['assets/img.png']);
    expect(graph.has('assets/img.png')).toBe(true);
    expect(graph.paths()).toEqual(['a.md', 'assets/img.png']);
  });

  it('replacing a note replaces its edges and keeps the links pointing to it', () => {
    const graph = new LinkGraph();
    graph.upsert(note('b.md', []));
    graph.upsert(note('c.md', []));
    graph.upsert(note('a.md', [{ target: 'b' }]));
    graph.upsert(note('b.md', [{ target: 'a' }]));
    graph.upsert(note('a.md', [{ target: 'c' }, { target: 'gone' }]));
    expect(targets(graph, 'a.md')).toEqual(['c.md', undefined]);
    expect(graph.backlinks('b.md')).toEqual([]);
    expect(graph.backlinks('c.md').map((e) => e.from)).toEqual(['a.md']);
    expect(graph.backlinks('a.md').map((e) => e.from)).toEqual(['b.md']);
    expect(graph.unresolved().map((e) => e.link.target)).toEqual(['gone']);
  });

  it('lists distinct neighbours in both directions, sorted, without the note itself', () => {
    const graph = new LinkGraph();
    graph.upsert(
      note('hub.md', [{ target: 'b' }, { target: 'b' }, { target: '', subpath: '#H' }, { target: 'none' }]),
    );
    graph.upsert(note('b.md', []));
    graph.upsert(note('a.md', [{ target: 'hub' }]));
    graph.upsert(note('c.md', []));
    expect(graph.neighbours('hub.md')).toEqual(['a.md', 'b.md']);
    expect(graph.neighbours('b.md')).toEqual(['hub.md']);
    expect(graph.neighbours('c.md')).toEqual([]);
  });

  it('when a note is renamed, its backlinks follow to where the old link now resolves', () => {
    const graph = new LinkGraph();
    graph.upsert(note('old.md', [{ target: 'a' }]));
    graph.upsert(note('a.md', [{ target: 'old' }, { target: 'new' }]));
    graph.rename('old.md', 'x/new.md', note('x/new.md', [{ target: 'a' }]));
    expect(graph.has('old.md')).toBe(false);
    expect(targets(graph, 'a.md')).toEqual([undefined, 'x/new.md']);
    expect(graph.backlinks('a.md').map((e) => e.from)).toEqual(['x/new.md']);
    expect(() => graph.rename('x/new.md', 'y.md', note('z.md', []))).toThrow(
      'mem: rename x/new.md -> y.md: the note given has path z.md',
    );
  });

  it('resolve() answers for any target from any note', () => {
    const graph = new LinkGraph();
    graph.upsert(note('x/A.md', []));
    graph.upsert(note('y/A.md', []));
    expect(graph.resolve('A', 'y/q.md')).toBe('y/A.md');
    expect(graph.resolve('b/Note', 'q.md')).toBeUndefined();
  });

  it('matches NFD file names with NFC links', () => {
    const graph = new LinkGraph();
    graph.upsert(note('a.md', [{ target: 'Caf\u00e9' }]));
    graph.upsert(note('Cafe\u0301.md', []));
    expect(targets(graph, 'a.md')).toEqual(['Cafe\u0301.md']);
  });

  it('indexes a large vault: backlinks and unresolved links agree with a brute-force count', () => {
    const graph = new LinkGraph();
    const count = 2000;
    const linked = (i: number): number[] =>
      Array.from({ length: 10 }, (_, j) => (i * 7 + j * 13) % (count + 100));
    const pathOf = (i: number): string => `f${i % 20}/n${i}.md`;
    for (let i = 0; i < count; i++) {
      graph.upsert(
        note(
          pathOf(i),
          linked(i).map((n, j) => ({ target: `n${n}`, start: j * 10 })),
        ),
      );
    }
    const expectedUnresolved = Array.from({ length: count }, (_, i) =>
      linked(i).filter((n) => n >= count),
    ).flat();
    expect(graph.unresolved().length).toBe(expectedUnresolved.length);
    for (const target of [0, 1, 777, 1999]) {
      const expected = Array.from({ length: count }, (_, i) => i)
        .filter((i) => linked(i).includes(target))
        .map(pathOf)
        .sort();
      expect([...new Set(graph.backlinks(pathOf(target)).map((e) => e.from))]).toEqual(expected);
    }
  });
});
