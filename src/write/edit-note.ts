// Body edits of one note (append, prepend, replace a section, insert under a heading), spliced by
// source offsets so every byte outside the edited span stays as the person wrote it.
import type { MemConfig } from '../core/config/config.js';
import { MemError } from '../core/errors.js';
import type { Heading } from '../core/types.js';
import { layerOf, layoutOf } from '../vault/layout.js';
import { findFrontmatter } from '../vault/markdown/parse-markdown.js';
import { parseNote } from '../vault/markdown/parse-note.js';
import { resolveInVault } from '../vault/paths.js';
import { type Author, checkWrite } from '../vault/write-policy.js';
import { checkNoTwin } from './move-note.js';
import { cleanNoteText } from './note-text.js';
import { type NoteWriteResult, rewriteNote } from './rewrite-note.js';

/** One change to a note's body. */
export type NoteEdit =
  /** Text added at the end of the note */
  | { append: string }
  /** Text added at the top of the body, after the frontmatter and the title heading */
  | { prepend: string }
  /** The body under `replaceSection` (up to the next heading of the same or a higher level) becomes `text` */
  | { replaceSection: string; text: string }
  /** Text added after the last line directly under `insertUnder` (before its first subheading) */
  | { insertUnder: string; text: string };

export interface EditNoteOptions {
  /** sha256 the note must still have, when the caller read it earlier (default: the hash read here) */
  expectedHash?: string;
  /** Who writes (default: the person); a model's tool may not edit the persona (write-policy.ts) */
  author?: Author;
}

/** A spliced text: `text` is the old one with [start, oldEnd) replaced by [start, end). */
export interface Splice {
  text: string;
  start: number;
  /** End of the replaced span in the old text */
  oldEnd: number;
  /** End of the new span in the new text */
  end: number;
}

/** The edit's kind, for messages. */
export function editKind(edit: NoteEdit): string {
  if ('append' in edit) return 'append';
  if ('prepend' in edit) return 'prepend';
  if ('replaceSection' in edit) return 'section';
  return 'insert';
}

const lineStart = (text: string, at: number): number => text.lastIndexOf('\n', at - 1) + 1;
const nextLine = (text: string, at: number): number => {
  const nl = text.indexOf('\n', at);
  return nl === -1 ? text.length : nl + 1;
};
const isBlank = (line: string): boolean => line.trim() === '';
/** The line that ends just before `at` (a line start). */
const lineBefore = (text: string, at: number): string => text.slice(lineStart(text, at - 1), at);
const lineAt = (text: string, at: number): string => text.slice(at, nextLine(text, at));

/**
 * Puts `block` (lines joined by `eol`) at the line start `at`, with a blank line on each side where
 * the neighbouring line has text, so the block stays its own paragraph and never merges into one.
 */
function insertBlock(text: string, at: number, block: string, eol: string, floor: number): Splice {
  let lead = '';
  if (at === text.length && at > 0 && !text.endsWith('\n')) lead = eol;
  if (at > floor && !isBlank(lead ? text.slice(lineStart(text, at), at) : lineBefore(text, at))) lead += eol;
  const tail = at < text.length && !isBlank(lineAt(text, at)) ? eol : '';
  const inserted = `${lead}${block}${eol}${tail}`;
  return {
    text: text.slice(0, at) + inserted + text.slice(at),
    start: at,
    oldEnd: at,
    end: at + inserted.length,
  };
}

/** The one heading `name` names (its text, with or without its `#` marks); refuses none or several. */
function findHeading(headings: readonly Heading[], name: string, label: string): Heading {
  const wanted = name
    .trim()
    .replace(/^#{1,6}\s+/, '')
    .trim();
  const exact = headings.filter((h) => h.text === wanted);
  const found =
    exact.length > 0 ? exact : headings.filter((h) => h.text.toLowerCase() === wanted.toLowerCase());
  if (found.length === 1) return found[0]!;
  if (found.length > 1) {
    throw new MemError(
      'INVALID_ARGUMENT',
      `${label}: ${found.length} headings are named ${JSON.stringify(wanted)} (lines ${found.map((h) => h.line).join(', ')}); rename one`,
    );
  }
  const names = headings.map((h) => `${'#'.repeat(h.level)} ${h.text}`).join(', ');
  throw new MemError(
    'NOT_FOUND',
    `${label}: no heading ${JSON.stringify(wanted)}${names ? `; its headings: ${names}` : '; it has no headings'}`,
  );
}

/**
 * The new text of a note after `edit`, and where it changed. Pure. Headings come from the remark
 * parse (parseNote), so a `#` line inside a code fence or a comment is never taken for one.
 */
export function applyEdit(path: string, text: string, edit: NoteEdit): Splice {
  const eol = /\r\n/.test(text.slice(0, nextLine(text, 0))) ? '\r\n' : '\n';
  const block = (raw: unknown, allowEmpty = false) =>
    cleanNoteText(raw, path, allowEmpty).replace(/\n/g, eol);
  const note = parseNote(path, text);
  const bodyStart = findFrontmatter(text)?.region[1] ?? (text.charCodeAt(0) === 0xfeff ? 1 : 0);
  let splice: Splice;
  if ('append' in edit) {
    splice = insertBlock(text, text.length, block(edit.append), eol, bodyStart);
  } else if ('prepend' in edit) {
    // After the title heading when it is the first thing in the body.
    const title = note.headings[0];
    const first =
      title && title.level === 1 && isBlank(text.slice(bodyStart, title.start)) ? title : undefined;
    const at = first ? nextLine(text, first.end) : bodyStart;
    splice = insertBlock(text, at, block(edit.prepend), eol, first ? at : bodyStart);
  } else {
    const name = 'replaceSection' in edit ? edit.replaceSection : edit.insertUnder;
    if (typeof name !== 'string')
      throw new MemError('INVALID_ARGUMENT', `${path}: the heading must be a string`);
    const heading = findHeading(note.headings, name, path);
    const bodyFrom = nextLine(text, heading.end);
    const after = note.headings.filter((h) => h.start > heading.start);
    if ('replaceSection' in edit) {
      const next = after.find((h) => h.level <= heading.level);
      const to = next ? lineStart(text, next.start) : text.length;
      const content = block(edit.text, true);
      let lead = bodyFrom === text.length && !text.endsWith('\n') && bodyFrom > 0 ? eol : '';
      const replacement = content === '' ? (next ? eol : '') : `${eol}${content}${eol}${next ? eol : ''}`;
      lead += replacement;
      splice = {
        text: text.slice(0, bodyFrom) + lead + text.slice(to),
        start: bodyFrom,
        oldEnd: to,
        end: bodyFrom + lead.length,
      };
    } else {
      // After the last line with text directly under the heading, before any subheading.
      const next = after[0];
      let at = next ? lineStart(text, next.start) : text.length;
      if (at === text.length && at > bodyFrom && !text.endsWith('\n')) {
        splice = insertBlock(text, at, block(edit.text), eol, bodyFrom);
      } else {
        while (at > bodyFrom && isBlank(lineBefore(text, at))) at = lineStart(text, at - 1);
        splice = insertBlock(text, Math.max(at, bodyFrom), block(edit.text), eol, bodyStart);
      }
    }
  }
  checkStructureKept(path, note.headings, parseNote(path, splice.text).headings, splice);
  return splice;
}

/**
 * Refuses text that would change the note outside its span: an unclosed code fence or comment in
 * it turns every heading after it into code, which is a rewrite of text the edit did not name.
 */
function checkStructureKept(
  path: string,
  before: readonly Heading[],
  after: readonly Heading[],
  splice: Splice,
) {
  const shift = splice.end - splice.oldEnd;
  const key = (h: Heading, delta: number) => `${h.level}:${h.start + delta}:${h.text}`;
  const old = before.filter((h) => h.start >= splice.oldEnd).map((h) => key(h, shift));
  const now = after.filter((h) => h.start >= splice.end).map((h) => key(h, 0));
  if (old.join('\n') !== now.join('\n')) {
    throw new MemError(
      'INVALID_ARGUMENT',
      `${path}: the text would change the headings after it (an unclosed code fence or %% comment?); nothing was written`,
    );
  }
}

/**
 * Edits one note's body (see NoteEdit), changing only the edited span. Episode notes are refused:
 * they are append-only through remember. A hand edit since the read stops it with CONFLICT.
 */
export async function editNote(
  root: string,
  config: MemConfig,
  path: string,
  edit: NoteEdit,
  options: EditNoteOptions = {},
): Promise<NoteWriteResult> {
  const { abs, rel } = await resolveInVault(root, path, { mustExist: true });
  checkWrite({ author: options.author ?? 'person', action: 'edit', path: rel, layout: layoutOf(config) });
  if (layerOf(rel, layoutOf(config)) === 'episodes') {
    throw new MemError(
      'INVALID_ARGUMENT',
      `${rel} is an episode note; episodes are append-only through remember (mem remember / memory_remember)`,
    );
  }
  if (!rel.endsWith('.md')) throw new MemError('INVALID_ARGUMENT', `${rel} is not a Markdown note`);
  await checkNoTwin(root, rel);
  const message = `mem: note ${editKind(edit)} ${rel}`;
  return rewriteNote(root, config, {
    abs,
    rel,
    message,
    expectedHash: options.expectedHash,
    change: (text) => applyEdit(rel, text, edit).text,
  });
}
