// The one remark parse of a note (frontmatter included), and what other modules read from its tree.
import type { Nodes, Root } from 'mdast';
import remarkFrontmatter from 'remark-frontmatter';
import remarkParse from 'remark-parse';
import { unified } from 'unified';
import { limitNesting } from './limit-nesting.js';
import type { Span } from './spans.js';

const markdown = unified().use(remarkParse).use(remarkFrontmatter, ['yaml']).freeze();

/**
 * Parses Markdown with remark, offsets aligned with `text`. A leading `---` block is frontmatter
 * (a `yaml` node), as in Obsidian. micromark drops a leading BOM and counts offsets from after it,
 * so for a file with a BOM every offset is moved up by one. Nesting deeper than limitNesting allows
 * is flattened first (offsets kept), so parsing stays linear and never costs the call stack.
 */
export function parseMarkdown(text: string): Root {
  const tree = markdown.parse(limitNesting(text));
  if (text.charCodeAt(0) === 0xfeff) shiftOffsets(tree, 1);
  return tree;
}

function shiftOffsets(tree: Root, by: number): void {
  // An explicit stack, not recursion: a tree's depth must never cost the call stack.
  const stack: Nodes[] = [tree];
  for (let node = stack.pop(); node; node = stack.pop()) {
    const { start, end } = node.position ?? {};
    if (start?.offset !== undefined) start.offset += by;
    if (end?.offset !== undefined) end.offset += by;
    if (start?.line === 1) start.column += by;
    if (end?.line === 1) end.column += by;
    if ('children' in node) for (const child of node.children) stack.push(child);
  }
}

/** Spans of fenced, indented and inline code in a remark tree: nothing inside them is a link or a tag. */
export function codeSpans(tree: Root): Span[] {
  const spans: Span[] = [];
  // Pre-order over an explicit stack (children pushed in reverse), so spans come in document order.
  const stack: Nodes[] = [tree];
  for (let node = stack.pop(); node; node = stack.pop()) {
    if (node.type === 'code' || node.type === 'inlineCode') {
      const { start, end } = node.position ?? {};
      if (start?.offset !== undefined && end?.offset !== undefined) spans.push([start.offset, end.offset]);
    } else if ('children' in node) {
      for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]!);
    }
  }
  return spans;
}

export interface FrontmatterBlock {
  /** `[0, end)`: from the file start (BOM included) to after the closing `---` line and its line break */
  region: Span;
  /** The YAML between the fences: from after the opening line to the start of the closing line */
  yaml: Span;
  /** The opening line's break (`\n` or `\r\n`), which edits to the block keep */
  eol: string;
}

/**
 * The frontmatter block found by the parse, or undefined. remark-frontmatter finds the block as
 * Obsidian does: `---` opening the file (after an optional BOM), closed by the first line that is
 * `---`, trailing spaces and tabs allowed on both. One difference is kept out here: remark also
 * ends the opening line at a lone `\r`, which mem (like Obsidian) never took for frontmatter.
 */
export function frontmatterBlock(tree: Root, text: string): FrontmatterBlock | undefined {
  const node = tree.children[0];
  const nodeEnd = node?.type === 'yaml' ? node.position?.end.offset : undefined;
  if (nodeEnd === undefined) return undefined;
  const openEnd = text.search(/[\r\n]/);
  const eol = text.startsWith('\r\n', openEnd)
    ? '\r\n'
    : text.charCodeAt(openEnd) === 0x0a
      ? '\n'
      : undefined;
  if (eol === undefined) return undefined;
  const closeStart = Math.max(text.lastIndexOf('\n', nodeEnd - 1), text.lastIndexOf('\r', nodeEnd - 1)) + 1;
  let end = nodeEnd;
  // The closing line's break: `\n`, `\r\n`, or a `\r` that ends the file or meets another break.
  if (/^\r(?:[\r\n\u2028\u2029]|$)/.test(text.slice(end, end + 2))) end++;
  if (text.charCodeAt(end) === 0x0a) end++;
  return { region: [0, end], yaml: [openEnd + eol.length, closeStart], eol };
}

/** The frontmatter block of a note's text, for edits that have no parse at hand. */
export function findFrontmatter(text: string): FrontmatterBlock | undefined {
  // Most notes without frontmatter are told apart without a parse.
  if (!text.startsWith('---', text.charCodeAt(0) === 0xfeff ? 1 : 0)) return undefined;
  return frontmatterBlock(parseMarkdown(text), text);
}
