import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import type { Nodes, Root } from 'mdast';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ES module of the benchmarks
import { writeSynthVault } from '../../bench/synth-vault.mjs';
import { parseMarkdown } from '../../src/vault/markdown/parse-markdown.js';
import { parseNote } from '../../src/vault/markdown/parse-note.js';
import { plainTree } from '../../src/vault/markdown/plain-tree.js';
import { readVault } from '../../src/vault/read-vault.js';
import { parseCorpus } from '../helpers/parse-corpus.js';

const where = (node: Nodes) => {
  const { start, end } = node.position!;
  return `${start.line}:${start.column}:${start.offset}-${end.line}:${end.column}:${end.offset}`;
};

/**
 * What mem reads from a tree: every block node with its position, in document order, and for a
 * heading the span of its text (first child's start to last child's end).
 */
function outline(tree: Root): string[] {
  const out: string[] = [];
  const visit = (node: Nodes): void => {
    const depth = node.type === 'heading' ? node.depth : '';
    if (node.type === 'heading') {
      const first = node.children[0];
      const last = node.children.at(-1);
      out.push(
        `${node.type}${depth} ${where(node)} [${first ? where(first).split('-')[0] : ''} ${last ? where(last).split('-')[1] : ''}]`,
      );
      return;
    }
    if (node.type === 'paragraph') {
      out.push(`paragraph ${where(node)}`);
      return;
    }
    out.push(`${node.type} ${where(node)}`);
    if ('children' in node) for (const child of node.children) visit(child);
  };
  visit(tree);
  return out;
}

/** Whether the fast path answered, after checking that its answer is remark's. */
function sameAsRemark(text: string, label = ''): boolean {
  const fast = plainTree(text);
  if (!fast) return false;
  expect(outline(fast), label).toEqual(outline(parseMarkdown(text)));
  return true;
}

const PIECES = [
  'a',
  'Rain',
  '[[T]] [[T]] [[T]] [[T]] [[T]] [[T]] [[T]] [[T]] [[T]] [[T]] [[T]] [[T]]',
  ' ',
  '  ',
  '林雨',
  '# ',
  '## ',
  '####### ',
  '#',
  '#tag',
  '- ',
  '-',
  '---',
  '***',
  '* ',
  '**',
  '*',
  '1. ',
  '2) ',
  '1.5',
  '> ',
  '[[x]]',
  '[a]: b',
  '[',
  ']',
  '=',
  '===',
  '<b>',
  '^e1',
  '09:25 ',
  '\u3000',
  '\t',
  '&amp;',
  '_',
  '~~~',
  '|',
  '`',
  '\\',
  '+ ',
  ':',
  '%%',
  '\u00a0',
  '🎉',
];
const tricky = fc.array(fc.constantFrom(...PIECES), { maxLength: 5 }).map((parts) => parts.join(''));
// Lines a plain note is made of, so that many generated notes reach the fast path at all.
const plainish = fc
  .tuple(
    fc.constantFrom('', '', '# ', '## ', '- ', '- ', '-  '),
    fc.array(
      fc.constantFrom('a', 'Rain', ' ', '林雨', '[[x]]', '**', '^e1', '#tag', ':', '09:25 ', '🎉', '[', '#'),
      {
        maxLength: 6,
      },
    ),
  )
  .map(([start, parts]) => start + parts.join(''));
const line = fc.oneof({ arbitrary: tricky, weight: 1 }, { arbitrary: plainish, weight: 3 });
const note = fc
  .tuple(
    fc.constantFrom(
      '',
      '---\ntitle: x\n---\n',
      '---\n---\n',
      '---\n',
      '---  \ntitle: x\n---\n',
      '---\ntitle: x\n---  \n---\n',
    ),
    fc.array(line, { maxLength: 8 }),
    fc.constantFrom('', '\n', '\n\n'),
  )
  .map(([front, lines, tail]) => front + lines.join('\n') + tail);

describe('plain notes without remark', () => {
  it('builds the tree of a daily note of entries and of a note of headings and paragraphs', () => {
    const daily =
      '---\ndate: 2026-11-29\n---\n# 2026-11-29\n\n- 09:25 **小满:** Maybe borrowed! ^e1\n- 09:34 **Rain:** 考试 [[Vince]] ^e2\n';
    expect(sameAsRemark(daily)).toBe(true);
    const insight =
      '# 测试老街\n\n金鱼奶奶晚上。 ([[2025-05-28#^e4]])\nsecond line #tag\n\n## 依据\n- 出差外套 [[2024-07-13#^e7]]\n\n- loose item\ntext after\n';
    expect(plainTree(insight)).toBeUndefined(); // the last line continues the item: remark's business
    expect(sameAsRemark(insight.replace('\ntext after', '\n\ntext after'))).toBe(true);
  });

  it('leaves code, quotes, other lists, indentation, setext headings and definitions to remark', () => {
    for (const text of [
      'a `b` c\n',
      '> q\n',
      '* x\n',
      '1. x\n',
      'a\n  b\n',
      'a\n===\n',
      '[a]: /b\n',
      '# H #\n',
      '\ufeffx\n',
      'a\r\nb\n',
    ])
      expect(plainTree(text), text).toBeUndefined();
  });

  it('answers as remark for every note of the hostile corpus, the example vault and the fixtures', async () => {
    let plain = 0;
    for (const [path, text] of await parseCorpus()) if (sameAsRemark(text, path)) plain++;
    expect(plain).toBeGreaterThan(5);
  }, 120_000);

  it('answers as remark for most notes of a synthetic vault, and parseNote reads them alike', async () => {
    const root = await mkdtemp(join(tmpdir(), 'mem-plain-'));
    try {
      await writeSynthVault(root, 1000);
      const files = (await readVault(root)).filter((_, i) => i % 4 === 0);
      let plain = 0;
      for (const file of files) if (sameAsRemark(await readFile(file.abs, 'utf8'), file.path)) plain++;
      expect(plain / files.length).toBeGreaterThan(0.9);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  }, 120_000);

  it('answers as remark for generated notes of tricky lines', () => {
    let plain = 0;
    fc.assert(
      fc.property(note, (text) => {
        if (sameAsRemark(text, JSON.stringify(text))) plain++;
      }),
      { numRuns: 5000 },
    );
    // The property would hold vacuously if the fast path never answered.
    expect(plain).toBeGreaterThan(400);
  }, 120_000);

  it('a note parsed through the fast path equals the same note parsed by remark', () => {
    const text =
      '---\ntitle: T\ntags: [a, b]\n---\n# T\n\nSee [[Other]] and #tag.\n\n## Log\n- 09:00 **Rain:** hi ^e1\n';
    // A comment makes no difference to the tree, so `%%` forces nothing; a backtick forces remark.
    const viaRemark = parseNote('insights/t.md', text.replace('hi ^e1', 'hi ^e1 `c`'));
    const fast = parseNote('insights/t.md', text);
    expect(plainTree(text)).toBeDefined();
    expect(fast.headings).toEqual(viaRemark.headings);
    expect(fast.blocks.map((b) => b.id)).toEqual(['e1']);
    expect(fast.links.map((l) => l.target)).toEqual(['Other']);
    expect(fast.tags).toEqual(['a', 'b', 'tag']);
  });
});
