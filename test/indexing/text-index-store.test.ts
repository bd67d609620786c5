import { describe, expect, it } from 'vitest';
import { TermDictionary } from '../../src/indexing/text/term-dictionary.js';
import type { TermIndex } from '../../src/indexing/text/term-index.js';
import { TextIndex } from '../../src/indexing/text/text-index.js';
import type { TextSegment, TextStoreLimits } from '../../src/indexing/text/text-index-store.js';
import { parseNote } from '../../src/vault/markdown/parse-note.js';

const note = (path: string, text: string) => parseNote(path, text, { size: text.length, mtimeMs: 0 });

/** Sixty notes that all share `walk`, with headings, CJK text and episode blocks. */
function sampleIndex(): TextIndex {
  const index = new TextIndex();
  for (let i = 0; i < 60; i++) {
    index.add(
      note(
        `insights/n${i}.md`,
        `# Note ${i}\n\nA walk by the river number ${i}; 今天去上海散步。\n\n## Later\n\nObsidian notes ${i % 7}.\n`,
      ),
    );
  }
  index.add(note('episodes/daily/2026-11-29.md', '# 2026-11-29\n\n- 09:00 **Rain:** a long walk ^e1\n'));
  // Removed and replaced notes leave postings of discarded sections behind, until a vacuum.
  for (let i = 0; i < 10; i++) index.remove(`insights/n${i}.md`);
  index.replace(note('insights/n11.md', '# Eleven\n\nNo more rivers, only mountains.\n'));
  return index;
}

type WholeSegment = Omit<TextSegment, 'end'>;

/** Whole segments, as the cache writes them to files: the pieces of one part up to `end`. */
function segmentsOf(index: TextIndex, limits?: TextStoreLimits): WholeSegment[] {
  const segments: WholeSegment[] = [];
  let pieces: Uint8Array[] = [];
  for (const piece of index.storeSegments(limits)) {
    pieces.push(piece.data);
    if (!piece.end) continue;
    segments.push({ part: piece.part, data: Buffer.concat(pieces) });
    pieces = [];
  }
  expect(pieces).toEqual([]);
  return segments;
}

function restore(
  index: TextIndex,
  limits?: TextStoreLimits,
): { restored: TextIndex; segments: WholeSegment[] } {
  const segments = segmentsOf(index, limits);
  // Through JSON text, as the cache stores it.
  const loader = TextIndex.loader(JSON.parse(JSON.stringify(index.storeHeader())));
  for (const segment of segments) {
    if (segment.part === 'docs') loader.docs(segment.data);
    else loader.terms(segment.data);
  }
  return { restored: loader.finish(), segments };
}

const QUERIES = [
  'walk',
  'river',
  '上海',
  '散步',
  'obsid',
  'obsidain',
  'mountains',
  'Rain',
  'note 5',
  'later',
];

/**
 * The saved index's answer. Its discarded postings are still held (until a vacuum) and scored
 * without; the segments leave them out, so the restored index must give the same answer at once.
 */
function settled(index: TextIndex, query: string) {
  return index.search(query);
}

/** The store a TextIndex searches (its postings, counts and lengths). */
function termIndexOf(index: TextIndex): TermIndex {
  return (index as unknown as { terms: TermIndex }).terms;
}

describe('text index segments', () => {
  it('a restored index answers every query exactly as the one saved', () => {
    const index = sampleIndex();
    const { restored, segments } = restore(index);
    expect(segments.map((s) => s.part)).toEqual(['docs', 'terms']);
    for (const query of QUERIES) expect(restored.search(query)).toEqual(settled(index, query));
    expect(restored.size).toBe(index.size);
  });

  it('a restored index has the terms of the one saved, in the same tree order (the order prefix and fuzzy matches add up in)', () => {
    const index = sampleIndex();
    // Terms left with no live postings until a vacuum (`zyzzyva`, `quokka`, `独角兽`), one of them
    // the prefix of a live term (`zyzzyvas`), so the tree's shape depends on it.
    index.add(note('insights/rare.md', '# Rare\n\nZyzzyva quokka 独角兽.\n'));
    index.add(note('insights/rare-too.md', '# Rare too\n\nZyzzyvas.\n'));
    index.remove('insights/rare.md');
    const live = termIndexOf(index);
    expect(live.dirtCount).toBeGreaterThan(0);
    for (const limits of [undefined, { segment: 200, record: 3 }]) {
      const loaded = termIndexOf(restore(index, limits).restored);
      expect([...loaded.tree.keys()]).toEqual([...live.tree.keys()]);
      expect([...loaded.terms.keys()]).toEqual([...live.terms.keys()]);
    }
  });

  it('splits into many segments and a long posting list into several records, and reads them back', () => {
    const index = sampleIndex();
    const { restored, segments } = restore(index, { segment: 200, record: 3 });
    expect(segments.filter((s) => s.part === 'docs').length).toBeGreaterThan(3);
    expect(segments.filter((s) => s.part === 'terms').length).toBeGreaterThan(3);
    for (const query of QUERIES) expect(restored.search(query)).toEqual(settled(index, query));
  });

  it('a restored index saved again before any search (its postings still bytes) loses nothing', () => {
    const index = sampleIndex();
    const { restored } = restore(index, { segment: 200, record: 3 });
    restored.remove('insights/n30.md');
    const { restored: again } = restore(restored, { segment: 300, record: 5 });
    for (const query of QUERIES) expect(again.search(query)).toEqual(settled(restored, query));
    expect(again.size).toBe(index.size - 2);
  });

  it('a term vacuumed out of the tree and then written again is saved (the term map follows the tree)', () => {
    const index = new TextIndex();
    index.add(note('insights/kayak.md', '# Kayak\n\nPaddling a kayak on the 湖面.\n'));
    index.add(note('insights/other.md', '# Other\n\nNothing here.\n'));
    expect(index.search('paddling').map((hit) => hit.path)).toEqual(['insights/kayak.md']);
    index.remove('insights/kayak.md');
    // A vacuum deletes `paddl` and `湖面` from the tree; a memo that kept them would take the next
    // postings into a map the tree no longer holds, found by an exact search but never saved.
    termIndexOf(index).vacuum();
    index.add(note('insights/canoe.md', '# Canoe\n\nPaddling a canoe on the 湖面.\n'));
    const { restored } = restore(index);
    for (const query of ['paddling', '湖面', 'paddl'])
      expect(restored.search(query).map((hit) => hit.path)).toEqual(['insights/canoe.md']);
  });

  it("counts a term's documents from its saved bytes as the decoded postings count them", () => {
    const index = sampleIndex();
    const terms = [
      'walk',
      'river',
      '上海',
      '散步',
      'obsidian',
      'mountain',
      'rain',
      'later',
      'note',
      'absent',
    ];
    for (const limits of [undefined, { segment: 200, record: 3 }]) {
      const { restored } = restore(index, limits);
      const tree = termIndexOf(restored).terms;
      // Before any search every term is still bytes; asking its frequency must not decode it.
      const before = terms.map((term) => restored.documentFrequency(term));
      const stillBytes = terms.map((term) =>
        (tree.get(term) as { pending?(): unknown } | undefined)?.pending?.(),
      );
      expect(stillBytes.filter((chunks) => chunks !== undefined)).toHaveLength(terms.length - 1);
      for (const query of QUERIES) restored.search(query);
      for (const term of terms) (tree.get(term) as Map<number, unknown> | undefined)?.get(0);
      expect(terms.map((term) => restored.documentFrequency(term))).toEqual(before);
      expect(before[0]).toBeGreaterThanOrEqual(50);
      expect(before.at(-1)).toBe(0);
    }
  });

  it("a restored term's postings read as the Map they were saved from, in one record or several", () => {
    const index = sampleIndex();
    const live = termIndexOf(index);
    // The saved postings leave out discarded documents; the vacuum drops them from the live index too.
    live.vacuum();
    const asArrays = (data: Map<number, Map<number, number>>) =>
      [...data].map(([fieldId, postings]) => [fieldId, [...postings]] as const);
    for (const limits of [undefined, { segment: 200, record: 3 }]) {
      const loaded = termIndexOf(restore(index, limits).restored);
      for (const [term, data] of live.terms) {
        const saved = loaded.terms.get(term) as Map<number, Map<number, number>>;
        const eachField: number[] = [];
        saved.forEach((_postings, fieldId, map) => {
          eachField.push(fieldId);
          expect(map).toBe(saved);
        });
        expect(eachField).toEqual([...data.keys()]);
        expect(asArrays(saved)).toEqual(asArrays(data));
        expect(saved.size).toBe(data.size);
        expect(Object.prototype.toString.call(saved)).toBe('[object Map]');
      }
      const walk = loaded.terms.get('walk') as Map<number, Map<number, number>>;
      walk.clear();
      expect(walk.size).toBe(0);
      expect([...walk.entries()]).toEqual([]);
    }
  });

  it('a restored index can still be changed: remove, add and replace work', () => {
    const { restored } = restore(sampleIndex());
    restored.remove('insights/n20.md');
    expect(restored.search('walk').some((hit) => hit.path === 'insights/n20.md')).toBe(false);
    restored.add(note('insights/zeppelin.md', '# Zeppelin\n\nA walk to the zeppelin.\n'));
    expect(restored.search('zeppelin')[0]?.path).toBe('insights/zeppelin.md');
    expect(restored.has('insights/n11.md')).toBe(true);
    expect(restored.has('insights/n3.md')).toBe(false);
  });

  it('a terms segment cut short or with bytes added is refused, not half loaded', () => {
    const index = sampleIndex();
    const segments = segmentsOf(index);
    const terms = segments.find((s) => s.part === 'terms')?.data as Uint8Array;
    const docs = segments.find((s) => s.part === 'docs')?.data as Uint8Array;
    const load = (bytes: Uint8Array) => {
      const loader = TextIndex.loader(index.storeHeader());
      loader.docs(docs);
      loader.terms(bytes);
      return loader.finish();
    };
    expect(load(terms).size).toBe(index.size);
    expect(() => load(terms.subarray(0, terms.length - 1))).toThrow('a terms segment is cut short');
    expect(() => load(terms.subarray(0, terms.length - 40))).toThrow(
      /terms it does not use|inside a number|cut short/,
    );
    // A record (no fields, no bytes) for which the segment names no term.
    expect(() => load(Buffer.concat([terms, Buffer.from([0, 0])]))).toThrow(
      'a terms segment has more records than terms',
    );
    expect(() => load(Buffer.concat([terms, Buffer.from([1, 2, 3])]))).toThrow(
      'a terms segment is cut short',
    );
    expect(() => load(Buffer.concat([terms, Buffer.from([9, 0x80])]))).toThrow(/ends inside a number/);
    // A record that continues a term before any term began.
    const dictionaryEnd = 4 + new DataView(terms.buffer, terms.byteOffset).getUint32(0, true);
    const continued = Uint8Array.from(terms);
    continued[dictionaryEnd] = (continued[dictionaryEnd] as number) | 1;
    expect(() => load(continued)).toThrow('a terms segment starts with the rest of a term');
  });

  it('writes each term in one segment only, its records in a row, however small the segments', () => {
    // A load does not look a segment's terms up in the others (that would hash every term at
    // every open): the writer is what keeps a term in one place.
    const index = sampleIndex();
    for (const limits of [undefined, { segment: 200, record: 3 }, { segment: 1, record: 1 }]) {
      const labels: string[] = [];
      for (const segment of segmentsOf(index, limits)) {
        if (segment.part !== 'terms') continue;
        const length = new DataView(segment.data.buffer, segment.data.byteOffset).getUint32(0, true);
        const dictionary = new TermDictionary(segment.data.subarray(4, 4 + length));
        for (let i = 0; i < dictionary.count; i++) labels.push(dictionary.term(i));
      }
      expect(new Set(labels).size).toBe(labels.length);
      expect(labels.length).toBe(termIndexOf(index).terms.size);
    }
  });

  it('a load decodes no document: a search decodes the ids it ranks, a first change the notes', () => {
    const index = sampleIndex();
    const { restored } = restore(index, { segment: 200, record: 3 });
    const terms = termIndexOf(restored);
    const decoded = () => terms.decodedSavedIds;
    expect(decoded()).toBe(0);
    const hits = restored.search('mountains');
    expect(hits.map((hit) => hit.id)).toEqual(settled(index, 'mountains').map((hit) => hit.id));
    expect(decoded()).toBeGreaterThan(0);
    expect(decoded()).toBeLessThan(index.size / 4);
    // A change needs each note's sections: the saved notes are read then, every one.
    restored.remove('insights/n40.md');
    expect(restored.has('insights/n40.md')).toBe(false);
    expect(restored.has('insights/n41.md')).toBe(true);
    expect(restored.has('episodes/daily/2026-11-29.md')).toBe(true);
    index.remove('insights/n40.md');
    for (const query of QUERIES) expect(restored.search(query)).toEqual(settled(index, query));
  });

  it('a docs segment cut short, pointing past its strings or given twice is refused', () => {
    const index = sampleIndex();
    const segments = segmentsOf(index);
    const docs = segments.find((s) => s.part === 'docs')?.data as Uint8Array;
    const terms = segments.find((s) => s.part === 'terms')?.data as Uint8Array;
    const load = (...parts: Uint8Array[]) => {
      const loader = TextIndex.loader(index.storeHeader());
      for (const part of parts) loader.docs(part);
      loader.terms(terms);
      return loader.finish();
    };
    expect(load(docs).size).toBe(index.size);
    // Read from bytes that do not start on a 4-byte boundary (a slice of a pooled Buffer).
    const unaligned = new Uint8Array(docs.length + 1).subarray(1);
    unaligned.set(docs);
    for (const query of QUERIES) expect(load(unaligned).search(query)).toEqual(settled(index, query));
    expect(() => load(docs.subarray(0, 10))).toThrow('a docs segment is cut short');
    expect(() => load(docs.subarray(0, 200))).toThrow('a docs segment is cut short');
    expect(() => load(docs, docs)).toThrow(/the short id \d+ twice/);
    // Strings cut: the tables load, a decode is refused rather than read past the end.
    const cut = termIndexOf(load(docs.subarray(0, docs.length - 30)));
    const decodeAll = () => {
      for (let shortId = 0; shortId < cut.nextId; shortId++) cut.storedOf(shortId);
    };
    expect(decodeAll).toThrow('a docs segment points past its strings');
  });

  it('refuses a header of another version, and segments that lack documents', () => {
    const index = sampleIndex();
    expect(() => TextIndex.loader({ ...index.storeHeader(), version: 999 })).toThrow(
      'text index: saved version 999 does not match',
    );
    expect(() => TextIndex.loader({ ...index.storeHeader(), store: 0 })).toThrow(
      'text index segments of format 0',
    );
    const loader = TextIndex.loader(index.storeHeader());
    expect(() => loader.finish()).toThrow(`the cache holds 0 sections, its header ${index.size}`);
  });
});
