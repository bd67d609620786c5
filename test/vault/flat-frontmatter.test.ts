import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readFlatFrontmatter } from '../../src/vault/markdown/flat-frontmatter.js';
import { LineIndex } from '../../src/vault/markdown/line-index.js';
import { frontmatterBlock, parseMarkdown } from '../../src/vault/markdown/parse-markdown.js';
import { readFrontmatter } from '../../src/vault/markdown/read-frontmatter.js';
import { parseCorpus } from '../helpers/parse-corpus.js';

/** The frontmatter of `text` read with and without the flat fast path. */
function bothWays(path: string, text: string) {
  const block = frontmatterBlock(parseMarkdown(text), text);
  const lines = new LineIndex(text);
  return {
    fast: readFrontmatter(path, text, lines, block),
    full: readFrontmatter(path, text, lines, block, { flat: false }),
  };
}

const PIECES = [
  'a',
  'Rain',
  ' ',
  ':',
  ': ',
  '#',
  ' #',
  '[',
  ']',
  ',',
  ', ',
  '"',
  "'",
  '-',
  '- ',
  '1',
  '0',
  '.',
  'e',
  '5',
  '[[X]]',
  '[[Y|y]]',
  '![[Z]]',
  'true',
  'False',
  'null',
  '~',
  '\\',
  '\t',
  '林雨',
  '🎉',
  '&a',
  '*a',
  '!',
  '|',
  '>',
  '%',
  '@',
  '`',
  '0x1F',
  '0o7',
  '.inf',
  '.NaN',
  '1e3',
  '2026-11-29',
  '2024-01-03T13:00:00+08:00',
  '{',
  '}',
  '?',
  '\u2028',
  '\u0085',
  '\r',
  '\ufeff',
  '\n',
  '  ',
];
const value = fc.array(fc.constantFrom(...PIECES), { maxLength: 6 }).map((parts) => parts.join(''));
const key = fc.constantFrom(
  'title',
  'tags',
  'aliases',
  'importance',
  'a_b',
  'x-y',
  'true',
  'Null',
  '__proto__',
  '1a',
  'k k',
);
const line = fc.oneof(
  fc.tuple(key, value).map(([k, v]) => `${k}: ${v}`),
  fc.tuple(key, fc.array(value, { maxLength: 4 })).map(([k, vs]) => `${k}: [${vs.join(', ')}]`),
  fc
    .tuple(key, fc.array(value, { maxLength: 3 }))
    .map(([k, vs]) => `${k}: [${vs.map((v) => `"${v}"`).join(', ')}]`),
);

describe('flat frontmatter fast path', () => {
  it('reads typical flat blocks itself, with numbers, booleans, dates, quoted links and lists', () => {
    const source =
      'title: "测试老街"\ntags: [fact, shopping]\nimportance: 0.57\npinned: true\ncreated: 2024-01-03T13:00:00+08:00\nsources: ["[[2025-05-28#^e4]]", "[[2024-12-07#^e7]]"]\n';
    expect(readFlatFrontmatter(source)?.data).toEqual({
      title: '测试老街',
      tags: ['fact', 'shopping'],
      importance: 0.57,
      pinned: true,
      created: '2024-01-03T13:00:00+08:00',
      sources: ['[[2025-05-28#^e4]]', '[[2024-12-07#^e7]]'],
    });
    const { fast, full } = bothWays('insights/x.md', `---\n${source}---\nbody\n`);
    expect(fast).toEqual(full);
    expect(fast.links.map((l) => l.target)).toEqual(['2025-05-28', '2024-12-07']);
  });

  it('leaves YAML features to the parser: nesting, block lists, comments, anchors, escapes, odd numbers', () => {
    for (const source of [
      'a:\n  b: 1\n',
      'tags:\n- x\n',
      'a: b # note\n',
      'a: &x 1\n',
      'a: "q\\"uote"\n',
      'a: 0x1F\n',
      'a: -1\n',
      'a: b\na: c\n',
      'a: b\n\nc: d\n',
      'a: [x,y]\n',
    ])
      expect(readFlatFrontmatter(source)).toBeUndefined();
  });

  it('answers exactly as the YAML parser for every note of the hostile corpus, the example vault and the fixtures', async () => {
    let flat = 0;
    for (const [path, text] of await parseCorpus()) {
      if (!text.replace(/^\ufeff/, '').startsWith('---')) continue;
      const block = frontmatterBlock(parseMarkdown(text), text);
      const lines = new LineIndex(text);
      const fast = readFrontmatter(path, text, lines, block);
      expect(fast, path).toEqual(readFrontmatter(path, text, lines, block, { flat: false }));
      if (block && readFlatFrontmatter(text.slice(...block.yaml))) flat++;
    }
    // The property would hold vacuously if the fast path never answered.
    expect(flat).toBeGreaterThan(10);
  }, 120_000);

  it('answers exactly as the YAML parser for generated blocks of tricky lines', () => {
    fc.assert(
      fc.property(fc.array(line, { minLength: 1, maxLength: 5 }), (lines) => {
        const { fast, full } = bothWays('insights/g.md', `---\n${lines.join('\n')}\n---\nbody\n`);
        expect(fast).toEqual(full);
      }),
      { numRuns: 1000 },
    );
  }, 120_000);
});
