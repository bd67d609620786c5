import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findFrontmatter } from '../../src/vault/markdown/parse-markdown.js';

/** The regexes mem used before remark-frontmatter, kept as the oracle for Obsidian's rule. */
function regexBlock(
  text: string,
): { region: [number, number]; yaml: [number, number]; eol: string } | undefined {
  const open = /^\uFEFF?---[ \t]*(\r?\n)/.exec(text);
  if (!open) return undefined;
  const yamlStart = open[0].length;
  const close = /^---[ \t]*\r?$/gm;
  close.lastIndex = yamlStart;
  const closing = close.exec(text);
  if (!closing) return undefined;
  let end = closing.index + closing[0].length;
  if (text.charCodeAt(end) === 0x0a) end++;
  return { region: [0, end], yaml: [yamlStart, closing.index], eol: open[1] ?? '\n' };
}

describe('findFrontmatter', () => {
  it('finds the block from the file start to after the closing line, and the YAML between', () => {
    expect(findFrontmatter('---\na: 1\n---\nbody')).toEqual({ region: [0, 13], yaml: [4, 9], eol: '\n' });
    expect(findFrontmatter('---\n---\n# T')).toEqual({ region: [0, 8], yaml: [4, 4], eol: '\n' });
    expect(findFrontmatter('---\na: 1\n---')).toEqual({ region: [0, 12], yaml: [4, 9], eol: '\n' });
  });

  it('keeps CRLF and counts a BOM as part of the block', () => {
    expect(findFrontmatter('---\r\na: 1\r\n---\r\nbody')).toEqual({
      region: [0, 16],
      yaml: [5, 11],
      eol: '\r\n',
    });
    expect(findFrontmatter('\uFEFF---\na: 1\n---\nbody')).toEqual({
      region: [0, 14],
      yaml: [5, 10],
      eol: '\n',
    });
  });

  it('allows trailing spaces and tabs on both fences, as Obsidian does', () => {
    expect(findFrontmatter('--- \t\na: 1\n---  \nbody')?.region).toEqual([0, 17]);
  });

  it('closes at the first --- line, even one inside a code fence in the YAML', () => {
    const text = '---\na: |\n```\n---\n```\n---\n';
    expect(findFrontmatter(text)?.yaml).toEqual([4, 13]);
  });

  it('finds none without a closing line, after a leading blank line, or with an indented fence', () => {
    expect(findFrontmatter('---\na: 1\nbody\n')).toBeUndefined();
    expect(findFrontmatter('\n---\na: 1\n---\n')).toBeUndefined();
    expect(findFrontmatter('---\na: 1\n ---\n')).toBeUndefined();
    expect(findFrontmatter('# Title\n---\na: 1\n---\n')).toBeUndefined();
  });

  // remark ends a line at a lone CR; mem never read `---\r` (no LF) as an opening fence.
  it('finds none when the opening line ends in a lone CR (kept from before remark)', () => {
    expect(findFrontmatter('---\ra: 1\r---\rbody')).toBeUndefined();
  });

  it('agrees with the regexes it replaced on notes built from fence-like lines', () => {
    const line = fc.constantFrom(
      '---',
      '--- ',
      '---\t',
      ' ---',
      '----',
      '- --',
      'a: 1',
      '```',
      '~~~',
      '',
      '# H',
      '...',
    );
    const text = fc
      .tuple(
        fc.boolean(),
        fc.array(fc.tuple(line, fc.constantFrom('\n', '\r\n', '\r')), { maxLength: 8 }),
        fc.boolean(),
      )
      .map(
        ([bom, lines, trailing]) =>
          (bom ? '\uFEFF' : '') + lines.map(([l, eol]) => l + eol).join('') + (trailing ? '---' : ''),
      );
    fc.assert(
      fc.property(text, (note) => {
        expect(findFrontmatter(note)).toEqual(regexBlock(note));
      }),
      { numRuns: 400 },
    );
  });
});
