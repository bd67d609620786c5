import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  commentSpans,
  escapeComments,
  escapePercents,
  unescapePercents,
  visibleText,
  withoutComments,
} from '../../src/vault/markdown/comments.js';
import { parseNote } from '../../src/vault/markdown/parse-note.js';

describe('commentSpans', () => {
  it('finds closed comments, markers included, and lets an unclosed %% run to the end', () => {
    const text = 'a %%b%% c %%d';
    expect(commentSpans(text)).toEqual([
      [2, 7],
      [10, 13],
    ]);
  });

  it('reads %% inside skipped spans (code, frontmatter) as literal', () => {
    const text = '`%%` x %%y%%';
    expect(commentSpans(text, [[0, 4]])).toEqual([[7, 12]]);
  });
});

describe('visibleText', () => {
  it('returns the slice exactly as written when nothing in it is hidden', () => {
    expect(visibleText('a  \nb\n\n\n\nc', [[20, 30]], 0, 9)).toBe('a  \nb\n\n\n\n');
  });

  it('cuts hidden spans out and tidies the spaces and blank lines they leave', () => {
    const text = 'a %%x%% b\n%%\nhidden\n%%\n\n\nc';
    expect(visibleText(text, commentSpans(text))).toBe('a b\n\nc');
  });
});

describe('withoutComments', () => {
  it('hides closed and unclosed comments of a whole note but keeps %% in code', () => {
    const note = 'Keep `%%` this. %%secret%% Shown.\n\n%% unclosed secret\nstill secret\n';
    expect(withoutComments(note)).toBe('Keep `%%` this. Shown.\n\n');
  });

  it('keeps %% in frontmatter, which is YAML, not a comment', () => {
    expect(withoutComments('---\nratio: 50%%\n---\nA %%b%% c\n')).toBe('---\nratio: 50%%\n---\nA c\n');
  });
});

describe('parseNote hides comments from everything it reads', () => {
  const text =
    '# Title %%walrus%%\nText %%walrus%% here. #seen\n\n%%\n## Walrus heading\nwalrus ^walrus #walrus [[Walrus]]\n%%\n\n## After\nShown ^b1\n\n%% unclosed walrus\n## Walrus too\n- walrus [[Walrus2]] #walrus2 ^w2\n';
  const note = parseNote('other/x.md', text);

  it('reads no heading, block id, tag or link from inside a comment', () => {
    expect(note.headings.map((h) => h.text)).toEqual(['Title', 'After']);
    expect(note.title).toBe('Title');
    expect(note.blocks.map((b) => b.id)).toEqual(['b1']);
    expect(note.tags).toEqual(['seen']);
    expect(note.links).toEqual([]);
  });

  it('keeps comment text out of section text, offsets still into the file', () => {
    expect(JSON.stringify(note)).not.toMatch(/walrus/i);
    expect(note.sections.map((s) => [s.anchor, s.text])).toEqual([
      ['Title', 'Text here. #seen'],
      ['After', 'Shown'],
    ]);
    const after = note.sections[1]!;
    expect(text.slice(after.start, after.start + 8)).toBe('## After');
  });
});

describe('escapePercents / unescapePercents', () => {
  it('reading gives back any text written, and what is written opens no comment', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('%', '\\', 'a', ' ', '`') }), (text) => {
        const written = escapePercents(text);
        expect(written).not.toContain('%%');
        expect(unescapePercents(written)).toBe(text);
      }),
      { numRuns: 500 },
    );
  });

  it('a note written through escapeComments shows its %% as written in its sections (compile, recall), not %\\%', () => {
    const text = `# Deal\n\n${escapeComments('双十一 50%% off, and %\\% literally')}\n`;
    expect(text).toContain('50%\\% off');
    const [section] = parseNote('insights/deal.md', text).sections;
    expect(section?.text).toBe('双十一 50%% off, and %\\% literally');
  });

  it('escapeComments keeps no lone surrogate, NUL, ESC sequence or BiDi override (what a model answers goes into a note)', () => {
    expect(escapeComments('a\ud800b\0c\x1b[31md\u202ee %%')).toBe('a\ufffdbcde %\\%');
  });
});
