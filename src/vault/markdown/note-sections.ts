// Headings, block ids and sections (episode entries with their time and speaker) from the remark tree.
import type { Nodes, Parents } from 'mdast';
import type { Block, Section } from '../../core/types.js';
import { unescapePercents, visibleText } from './comments.js';
import { readEntryBody } from './entry-text.js';
import type { LineIndex } from './line-index.js';
import { ownString } from './own-string.js';
import type { Span } from './spans.js';

// ---------------------------------------------------------------------------------------------
// Structure: headings and block ids from the remark tree

export interface HeadingInfo {
  text: string;
  depth: number;
  line: number;
  start: number;
  end: number;
}

export interface BlockInfo extends Block {
  /** Where the block's text ends, including an id written on its own line after it */
  textEnd: number;
  /** The block is a list item, so its text starts with a list marker */
  item: boolean;
}

const TRAILING_ID = /(?:^|\s)\^([A-Za-z0-9-]+)[ \t]*$/;
const LONE_ID = /^\^([A-Za-z0-9-]+)[ \t]*$/;

function span(node: Nodes): Span | undefined {
  const start = node.position?.start.offset;
  const end = node.position?.end.offset;
  return start === undefined || end === undefined ? undefined : [start, end];
}

/**
 * `text` has comments blanked (same offsets), so a `^id` inside one is no block id; a heading
 * inside a comment is skipped, and heading text is read with the `hidden` spans cut out.
 */
export function readStructure(
  tree: Parents,
  text: string,
  hidden: readonly Span[] = [],
): { headings: HeadingInfo[]; blocks: BlockInfo[] } {
  const headings: HeadingInfo[] = [];
  const blocks: BlockInfo[] = [];
  const addBlock = (id: string, node: Nodes, textEnd: number): void => {
    const at = span(node);
    if (!at) return;
    const item = node.type === 'listItem';
    blocks.push({ id, line: node.position!.start.line, start: at[0], end: at[1], textEnd, item });
  };
  // Pre-order over an explicit stack, not recursion: a tree's depth must never cost the call stack.
  // Each frame is a parent and the index of its next child, so nodes are met in document order.
  const stack: Array<{ parent: Parents; index: number }> = [{ parent: tree, index: 0 }];
  while (stack.length > 0) {
    const frame = stack[stack.length - 1]!;
    const { parent } = frame;
    const children: Nodes[] = parent.children;
    if (frame.index >= children.length) {
      stack.pop();
      continue;
    }
    const index = frame.index++;
    const node = children[index]!;
    const at = span(node);
    if (node.type === 'heading' && at && !within(at, hidden)) {
      const first = node.children[0] ? span(node.children[0]) : undefined;
      const last = node.children.at(-1) ? span(node.children.at(-1)!) : undefined;
      const raw = first && last ? visibleText(text, hidden, first[0], last[1]) : '';
      // Its own copy: a heading's text is a section's anchor and id, which the text index keeps
      // (a cut of the note held the whole note: 83 MiB of a 100,000-note cold index's peak).
      const headingText = ownString(raw.replace(/\r?\n/g, ' ').trim());
      headings.push({
        text: headingText,
        depth: node.depth,
        line: node.position!.start.line,
        ...range(at),
      });
    } else if (node.type === 'paragraph' && at) {
      const raw = text.slice(at[0], at[1]);
      const lone = LONE_ID.exec(raw);
      const owner = parent.type === 'listItem' ? parent : undefined;
      if (lone?.[1]) {
        // `^id` on its own line names the element before it (a list, quote or table).
        const previous = owner ?? children[index - 1];
        if (previous && previous.type !== 'heading')
          addBlock(lone[1], previous, Math.max(at[1], span(previous)?.[1] ?? 0));
      } else {
        const trailing = TRAILING_ID.exec(raw);
        if (trailing?.[1]) addBlock(trailing[1], owner ?? node, span(owner ?? node)?.[1] ?? at[1]);
      }
    }
    if ('children' in node && node.type !== 'heading') stack.push({ parent: node, index: 0 });
  }
  blocks.sort((a, b) => a.start - b.start);
  return { headings, blocks };
}

function within(at: Span, spans: readonly Span[]): boolean {
  return spans.some(([start, end]) => start <= at[0] && at[1] <= end);
}

function range(at: Span): { start: number; end: number } {
  return { start: at[0], end: at[1] };
}

// ---------------------------------------------------------------------------------------------
// Sections: the unit of search

export interface SectionInput {
  path: string;
  text: string;
  lines: LineIndex;
  headings: HeadingInfo[];
  blocks: BlockInfo[];
  /** Where the body starts: after valid frontmatter, else 0 (invalid frontmatter stays searchable) */
  bodyStart: number;
  /** Comments: never part of a section's text */
  hidden: readonly Span[];
}

/** The note's block ids, as cleanText asks for them */
export type BlockIds = Pick<ReadonlySet<string>, 'has'>;

const ID_MARK = /\^([A-Za-z0-9-]+)[ \t]*$/gm;

/** Removes ` ^id` marks of known blocks (and lines holding only one) and `\r`, then trims. */
function cleanText(raw: string, ids: BlockIds): string {
  const text = raw.replace(/\r/g, '');
  if (!text.includes('^')) return text.trim();
  // The spaces before a mark are found by walking back, not by the pattern: `[ \t]+\^` tried at
  // every position of a long run of spaces costs quadratic time (1 MB of indents took 6 s).
  const parts: string[] = [];
  let cursor = 0;
  for (const match of text.matchAll(ID_MARK)) {
    const at = match.index;
    const before = at === 0 ? '\n' : text[at - 1];
    if (!ids.has(match[1] ?? '') || (before !== '\n' && before !== ' ' && before !== '\t')) continue;
    let from = at;
    while (from > cursor && (text[from - 1] === ' ' || text[from - 1] === '\t')) from--;
    parts.push(text.slice(cursor, from));
    cursor = at + match[0].length;
  }
  parts.push(text.slice(cursor));
  return parts.join('').trim();
}

/** `[from, to)` without the whitespace at either end. */
function trimSpan(text: string, from: number, to: number): Span {
  let start = from;
  let end = to;
  while (end > start && /\s/.test(text[end - 1]!)) end--;
  while (start < end && /\s/.test(text[start]!)) start++;
  return [start, end];
}

class SectionIds {
  readonly used = new Set<string>();
  constructor(
    private readonly path: string,
    /** Ids the note's earlier sections took (an append numbers on after them) */
    private readonly taken?: ReadonlySet<string>,
  ) {}
  /**
   * `path#anchor`, with ` (2)`, ` (3)` … appended when two sections share an anchor. A `#` of the
   * anchor (a heading `x.md#y`) is written `%23`: the last `#` then always ends the path, and no
   * section of one note can have the id of another's (`a.md` + `x.md#y` was `a.md#x.md` + `y`).
   */
  next(anchor: string): string {
    const base = `${this.path}#${anchor.replaceAll('#', '%23')}`;
    let id = base;
    for (let n = 2; this.used.has(id) || this.taken?.has(id); n++) id = `${base} (${n})`;
    this.used.add(id);
    return id;
  }
}

/** A preamble and one section per heading, each running to the next heading of any level. */
export function headingSections(input: SectionInput): Section[] {
  const { path, text, lines, headings, blocks, bodyStart, hidden } = input;
  const ids = new Set(blocks.map((b) => b.id));
  const sectionIds = new SectionIds(path);
  const sections: Section[] = [];
  const firstHeading = headings[0]?.start ?? text.length;
  const [pStart, pEnd] = trimSpan(text, bodyStart, Math.max(bodyStart, firstHeading));
  // `%\%` is how mem writes `%%` (escapeComments); it reads `%%`, as Obsidian shows it.
  const preamble = unescapePercents(cleanText(visibleText(text, hidden, pStart, pEnd), ids));
  if (preamble !== '') {
    const line = lines.lineAt(pStart);
    sections.push({
      id: sectionIds.next(''),
      anchor: '',
      kind: 'preamble',
      text: preamble,
      start: pStart,
      end: pEnd,
      line,
    });
  }
  headings.forEach((h, i) => {
    const regionEnd = headings[i + 1]?.start ?? text.length;
    const end = Math.max(h.end, trimSpan(text, h.end, regionEnd)[1]);
    sections.push({
      id: sectionIds.next(h.text),
      anchor: h.text,
      kind: 'heading',
      heading: h.text,
      text: unescapePercents(cleanText(visibleText(text, hidden, h.end, regionEnd), ids)),
      start: h.start,
      end,
      line: h.line,
    });
  });
  return sections;
}

/**
 * Episode notes: each block with an id is its own section (one entry); the text around the
 * entries stays in preamble/heading sections, which are skipped when nothing else is left.
 */
export function episodeSections(input: SectionInput, date: string | undefined): Section[] {
  const { path, text, lines, headings, blocks, bodyStart, hidden } = input;
  const ids = new Set(blocks.map((b) => b.id));
  // A block nested in another (a sub-item with its own id) ends its parent's section early.
  const spans: Span[] = blocks.map((b, i) => {
    const next = blocks[i + 1]?.start;
    return [b.start, next !== undefined && next > b.start && next < b.textEnd ? next : b.textEnd];
  });
  const dated = date === undefined ? {} : { date };
  const sections: Section[] = [];
  const regions = [
    { heading: undefined as HeadingInfo | undefined, from: bodyStart, textFrom: bodyStart },
    ...headings.map((h) => ({ heading: h as HeadingInfo | undefined, from: h.start, textFrom: h.end })),
  ];
  let b = 0;
  regions.forEach((region, r) => {
    const to = Math.max(region.textFrom, regions[r + 1]?.from ?? text.length);
    const pieces: string[] = [];
    let cursor = region.textFrom;
    const entries: Section[] = [];
    for (; b < blocks.length && blocks[b]!.start < to; b++) {
      const block = blocks[b]!;
      const [start, end] = spans[b]!;
      if (start > cursor) pieces.push(visibleText(text, hidden, cursor, start));
      cursor = Math.max(cursor, end);
      entries.push(entrySection(input, block, start, end, region.heading?.text, ids, dated));
    }
    if (cursor < to) pieces.push(visibleText(text, hidden, cursor, to));
    // Pieces are what is left between entries; one blank line between them reads as written.
    const rest = pieces
      .map((piece) => unescapePercents(cleanText(piece, ids)))
      .filter((piece) => piece !== '')
      .join('\n\n');
    if (rest !== '') {
      const [start, end] = region.heading
        ? [region.from, trimSpan(text, region.from, to)[1]]
        : trimSpan(text, region.from, to);
      const h = region.heading;
      sections.push({
        id: '',
        anchor: h ? h.text : '',
        kind: h ? 'heading' : 'preamble',
        ...(h ? { heading: h.text } : {}),
        text: rest,
        start,
        end,
        line: h ? h.line : lines.lineAt(start),
        ...dated,
      });
    }
    sections.push(...entries);
  });
  const sectionIds = new SectionIds(path);
  for (const section of sections) {
    section.id = sectionIds.next(section.anchor);
    // A block id used twice: the second entry gets its own anchor (`^e1 (2)`), as Obsidian links
    // only the first, so each entry stays findable and citable by one anchor (doctor reports it).
    if (section.kind === 'block') section.anchor = section.id.slice(path.length + 1);
  }
  return sections;
}

/** The section of one entry: `block`'s text over `[start, end)`, its id set later. */
function entrySection(
  input: Pick<SectionInput, 'text' | 'hidden'>,
  block: BlockInfo,
  start: number,
  end: number,
  heading: string | undefined,
  ids: BlockIds,
  dated: { date?: string },
): Section {
  const { text, hidden } = input;
  return {
    id: '',
    anchor: `^${block.id}`,
    kind: 'block',
    ...(heading !== undefined ? { heading } : {}),
    ...entryText(visibleText(text, hidden, start, end), block.item, ids),
    start,
    end: trimSpan(text, start, end)[1],
    line: block.line,
    ...dated,
  };
}

/**
 * The sections episodeSections gives the entries of text appended to an episode note, read alone
 * (offsets and lines are the appended text's): `heading` is the heading they fall under (the
 * note's last), `ids` every block id of the whole note, `taken` the ids of the note's sections
 * before them. Undefined when the appended text holds anything but entries and white space (a
 * heading or preamble section would change), or an entry nested in another.
 */
export function appendedEntries(
  input: Omit<SectionInput, 'lines' | 'bodyStart'>,
  heading: string | undefined,
  date: string | undefined,
  ids: BlockIds,
  taken: ReadonlySet<string>,
): Section[] | undefined {
  const { path, text, blocks, headings } = input;
  if (headings.length > 0 || blocks.length === 0) return undefined;
  const dated = date === undefined ? {} : { date };
  const sections: Section[] = [];
  let cursor = 0;
  for (const [b, block] of blocks.entries()) {
    const next = blocks[b + 1]?.start;
    if (next !== undefined && next < block.textEnd) return undefined;
    if (text.slice(cursor, block.start).trim() !== '') return undefined;
    sections.push(entrySection(input, block, block.start, block.textEnd, heading, ids, dated));
    cursor = Math.max(cursor, block.textEnd);
  }
  if (text.slice(cursor).trim() !== '') return undefined;
  const sectionIds = new SectionIds(path, taken);
  for (const section of sections) {
    section.id = sectionIds.next(section.anchor);
    section.anchor = section.id.slice(path.length + 1);
  }
  return sections;
}

const LIST_MARKER = /^[ \t]*(?:[-*+]|\d{1,9}[.)])(?:[ \t]+\[.\])?[ \t]+/;
const TIME = /^(\d{1,2}):([0-5]\d)(?=\s|$)[ \t]*/;
const SPEAKER = /^\*\*([^*\n]+?)(?:[:：]\*\*|\*\*[:：])[ \t]*/;

/**
 * An entry's content without list marker, `HH:MM`, `**Speaker:**`, block id and inline fields
 * (`[importance:: 0.9]`); those go to their own fields. The text is read back through the entry
 * rule (entry-text.ts), so it is the text that was written, escapes undone.
 */
function entryText(
  raw: string,
  item: boolean,
  ids: BlockIds,
): Pick<Section, 'text' | 'time' | 'speaker' | 'importance'> {
  let body = raw.replace(/\r/g, '');
  if (item) {
    const marker = LIST_MARKER.exec(body)?.[0] ?? '';
    body = body.slice(marker.length);
    // Continuation lines are indented to the item's content; drop that indent.
    if (marker.length > 0) body = body.replace(new RegExp(`\\n(?: {1,${marker.length}}|\\t)`, 'g'), '\n');
  }
  const result: Pick<Section, 'text' | 'time' | 'speaker' | 'importance'> = { text: '' };
  const time = TIME.exec(body);
  if (time && Number(time[1]) < 24) {
    result.time = `${time[1]!.padStart(2, '0')}:${time[2]}`;
    body = body.slice(time[0].length);
  }
  const speaker = SPEAKER.exec(body);
  if (speaker?.[1]) {
    result.speaker = speaker[1].trim();
    body = body.slice(speaker[0].length);
  }
  const { text, fields } = readEntryBody(cleanText(body, ids));
  result.text = text;
  const importance = fields['importance'] === undefined ? Number.NaN : Number(fields['importance']);
  if (fields['importance'] !== '' && importance >= 0 && importance <= 1) result.importance = importance;
  return result;
}
