// An episode note read again after text was appended to it (a chat turn's entry), in the time the
// appended text takes: the note as parsed before, plus the appended text read alone. Only where
// that gives exactly what parseNote gives the whole new text: the note as read before ended in an
// entry (no code fence, HTML block or `%%` comment left open that would swallow what follows), and
// the appended text is nothing but entries. Anything else is read whole (parseNote).
import { createHash, type Hash } from 'node:crypto';
import type { Root } from 'mdast';
import type { Block, Note, Section } from '../../core/types.js';
import { grownTail } from '../grown-text.js';
import { maskIgnored, scanLinks } from '../links/scan-links.js';
import { commentSpans } from './comments.js';
import { appendedEntries, readStructure } from './note-sections.js';
import { ownString } from './own-string.js';
import { codeSpans, parseMarkdown } from './parse-markdown.js';
import { inlineTags, type NoteParts } from './parse-note.js';
import { plainTree } from './plain-tree.js';
import { blankSpans, type Span } from './spans.js';

/** What an append to a note picks up from: how the text it was read from ended, and its ids. */
interface AppendState {
  /** Length of the text the note was read from (UTF-16 units) */
  length: number;
  /** SHA-256 of that text so far, not finished: the hash of it and an append is this and the append's */
  digest: Hash;
  /** Line breaks in it */
  breaks: number;
  /** The entries' date */
  date: string | undefined;
  /** Block ids of the note */
  blockIds: Set<string>;
  /** Section ids of the note */
  sectionIds: Set<string>;
  /** Position in `sections` of the last heading's (or the preamble's) own section, -1: none */
  lastRest: number;
}

/** Notes that an append may pick up from, with what it needs (a note from the cache has none). */
const states = new WeakMap<Note, AppendState>();

/** The first line of appended text that can be read alone: a `- ` item, which always starts one. */
const ITEM_START = /^[-*+] +\S/;

/**
 * Whether text read as `tree` ends so that text appended after it is read as if alone: it ends in
 * a line break, in the paragraph of a top-level list's last item, and no comment is left open.
 */
function endsInEntry(tree: Root, text: string, hidden: readonly Span[]): boolean {
  if (!text.endsWith('\n') || text.includes('\r')) return false;
  if (hidden.some(([, end]) => end >= text.length)) return false;
  const list = tree.children.at(-1);
  if (list?.type !== 'list') return false;
  const item = list.children.at(-1);
  const paragraph = item?.children.at(-1);
  if (paragraph?.type !== 'paragraph') return false;
  const end = paragraph.position?.end.offset;
  return end !== undefined && text.slice(end).trim() === '' && item?.position?.end.offset === end;
}

function breaksIn(text: string): number {
  let n = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

/**
 * Remembers what an append to `parts.note` (parsed whole from `text`) needs, when it is an
 * episode note that ends in an entry; else nothing (an append reads the note whole).
 */
export function keepAppendState(parts: NoteParts, text: string): void {
  const { note, tree, hidden } = parts;
  if (note.layer !== 'episodes' || note.truncated !== undefined) return;
  // Frontmatter left open: a `---` appended would close it. Frontmatter that is no YAML is read
  // as text, a `%%` in it too (for tags only): an append's tags could not be read alone.
  if (/^\ufeff?---/.test(text) && parts.frontmatter === undefined) return;
  if (parts.frontmatter && !parts.frontmatter.valid) return;
  if (!endsInEntry(tree, text, hidden)) return;
  const lastHeading = note.headings.at(-1);
  let lastRest = -1;
  for (let k = note.sections.length - 1; k >= 0; k--) {
    const section = note.sections[k] as Section;
    if (section.kind === 'block') continue;
    const last = lastHeading
      ? section.kind === 'heading' && section.start === lastHeading.start
      : section.kind === 'preamble';
    if (last) lastRest = k;
    break;
  }
  // The note's hash is the file's: only a note read from its whole text picks up from it.
  const digest = createHash('sha256').update(text);
  if (digest.copy().digest('hex') !== note.hash) return;
  states.set(note, {
    length: text.length,
    digest,
    breaks: breaksIn(text),
    date: parts.date,
    blockIds: new Set(note.blocks.map((b) => b.id)),
    sectionIds: new Set(note.sections.map((s) => s.id)),
    lastRest,
  });
}

/**
 * The note `text` makes, when it is the text `previous` was read from with more after it, or
 * undefined when that cannot be told from the appended part alone: then read it whole. The
 * result is what parseNote gives `text`, field for field.
 */
export function appendToNote(
  previous: Note,
  text: string,
  /** SHA-256 of `text` (the file's) */
  hash: string,
  stat: { size: number; mtimeMs: number },
  /** The index's bounds (bound-note.ts): a note that passes one is read whole, and cut */
  limits: { maxNoteChars: number; maxLineChars: number; maxLinksPerNote: number },
  /**
   * The file's bytes, when the caller holds them (an append of this process): the search for an
   * id's mention before the entries runs on them, and the text (joined by grown-text.ts, not
   * copied) is not read whole
   */
  bytes?: Buffer,
): Note | undefined {
  const state = states.get(previous);
  if (!state || text.length <= state.length || text.length > limits.maxNoteChars) return undefined;
  // Its own copy: what is read from it (entry texts, ids) is held for the life of the note, and a
  // slice would keep this whole version of the day alive with it, one more version per append.
  const tail = ownString(grownTail(text, state.length) ?? text.slice(state.length));
  if (!ITEM_START.test(tail) || tail.includes('\r')) return undefined;
  for (let from = 0; from < tail.length; ) {
    const eol = tail.indexOf('\n', from);
    const end = eol === -1 ? tail.length : eol;
    if (end - from > limits.maxLineChars) return undefined;
    from = end + 1;
  }
  // The file on disk is the truth: a hand edit anywhere before the end is a new text. The text
  // read before and this append hash as the file does only when the file is the two.
  const digest = state.digest.copy().update(tail);
  if (digest.copy().digest('hex') !== hash) return undefined;
  const tree = plainTree(tail) ?? parseMarkdown(tail);
  if (!tree.children.every((node) => node.type === 'list')) return undefined;
  const code = codeSpans(tree);
  const hidden = commentSpans(tail, code);
  if (!endsInEntry(tree, tail, hidden)) return undefined;
  const offset = state.length;
  const skip = [...code, ...hidden];
  const links = scanLinks(tail, { skip, offset, lineOffset: state.breaks });
  if (previous.links.length + links.length > limits.maxLinksPerNote) return undefined;
  const { headings, blocks } = readStructure(tree, blankSpans(tail, hidden), hidden);
  const fresh = new Set(blocks.map((b) => b.id));
  // Searched in the bytes when given, where the entries start that many bytes before the end: a
  // mention (ASCII) starts before them in the bytes when it does in the text.
  const mentionAt = (needle: string) => (bytes ? bytes.indexOf(needle) : text.indexOf(needle));
  const entriesAt = bytes ? bytes.length - Buffer.byteLength(tail, 'utf8') : offset;
  for (const id of fresh) {
    if (state.blockIds.has(id)) continue;
    // An earlier entry that mentions this id at a line end would lose it from its text.
    const at = mentionAt(`^${id}`);
    if (at !== -1 && at < entriesAt) return undefined;
  }
  const ids = { has: (id: string) => state.blockIds.has(id) || fresh.has(id) };
  const entries = appendedEntries(
    { path: previous.path, text: tail, headings, blocks, hidden },
    previous.headings.at(-1)?.text,
    state.date,
    ids,
    state.sectionIds,
  );
  if (!entries) return undefined;
  for (const section of entries) {
    section.start += offset;
    section.end += offset;
    section.line += state.breaks;
  }
  const tagText = maskIgnored(tail, [...skip, ...links.map((l): Span => [l.start - offset, l.end - offset])]);
  const sections = [...previous.sections, ...entries];
  if (state.lastRest !== -1) {
    const rest = sections[state.lastRest] as Section;
    sections[state.lastRest] = { ...rest, end: offset + tail.trimEnd().length };
  }
  const note: Note = {
    path: previous.path,
    layer: previous.layer,
    frontmatter: previous.frontmatter,
    title: previous.title,
    aliases: previous.aliases,
    tags: [...new Set([...previous.tags, ...inlineTags(tagText)])],
    links: [...previous.links, ...links],
    headings: previous.headings,
    sections,
    blocks: [
      ...previous.blocks,
      ...blocks.map(
        ({ id, line, start, end }): Block => ({
          id,
          line: line + state.breaks,
          start: start + offset,
          end: end + offset,
        }),
      ),
    ],
    warnings: [...previous.warnings],
    hash,
    size: stat.size,
    mtimeMs: stat.mtimeMs,
  };
  // The state moves on to the new note (the one before is replaced by it).
  states.delete(previous);
  state.length = text.length;
  state.digest = digest;
  state.breaks += breaksIn(tail);
  for (const id of fresh) state.blockIds.add(id);
  for (const section of entries) state.sectionIds.add(section.id);
  states.set(note, state);
  return note;
}

/** Whether an append to `note` can pick up from it (for tests and the index's choice). */
export function isAppendable(note: Note): boolean {
  return states.has(note);
}
