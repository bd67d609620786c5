// What a loaded vault of a `mem serve --vaults` pool keeps per document and per term, held in the
// narrowest arrays that fit (issue 33), and widened, not wrapped, when a value does not fit: the
// answers stay MiniSearch's, fresh and restored.
import { describe, expect, it } from 'vitest';
import { BytesSource } from '../../src/indexing/segment-source.js';
import { SavedTermsBuilder } from '../../src/indexing/text/saved-terms.js';
import { encodeTermDictionary, TermDictionary } from '../../src/indexing/text/term-dictionary.js';
import { lengthAt, SlotValues, type TermIndex } from '../../src/indexing/text/term-index.js';
import { TextIndex } from '../../src/indexing/text/text-index.js';
import { formatTrackers, parseTrackers, type SavedTrackers } from '../../src/indexing/trackers.js';
import { parseNote } from '../../src/vault/markdown/parse-note.js';
import { seeded } from '../helpers/seeded.js';
import { ReferenceIndex } from './reference-index.js';

const note = (path: string, text: string) => parseNote(path, text, { size: text.length, mtimeMs: 0 });

const termIndexOf = (index: TextIndex) => (index as unknown as { terms: TermIndex }).terms;

function restore(index: TextIndex, limits?: { segment: number; record: number }): TextIndex {
  const loader = TextIndex.loader(JSON.parse(JSON.stringify(index.storeHeader())));
  const pieces: Record<'docs' | 'terms', Uint8Array[]> = { docs: [], terms: [] };
  for (const piece of index.storeSegments(limits)) {
    pieces[piece.part as 'docs' | 'terms'].push(piece.data);
    if (!piece.end) continue;
    const data = Buffer.concat(pieces[piece.part as 'docs' | 'terms']);
    pieces[piece.part as 'docs' | 'terms'] = [];
    if (piece.part === 'docs') loader.docs(data);
    else loader.terms(data);
  }
  return loader.finish();
}

/** A body of `count` distinct words (each a field length of one more token), `tag` in each. */
const manyWords = (count: number, tag: string) =>
  Array.from({ length: count }, (_, i) => `${tag}${i.toString(36)}z`).join(' ');

describe('a loaded index keeps narrow arrays', () => {
  it('field lengths: 2 bytes, a field widened to 4 at a length of 65,535 or more, scores MiniSearch’s', async () => {
    // Around the 2-byte bound: 65,535 is the 2-byte array's "no such field", so it must widen.
    for (const big of [65_534, 65_535, 70_000]) {
      const index = new TextIndex();
      const reference = new ReferenceIndex();
      const notes = [
        note('insights/big.md', `# Big\n\nwalk ${manyWords(big - 1, 'q')}\n`),
        note('insights/a.md', '# A\n\nA walk by the river.\n'),
        note('insights/b.md', '# B walk\n\nRiver walk, river stones, q1z.\n'),
      ];
      for (const n of notes) {
        index.add(n);
        reference.add(n);
      }
      const lengths = termIndexOf(index).lengths;
      // The big section's body: `big` distinct words (walk and the others).
      expect(lengths.map((field) => lengthAt(field, 0))).toContain(big);
      const widened = lengths.filter((l) => l instanceof Uint32Array).length;
      expect(widened).toBe(big >= 65_535 ? 1 : 0);
      for (const l of termIndexOf(index).lengths) expect(l.BYTES_PER_ELEMENT).toBeLessThanOrEqual(4);
      const restored = restore(index);
      expect(termIndexOf(restored).lengths.filter((l) => l instanceof Uint32Array).length).toBe(widened);
      for (const query of ['walk', 'river', 'q1z', 'big', 'stones']) {
        const expected = reference.search(query);
        expect(index.search(query)).toEqual(expected);
        expect(restored.search(query)).toEqual(expected);
      }
      // A discard marks the field absent in either width; the averages stay MiniSearch's (whose
      // discarded postings count until its vacuum; TextIndex scores without them at once).
      const gone = [...termIndexOf(index).allShortIds()]
        .filter(([id]) => id.startsWith('insights/a.md'))
        .map(([, shortId]) => shortId);
      expect(gone.length).toBeGreaterThan(0);
      index.remove('insights/a.md');
      reference.remove('insights/a.md');
      await reference.vacuum();
      for (const query of ['walk', 'river']) expect(index.search(query)).toEqual(reference.search(query));
      for (const field of termIndexOf(index).lengths)
        for (const doc of gone) expect(lengthAt(field, doc)).toBeNaN();
    }
  });

  it('a small index keeps 2-byte lengths, restored too', () => {
    const index = new TextIndex();
    index.add(note('insights/a.md', '# A\n\nA walk by the river.\n'));
    for (const l of termIndexOf(index).lengths) expect(l).toBeInstanceOf(Uint16Array);
    for (const l of termIndexOf(restore(index)).lengths) expect(l).toBeInstanceOf(Uint16Array);
  });

  it('a docs segment of more than 65,536 documents widens the positions it keeps, and reads them back', () => {
    const index = new TextIndex();
    const reference = new ReferenceIndex();
    // Notes of many headings: many sections (documents) each.
    for (let n = 0; n < 70; n++) {
      const text = Array.from({ length: 1000 }, (_, s) => `# h${n}x${s}\n\nw${s % 13} n${n}\n`).join('\n');
      const made = note(`insights/n${n}.md`, text);
      index.add(made);
      if (n % 10 === 0) reference.add(made);
    }
    expect(index.size).toBeGreaterThan(65_536);
    const restored = restore(index, { segment: 1 << 30, record: 1 << 16 });
    const saved = termIndexOf(restored).saved as unknown as { positionOf: unknown; segmentOf: unknown };
    expect(saved.positionOf).toBeInstanceOf(Uint32Array);
    expect(saved.segmentOf).toBeInstanceOf(Uint16Array);
    for (const query of ['h0x5', 'h69x999', 'n69 w3', 'n0']) {
      expect(restored.search(query)).toEqual(index.search(query));
      const ids = restored.search(query).map((hit) => hit.id);
      expect(ids.length).toBeGreaterThan(0);
    }
    // The last document of the one segment, past position 65,535, keeps its id.
    expect(restored.search('h69x999').map((hit) => hit.id)).toEqual(
      index.search('h69x999').map((hit) => hit.id),
    );
  }, 60_000);
});

describe('saved terms, their segment found from the first term of each', () => {
  it('give each term its own segment’s name and source, empty segments anywhere, over seeded layouts', () => {
    const random = seeded(11);
    for (let round = 0; round < 100; round++) {
      const builder = new SavedTermsBuilder();
      const expected: Array<{ term: string; source: BytesSource; at: number }> = [];
      const segments = 1 + Math.floor(random() * 6);
      for (let d = 0; d < segments; d++) {
        // Now and then an empty segment, first, last or between others.
        const count = random() < 0.3 ? 0 : 1 + Math.floor(random() * 40);
        const terms = Array.from({ length: count }, (_, i) => `s${d}t${i}${random() < 0.2 ? '上海' : ''}`);
        const source = new BytesSource(new Uint8Array(8));
        builder.segment(new TermDictionary(encodeTermDictionary(terms)), source);
        for (const term of terms) {
          const at = Math.floor(random() * 1e6);
          expect(builder.record(at)).toBe(expected.length);
          expected.push({ term, source, at });
        }
      }
      const map = builder.finish();
      expect([...map.keys()]).toEqual(expected.map((e) => e.term));
      for (const { term, source, at } of expected) {
        const data = map.get(term) as unknown as { source: unknown; at: number };
        expect(data.source).toBe(source);
        expect(data.at).toBe(at);
      }
    }
  });
});

describe('SlotValues', () => {
  it('answers as a Map would, over seeded runs of sets, clears and reads, sparse or dense', () => {
    const random = seeded(33);
    for (let round = 0; round < 200; round++) {
      const slots = new SlotValues<string>();
      const model = new Map<number, string>();
      const range = 1 + Math.floor(random() * (round % 2 === 0 ? 50 : 5000));
      const steps = Math.floor(random() * 400);
      for (let step = 0; step < steps; step++) {
        const slot = Math.floor(random() * range);
        if (random() < 0.2) {
          slots.set(slot, undefined);
          model.delete(slot);
        } else {
          const value = `v${step}`;
          slots.set(slot, value);
          model.set(slot, value);
        }
        const probe = Math.floor(random() * (range + 10));
        expect(slots.get(probe)).toBe(model.get(probe));
      }
      expect(slots.count).toBe(model.size);
      for (let slot = 0; slot < range + 10; slot++) expect(slots.get(slot)).toBe(model.get(slot));
    }
  });

  it('keeps a few values among thousands of slots in a Map, not an array as long as the slots', () => {
    const slots = new SlotValues<string>();
    for (let k = 0; k < 300; k++) slots.set(k * 17, `v${k}`);
    expect((slots as unknown as { array?: unknown[] }).array).toBeUndefined();
    const dense = new SlotValues<string>();
    for (let k = 0; k < 300; k++) dense.set(k, `v${k}`);
    expect((dense as unknown as { array?: unknown[] }).array?.length).toBe(300);
  });
});

describe('saved trackers read from the segment’s bytes', () => {
  it('give what the text gives, over seeded trackers of any characters and damaged segments', () => {
    const random = seeded(7);
    const pieces = ['a', '"', '\\', '上海', '小满', 'é', '\u{1F600}', '\t', 'x'];
    for (let round = 0; round < 200; round++) {
      const trackers: SavedTrackers = new Map();
      for (let t = 0; t < Math.floor(random() * 5); t++) {
        const paths = Array.from({ length: Math.floor(random() * 4) }, () =>
          Array.from(
            { length: 1 + Math.floor(random() * 6) },
            () => pieces[Math.floor(random() * pieces.length)],
          ).join(''),
        );
        trackers.set(`t${t}${pieces[Math.floor(random() * 6)]}`, JSON.stringify({ kind: 'facet', paths }));
      }
      let text = formatTrackers(trackers);
      // Now and then damaged: cut short, a line without a tab, an empty line, a name twice.
      const damage = Math.floor(random() * 6);
      if (damage === 1) text = text.slice(0, Math.floor(random() * text.length));
      if (damage === 2) text += 'no tab here\n';
      if (damage === 3) text = `\n${text}\n`;
      if (damage === 4 && trackers.size > 0) text += text.slice(0, text.indexOf('\n') + 1);
      const fromText = parseTrackers(text);
      expect(parseTrackers(Buffer.from(text, 'utf8'))).toEqual(fromText);
      if (damage === 0) expect(fromText).toEqual(trackers);
    }
  });
});
