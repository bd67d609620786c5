import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Note } from '../../src/core/types.js';
import { layerOf } from '../../src/vault/layout.js';
import { parseNote } from '../../src/vault/markdown/parse-note.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/parse/', import.meta.url));

/**
 * Golden fixtures: `a__b__c.md` is parsed as the vault path `a/b/c.md` and compared with `a__b__c.json`.
 * A name containing `.crlf` is converted to CRLF line endings before parsing, so the fixture
 * survives editors and git settings that normalise line endings.
 * Run with `UPDATE_FIXTURES=1` to rewrite the .json files on purpose (then `npx biome format --write`).
 */
function fixtureInput(file: string): { path: string; text: string } {
  const raw = readFileSync(join(FIXTURES, file), 'utf8');
  const crlf = file.includes('.crlf.');
  return {
    path: file.replace('.crlf.', '.').replaceAll('__', '/'),
    text: crlf ? raw.replace(/\r?\n/g, '\r\n') : raw,
  };
}

function expectOffsetsExact(note: Note, text: string): void {
  for (const link of note.links) expect(text.slice(link.start, link.end)).toBe(link.raw);
  // Heading text joins the lines of a setext heading with spaces.
  const flat = (s: string) => s.replace(/\s+/g, ' ');
  for (const heading of note.headings) {
    const raw = flat(text.slice(heading.start, heading.end));
    // A %%comment%% inside a heading is left out of its text: then the text is what remains of the raw.
    if (text.includes('%%'))
      expect(isSubsequence(flat(heading.text), raw), `${heading.text} in ${raw}`).toBe(true);
    else expect(raw).toContain(flat(heading.text));
  }
}

function isSubsequence(part: string, whole: string): boolean {
  const wanted = Array.from(part);
  let i = 0;
  for (const ch of whole) if (ch === wanted[i]) i++;
  return i === wanted.length;
}

describe('parseNote golden fixtures', () => {
  const files = readdirSync(FIXTURES)
    .filter((f) => f.endsWith('.md'))
    .sort();

  it('has fixtures to check', () => {
    expect(files.length).toBeGreaterThanOrEqual(18);
  });

  for (const file of files) {
    it(`parses ${file} as recorded`, () => {
      const { path, text } = fixtureInput(file);
      const note = parseNote(path, text);
      expectOffsetsExact(note, text);
      const golden = join(FIXTURES, file.replace(/\.md$/, '.json'));
      if (process.env['UPDATE_FIXTURES'] === '1') writeFileSync(golden, `${JSON.stringify(note, null, 2)}\n`);
      expect(note).toEqual(JSON.parse(readFileSync(golden, 'utf8')));
    });
  }
});

describe('layerOf', () => {
  it('takes the first folder of the path when it is a known layer', () => {
    expect(layerOf('persona/voice.md')).toBe('persona');
    expect(layerOf('profile/people/mei.md')).toBe('profile');
    expect(layerOf('episodes/daily/2026-03-14.md')).toBe('episodes');
    expect(layerOf('insights/x.md')).toBe('insights');
    expect(layerOf('archive/old/x.md')).toBe('archive');
  });

  it('is other for unknown folders, root files and look-alike names', () => {
    expect(layerOf('notes/persona/x.md')).toBe('other');
    expect(layerOf('persona.md')).toBe('other');
    expect(layerOf('Persona/x.md')).toBe('other');
    expect(layerOf('personal/x.md')).toBe('other');
  });
});

describe('parseNote', () => {
  it('hashes the UTF-8 bytes and defaults size to their length and mtime to 0', () => {
    const text = '\uFEFF# 你好 🎉\n';
    const note = parseNote('other/x.md', text);
    expect(note.hash).toBe(createHash('sha256').update(Buffer.from(text, 'utf8')).digest('hex'));
    expect(note.size).toBe(Buffer.byteLength(text, 'utf8'));
    expect(note.mtimeMs).toBe(0);
    expect(parseNote('other/x.md', text, { size: 99, mtimeMs: 1234 })).toMatchObject({
      size: 99,
      mtimeMs: 1234,
    });
  });

  it('takes the title from frontmatter, else the first level-1 heading, else the file name', () => {
    expect(parseNote('a/x.md', '---\ntitle: From FM\n---\n# H1\n').title).toBe('From FM');
    expect(parseNote('a/x.md', '## Two\n\n# One\n').title).toBe('One');
    expect(parseNote('a/My Note.md', '## Two only\n').title).toBe('My Note');
  });

  it('reads aliases as a list, a comma-separated string, or the older alias key', () => {
    expect(parseNote('x.md', '---\naliases: [A, B]\n---\n').aliases).toEqual(['A', 'B']);
    expect(parseNote('x.md', '---\naliases: A, B\n---\n').aliases).toEqual(['A', 'B']);
    expect(parseNote('x.md', '---\nalias: Solo\n---\n').aliases).toEqual(['Solo']);
    expect(parseNote('x.md', '---\naliases:\n---\n').aliases).toEqual([]);
  });

  it('lower-cases and deduplicates tags, frontmatter first, in order of appearance', () => {
    const note = parseNote('x.md', '---\ntags: "#B a"\n---\n#C text #b and #a/x #1984\n');
    expect(note.tags).toEqual(['b', 'a', 'c', 'a/x']);
  });

  it('keeps frontmatter dates as the strings written, so it stays JSON-serialisable', () => {
    const note = parseNote('x.md', '---\ncreated: 2024-01-05\nat: 2020-08-21T10:30:00\ncode: 007\n---\n');
    expect(note.frontmatter).toEqual({ created: '2024-01-05', at: '2020-08-21T10:30:00', code: 7 });
  });

  it('returns a fresh frontmatter object each time, so a caller mutating it changes no later parse', () => {
    const text = '---\nlist: [a]\n---\n';
    const first = parseNote('x.md', text);
    (first.frontmatter['list'] as string[]).push('changed');
    expect(parseNote('x.md', text).frontmatter).toEqual({ list: ['a'] });
  });

  it('indexes a note with invalid YAML as plain text and names the file and line', () => {
    const text = '---\ntitle: ok\nlist: [a, b\nnext: 1\n---\nBody [[X]]\n';
    const note = parseNote('persona/voice.md', text);
    expect(note.frontmatter).toEqual({});
    expect(note.warnings).toEqual([
      'persona/voice.md: invalid frontmatter at line 4 (bad indentation); the note is indexed as plain text',
    ]);
    expect(note.sections[0]?.text).toBe('---\ntitle: ok\nlist: [a, b\nnext: 1\n---\nBody [[X]]');
    expect(note.links.map((l) => l.target)).toEqual(['X']);
  });

  it('reports duplicate keys as invalid frontmatter', () => {
    const note = parseNote('p/d.md', '---\na: 1\nb: 2\na: 3\n---\n');
    expect(note.warnings).toEqual([
      'p/d.md: invalid frontmatter at line 4 (duplicate key); the note is indexed as plain text',
    ]);
  });

  it('treats frontmatter that is not a map as invalid', () => {
    expect(parseNote('x.md', '---\n- a\n- b\n---\n').warnings).toEqual([
      'x.md: invalid frontmatter at line 2 (expected key: value properties); the note is indexed as plain text',
    ]);
  });

  it('reads frontmatter only at the very start and only when it is closed', () => {
    expect(parseNote('x.md', ' ---\na: 1\n---\n').frontmatter).toEqual({});
    expect(parseNote('x.md', '---\na: 1\n').frontmatter).toEqual({});
    expect(parseNote('x.md', '---\na: 1\n---').frontmatter).toEqual({ a: 1 });
  });

  it('suffixes section ids when two headings share a text, keeping the anchor', () => {
    const note = parseNote('n.md', '# Same\na\n## Same\nb\n');
    expect(note.sections.map((s) => [s.id, s.anchor, s.text])).toEqual([
      ['n.md#Same', 'Same', 'a'],
      ['n.md#Same (2)', 'Same', 'b'],
    ]);
  });

  it('gives sections a span that starts at the heading and ends at the last non-blank character', () => {
    const text = 'Intro\n\n# H\n\nBody ^b1\n\n\n# Next\n';
    const note = parseNote('n.md', text);
    expect(note.sections.map((s) => [s.kind, s.text, text.slice(s.start, s.end), s.line])).toEqual([
      ['preamble', 'Intro', 'Intro', 1],
      ['heading', 'Body', '# H\n\nBody ^b1', 3],
      ['heading', '', '# Next', 8],
    ]);
  });

  it('takes a block id from the end of a paragraph or list item, or from its own line after a list', () => {
    const text = 'Para one ^p1\n\n- item a ^i1\n- item b\n\n* x\n* y\n\n^list1\n\n> quote\n> more ^q1\n';
    const note = parseNote('n.md', text);
    expect(note.blocks.map((b) => [b.id, text.slice(b.start, b.end), b.line])).toEqual([
      ['p1', 'Para one ^p1', 1],
      ['i1', '- item a ^i1', 3],
      ['list1', '* x\n* y', 6],
      ['q1', 'quote\n> more ^q1', 11],
    ]);
  });

  it('splits an episode into one section per entry with date, time and speaker', () => {
    const text =
      '## Talk\n\n- 09:14 **Lin:** 我下个月搬到上海工作。 ^e1\n- 21:30 (event) Hiked with [[Mei]].\n  Long day. ^e2\n';
    const note = parseNote('episodes/daily/2026-03-14.md', text);
    expect(note.sections).toEqual([
      {
        id: 'episodes/daily/2026-03-14.md#^e1',
        anchor: '^e1',
        kind: 'block',
        heading: 'Talk',
        text: '我下个月搬到上海工作。',
        time: '09:14',
        speaker: 'Lin',
        date: '2026-03-14',
        start: 9,
        end: 41,
        line: 3,
      },
      {
        id: 'episodes/daily/2026-03-14.md#^e2',
        anchor: '^e2',
        kind: 'block',
        heading: 'Talk',
        text: '(event) Hiked with [[Mei]].\nLong day.',
        time: '21:30',
        date: '2026-03-14',
        start: 42,
        end: 93,
        line: 4,
      },
    ]);
  });

  it('dates an episode from frontmatter when the file name is not a date', () => {
    const note = parseNote('episodes/weekly/2026-W11.md', '---\ndate: 2026-03-09\n---\nSummary ^w1\n');
    expect(note.sections.map((s) => [s.anchor, s.date, s.text])).toEqual([['^w1', '2026-03-09', 'Summary']]);
  });

  it('keeps offsets into CRLF text and strips the carriage returns from text fields', () => {
    const text = '---\r\ntitle: T\r\n---\r\n# Head\r\n\r\nBody [[L]]\r\nmore\r\n';
    const note = parseNote('n.md', text);
    expect(note.links.map((l) => [l.raw, l.start, l.line])).toEqual([['[[L]]', 35, 6]]);
    expect(note.headings).toEqual([{ text: 'Head', level: 1, line: 4, start: 20, end: 26 }]);
    expect(note.sections.map((s) => s.text)).toEqual(['Body [[L]]\nmore']);
  });

  it('keeps an NFD file name as given and takes the title from it', () => {
    const path = 'profile/Cafe\u0301.md';
    const note = parseNote(path, 'text');
    expect(note.path).toBe(path);
    expect(note.title).toBe('Cafe\u0301');
  });

  it('takes the title from names holding # ^ | and :', () => {
    expect(parseNote('other/a#b^c|d: e.md', '').title).toBe('a#b^c|d: e');
  });

  it('never throws, and every link offset is exact, whatever the text', () => {
    const pieces = fc.constantFrom(
      '---\n',
      '---\r\n',
      '\uFEFF',
      '\n',
      '\r\n',
      '\t',
      ' ',
      'a: 1\n',
      'a: [\n',
      '# H\n',
      '- ',
      '[[X|y]]',
      '![[i.png]]',
      '[t](N.md)',
      '`',
      '```\n',
      '%%',
      '#tag ',
      ' ^id',
      '09:14 ',
      '**A:** ',
      '😀',
      '中文',
      '"[[F]]"',
    );
    fc.assert(
      fc.property(fc.array(pieces, { maxLength: 40 }), fc.boolean(), (parts, episode) => {
        const text = parts.join('');
        const note = parseNote(episode ? 'episodes/daily/2026-01-01.md' : 'insights/x.md', text);
        expectOffsetsExact(note, text);
        expect(() => JSON.stringify(note)).not.toThrow();
        for (const s of note.sections) expect(s.start).toBeLessThanOrEqual(s.end);
      }),
      { numRuns: 300 },
    );
  });
});
