import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { LinkRef } from '../../src/core/types.js';
import { maskIgnored, scanLinks } from '../../src/vault/links/scan-links.js';

/** The parts of a link a test cares about, without offsets. */
function parts(text: string): Array<Pick<LinkRef, 'kind' | 'target' | 'subpath' | 'alias'>> {
  return scanLinks(text).map(({ kind, target, subpath, alias }) => {
    const out: Pick<LinkRef, 'kind' | 'target' | 'subpath' | 'alias'> = { kind, target };
    if (subpath !== undefined) out.subpath = subpath;
    if (alias !== undefined) out.alias = alias;
    return out;
  });
}

describe('scanLinks: wiki links', () => {
  it.each([
    ['[[Note]]', { kind: 'wiki', target: 'Note' }],
    ['[[Note|alias]]', { kind: 'wiki', target: 'Note', alias: 'alias' }],
    ['[[Note#Heading]]', { kind: 'wiki', target: 'Note', subpath: '#Heading' }],
    ['[[Note#H1#H2]]', { kind: 'wiki', target: 'Note', subpath: '#H1#H2' }],
    ['[[#H]]', { kind: 'wiki', target: '', subpath: '#H' }],
    ['[[Note#^block]]', { kind: 'wiki', target: 'Note', subpath: '#^block' }],
    ['[[folder/Note]]', { kind: 'wiki', target: 'folder/Note' }],
    ['[[Note.md]]', { kind: 'wiki', target: 'Note.md' }],
    ['[[./x]]', { kind: 'wiki', target: './x' }],
    ['[[../x]]', { kind: 'wiki', target: '../x' }],
    ['[[/x]]', { kind: 'wiki', target: '/x' }],
    ['![[Note]]', { kind: 'embed', target: 'Note' }],
    ['![[Note#^id]]', { kind: 'embed', target: 'Note', subpath: '#^id' }],
    ['![[img.png|100x145]]', { kind: 'embed', target: 'img.png', alias: '100x145' }],
    ['| a | [[Note\\|alias]] |', { kind: 'wiki', target: 'Note', alias: 'alias' }],
    ['[[Note#Head|shown]]', { kind: 'wiki', target: 'Note', subpath: '#Head', alias: 'shown' }],
    ['[[西湖#景点]]', { kind: 'wiki', target: '西湖', subpath: '#景点' }],
  ])('reads %s', (text, expected) => {
    expect(parts(text)).toEqual([expected]);
  });

  it('reports exact offsets and 1-based lines', () => {
    const text = 'a 😀 [[One]]\n\n![[Two|x]] b';
    expect(scanLinks(text)).toEqual([
      { kind: 'wiki', target: 'One', raw: '[[One]]', start: 5, end: 12, line: 1 },
      { kind: 'embed', target: 'Two', alias: 'x', raw: '![[Two|x]]', start: 14, end: 24, line: 3 },
    ]);
  });

  it('shifts offsets and lines by the given offset and lineOffset', () => {
    expect(scanLinks('x\n[[A]]', { offset: 100, lineOffset: 9 })).toEqual([
      { kind: 'wiki', target: 'A', raw: '[[A]]', start: 102, end: 107, line: 11 },
    ]);
  });

  it('does not read empty, escaped or multi-line brackets as links', () => {
    expect(scanLinks('[[]] [[#]] [[|x]] \\[[esc]] [[a\nb]] [ [x] ]')).toEqual([]);
  });
});

describe('scanLinks: Markdown links', () => {
  it.each([
    [
      '[t](My%20Note.md#Some%20Heading)',
      { kind: 'markdown', target: 'My Note.md', subpath: '#Some Heading', alias: 't' },
    ],
    ['[t](<My Note.md>)', { kind: 'markdown', target: 'My Note.md', alias: 't' }],
    ['[t](Note)', { kind: 'markdown', target: 'Note', alias: 't' }],
    ['[t](Note.md "Title")', { kind: 'markdown', target: 'Note.md', alias: 't' }],
    ['[t](#Local)', { kind: 'markdown', target: '', subpath: '#Local', alias: 't' }],
    ['[t](100%.md)', { kind: 'markdown', target: '100%.md', alias: 't' }],
    ['[t](a%23b.md)', { kind: 'markdown', target: 'a#b.md', alias: 't' }],
    ['![alt](pic%201.png)', { kind: 'embed', target: 'pic 1.png', alias: 'alt' }],
    ['[](Note.md)', { kind: 'markdown', target: 'Note.md' }],
  ])('reads %s', (text, expected) => {
    expect(parts(text)).toEqual([expected]);
  });

  it('skips external URLs of any scheme', () => {
    const text =
      '[a](http://x.com/a.md) [b](https://x.com) [c](mailto:a@b.c) [d](obsidian://open) [e](ftp://h/f) [f](//cdn/x.md) <https://auto/x.md>';
    expect(scanLinks(text)).toEqual([]);
  });

  it('does not read an escaped bracket as a link', () => {
    expect(scanLinks('\\[t](Note.md)')).toEqual([]);
  });
});

describe('scanLinks: code and comments', () => {
  it('skips inline code spans, including double-backtick ones', () => {
    expect(parts('`[[A]]` ``[[B `x` ]]`` [[C]]')).toEqual([{ kind: 'wiki', target: 'C' }]);
  });

  it('skips backtick and tilde fences and indented code', () => {
    const text = '```\n[[A]]\n```\n\n~~~\n[t](B.md)\n~~~\n\n    [[C]]\n\n[[D]]\n';
    expect(parts(text)).toEqual([{ kind: 'wiki', target: 'D' }]);
  });

  it('reads links in a list item continuation that is indented like code but is not code', () => {
    expect(parts('- item\n\n    [[A]]\n')).toEqual([{ kind: 'wiki', target: 'A' }]);
  });

  it('skips inline and multi-line %%comments%%', () => {
    const text = 'x %%[[A]]%% [[B]]\n%%\n[[C]]\n%%\n[[D]] %% unclosed [[E]]';
    expect(parts(text)).toEqual([
      { kind: 'wiki', target: 'B' },
      { kind: 'wiki', target: 'D' },
    ]);
  });

  it('treats %% inside code as literal, not as a comment start', () => {
    expect(parts('`%%` [[A]] `%%`')).toEqual([{ kind: 'wiki', target: 'A' }]);
  });

  it('uses the given code spans instead of parsing the text again', () => {
    expect(parts('[[A]]')).toEqual([{ kind: 'wiki', target: 'A' }]);
    expect(scanLinks('[[A]] [[B]]', { skip: [[0, 5]] }).map((l) => l.target)).toEqual(['B']);
  });

  it('keeps offsets exact with a BOM and CRLF line endings', () => {
    const text = '\uFEFF# T\r\n\r\n`[[no]]` [[Yes]]\r\n';
    const [link] = scanLinks(text);
    expect(link).toEqual({ kind: 'wiki', target: 'Yes', raw: '[[Yes]]', start: 17, end: 24, line: 3 });
  });
});

describe('maskIgnored', () => {
  it('blanks code spans and comments while keeping length and line breaks', () => {
    const text = 'a `b` %%c\r\nd%% e';
    const masked = maskIgnored(text, [[2, 5]]);
    expect(masked).toBe(`a${' '.repeat(8)}\r\n    e`);
    expect(masked.length).toBe(text.length);
  });
});

describe('scanLinks invariants', () => {
  it('slices every raw exactly and never throws, whatever the text', () => {
    const pieces = fc.constantFrom(
      '[[',
      ']]',
      '[',
      ']',
      '(',
      ')',
      '<',
      '>',
      '!',
      '|',
      '\\',
      '#',
      '^',
      '`',
      '```\n',
      '~~~\n',
      '    ',
      '%%',
      '\n',
      '\r\n',
      'a',
      'Note',
      '.md',
      '%20',
      'http:',
      '😀',
      '中',
    );
    fc.assert(
      fc.property(fc.array(pieces, { maxLength: 50 }), (list) => {
        const text = list.join('');
        let lastStart = -1;
        for (const link of scanLinks(text)) {
          expect(text.slice(link.start, link.end)).toBe(link.raw);
          expect(link.line).toBe(text.slice(0, link.start).split('\n').length);
          expect(link.start).toBeGreaterThan(lastStart);
          lastStart = link.start;
        }
      }),
      { numRuns: 500 },
    );
  });
});
