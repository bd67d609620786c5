import type { Nodes, Root } from 'mdast';
import remarkParse from 'remark-parse';
import { unified } from 'unified';
import type { LinkRef } from '../core/types.js';
import { limitNesting } from './limit-nesting.js';

/** A `[start, end)` range of offsets into a text. */
export type Span = readonly [start: number, end: number];

export interface ScanOptions {
  /** Added to every `start`/`end`, for text cut out of a larger file (default: 0) */
  offset?: number;
  /** Added to every `line`, for text that begins below line 1 of its file (default: 0) */
  lineOffset?: number;
  /** Code spans already known from the caller's own Markdown parse; when given, the text is not parsed again */
  skip?: readonly Span[];
}

const markdown = unified().use(remarkParse).freeze();

/**
 * Parses Markdown with remark, keeping offsets aligned with `text`: micromark drops a leading BOM
 * and would shift every offset by one, so the BOM is replaced by a space of the same length.
 * Nesting deeper than MAX_NESTING is flattened first (see limitNesting), so parsing stays linear.
 */
export function parseMarkdown(text: string): Root {
  return markdown.parse(limitNesting(text.charCodeAt(0) === 0xfeff ? ` ${text.slice(1)}` : text));
}

/** Spans of fenced, indented and inline code in a remark tree: nothing inside them is a link or a tag. */
export function codeSpans(tree: Root): Span[] {
  const spans: Span[] = [];
  // An explicit stack, not recursion: a tree's depth must never cost the call stack.
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

/** Same length, same line breaks, no content: offsets and line numbers stay valid. */
export function blank(text: string): string {
  return text.replace(/[^\r\n]/g, ' ');
}

/**
 * `text` with code spans and Obsidian `%%comments%%` blanked out. Comments are found after code
 * is blanked, because `%%` inside code is literal; an unclosed `%%` hides the rest of the note, as in Obsidian.
 */
export function maskIgnored(text: string, skip: readonly Span[]): string {
  let masked = blankSpans(text, skip);
  if (!masked.includes('%%')) return masked;
  const comments: Span[] = [];
  let from = masked.indexOf('%%');
  while (from !== -1) {
    const close = masked.indexOf('%%', from + 2);
    const end = close === -1 ? masked.length : close + 2;
    comments.push([from, end]);
    from = close === -1 ? -1 : masked.indexOf('%%', end);
  }
  masked = blankSpans(masked, comments);
  return masked;
}

function blankSpans(text: string, spans: readonly Span[]): string {
  if (spans.length === 0) return text;
  const sorted = [...spans].sort((a, b) => a[0] - b[0]);
  const parts: string[] = [];
  let pos = 0;
  for (const [start, end] of sorted) {
    if (end <= pos) continue;
    const from = Math.max(start, pos);
    parts.push(text.slice(pos, from), blank(text.slice(from, end)));
    pos = end;
  }
  parts.push(text.slice(pos));
  return parts.join('');
}

// One pass finds both forms; at a `[[` the wiki alternative is tried first.
// Wiki: `!?[[inner]]` on one line, no brackets inside.
// Markdown: `!?[text](dest "title")`, text with one level of nested brackets, dest `<...>` or
// without spaces (balanced parentheses one level deep), optional title.
const LINK_SOURCE =
  /(!?)\[\[([^[\]\r\n]+)\]\]|(!?)\[((?:[^[\]\r\n\\]|\\.|\[[^[\]\r\n]*\])*)\]\([ \t]*(<[^<>\r\n]*>|(?:[^\s()\\]|\\[^\s]|\([^\s()]*\))+)(?:[ \t]+(?:"[^"\r\n]*"|'[^'\r\n]*'))?[ \t]*\)/
    .source;

// `http:`, `mailto:`, `obsidian:` … and protocol-relative `//host` point outside the vault.
const EXTERNAL = /^(?:[a-z][a-z0-9+.-]*:|\/\/)/i;

/**
 * Every link written in `text`, in order, with exact offsets (`text.slice(start, end) === raw`).
 * Links inside code (fenced, indented, inline) and `%%comments%%` are skipped, and so are
 * external URLs. The text is read as a Markdown body: frontmatter is the caller's business.
 */
export function scanLinks(text: string, options: ScanOptions = {}): LinkRef[] {
  const offset = options.offset ?? 0;
  const masked = maskIgnored(text, options.skip ?? codeSpans(parseMarkdown(text)));
  const links: LinkRef[] = [];
  const re = new RegExp(LINK_SOURCE, 'gd');
  let line = 1 + (options.lineOffset ?? 0);
  let counted = 0;
  for (let m = re.exec(masked); m !== null; m = re.exec(masked)) {
    const start = m.index;
    // A backslash escapes the bracket: `\[[x]]` and `\[t](x)` are plain text.
    if (start > 0 && masked.charCodeAt(start - 1) === 0x5c) {
      re.lastIndex = start + 1;
      continue;
    }
    const end = start + m[0].length;
    for (; counted < start; counted++) if (masked.charCodeAt(counted) === 0x0a) line++;
    const raw = text.slice(start, end);
    const parts = m[2] !== undefined ? wikiParts(m, text) : markdownParts(m, text);
    if (parts === undefined) continue;
    links.push({ ...parts, raw, start: start + offset, end: end + offset, line });
  }
  return links;
}

type LinkParts = Pick<LinkRef, 'kind' | 'target' | 'subpath' | 'alias'>;

function group(m: RegExpExecArray, index: number, text: string): string {
  const at = m.indices?.[index];
  // Read groups from the original text: the masked copy has blanks where code spans were.
  return at ? text.slice(at[0], at[1]) : '';
}

function wikiParts(m: RegExpExecArray, text: string): LinkParts | undefined {
  const inner = group(m, 2, text);
  let path = inner;
  let alias: string | undefined;
  const pipe = inner.indexOf('|');
  if (pipe !== -1) {
    path = inner.slice(0, pipe);
    // Inside a table the pipe is escaped (`[[Note\|alias]]`); the backslash is not part of the name.
    if (path.endsWith('\\')) path = path.slice(0, -1);
    alias = inner.slice(pipe + 1).trim() || undefined;
  }
  const hash = path.indexOf('#');
  const target = (hash === -1 ? path : path.slice(0, hash)).trim();
  const subpath = hash === -1 ? undefined : path.slice(hash).trim();
  const parts: LinkParts = { kind: m[1] ? 'embed' : 'wiki', target };
  if (subpath && subpath !== '#') parts.subpath = subpath;
  else if (target === '') return undefined;
  if (alias !== undefined) parts.alias = alias;
  return parts;
}

function markdownParts(m: RegExpExecArray, text: string): LinkParts | undefined {
  let dest = group(m, 5, text);
  if (dest.startsWith('<')) dest = dest.slice(1, -1);
  else dest = dest.replace(/\\(.)/g, '$1');
  dest = dest.trim();
  if (dest === '' || EXTERNAL.test(dest)) return undefined;
  // Split before decoding, so an encoded `%23` stays part of the name.
  const hash = dest.indexOf('#');
  const target = decode(hash === -1 ? dest : dest.slice(0, hash));
  const subpath = hash === -1 ? '' : decode(dest.slice(hash));
  if (target === '' && subpath.length < 2) return undefined;
  const parts: LinkParts = { kind: m[3] ? 'embed' : 'markdown', target };
  if (subpath.length > 1) parts.subpath = subpath;
  const alias = group(m, 4, text);
  if (alias !== '') parts.alias = alias;
  return parts;
}

function decode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    // A stray `%` (e.g. `100%.md`) is not an escape: keep the text as written.
    return value;
  }
}
