import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import type { Layer, Note, Section } from '../../src/core/types.js';
import { listArenas } from '../../src/indexing/text/list-arenas.js';
import type { TermIndex } from '../../src/indexing/text/term-index.js';
import { type TextHitSource, TextIndex } from '../../src/indexing/text/text-index.js';
import { LIST_ARENA, resetListArenas } from '../../src/indexing/text/top-k-search.js';
import { collectUntil } from '../helpers/collect.js';
import { reloaded } from '../helpers/reload-text-index.js';
import { seeded } from '../helpers/seeded.js';
import { ReferenceIndex } from './reference-index.js';

// TextIndex (its own postings, BM25 and top-k search) must answer exactly as MiniSearch's own
// search over every match of the same sections: same hits, same order, same scores to the last
// bit, same matched terms.

/**
 * Words chosen to collide: prefixes (`walk` → `walking`, `walker`), one typo apart (`garden`,
 * `gardem`), integer-like terms (which an object lists first), Chinese words and characters that
 * share bigrams, and stop words.
 */
const WORDS = [
  'walk',
  'walking',
  'walker',
  'walks',
  'garden',
  'gardens',
  'gardem',
  'gardener',
  'pottery',
  'potter',
  'adoption',
  'obsidian',
  'obsidan',
  'coffee',
  'coffees',
  'river',
  '2023',
  '8',
  'may',
  'the',
  '上海',
  '上海工作',
  '工作',
  '白猫',
  '猫',
  '我们聊了什么',
  '上次',
  '时候',
];
const SPEAKERS = ['Rain', 'Lin', 'Mo'];
const LAYERS: Layer[] = ['episodes', 'insights', 'profile', 'persona', 'archive'];

interface SectionSpec {
  text: string;
  heading?: string;
  speaker?: string;
  date?: string;
}
interface NoteSpec {
  layer: Layer;
  name: string;
  title: string[];
  tags: string[];
  aliases: string[];
  sections: SectionSpec[];
}

const words = (min: number, max: number) =>
  fc.array(fc.constantFrom(...WORDS), { minLength: min, maxLength: max });
const phrase = (min: number, max: number) => words(min, max).map((list) => list.join(' '));

const sectionSpec: fc.Arbitrary<SectionSpec> = fc.record(
  {
    text: phrase(0, 12),
    heading: phrase(1, 3),
    speaker: fc.constantFrom(...SPEAKERS),
    date: fc.constantFrom('2023-05-08', '2026-11-29', '2026-01-01'),
  },
  { requiredKeys: ['text'] },
);
const noteSpec: fc.Arbitrary<NoteSpec> = fc.record({
  layer: fc.constantFrom(...LAYERS),
  name: fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'),
  title: words(1, 3),
  tags: words(0, 2),
  aliases: words(0, 1),
  sections: fc.array(sectionSpec, { minLength: 0, maxLength: 4 }),
});

function makeNote(spec: NoteSpec, n: number): Note {
  const path = `${spec.layer}/${spec.name}${n}.md`;
  const sections = spec.sections.map((s, i): Section => {
    const anchor = i === 0 ? '' : `^e${i}`;
    const section: Section = {
      id: `${path}#${anchor}`,
      anchor,
      kind: i === 0 ? 'preamble' : 'block',
      text: s.text,
      start: 0,
      end: s.text.length,
      line: 1,
    };
    if (s.heading !== undefined) section.heading = s.heading;
    if (s.speaker !== undefined) section.speaker = s.speaker;
    if (s.date !== undefined) section.date = s.date;
    return section;
  });
  return {
    path,
    layer: spec.layer,
    frontmatter: {},
    title: spec.title.join(' '),
    aliases: spec.aliases,
    tags: spec.tags,
    links: [],
    headings: [],
    sections,
    blocks: [],
    warnings: [],
    hash: '',
    size: 0,
    mtimeMs: 0,
  };
}

/** A filter that keeps some sections and not others, the way recall leaves out layers and dates. */
const FILTERS: Record<string, ((hit: TextHitSource) => boolean) | undefined> = {
  none: undefined,
  notArchive: (hit) => hit.layer !== 'archive',
  episodesIn2026: (hit) => hit.layer === 'episodes' && (hit.date ?? '') >= '2026-01-01',
  oddPaths: (hit) => hit.path.length % 2 === 1,
};

interface Search {
  query: string;
  limit: number;
  rareTerms: boolean;
  filter: string;
}
const search: fc.Arbitrary<Search> = fc.record({
  query: fc.oneof(
    phrase(1, 6),
    words(1, 4).map((list) => list.join('')),
  ),
  limit: fc.integer({ min: 0, max: 25 }),
  rareTerms: fc.boolean(),
  filter: fc.constantFrom(...Object.keys(FILTERS)),
});

/** A TextIndex and MiniSearch's index of the same notes, changed together. */
class Paired {
  readonly reference = new ReferenceIndex();
  constructor(public index = new TextIndex()) {}

  add(note: Note): void {
    this.index.add(note);
    this.reference.add(note);
  }

  remove(path: string): void {
    this.index.remove(path);
    this.reference.remove(path);
  }

  /** Given `previous`, both replace only the sections that changed. */
  replace(note: Note, previous?: Note): void {
    this.index.replace(note, previous);
    this.reference.replace(note, previous);
  }
}

/** A note titled `walk` with one section of `text`. */
const walkNote = (name: string, n: number, text: string): Note =>
  makeNote({ layer: 'insights', name, title: ['walk'], tags: [], aliases: [], sections: [{ text }] }, n);

function pairOf(notes: Note[]): Paired {
  const pair = new Paired();
  for (const note of notes) pair.add(note);
  return pair;
}

function both(pair: Paired, s: Search) {
  const options = { limit: s.limit, rareTerms: s.rareTerms, filter: FILTERS[s.filter] };
  const fast = pair.index.search(s.query, options);
  const exhaustive = pair.reference.search(s.query, options);
  return { fast, exhaustive };
}

/**
 * Each search through TextIndex as it stands, then through MiniSearch once the discarded postings
 * are vacuumed away (no rarity boosts: a term's document frequency counts discarded postings
 * until then).
 */
async function fastThenExhaustive(pair: Paired, searches: Search[]) {
  const fast = searches.map((s) => pair.index.search(s.query, { limit: s.limit, filter: FILTERS[s.filter] }));
  await pair.reference.vacuum();
  const exhaustive = searches.map((s) =>
    pair.reference.search(s.query, { limit: s.limit, filter: FILTERS[s.filter] }),
  );
  return { fast, exhaustive };
}

describe('top-k search', () => {
  it('answers exactly as MiniSearch over every match, whatever the notes and the query', () => {
    fc.assert(
      fc.property(
        fc.array(noteSpec, { minLength: 1, maxLength: 30 }),
        fc.array(search, { minLength: 1, maxLength: 6 }),
        (specs, searches) => {
          const pair = pairOf(specs.map((spec, n) => makeNote(spec, n)));
          for (const s of searches) {
            const { fast, exhaustive } = both(pair, s);
            expect(fast).toEqual(exhaustive);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('stays exact after notes are replaced and removed between searches, with the discarded postings held or vacuumed, or loaded with gaps in its ids, and saved and loaded again after the changes', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(noteSpec, { minLength: 2, maxLength: 25 }),
        fc.array(fc.tuple(fc.nat(), fc.option(noteSpec)), { minLength: 1, maxLength: 8 }),
        fc.array(search, { minLength: 1, maxLength: 4 }),
        fc.boolean(),
        fc.boolean(),
        fc.boolean(),
        fc.boolean(),
        async (specs, edits, searches, fromCache, searchFirst, vacuumed, savedAgain) => {
          const notes = specs.map((spec, n) => makeNote(spec, n));
          const pair = pairOf(notes);
          // Removed before the cache is made: the loaded index has gaps in its short ids.
          pair.remove((notes[0] as Note).path);
          if (fromCache) pair.index = reloaded(pair.index);
          const { index } = pair;
          // A first search fills the typed postings that the edits must then invalidate.
          if (searchFirst)
            for (const s of searches) index.search(s.query, { limit: s.limit, rareTerms: s.rareTerms });
          for (const [at, spec] of edits) {
            // Any note but the first (removed above), replaced by one at the same path.
            const target = 1 + (at % (notes.length - 1));
            const { layer, name } = specs[target] as NoteSpec;
            if (spec === null) pair.remove((notes[target] as Note).path);
            else pair.replace(makeNote({ ...spec, layer, name }, target));
          }
          // A loaded index's saved terms hold the postings added since beside their saved bytes: a
          // save writes both, and the index loaded from it holds them all as saved bytes.
          if (savedAgain) pair.index = reloaded(pair.index);
          // Vacuumed, the tree loses the terms left without postings, as MiniSearch's does.
          if (vacuumed) termIndexOf(pair.index).vacuum();
          const { fast, exhaustive } = await fastThenExhaustive(pair, searches);
          expect(fast).toEqual(exhaustive);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('replaces only the sections that changed when given the version replaced, and answers as a whole replace does', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(noteSpec, { minLength: 2, maxLength: 15 }),
        fc.array(fc.tuple(fc.nat(), noteSpec, fc.boolean()), { minLength: 1, maxLength: 6 }),
        fc.array(search, { minLength: 1, maxLength: 3 }),
        async (generated, edits, searches) => {
          const specs = generated.map((spec) => ({ ...spec, sections: [...spec.sections] }));
          const current = specs.map((spec, n) => makeNote(spec, n));
          const partial = pairOf(current);
          const whole = new TextIndex();
          for (const note of current) whole.add(note);
          for (const [at, spec, append] of edits) {
            const target = at % current.length;
            const previous = current[target] as Note;
            const { layer, name } = specs[target] as NoteSpec;
            // An entry appended to the note as it stands, or the note rewritten.
            const next = append
              ? makeNote(
                  {
                    ...(specs[target] as NoteSpec),
                    sections: [...(specs[target] as NoteSpec).sections, { text: 'walk the river' }],
                  },
                  target,
                )
              : makeNote({ ...spec, layer, name }, target);
            if (append) (specs[target] as NoteSpec).sections.push({ text: 'walk the river' });
            else specs[target] = { ...spec, layer, name };
            partial.replace(next, previous);
            whole.replace(next);
            current[target] = next;
          }
          const { fast, exhaustive } = await fastThenExhaustive(partial, searches);
          expect(fast).toEqual(exhaustive);
          const reference = searches.map((s) =>
            whole.search(s.query, { limit: s.limit, filter: FILTERS[s.filter] }),
          );
          expect(fast.map((hits) => hits.map((hit) => hit.id))).toEqual(
            reference.map((hits) => hits.map((hit) => hit.id)),
          );
          const referenceScores = reference.flat().map((hit) => hit.score);
          for (const [i, hit] of fast.flat().entries())
            expect(hit.score).toBeCloseTo(referenceScores[i] ?? Number.NaN, 9);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('keeps nothing of a note whose add failed half-way through a section, by add or by replace', () => {
    const spec: NoteSpec = {
      layer: 'episodes',
      name: 'day',
      title: ['walk'],
      tags: [],
      aliases: [],
      sections: [{ text: 'morning walk' }, { text: 'unreadable' }],
    };
    const broken = () => {
      const note = makeNote(spec, 1);
      // MiniSearch reads the title before the text: the section is half in the index when it throws.
      (note.sections[1] as { text: unknown }).text = {
        toString() {
          throw new Error('unreadable section');
        },
      };
      return note;
    };
    const index = new TextIndex();
    expect(() => index.add(broken())).toThrow('unreadable section');
    expect(index.size).toBe(0);
    expect(index.search('walk', { limit: 5 })).toEqual([]);

    const good = makeNote(spec, 1);
    index.add(good);
    expect(() => index.replace(broken(), good)).toThrow('unreadable section');
    expect(index.size).toBe(0);
    expect(index.has(good.path)).toBe(false);
    expect(index.search('walk', { limit: 5 })).toEqual([]);
  });

  it('appending an entry to a note discards none of the sections it had', () => {
    const spec: NoteSpec = {
      layer: 'episodes',
      name: 'day',
      title: ['walk'],
      tags: [],
      aliases: [],
      sections: [{ text: 'morning' }, { text: 'walk by the river' }, { text: 'pottery class' }],
    };
    const index = new TextIndex();
    const before = makeNote(spec, 1);
    index.add(before);
    const dirt = () => termIndexOf(index).dirtCount;
    const after = makeNote({ ...spec, sections: [...spec.sections, { text: 'river again' }] }, 1);
    index.replace(after, before);
    expect(dirt()).toBe(0);
    expect(index.size).toBe(4);
    // ^e2 ('pottery class') holds the river walk before it as context.
    expect(
      index
        .search('river', { limit: 5 })
        .map((hit) => hit.id)
        .sort(),
    ).toEqual(['episodes/day1.md#^e1', 'episodes/day1.md#^e2', 'episodes/day1.md#^e3']);
    // Without the version it replaces, every section is discarded and added again.
    index.replace(makeNote({ ...spec, sections: [...spec.sections, { text: 'river again' }] }, 1));
    expect(dirt()).toBe(4);
  });

  it('answers exactly from an index loaded from the cache (postings decoded on first use)', () => {
    fc.assert(
      fc.property(
        fc.array(noteSpec, { minLength: 1, maxLength: 30 }),
        fc.array(search, { minLength: 1, maxLength: 4 }),
        (specs, searches) => {
          const pair = pairOf(specs.map((spec, n) => makeNote(spec, n)));
          pair.index = reloaded(pair.index);
          for (const s of searches) {
            const { fast, exhaustive } = both(pair, s);
            expect(fast).toEqual(exhaustive);
          }
        },
      ),
      { numRuns: 100 },
    );
  });

  it('among equal scores keeps the lowest ids, best first', () => {
    const index = new TextIndex();
    const same: NoteSpec = {
      layer: 'insights',
      name: 'x',
      title: ['note'],
      tags: [],
      aliases: [],
      sections: [{ text: 'pottery river' }],
    };
    for (const n of [5, 1, 4, 2, 3]) index.add(makeNote(same, n));
    const hits = index.search('pottery', { limit: 3 });
    expect(hits.map((hit) => hit.id)).toEqual(['insights/x1.md#', 'insights/x2.md#', 'insights/x3.md#']);
    expect(new Set(hits.map((hit) => hit.score)).size).toBe(1);
  });

  it('asks the filter of the matches in rank order down to the last one kept, and reads no id of a match below it', () => {
    // Copies of a few notes tie by the dozen: the order among them is by id, which a loaded
    // index reads from its files. An id is read only for a match offered to the filter or tied
    // with one (its place among equals decides whether it is offered), never for one below.
    fc.assert(
      fc.property(
        fc.array(fc.tuple(noteSpec, fc.integer({ min: 1, max: 8 })), { minLength: 1, maxLength: 8 }),
        fc.array(fc.record({ query: phrase(1, 4), limit: fc.integer({ min: 0, max: 12 }), keep: fc.nat() }), {
          minLength: 1,
          maxLength: 5,
        }),
        (specs, searches) => {
          let n = 0;
          const pair = pairOf(
            specs.flatMap(([spec, copies]) => Array.from({ length: copies }, () => makeNote(spec, n++))),
          );
          const terms = termIndexOf(pair.index);
          const idOf = terms.idOf.bind(terms);
          const read = new Set<string>();
          terms.idOf = (shortId: number) => {
            const id = idOf(shortId);
            if (id !== undefined) read.add(id);
            return id;
          };
          for (const { query, limit, keep } of searches) {
            // Keeps a section by its id and the search's seed: some of every run of equals go.
            const kept = (id: string) => (hash(id) + keep) % 3 !== 0;
            const asked: string[] = [];
            read.clear();
            const hits = pair.index.search(query, {
              limit,
              filter: (hit) => {
                asked.push(hit.id);
                return kept(hit.id);
              },
            });
            // Every match, best first and by id among equals.
            const all = pair.reference.search(query);
            const expected: string[] = [];
            let taken = 0;
            for (const match of all) {
              if (taken === limit) break;
              expected.push(match.id);
              if (kept(match.id)) taken++;
            }
            expect(asked).toEqual(expected);
            expect(hits).toEqual(pair.reference.search(query, { limit, filter: (hit) => kept(hit.id) }));
            const last = all.find((match) => match.id === expected.at(-1));
            const below = all.filter((match) => last === undefined || match.score < last.score);
            expect(below.filter((match) => read.has(match.id))).toEqual([]);
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it('lists the matched terms as MiniSearch does: integer-like terms first, then in the order matched', () => {
    const pair = new Paired();
    const { index } = pair;
    pair.add(
      makeNote(
        {
          layer: 'insights',
          name: 'y',
          title: ['walking'],
          tags: [],
          aliases: [],
          sections: [{ text: 'walker 2023 8 walk' }],
        },
        0,
      ),
    );
    const [hit] = index.search('walk 2023 8', { limit: 5 });
    const [reference] = pair.reference.search('walk 2023 8', { limit: 5 });
    expect(hit?.terms).toEqual(['8', '2023', 'walk', 'walker']);
    expect(hit).toEqual(reference);
    expect(hit?.queryTerms).toEqual(['walk', '2023', '8']);
  });

  it('meets the filter only for what could enter the top, and never returns what it refused', () => {
    const pair = new Paired();
    const { index } = pair;
    for (let n = 0; n < 40; n++)
      pair.add(
        makeNote(
          {
            layer: n % 2 ? 'archive' : 'insights',
            name: 'z',
            title: ['pottery'],
            tags: [],
            aliases: [],
            sections: [{ text: 'pottery '.repeat(1 + (n % 5)) }],
          },
          n,
        ),
      );
    const seen: string[] = [];
    const hits = index.search('pottery', {
      limit: 4,
      filter: (hit) => {
        seen.push(hit.id);
        return hit.layer !== 'archive';
      },
    });
    expect(hits).toHaveLength(4);
    expect(hits.every((hit) => hit.layer === 'insights')).toBe(true);
    expect(seen.length).toBeLessThan(40);
    expect(hits).toEqual(
      pair.reference.search('pottery', { limit: 4, filter: (hit) => hit.layer !== 'archive' }),
    );

    // A filter that refuses none of the best is asked about them alone, not about every section
    // that held a place in the top on the way there.
    const asked: string[] = [];
    const kept = index.search('pottery', {
      limit: 4,
      filter: (hit) => {
        asked.push(hit.id);
        return true;
      },
    });
    expect(asked.sort()).toEqual(kept.map((hit) => hit.id).sort());
    expect(kept).toEqual(pair.reference.search('pottery', { limit: 4 }));
  });
});

/** A number of a string, the same every run (which sections a test's filter keeps). */
function hash(text: string): number {
  let value = 0;
  for (let i = 0; i < text.length; i++) value = (value * 31 + text.charCodeAt(i)) >>> 0;
  return value;
}

/** The store a TextIndex searches (its postings, counts and lengths). */
function termIndexOf(index: TextIndex): TermIndex {
  return (index as unknown as { terms: TermIndex }).terms;
}

describe('top-k search with arenas of a few postings', () => {
  const saved = { ...LIST_ARENA };
  afterEach(() => {
    Object.assign(LIST_ARENA, saved);
    resetListArenas();
  });

  for (const arena of [
    { postings: 6, first: 2 },
    { postings: 40, first: 4 },
  ]) {
    it(`stays exact while lists are dropped and arenas reused (${arena.postings} postings an arena)`, () => {
      Object.assign(LIST_ARENA, arena);
      resetListArenas();
      fc.assert(
        fc.property(
          fc.array(noteSpec, { minLength: 1, maxLength: 30 }),
          fc.array(search, { minLength: 2, maxLength: 10 }),
          fc.boolean(),
          (specs, searches, fromCache) => {
            const pair = pairOf(specs.map((spec, n) => makeNote(spec, n)));
            if (fromCache) pair.index = reloaded(pair.index);
            // Twice over, so later searches read lists kept (or dropped) by earlier ones.
            for (const s of [...searches, ...searches]) {
              const { fast, exhaustive } = both(pair, s);
              expect(fast).toEqual(exhaustive);
            }
          },
        ),
        { numRuns: 150 },
      );
    });
  }

  for (const arena of [
    { postings: 6, first: 2 },
    { postings: 40, first: 4 },
    { postings: 400, first: 16 },
  ]) {
    it(`stays exact for several indexes searched in turn, sharing the arenas (${arena.postings} postings an arena)`, () => {
      Object.assign(LIST_ARENA, arena);
      resetListArenas();
      for (let seed = 1; seed <= 12; seed++) {
        const rand = seeded(seed * 7919 + arena.postings);
        const pick = <T>(list: readonly T[]) => list[Math.floor(rand() * list.length)] as T;
        const wordList = (min: number, max: number) =>
          Array.from({ length: min + Math.floor(rand() * (max - min + 1)) }, () => pick(WORDS));
        let made = 0;
        const note = (): Note =>
          makeNote(
            {
              layer: pick(LAYERS),
              name: pick(['a', 'b', 'c', 'd']),
              title: wordList(1, 3),
              tags: wordList(0, 2),
              aliases: wordList(0, 1),
              sections: Array.from({ length: Math.floor(rand() * 4) }, () => ({
                text: wordList(0, 12).join(' '),
                heading: wordList(1, 3).join(' '),
                speaker: pick(SPEAKERS),
                date: pick(['2023-05-08', '2026-11-29', '2026-01-01']),
              })),
            },
            made++,
          );
        // Built, loaded from the cache (saved bytes), of different sizes.
        const pairs = Array.from({ length: 2 + Math.floor(rand() * 4) }, () => {
          const pair = pairOf(Array.from({ length: 1 + Math.floor(rand() * 30) }, note));
          if (rand() < 0.5) pair.index = reloaded(pair.index);
          return pair;
        });
        for (let turn = 0; turn < 60; turn++) {
          const pair = pick(pairs);
          // Now and then a new note: that index's kept lists go, the others' stay.
          if (rand() < 0.1) pair.add(note());
          const s: Search = {
            query: rand() < 0.8 ? wordList(1, 6).join(' ') : wordList(1, 3).join(''),
            limit: Math.floor(rand() * 26),
            rareTerms: rand() < 0.5,
            filter: pick(Object.keys(FILTERS)),
          };
          const { fast, exhaustive } = both(pair, s);
          expect(fast, `seed ${seed}, turn ${turn}: ${s.query}`).toEqual(exhaustive);
        }
        for (const pair of pairs) pair.index.close();
        expect(listArenas().holderCount).toBe(0);
      }
    });
  }

  it('keeps no closed index in the arenas, and lets go of one that was never closed', async () => {
    resetListArenas();
    const notes = (from: number) =>
      Array.from({ length: 5 }, (_, n) => walkNote('w', from + n, `walk river garden ${n}`));
    const kept = pairOf(notes(0)).index;
    const closed = pairOf(notes(10)).index;
    kept.search('walk garden', { limit: 3 });
    closed.search('walk garden', { limit: 3 });
    expect(listArenas().holderCount).toBe(2);
    closed.close();
    expect(listArenas().holderCount).toBe(1);
    // An index let go without close(): the arenas hold its search weakly, so it can be collected.
    const gone = (() => {
      const index = pairOf(notes(20)).index;
      index.search('walk river', { limit: 3 });
      return new WeakRef(termIndexOf(index));
    })();
    expect(listArenas().holderCount).toBe(2);
    await collectUntil(() => gone.deref() === undefined);
    expect(gone.deref()).toBeUndefined();
    // The next release sweeps the reference that was left.
    kept.close();
    expect(listArenas().holderCount).toBe(0);
  });

  it('refuses a search inside the filter of another, which would overwrite what the first reads', () => {
    const a = pairOf([walkNote('a', 0, 'walk river'), walkNote('a', 1, 'garden walk walk')]);
    const b = pairOf([walkNote('b', 2, 'walk')]);
    expect(() => a.index.search('walk', { filter: () => b.index.search('walk').length > 0 })).toThrow(
      /inside the filter/,
    );
    // A filter that throws leaves nothing behind either.
    expect(() =>
      b.index.search('walk', {
        filter: () => {
          throw new Error('refused');
        },
      }),
    ).toThrow(/refused/);
    // Both answer as MiniSearch does, scores and all.
    for (const pair of [a, b]) expect(pair.index.search('walk')).toEqual(pair.reference.search('walk'));
  });

  it('reads a loaded term from its saved bytes without decoding it', () => {
    const built = new TextIndex();
    for (let i = 0; i < 50; i++) built.add(walkNote('w', i, `walk river ${i % 3 ? 'pottery' : ''}`));
    const index = reloaded(built);
    const { terms } = termIndexOf(index);
    const pending = (term: string) =>
      (terms.get(term) as unknown as { pending(): unknown }).pending() !== undefined;
    expect(['walk', 'river', 'potteri'].map(pending)).toEqual([true, true, true]);
    const hits = index.search('walk pottery river', { limit: 5, rareTerms: true });
    expect(hits).toHaveLength(5);
    expect(hits).toEqual(built.search('walk pottery river', { limit: 5, rareTerms: true }));
    expect(['walk', 'river', 'potteri'].map(pending)).toEqual([true, true, true]);
  });

  it('adds to a loaded term beside its saved bytes, and answers, counts and saves as if it had decoded them', () => {
    const notes = Array.from({ length: 60 }, (_, i) =>
      walkNote('w', i, `walk river ${i % 3 ? 'pottery' : ''} ${i >= 50 ? 'walk garden' : ''}`),
    );
    const whole = new TextIndex();
    for (const note of notes) whole.add(note);
    const first = new TextIndex();
    for (const note of notes.slice(0, 50)) first.add(note);
    const index = reloaded(first);
    for (const note of notes.slice(50)) index.add(note);
    const terms = () => termIndexOf(index).terms;
    const pending = (term: string) =>
      (terms().get(term) as unknown as { pending(): unknown }).pending() !== undefined;
    // The added notes' words that were saved stay saved bytes; `garden` is new, a Map of its own.
    expect(['walk', 'river', 'potteri'].map(pending)).toEqual([true, true, true]);
    const queries = ['walk pottery river', 'walk', 'garden river', 'walking', 'gardem'];
    const options = [
      { limit: 70, rareTerms: true },
      { limit: 3 },
      { limit: 70, filter: FILTERS['oddPaths'] },
    ];
    for (const query of queries)
      for (const o of options) expect(index.search(query, o)).toEqual(whole.search(query, o));
    for (const term of ['walk', 'river', 'potteri', 'garden'])
      expect(termIndexOf(index).documentFrequency(term)).toBe(termIndexOf(whole).documentFrequency(term));
    expect(['walk', 'river', 'potteri'].map(pending)).toEqual([true, true, true]);
    // Saved and loaded again, and decoded (as a vacuum or a Map method does), the postings are the same.
    const again = reloaded(index);
    for (const query of queries)
      for (const o of options) expect(again.search(query, o)).toEqual(whole.search(query, o));
    const decoded = (i: TextIndex, term: string) =>
      [...(termIndexOf(i).terms.get(term) ?? [])].map(([field, postings]) => [field, [...postings]]);
    for (const term of ['walk', 'river', 'potteri', 'garden']) {
      const expected = decoded(whole, term);
      expect(decoded(again, term)).toEqual(expected);
      expect(decoded(index, term)).toEqual(expected);
    }
    expect(pending('walk')).toBe(false);
  });
});
