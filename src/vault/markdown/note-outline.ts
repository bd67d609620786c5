// What reflect's edits need to know of a note, read from the one remark parse (vault/markdown/parse-markdown):
// its body lines with their offsets, which of them are code or hidden in a comment (never edited),
// and its real headings. A line scanner took a ```` fence for a ``` one and filed facts under a
// heading inside a code block; the tree knows every fence length, tildes, indented code and
// unclosed fences as CommonMark does.
import type { Code, Nodes } from 'mdast';
import { commentSpans } from './comments.js';
import { readStructure } from './note-sections.js';
import { codeSpans, frontmatterBlock, parseMarkdown } from './parse-markdown.js';
import { blankSpans, type Span } from './spans.js';

/** One line of the note: `[start, end)` is its text, without its line break. */
export interface OutlineLine {
  start: number;
  end: number;
  /** Inside code (fenced or indented) or an Obsidian comment: no edit reads or writes it */
  code: boolean;
  /** Part of a heading (any level, any nesting) */
  heading: boolean;
}

/** A heading at the top level of the note (not in a list, quote or code), by its body line. */
export interface OutlineHeading {
  /** Index into `lines` of its first line */
  line: number;
  /** Index into `lines` of its last line (a setext heading has two) */
  lastLine: number;
  depth: number;
  text: string;
}

export interface NoteOutline {
  /** Offset where the body starts (after the frontmatter block) */
  bodyStart: number;
  /** The body's lines, split where `\n` is (a `\r` before it belongs to the break) */
  lines: OutlineLine[];
  headings: OutlineHeading[];
  /** A fenced code block left open at the end of the note: it runs to the end, so text appended goes into it */
  openFence?: string;
}

/** Body lines and their offsets, split as `split(/\r?\n/)` splits. */
function bodyLines(text: string, from: number): Array<{ start: number; end: number }> {
  const lines: Array<{ start: number; end: number }> = [];
  let start = from;
  for (let at = text.indexOf('\n', from); at !== -1; at = text.indexOf('\n', at + 1)) {
    lines.push({ start, end: at > start && text[at - 1] === '\r' ? at - 1 : at });
    start = at + 1;
  }
  lines.push({ start, end: text.length });
  return lines;
}

/** Spans of code blocks (fenced and indented, any nesting), and the code nodes themselves. */
function codeBlocks(root: Nodes): Code[] {
  const found: Code[] = [];
  const stack: Nodes[] = [root];
  for (let node = stack.pop(); node; node = stack.pop()) {
    if (node.type === 'code') found.push(node);
    else if ('children' in node) for (const child of node.children) stack.push(child);
  }
  return found;
}

/**
 * The fence of a fenced code block that is never closed (it runs to the end of the note), or
 * undefined. CommonMark closes a fence with at least as many of the same character, alone on a
 * line with up to three spaces before it.
 */
function openFenceOf(text: string, node: Code): string | undefined {
  const start = node.position?.start.offset;
  const end = node.position?.end.offset;
  if (start === undefined || end === undefined || end < text.trimEnd().length) return undefined;
  const fence = /^ {0,3}(`{3,}|~{3,})/.exec(text.slice(start))?.[1];
  if (!fence) return undefined;
  const body = text.slice(start, end);
  const last = body.slice(body.lastIndexOf('\n') + 1);
  const closing = new RegExp(`^ {0,3}${fence[0] === '`' ? '`' : '~'}{${fence.length},}[ \\t]*\\r?$`);
  return body.includes('\n') && closing.test(last) ? undefined : fence;
}

function overlaps(line: { start: number; end: number }, [from, to]: Span): boolean {
  // An empty line is a point: it is inside a span that covers it.
  return line.start < to && from < Math.max(line.end, line.start + 1);
}

/** The outline of `text` (see NoteOutline). */
export function outlineOf(text: string): NoteOutline {
  const tree = parseMarkdown(text);
  const bodyStart = frontmatterBlock(tree, text)?.region[1] ?? 0;
  const blocks = codeBlocks(tree);
  const code: Span[] = blocks.flatMap((node) => {
    const { start, end } = node.position ?? {};
    return start?.offset !== undefined && end?.offset !== undefined
      ? [[start.offset, end.offset] as const]
      : [];
  });
  // Read as parse-note reads them: `%%` in code or frontmatter is literal, a comment hides the rest.
  const hidden = commentSpans(text, [...codeSpans(tree), [0, bodyStart]]);
  const { headings: all } = readStructure(tree, blankSpans(text, hidden), hidden);
  const raw = bodyLines(text, bodyStart);
  const lineOf = (offset: number) => {
    let lo = 0;
    let hi = raw.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((raw[mid]?.start ?? 0) <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  };
  const lines: OutlineLine[] = raw.map((line) => ({
    ...line,
    code: [...code, ...hidden].some((span) => overlaps(line, span)),
    heading: false,
  }));
  for (const h of all)
    for (let i = lineOf(h.start); i <= lineOf(Math.max(h.start, h.end - 1)); i++) lines[i]!.heading = true;
  const topLevel = new Set(
    tree.children.flatMap((node) => (node.type === 'heading' ? [node.position?.start.offset] : [])),
  );
  const headings = all
    .filter((h) => topLevel.has(h.start) && h.start >= bodyStart)
    .map((h) => ({
      line: lineOf(h.start),
      lastLine: lineOf(Math.max(h.start, h.end - 1)),
      depth: h.depth,
      text: h.text,
    }));
  const last = blocks.reduce<Code | undefined>(
    (latest, node) =>
      (node.position?.end.offset ?? 0) > (latest?.position?.end.offset ?? -1) ? node : latest,
    undefined,
  );
  const openFence = last && tree.children.includes(last) ? openFenceOf(text, last) : undefined;
  return { bodyStart, lines, headings, ...(openFence ? { openFence } : {}) };
}
