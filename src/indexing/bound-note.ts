// Bounds the text one note gives the indexer: a 10 MB line made every command run past 240 s.
import type { MemConfig } from '../core/config/config.js';
import type { Note } from '../core/types.js';

export type IndexLimits = MemConfig['limits'];

export const DEFAULT_LIMITS: IndexLimits = {
  maxNoteChars: 2_000_000,
  maxLineChars: 20_000,
  maxLinksPerNote: 5000,
  decodedNotesMiB: 16,
};

/**
 * The part of `text` that is indexed: lines cut at maxLineChars, then the whole cut at maxNoteChars.
 * `reason` says what was cut, naming the file, or is undefined when nothing was.
 */
export function boundNote(
  path: string,
  text: string,
  limits: IndexLimits,
): { text: string; reason: string | undefined } {
  if (text.length <= limits.maxNoteChars && !hasLongLine(text, limits.maxLineChars))
    return { text, reason: undefined };
  const reasons: string[] = [];
  let bounded = text;
  let longest = 0;
  let cut = 0;
  const parts: string[] = [];
  let from = 0;
  while (from <= bounded.length) {
    const eol = bounded.indexOf('\n', from);
    const end = eol === -1 ? bounded.length : eol;
    if (end - from > limits.maxLineChars) {
      longest = Math.max(longest, end - from);
      cut++;
      parts.push(bounded.slice(from, from + limits.maxLineChars));
    } else {
      parts.push(bounded.slice(from, end));
    }
    if (eol === -1) break;
    from = eol + 1;
  }
  if (cut > 0) {
    bounded = parts.join('\n');
    reasons.push(
      `${cut} line(s) up to ${longest} characters long (limits.maxLineChars is ${limits.maxLineChars})`,
    );
  }
  if (bounded.length > limits.maxNoteChars) {
    reasons.push(`${bounded.length} characters (limits.maxNoteChars is ${limits.maxNoteChars})`);
    bounded = bounded.slice(0, limits.maxNoteChars);
  }
  return {
    text: bounded,
    reason: reasons.length > 0 ? `${path}: only part was indexed: ${reasons.join('; ')}` : undefined,
  };
}

/** Whether a line of `text` is longer than `max`, found without cutting the text into lines. */
function hasLongLine(text: string, max: number): boolean {
  if (text.length <= max) return false;
  let from = 0;
  for (;;) {
    const eol = text.indexOf('\n', from);
    if ((eol === -1 ? text.length : eol) - from > max) return true;
    if (eol === -1) return false;
    from = eol + 1;
  }
}

/** Drops links past maxLinksPerNote, with the reason added to the note's truncation notice. */
export function boundLinks(note: Note, limits: IndexLimits): Note {
  if (note.links.length <= limits.maxLinksPerNote) return note;
  const why = `${note.links.length} links (limits.maxLinksPerNote is ${limits.maxLinksPerNote})`;
  return {
    ...note,
    links: note.links.slice(0, limits.maxLinksPerNote),
    truncated: note.truncated ? `${note.truncated}; ${why}` : `${note.path}: only part was indexed: ${why}`,
  };
}
