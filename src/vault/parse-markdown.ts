// The one remark parse of a note, and the spans of code in its tree.
import type { Nodes, Root } from 'mdast';
import remarkParse from 'remark-parse';
import { unified } from 'unified';
import type { Span } from './spans.js';

const markdown = unified().use(remarkParse).freeze();

/**
 * Parses Markdown with remark, keeping offsets aligned with `text`: micromark drops a leading BOM
 * and would shift every offset by one, so the BOM is replaced by a space of the same length.
 */
export function parseMarkdown(text: string): Root {
  return markdown.parse(text.charCodeAt(0) === 0xfeff ? ` ${text.slice(1)}` : text);
}

/** Spans of fenced, indented and inline code in a remark tree: nothing inside them is a link or a tag. */
export function codeSpans(tree: Root): Span[] {
  const spans: Span[] = [];
  const visit = (node: Nodes): void => {
    if (node.type === 'code' || node.type === 'inlineCode') {
      const { start, end } = node.position ?? {};
      if (start?.offset !== undefined && end?.offset !== undefined) spans.push([start.offset, end.offset]);
      return;
    }
    if ('children' in node) for (const child of node.children) visit(child);
  };
  visit(tree);
  return spans;
}
