// The one rule for an episode entry's text: how any caller's text is written into a daily note,
// and how the parser reads it back. Whatever is written, reading the day back returns exactly
// `entryText(text)`: one entry, with its speaker and time, and no structure forged by the text.

import { escapePercents, unescapePercents } from './comments.js';
import { sanitizeText } from './sanitize-text.js';

export { sanitizeText };

/**
 * Longest line of an entry. Longer lines are folded (at the last space before it, else anywhere
 * but inside a surrogate pair): the index cuts lines at `limits.maxLineChars` (20,000 by default),
 * which would cut off the block id and with it the entry.
 */
export const MAX_ENTRY_LINE = 4000;

function fold(line: string): string[] {
  const lines: string[] = [];
  let rest = line;
  while (rest.length > MAX_ENTRY_LINE) {
    let cut = rest.lastIndexOf(' ', MAX_ENTRY_LINE);
    if (cut < MAX_ENTRY_LINE / 2) {
      cut = MAX_ENTRY_LINE;
      if (/[\ud800-\udbff]/.test(rest[cut - 1]!)) cut--;
    }
    lines.push(rest.slice(0, cut).trimEnd());
    rest = rest.slice(cut).trimStart();
  }
  if (rest !== '') lines.push(rest);
  return lines;
}

/**
 * The lines an entry keeps of `text`: sanitized, each line trimmed, blank lines dropped (a blank
 * line would end the list item), long lines folded.
 */
export function entryLines(text: string): string[] {
  return sanitizeText(text)
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .flatMap(fold);
}

/** What reading an entry written from `text` gives back. */
export function entryText(text: string): string {
  return entryLines(text).join('\n');
}

// ---------------------------------------------------------------------------------------------
// Escapes. Each adds one backslash where the text could be read as structure, and reading drops
// exactly one there, so every text reads back as written (a backslash the text had is kept).

/**
 * A line that Markdown could read as structure inside a list item: a list marker (a forged
 * entry), heading, quote, fence, thematic break or setext underline, table row, HTML block;
 * or a backslash before punctuation or a digit, which reading would take for an escape.
 */
const STRUCTURE_START = /^(?:[-+*#>`~=_|<:]|\d{1,9}[.)]|\\[!-/:-@[-`{-~0-9])/;
/** A backslash before what `STRUCTURE_START` escapes: one is dropped when read. */
const ESCAPED_START = /^\\(?=[!-/:-@[-`{-~0-9])/;
/** `^id` at a line end reads as a block id; so does one behind backslashes, once one is dropped. */
// `(?<!\\)` makes each run of backslashes one try, not one per backslash (quadratic on a long run).
const TRAILING_ID = /(?<!\\)(\\*)(\^[A-Za-z0-9-]+)$/;
const ESCAPED_TRAILING_ID = /(?<!\\)\\(\\*\^[A-Za-z0-9-]+)$/;
/** `[key:: value]` is an inline field (Dataview): mem reads it as the entry's data, not its text. */
const FIELD_KEY = String.raw`[\p{L}\p{N}_ -]+::`;
const FIELD_OPEN = new RegExp(String.raw`(?<!\\)(\\*)\[(?=${FIELD_KEY})`, 'gu');
const ESCAPED_FIELD_OPEN = new RegExp(String.raw`(?<!\\)\\(\\*)\[(?=${FIELD_KEY})`, 'gu');
const FIELD = /(?<!\\)\[([\p{L}\p{N}_ -]+)::[ \t]*([^\]\n]*)\][ \t]?/gu;

function escapeInline(line: string): string {
  // `%%` opens an Obsidian comment that hides the rest of the note (comments.ts).
  return escapePercents(line).replace(FIELD_OPEN, '\\$1[').replace(TRAILING_ID, '\\$1$2');
}

/**
 * How the first line is escaped. After a speaker (`**Rain:** …`) only a leading backslash needs
 * keeping (`backslash`); after a kind (`(event) …`) nothing is read from the line start (`inline`);
 * with neither, the first line could forge a speaker (`**Aiko:** …`) and is escaped as a
 * continuation line is (`structure`).
 */
export type FirstLine = 'structure' | 'backslash' | 'inline';

/** The lines to write for `text` (after `entryLines`), escaped so that reading gives them back. */
export function escapeEntryLines(lines: readonly string[], first: FirstLine): string[] {
  return lines.map((line, i) => {
    const inline = escapeInline(line);
    const mode = i === 0 ? first : 'structure';
    if (mode === 'inline') return inline;
    const start = mode === 'backslash' ? ESCAPED_START : STRUCTURE_START;
    return start.test(line) ? `\\${inline}` : inline;
  });
}

/**
 * An entry's body as read from the note (list marker, indents, time, speaker and block id already
 * removed) back to the text that was written, with its inline fields apart.
 */
export function readEntryBody(body: string): { text: string; fields: Record<string, string> } {
  const fields: Record<string, string> = {};
  const lines = body.split('\n').map((raw) => {
    if (!raw.includes('[') && !raw.includes('\\')) return raw;
    const line = raw.includes('::')
      ? raw.replace(FIELD, (_, key: string, value: string) => {
          fields[key.trim().toLowerCase()] = value.trim();
          return '';
        })
      : raw;
    if (!line.includes('\\')) return line.trimEnd();
    const unescaped = line.trimEnd().replace(ESCAPED_START, '').replace(ESCAPED_TRAILING_ID, '$1');
    return unescapePercents(unescaped).replace(ESCAPED_FIELD_OPEN, '$1[');
  });
  return { text: lines.join('\n').trim(), fields };
}
