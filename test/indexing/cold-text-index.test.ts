// A cold build's text index (cold-text-index.ts, cold-terms.ts) holds what a save writes, not a
// TermIndex: its segments must be byte for byte those of a TextIndex given the same notes in the
// same order, whatever the notes (a generator over vaults of every kind of section, term and id);
// anything but adding notes in path order turns it into a TextIndex that answers as that one does;
// and after its save it is read from the files the save wrote.
import { readFile, rm, truncate } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Note } from '../../src/core/types.js';
import { loadIndexCache, saveIndexCache } from '../../src/indexing/index-cache.js';
import { refreshIndex } from '../../src/indexing/refresh-index.js';
import { ColdTerms } from '../../src/indexing/text/cold/cold-terms.js';
import { ColdTextIndex } from '../../src/indexing/text/cold/cold-text-index.js';
import { sectionDocuments } from '../../src/indexing/text/section-documents.js';
import { TermIndex } from '../../src/indexing/text/term-index.js';
import { TERM_OPTIONS, TextIndex } from '../../src/indexing/text/text-index.js';
import { LIMITS, type TextStoreLimits, textStoreSegments } from '../../src/indexing/text/text-index-store.js';
import { VaultIndex } from '../../src/indexing/vault-index.js';
import { parseNote } from '../../src/vault/markdown/parse-note.js';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';

afterEach(cleanupVaults);

const note = (path: string, text: string): Note => parseNote(path, text, { size: text.length, mtimeMs: 0 });

/** Every segment of an index's save, concatenated per part, with its header. */
function saved(
  index: TextIndex,
  limits?: TextStoreLimits,
): { header: string; docs: Buffer[]; terms: Buffer[] } {
  const docs: Buffer[] = [];
  const terms: Buffer[] = [];
  for (const segment of index.storeSegments(limits))
    (segment.part === 'docs' ? docs : terms).push(Buffer.from(segment.data));
  return { header: JSON.stringify(index.storeHeader()), docs, terms };
}

const WORDS = [
  'tea',
  'walk',
  'river',
  'Rain',
  'walking',
  'walked',
  'pottery',
  '上海',
  '散步',
  '今天',
  'café',
  'x',
];

/** A note's text: a title, frontmatter aliases and tags sometimes, headings (some with `#`), entries, repeated words. */
const noteText = fc
  .record({
    title: fc.constantFrom(...WORDS),
    aliases: fc.option(fc.array(fc.constantFrom(...WORDS), { maxLength: 2 }), { nil: undefined }),
    tags: fc.option(fc.array(fc.constantFrom('life', 'work', 'tea'), { maxLength: 2 }), { nil: undefined }),
    body: fc.array(
      fc.oneof(
        fc.array(fc.constantFrom(...WORDS), { minLength: 0, maxLength: 9 }).map((w) => w.join(' ')),
        fc.constantFrom(...WORDS).map((w) => `## ${w}`),
        fc.constantFrom('## x.md#y', '## C# notes', '## y', '## y'),
        fc
          .tuple(
            fc.constantFrom('Rain', 'Mia'),
            fc.array(fc.constantFrom(...WORDS), { maxLength: 5 }),
            fc.nat(30),
          )
          .map(([who, w, n]) => `- 09:${String(n).padStart(2, '0')} **${who}:** ${w.join(' ')} ^e${n}`),
      ),
      { maxLength: 8 },
    ),
  })
  .map(({ title, aliases, tags, body }) => {
    const front =
      aliases || tags
        ? `---\n${aliases ? `aliases: [${aliases.join(', ')}]\n` : ''}${tags ? `tags: [${tags.join(', ')}]\n` : ''}---\n`
        : '';
    return `${front}# ${title}\n\n${body.join('\n\n')}\n`;
  });

/** Paths of every layer, and the pair whose section ids can be the same (`a.md#x.md#y`). */
const notePath = fc.constantFrom(
  'a.md',
  'a.md#x.md',
  'b.md',
  'insights/tea.md',
  'insights/上海.md',
  'profile/people/Mia.md',
  'episodes/daily/2026-11-29.md',
  'episodes/daily/2026-11-30.md',
  'persona/me.md',
);

const vaultNotes = fc.uniqueArray(fc.tuple(notePath, noteText), { selector: ([path]) => path, maxLength: 9 });

/** A TextIndex and a cold one given the same notes in the same order. */
function both(notes: Array<[string, string]>): { plain: TextIndex; cold: ColdTextIndex } {
  const plain = new TextIndex();
  const cold = new ColdTextIndex();
  for (const [path, text] of notes) {
    plain.add(note(path, text));
    cold.add(note(path, text));
  }
  cold.endCold();
  return { plain, cold };
}

const QUERIES = ['tea walk', '上海', 'river', 'notes y', 'walking Rain', 'x', 'pottery café 今天'];

/** The two answer every query alike, and so do indexes loaded from what each saves. */
function expectSameAnswers(a: TextIndex, b: TextIndex): void {
  for (const query of QUERIES) expect(a.search(query)).toEqual(b.search(query));
  const [ra, rb] = [reloaded(a), reloaded(b)];
  if (rb instanceof Error) throw rb;
  if (ra instanceof Error) throw ra;
  for (const query of QUERIES) expect(ra.search(query)).toEqual(rb.search(query));
}

/** The index a load of what `index` saves makes, or the error of that load. */
function reloaded(index: TextIndex): TextIndex | Error {
  try {
    const loader = TextIndex.loader(index.storeHeader());
    for (const segment of index.storeSegments()) {
      if (segment.part === 'docs') loader.docs(segment.data);
      else loader.terms(segment.data);
    }
    return loader.finish();
  } catch (error) {
    return error as Error;
  }
}

const byPath = (a: [string, string], b: [string, string]) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);

describe('a cold build’s text index', () => {
  it('saves the bytes a TextIndex saves, for notes in path order', () => {
    fc.assert(
      fc.property(vaultNotes, (notes) => {
        const { plain, cold } = both([...notes].sort(byPath));
        expect(cold.holdsSegments).toBe(true);
        expect(saved(cold)).toEqual(saved(plain));
      }),
      { numRuns: 150 },
    );
  });

  it('cuts its docs and terms segments where a TermIndex’s save cuts them', () => {
    fc.assert(
      fc.property(vaultNotes, fc.integer({ min: 60, max: 2000 }), (notes, segment) => {
        const limits: TextStoreLimits = { ...LIMITS, segment };
        const terms = new TermIndex(TERM_OPTIONS);
        const coldTerms = new ColdTerms(TERM_OPTIONS, segment);
        const ids: Array<[string, string[]]> = [];
        for (const [path, text] of [...notes].sort(byPath)) {
          const documents = sectionDocuments(note(path, text));
          if (!coldTerms.accepts(path, documents)) return; // the pair of paths whose ids collide
          coldTerms.add(path, documents);
          for (const document of documents) terms.add(document.id, document as never);
          ids.push([path, documents.map((document) => document.id)]);
        }
        const plain = [...textStoreSegments(terms, ids, limits)].map((s) => [s.part, Buffer.from(s.data)]);
        expect([...coldTerms.segments()].map((s) => [s.part, Buffer.from(s.data)])).toEqual(plain);
      }),
      { numRuns: 100 },
    );
  });

  it('becomes a TextIndex when a note comes out of order, and answers as one, saved or not', () => {
    fc.assert(
      fc.property(vaultNotes, (notes) => {
        const { plain, cold } = both(notes);
        expectSameAnswers(cold, plain);
      }),
      { numRuns: 100 },
    );
  });

  it('keeps postings exactly across many blocks and multi-byte frequencies', () => {
    const notes: Array<[string, string]> = [];
    // `river` in every note: 2 bytes a posting, 10 KB, past several of the largest blocks (4 KiB).
    for (let i = 0; i < 5000; i++) {
      const repeat = Array.from({ length: i % 50 === 0 ? 130 + (i % 7) : i % 3 }, () => 'tea').join(' ');
      notes.push([`n/${String(i).padStart(5, '0')}.md`, `# N${i}\n\nriver ${repeat} w${i % 97}\n`]);
    }
    const { plain, cold } = both(notes);
    expect(saved(cold)).toEqual(saved(plain));
    expect(cold.search('tea river')).toEqual(plain.search('tea river'));
  });

  it('takes no note whose path an earlier id not of the form `path#anchor` could be read as', () => {
    // The parser's ids never hold a `#` after the path's; an id that did could name a later note.
    const doc = (id: string, path: string) =>
      ({ ...sectionDocuments(note(path, '# t\n\nx\n'))[0], id }) as never;
    const terms = new ColdTerms(TERM_OPTIONS);
    expect(terms.accepts('a.md', [doc('a.md#x.md#y', 'a.md')])).toBe(true);
    terms.add('a.md', [doc('a.md#x.md#y', 'a.md')]);
    expect(terms.accepts('a.md#x.md', [doc('a.md#x.md#z', 'a.md#x.md')])).toBe(false);
    expect(terms.accepts('b.md', [doc('a.md#x.md#y', 'b.md')])).toBe(false);
    expect(terms.accepts('b.md', [doc('b.md#y', 'b.md'), doc('b.md#y', 'b.md')])).toBe(false);
    expect(terms.accepts('a.md', [doc('a.md#q', 'a.md')])).toBe(false);
    expect(terms.accepts('b.md', [doc('b.md#y', 'b.md')])).toBe(true);
  });

  it('is made again from the notes when an add fails half-way (memory ran out)', () => {
    const notes = [
      note('a.md', '# tea\n\nriver walk\n'),
      note('b.md', '# walk\n\ntea pottery\n'),
      note('c.md', '# c\n\nriver\n'),
    ];
    const plain = new TextIndex();
    for (const n of notes) plain.add(n);
    const cold = new ColdTextIndex();
    cold.rebuildFrom = () => notes;
    const reasons: string[] = [];
    cold.onRebuilt = (reason) => reasons.push(reason);
    cold.add(notes[0] as Note);
    const post = vi.spyOn(ColdTerms.prototype as unknown as { post(): void }, 'post');
    post.mockImplementationOnce(() => {
      throw new RangeError('Array buffer allocation failed');
    });
    expect(() => cold.add(notes[1] as Note)).toThrow(RangeError);
    post.mockRestore();
    cold.add(notes[2] as Note);
    expect(cold.search('tea river walk')).toEqual(plain.search('tea river walk'));
    expect(reasons).toHaveLength(1);
  });

  it('answers every question a TextIndex answers only after becoming one', () => {
    // Every method of TextIndex's own is overridden, or only ever called by those that are.
    const internal = new Set([
      'constructor',
      'guard',
      'take',
      'idsOf',
      'liveIds',
      'dropIds',
      'sortedPathIds',
      'addDocuments',
      'addFresh',
      'discard',
      'replaceNow',
      'replaceSections',
      'appendSections',
      'topKSearch',
      'rarity',
      'holdFiles',
    ]);
    const own = new Set(Object.getOwnPropertyNames(ColdTextIndex.prototype));
    const missing = Object.getOwnPropertyNames(TextIndex.prototype).filter(
      (name) => !internal.has(name) && !own.has(name),
    );
    expect(missing).toEqual([]);
  });
});

describe('a cold build saved', () => {
  /** Notes enough for a build that spills (refreshIndex with spillFrom 1). */
  function files(): Record<string, string> {
    const out: Record<string, string> = {};
    for (let i = 0; i < 120; i++)
      out[`insights/fact-${i}.md`] = `# Fact ${i}\n\ntea number ${i} by the river ${i % 9}\n`;
    for (let d = 10; d < 19; d++)
      out[`episodes/daily/2026-11-${d}.md`] = `# 2026-11-${d}\n\n- 09:00 **Rain:** tea walk ^e1\n`;
    return out;
  }

  /**
   * A vault indexed twice, holding every note (`held`) and by a cold build saved (`index`, whose
   * text index's rebuilds are told in `reasons`).
   */
  async function savedBuild(): Promise<{
    root: string;
    held: VaultIndex;
    index: VaultIndex;
    reasons: string[];
  }> {
    const root = await makeVault(files());
    const held = new VaultIndex();
    await refreshIndex(root, held);
    const index = new VaultIndex();
    index.spillFrom = 1;
    await refreshIndex(root, index);
    expect(index.text).toBeInstanceOf(ColdTextIndex);
    expect((index.text as ColdTextIndex).holdsSegments).toBe(true);
    const reasons: string[] = [];
    index.text.onRebuilt = (reason) => reasons.push(reason);
    expect(await saveIndexCache(root, index)).toEqual({ saved: true });
    return { root, held, index, reasons };
  }

  it('reads its text index from the files it saved, answering as an index that held it', async () => {
    const { root, held, index, reasons } = await savedBuild();
    expect((index.text as ColdTextIndex).holdsSegments).toBe(false);
    for (const query of ['tea', 'river 3', 'walk Rain'])
      expect(index.text.search(query)).toEqual(held.text.search(query));
    const loaded = await loadIndexCache(root);
    if (loaded.status !== 'loaded') throw new Error(loaded.status);
    expect(loaded.index.text.search('tea river')).toEqual(held.text.search('tea river'));
    index.text.close();
    loaded.index.text.close();
    expect(reasons).toEqual([]);
  });

  it('reads the files it saved even when the cache folder is removed before the first search', async () => {
    const { root, held, index, reasons } = await savedBuild();
    await rm(join(root, '.mem'), { recursive: true, force: true });
    expect(index.text.search('tea river')).toEqual(held.text.search('tea river'));
    expect(reasons).toEqual([]);
    index.text.close();
  });

  it('rebuilds its text index from the notes when a saved file is damaged before it is read', async () => {
    const { root, held, index, reasons } = await savedBuild();
    const manifest = JSON.parse(await readFile(join(root, '.mem', 'index', 'manifest.json'), 'utf8'));
    const terms = manifest.segments.find((segment: { part: string }) => segment.part === 'terms');
    await truncate(join(root, '.mem', 'index', manifest.generation, terms.file), 10);
    expect(index.text.search('tea river')).toEqual(held.text.search('tea river'));
    expect(reasons).toHaveLength(1);
    expect(reasons[0]).toContain('could not be read');
    index.text.close();
  });
});
