import type { Nodes } from 'mdast';
import { describe, expect, it } from 'vitest';
import { limitNesting, MAX_NESTING } from '../../src/vault/markdown/limit-nesting.js';
import { parseMarkdown } from '../../src/vault/markdown/parse-markdown.js';
import { parseNote } from '../../src/vault/markdown/parse-note.js';

function treeDepth(root: Nodes): number {
  let deepest = 0;
  const stack: Array<[Nodes, number]> = [[root, 1]];
  for (let item = stack.pop(); item; item = stack.pop()) {
    const [node, depth] = item;
    deepest = Math.max(deepest, depth);
    if ('children' in node) for (const child of node.children) stack.push([child, depth + 1]);
  }
  return deepest;
}

const deepList = (depth: number) =>
  Array.from({ length: depth }, (_, i) => `${'  '.repeat(i)}- item ${i}`).join('\n');

describe('deep nesting costs neither the stack nor quadratic time', () => {
  it('a 10 KB line of nested blockquotes parses, and its block id is still read', () => {
    const text = `- 09:00 first ^e1\n${'>'.repeat(10_000)} deep ^e2\n`;
    const note = parseNote('episodes/daily/2026-01-01.md', text);
    expect(note.sections.map((s) => s.anchor)).toEqual(['', '^e1']);
    expect(treeDepth(parseMarkdown(text))).toBeLessThan(3 * MAX_NESTING);
  });

  it('a list nested 400 deep keeps at most MAX_NESTING levels, and all its text', () => {
    const text = deepList(400);
    expect(treeDepth(parseMarkdown(text))).toBeLessThan(3 * MAX_NESTING + 10);
    const note = parseNote('a.md', text);
    expect(note.sections[0]?.text).toContain('item 399');
  });

  it('keeps length and line breaks, so offsets stay valid', () => {
    const text = `${'> '.repeat(100)}x\r\n${deepList(100)}\n${'*a '.repeat(400)}`;
    const limited = limitNesting(text);
    expect(limited.length).toBe(text.length);
    expect([...limited.matchAll(/\r?\n/g)].map((m) => m.index)).toEqual(
      [...text.matchAll(/\r?\n/g)].map((m) => m.index),
    );
    expect(limited).not.toBe(text);
  });

  it('leaves an ordinary note exactly as it is', () => {
    const text = `# Title\n\n> quote\n> > nested\n\n${deepList(10)}\n\n1. one\n   - *two* [[link]] _x_\n`;
    expect(limitNesting(text)).toBe(text);
  });

  it('thousands of emphasis delimiters in one paragraph parse as text past the limit', () => {
    const text = `${'*a '.repeat(5000)}x${' a*'.repeat(5000)}`;
    const note = parseNote('a.md', text);
    expect(note.sections[0]?.text.length).toBeGreaterThan(20_000);
  });
});
