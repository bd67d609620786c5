// Obsidian comments: the one rule for what `%%…%%` hides. Nothing inside a comment leaves the vault.

import { codeSpans, frontmatterBlock, parseMarkdown } from './parse-markdown.js';
import { sanitizeText } from './sanitize-text.js';
import { blankSpans, type Span } from './spans.js';

/**
 * Spans of Obsidian `%%comments%%` in `text`, markers included, sorted. Spans in `skip` (code,
 * frontmatter) are read as blank first, because `%%` inside code is literal. An unclosed `%%`
 * hides the rest of the note, as in Obsidian.
 */
export function commentSpans(text: string, skip: readonly Span[] = []): Span[] {
  if (!text.includes('%%')) return [];
  const masked = blankSpans(text, skip);
  const comments: Span[] = [];
  for (let from = masked.indexOf('%%'); from !== -1; ) {
    const close = masked.indexOf('%%', from + 2);
    const end = close === -1 ? masked.length : close + 2;
    comments.push([from, end]);
    from = close === -1 ? -1 : masked.indexOf('%%', end);
  }
  return comments;
}

/**
 * `text.slice(from, to)` with the hidden spans cut out. Where something was cut, the spaces it
 * leaves at a line end and runs of blank lines are tidied; elsewhere the text is exactly as written.
 */
export function visibleText(text: string, hidden: readonly Span[], from = 0, to = text.length): string {
  const pieces: string[] = [];
  let pos = from;
  for (const [start, end] of hidden) {
    if (end <= pos || start >= to) continue;
    pieces.push(text.slice(pos, Math.max(pos, start)));
    pos = Math.min(end, to);
  }
  if (pieces.length === 0) return text.slice(from, to);
  pieces.push(text.slice(pos, to));
  let out = '';
  for (const piece of pieces) {
    // "a %%x%% b" reads "a b", not "a  b".
    out = /[ \t]$/.test(out) && /^[ \t]/.test(piece) ? out.replace(/[ \t]+$/, '') + piece : out + piece;
  }
  return out
    .replace(/[ \t]+(?=\r?\n|$)/g, '')
    .replace(/(?:\r?\n){3,}/g, (breaks) => (breaks.includes('\r') ? '\r\n\r\n' : '\n\n'));
}

/**
 * `%%` becomes `%\%`, which opens no comment; a `%` that backslashes and a `%` follow gets one
 * more backslash (`%\%` → `%\\%`), so `unescapePercents` gives back exactly the text written.
 */
export function escapePercents(text: string): string {
  return text.includes('%') ? text.replace(/%(\\*)(?=%)/g, '%\\$1') : text;
}

/** Undoes `escapePercents`: one backslash less between two `%`, so `%\%` reads `%%` (as Obsidian shows it). */
export function unescapePercents(text: string): string {
  return text.includes('%\\') ? text.replace(/%\\(\\*)(?=%)/g, '%$1') : text;
}

/**
 * `text` as it must be written for Obsidian to show it whole: every `%%` outside code becomes
 * `%\%`, which opens no comment (inside code `%%` is literal already and stays). What mem writes
 * from a person's message or a model's answer goes through here, so one `%%` in it cannot hide the
 * rest of the note; it is sanitized first (lone surrogates, controls, BiDi overrides: see
 * entry-text.ts), as an entry's text is.
 */
export function escapeComments(given: string): string {
  const text = sanitizeText(given);
  if (!text.includes('%%')) return text;
  let out = '';
  let pos = 0;
  for (const [start, end] of [...codeSpans(parseMarkdown(text)), [text.length, text.length] as Span]) {
    out += escapePercents(text.slice(pos, start)) + text.slice(start, end);
    pos = end;
  }
  return out;
}

/**
 * A whole note's text without its comments, for outputs that show a note as written (a prompt to
 * a model): `%%` inside code or frontmatter is literal and stays.
 */
export function withoutComments(text: string): string {
  if (!text.includes('%%')) return text;
  const tree = parseMarkdown(text);
  const frontmatter = frontmatterBlock(tree, text);
  const literal = frontmatter ? [...codeSpans(tree), frontmatter.region] : codeSpans(tree);
  return visibleText(text, commentSpans(text, literal));
}
