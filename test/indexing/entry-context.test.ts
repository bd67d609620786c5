import { describe, expect, it } from 'vitest';
import type { Note, Section } from '../../src/core/types.js';
import { dateWords } from '../../src/indexing/text/section-documents.js';
import type { TermIndex } from '../../src/indexing/text/term-index.js';
import { TEXT_INDEX_VERSION, TextIndex } from '../../src/indexing/text/text-index.js';
import { processTerm, tokenize } from '../../src/indexing/text/tokenize.js';
import { reloaded } from '../helpers/reload-text-index.js';

const PATH = 'episodes/daily/2026-05-04.md';

/** A day note of entries (one block section each, `^e1` …), as the parser gives it. */
function day(texts: string[], path = PATH, layer: Note['layer'] = 'episodes'): Note {
  const sections: Section[] = texts.map((text, i) => ({
    id: `${path}#^e${i + 1}`,
    anchor: `^e${i + 1}`,
    kind: 'block',
    text,
    start: i * 100,
    end: i * 100 + text.length,
    line: i + 5,
    date: '2026-05-04',
    speaker: i % 2 === 0 ? 'Mei' : 'Rain',
  }));
  return {
    path,
    layer,
    frontmatter: {},
    title: '2026-05-04',
    aliases: [],
    tags: [],
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

const CHAT = [
  'The weather was grey all morning.',
  'Do you still go to the pottery class?',
  'Yes, every Sunday since June, I made two bowls.',
  'Lovely. Shall we get lunch on Friday?',
  'Friday works, the noodle place by the station.',
];

const QUERIES = ['pottery', 'climbing', 'friday', 'suzhou', 'weather', 'bowls', 'noodle station'];

const ids = (index: TextIndex, query: string) =>
  index.search(query).map((hit) => hit.id.slice(hit.id.indexOf('#')));

const termIndexOf = (index: TextIndex) => (index as unknown as { terms: TermIndex }).terms;

describe('an episode entry indexed with the words of the entries before it', () => {
  it('finds the reply by the topic named a turn earlier, below the entry that names it', () => {
    const index = new TextIndex();
    index.add(day(CHAT));
    const found = ids(index, 'pottery');
    expect(found[0]).toBe('#^e2');
    // The reply (one entry later) and the one after it, at a third of the weight.
    expect(found).toEqual(['#^e2', '#^e3', '#^e4']);
    const [own, reply] = index.search('pottery');
    expect(reply?.score ?? 1).toBeLessThan((own?.score ?? 0) / 2);
    // Three entries later the topic is no longer lent.
    expect(found).not.toContain('#^e5');
    // The entry that says it matched its own words; the replies, the words before them alone.
    expect(index.search('pottery').map((hit) => hit.onlyContext)).toEqual([false, true, true]);
  });

  it('tells a hit by its context alone from the postings, as splitting its own words tells it', () => {
    // Over seeded days and queries: onlyContext is true exactly when no matched term is one of
    // the section's own words (its text, speaker, heading, title and date), split as indexed.
    const words = [
      'pottery',
      'bowls',
      'friday',
      'noodle',
      'station',
      'rain',
      'Mei',
      'May',
      '2026',
      '上海',
      '火锅',
    ];
    let random = 7;
    const next = () => {
      random = (random * 1103515245 + 12345) % 2147483648;
      return random / 2147483648;
    };
    const pick = () => words[Math.floor(next() * words.length)] as string;
    for (let round = 0; round < 40; round++) {
      const texts = Array.from({ length: 3 + Math.floor(next() * 5) }, () =>
        Array.from({ length: 1 + Math.floor(next() * 4) }, pick).join(' '),
      );
      const note = day(texts);
      const index = new TextIndex();
      index.add(note);
      for (let q = 0; q < 4; q++) {
        const query = `${pick()} ${pick()}`;
        for (const hit of index.search(query)) {
          const section = note.sections.find((s) => s.id === hit.id) as Section;
          const heading = `${note.title}`;
          const own = new Set(
            tokenize(
              [note.title, heading, section.speaker ?? '', dateWords('2026-05-04'), section.text].join('\n'),
            ).map(processTerm),
          );
          expect(hit.onlyContext, `${query} in ${section.text}`).toBe(
            !hit.terms.some((term) => own.has(term)),
          );
        }
      }
    }
  });

  it('lends nothing across days, and nothing outside episodes', () => {
    const twoDays = day(CHAT);
    // A note holding two days: the day changes at ^e3.
    twoDays.sections = twoDays.sections.map((section, i) =>
      i >= 2 ? { ...section, date: '2026-05-05' } : section,
    );
    const index = new TextIndex();
    index.add(twoDays);
    expect(ids(index, 'pottery')).toEqual(['#^e2']);
    const insight = new TextIndex();
    insight.add(day(CHAT, 'insights/pottery-notes.md', 'insights'));
    expect(ids(insight, 'weather')).toEqual(['#^e1']);
  });

  it('re-indexes the entries after an edited one: they no longer answer for its old words', () => {
    const before = day(CHAT);
    const after = day(CHAT.map((text, i) => (i === 1 ? 'Do you still go to the climbing gym?' : text)));
    const live = new TextIndex();
    live.add(before);
    live.replace(after, before);
    // Comparing sections alone would have kept ^e3 and ^e4, still holding "pottery".
    expect(ids(live, 'pottery')).toEqual([]);
    expect(ids(live, 'climbing')).toEqual(['#^e2', '#^e3', '#^e4']);
    // ^e2, ^e3 and ^e4 were discarded and added again; ^e1 and ^e5 were kept.
    expect(termIndexOf(live).dirtCount).toBe(3);
  });

  it('indexes only the appended entry when a turn is added to the day', () => {
    const before = day(CHAT);
    const live = new TextIndex();
    live.add(before);
    const after = day([...CHAT, 'The pottery teacher is moving to Suzhou.']);
    live.replace(after, before);
    expect(termIndexOf(live).dirtCount).toBe(0);
    expect(live.size).toBe(CHAT.length + 1);
    expect(ids(live, 'suzhou')).toEqual(['#^e6']);
    // It holds the two turns before it: "friday" reaches it, at a third of the weight.
    expect(ids(live, 'noodle')).toEqual(['#^e5', '#^e6']);
  });

  it('answers after an append, an edit or a removal as an index built afresh does, and from its cache', () => {
    const edits: string[][] = [
      [...CHAT, 'The pottery teacher is moving to Suzhou.'],
      CHAT.map((text, i) => (i === 1 ? 'Do you still go to the climbing gym?' : text)),
      CHAT.map((text, i) => (i === 0 ? 'Sunny, finally. Friday looks fine too.' : text)),
      CHAT.filter((_, i) => i !== 1),
      CHAT.slice(1),
      [CHAT[0] as string, 'Bowls?', ...CHAT.slice(1)],
    ];
    for (const texts of edits) {
      const live = new TextIndex();
      const before = day(CHAT);
      live.add(before);
      const after = day(texts);
      live.replace(after, before);
      const fresh = new TextIndex();
      fresh.add(after);
      const restored = reloaded(live);
      for (const query of QUERIES) {
        expect(live.search(query)).toEqual(fresh.search(query));
        expect(restored.search(query)).toEqual(fresh.search(query));
      }
    }
  });

  it('takes the end of a long entry as the next one’s context, from a whole word', () => {
    const long = `pottery ${'and then we talked about the weather '.repeat(30)}and the kiln firing`;
    const index = new TextIndex();
    index.add(day([long, 'It cracked twice.']));
    expect(ids(index, 'kiln')).toEqual(['#^e1', '#^e2']);
    expect(ids(index, 'pottery')).toEqual(['#^e1']);
  });

  it('is saved under a version that a cache made before it fails (and is rebuilt)', () => {
    const index = new TextIndex();
    index.add(day(CHAT));
    const header = index.storeHeader();
    expect(header.version).toBe(TEXT_INDEX_VERSION);
    expect(() => TextIndex.loader({ ...header, version: TEXT_INDEX_VERSION - 1 })).toThrow(/rebuild it/);
  });
});
