// Flattens container nesting past a depth before Markdown parsing: deep nesting costs the parser
// time per line for every open container, and the tree's depth costs every recursive walk its stack.

/**
 * How deep blockquotes and lists may nest before their markers are read as plain text. No note a
 * person writes nests 32 deep; a 10 KB line of `>` (10,000 levels) overflowed the stack, and a list
 * nested 1,000 deep took 38 s to parse.
 */
export const MAX_NESTING = 32;

/**
 * How many emphasis and link delimiters (`*`, `_`, `~`, `[`, `]`) one paragraph may hold before the
 * rest are read as plain text: matching them costs the parser quadratic time (30 KB of nested `*a`
 * took 43 s). Only the parse sees the change; a note's text is always taken from the file.
 */
export const MAX_DELIMITERS = 256;

const SPACE = 0x20;
const TAB = 0x09;
const GT = 0x3e;

/**
 * `text` with every blockquote `>` and list marker that would open a container deeper than `max`
 * replaced by spaces, indentation past `2 * max + 16` columns made content, and emphasis and link
 * delimiters past `maxDelimiters` per paragraph blanked (same length, same line breaks, so offsets
 * stay valid). Depth on a line is
 * counted as the markers before it plus its indentation in pairs of columns (a nested list item is
 * indented at least two columns per level). Returns `text` itself when nothing is that deep.
 */
export function limitNesting(text: string, max = MAX_NESTING, maxDelimiters = MAX_DELIMITERS): string {
  let blanks: number[] | undefined;
  let solid: number[] | undefined;
  const maxIndent = 2 * max + 16;
  let lineStart = 0;
  let delimiters = 0;
  while (lineStart < text.length) {
    let i = lineStart;
    let column = 0;
    let markers = 0;
    for (;;) {
      const c = text.charCodeAt(i);
      if (c === SPACE || c === TAB) {
        // Past the deepest indent a container may have, whitespace is content: every open container
        // would otherwise re-read it on every line (1 MB of deep indents took 12 s).
        if (column >= maxIndent) {
          solid ??= [];
          solid.push(i);
        }
        column += c === TAB ? 4 - (column % 4) : 1;
        i++;
        continue;
      }
      const marker = markerLength(text, i, c);
      if (marker === 0) break;
      markers++;
      if (markers + (column >> 1) > max) {
        blanks ??= [];
        for (let k = 0; k < marker; k++) blanks.push(i + k);
      }
      column += marker;
      i += marker;
    }
    const eol = text.indexOf('\n', i);
    const lineEnd = eol === -1 ? text.length : eol;
    // A blank line ends the paragraph, and with it the run of delimiters the parser must match.
    if (i >= lineEnd || (text.charCodeAt(i) === 0x0d && i + 1 >= lineEnd)) delimiters = 0;
    for (let k = i; k < lineEnd; k++) {
      if (!isDelimiter(text.charCodeAt(k))) continue;
      delimiters++;
      if (delimiters > maxDelimiters) {
        blanks ??= [];
        blanks.push(k);
      }
    }
    lineStart = lineEnd + 1;
  }
  if (!blanks && !solid) return text;
  const chars = text.split('');
  for (const at of blanks ?? []) chars[at] = ' ';
  // A no-break space: one code unit like the space it replaces, but not whitespace to the parser.
  for (const at of solid ?? []) chars[at] = '\u00a0';
  return chars.join('');
}

/** Length of a container marker at `i` (`>`, `-`, `*`, `+` or `1.`/`1)` before a space or the line end), else 0. */
function markerLength(text: string, i: number, c: number): number {
  if (c === GT) return 1;
  let end = i;
  if (c === 0x2d || c === 0x2a || c === 0x2b) end = i + 1;
  else {
    while (end < text.length && end - i < 9 && isDigit(text.charCodeAt(end))) end++;
    if (end === i) return 0;
    const close = text.charCodeAt(end);
    if (close !== 0x2e && close !== 0x29) return 0;
    end++;
  }
  const after = text.charCodeAt(end);
  return after === SPACE || after === TAB || after === 0x0a || after === 0x0d || Number.isNaN(after)
    ? end - i
    : 0;
}

/** `*`, `_`, `~`, `[`, `]` */
function isDelimiter(c: number): boolean {
  return c === 0x2a || c === 0x5f || c === 0x7e || c === 0x5b || c === 0x5d;
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}
