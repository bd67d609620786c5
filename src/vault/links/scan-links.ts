import type { LinkRef } from '../../core/types.js';
import { commentSpans } from '../markdown/comments.js';
import { ownString } from '../markdown/own-string.js';
import { codeSpans, parseMarkdown } from '../markdown/parse-markdown.js';
import { blankSpans, type Span } from '../markdown/spans.js';

export interface ScanOptions {
  /** Added to every `start`/`end`, for text cut out of a larger file (default: 0) */
  offset?: number;
  /** Added to every `line`, for text that begins below line 1 of its file (default: 0) */
  lineOffset?: number;
  /** Code spans already known from the caller's own Markdown parse; when given, the text is not parsed again */
  skip?: readonly Span[];
}

/**
 * `text` with code spans and Obsidian `%%comments%%` blanked out. Comments are found after code
 * is blanked, because `%%` inside code is literal; an unclosed `%%` hides the rest of the note, as in Obsidian.
 */
export function maskIgnored(text: string, skip: readonly Span[]): string {
  const masked = blankSpans(text, skip);
  return blankSpans(masked, commentSpans(masked));
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
    links.push(linkRef(parts, raw, start + offset, end + offset, line));
  }
  return links;
}

/**
 * A link object built one property at a time, in the order a spread gave them (so its JSON is the
 * same). `{ ...parts, raw, … }` over parts of several shapes sent V8's object clone down its slow
 * path, which gave every link a hidden class, descriptors and property array of its own: about
 * 1.8 KB per note, 180 MB of a cold index at 100,000 notes.
 */
export function linkRef(parts: LinkParts, raw: string, start: number, end: number, line: number): LinkRef {
  const link: LinkRef = { kind: parts.kind, target: ownString(parts.target) } as LinkRef;
  if (parts.subpath !== undefined) link.subpath = ownString(parts.subpath);
  if (parts.alias !== undefined) link.alias = ownString(parts.alias);
  // A slice of 13 characters or more is a view that keeps the whole file's text alive.
  link.raw = ownString(raw);
  link.start = start;
  link.end = end;
  link.line = line;
  return link;
}

export type LinkParts = Pick<LinkRef, 'kind' | 'target' | 'subpath' | 'alias'>;

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
