import { createHash } from 'node:crypto';
import type { Nodes, Parents } from 'mdast';
import { type Document, isMap, isScalar, isSeq, parseDocument, type Node as YamlNode } from 'yaml';
import type { Block, LinkRef, Note, Section } from '../types.js';
import { layerOf } from './layer.js';
import { blank, codeSpans, maskIgnored, parseMarkdown, type Span, scanLinks } from './scan-links.js';

/**
 * Reads one note's text into a Note. Pure: no file IO, never throws. Offsets are into the full
 * text (BOM and CRLF kept); text fields have `\r` removed.
 */
export function parseNote(path: string, text: string, stat?: { size: number; mtimeMs: number }): Note {
  const lines = new LineIndex(text);
  const fm = readFrontmatter(path, text, lines);
  // Blank the frontmatter (valid or not) so remark keeps offsets but does not read `---` as a
  // thematic break or setext underline.
  const tree = parseMarkdown(
    fm.region ? blank(text.slice(0, fm.region[1])) + text.slice(fm.region[1]) : text,
  );
  const skip = codeSpans(tree);
  // Invalid frontmatter is indexed as plain text, so its links and tags count as body ones.
  if (fm.valid && fm.region) skip.push(fm.region);
  const bodyLinks = scanLinks(text, { skip });
  const { headings, blocks } = readStructure(tree, text);
  const links = [...fm.links, ...bodyLinks];
  const tagText = maskIgnored(text, [...skip, ...bodyLinks.map((l): Span => [l.start, l.end])]);
  const title = stringValue(fm.data['title']) || headings.find((h) => h.depth === 1)?.text || fileTitle(path);
  const layer = layerOf(path);
  const bodyStart = fm.valid && fm.region ? fm.region[1] : 0;
  const sectionInput: SectionInput = { path, text, lines, headings, blocks, bodyStart };
  const sections =
    layer === 'episodes'
      ? episodeSections(sectionInput, episodeDate(path, fm.data))
      : headingSections(sectionInput);
  return {
    path,
    layer,
    frontmatter: fm.data,
    title,
    aliases: readAliases(fm.data),
    tags: [...new Set([...frontmatterTags(fm.data), ...inlineTags(tagText)])],
    links,
    headings: headings.map(({ text, depth, line, start, end }) => ({ text, level: depth, line, start, end })),
    sections,
    blocks: blocks.map(({ id, line, start, end }) => ({ id, line, start, end })),
    warnings: fm.warning ? [fm.warning] : [],
    hash: createHash('sha256').update(text, 'utf8').digest('hex'),
    size: stat?.size ?? Buffer.byteLength(text, 'utf8'),
    mtimeMs: stat?.mtimeMs ?? 0,
  };
}

/** Line numbers for offsets, by binary search over line starts (built once per note). */
class LineIndex {
  private readonly starts: number[] = [0];
  constructor(text: string) {
    for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) this.starts.push(i + 1);
  }
  /** 1-based line of `offset` */
  lineAt(offset: number): number {
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((this.starts[mid] ?? 0) <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  }
}

// ---------------------------------------------------------------------------------------------
// Frontmatter

interface Frontmatter {
  data: Record<string, unknown>;
  /** `[0, end)`: from the file start (BOM included) to after the closing `---` line */
  region?: Span;
  valid: boolean;
  links: LinkRef[];
  warning?: string;
}

// Frontmatter counts only when `---` opens the file; a BOM before it is tolerated.
const FM_OPEN = /^\uFEFF?---[ \t]*\r?\n/;
const FM_CLOSE = /^---[ \t]*\r?$/gm;

const YAML_REASONS: Partial<Record<string, string>> = {
  BAD_INDENT: 'bad indentation',
  BLOCK_AS_IMPLICIT_KEY: 'bad indentation',
  MULTILINE_IMPLICIT_KEY: 'bad indentation',
  TAB_AS_INDENT: 'tab used as indentation',
  DUPLICATE_KEY: 'duplicate key',
  MISSING_CHAR: 'missing closing character',
  BAD_DQ_ESCAPE: 'bad escape in a double-quoted string',
};

function readFrontmatter(path: string, text: string, lines: LineIndex): Frontmatter {
  const open = FM_OPEN.exec(text);
  if (!open) return { data: {}, valid: true, links: [] };
  const yamlStart = open[0].length;
  const close = new RegExp(FM_CLOSE.source, 'gm');
  close.lastIndex = yamlStart;
  const closing = close.exec(text);
  if (!closing) return { data: {}, valid: true, links: [] };
  let end = closing.index + closing[0].length;
  if (text.charCodeAt(end) === 0x0a) end++;
  const region: Span = [0, end];
  const source = text.slice(yamlStart, closing.index);
  const invalid = (line: number, reason: string): Frontmatter => ({
    data: {},
    region,
    valid: false,
    links: [],
    warning: `${path}: invalid frontmatter at line ${line} (${reason}); the note is indexed as plain text`,
  });
  let doc: Document.Parsed;
  let value: unknown;
  try {
    doc = parseDocument(source, { uniqueKeys: true, prettyErrors: true });
    const error = doc.errors[0];
    if (error) {
      const reason = YAML_REASONS[error.code] ?? error.message.split('\n')[0]!.replace(/ at line \d+.*$/, '');
      return invalid(lines.lineAt(yamlStart + error.pos[0]), reason.toLowerCase());
    }
    value = doc.toJS();
  } catch (error) {
    // toJS throws on alias bombs and similar; the note must still be indexed.
    return invalid(lines.lineAt(yamlStart), (error as Error).message.split('\n')[0] ?? 'unreadable YAML');
  }
  if (value === null || value === undefined) return { data: {}, region, valid: true, links: [] };
  if (typeof value !== 'object' || Array.isArray(value)) {
    return invalid(lines.lineAt(yamlStart), 'expected key: value properties');
  }
  return {
    data: plain(value) as Record<string, unknown>,
    region,
    valid: true,
    links: frontmatterLinks(doc, source, yamlStart, lines),
  };
}

/**
 * A JSON-serialisable deep copy. `yaml`'s core schema keeps dates as strings already; Dates are
 * handled anyway so nothing upstream can leak one (date-only when it is midnight UTC).
 */
function plain(value: unknown): unknown {
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) return null;
    const iso = value.toISOString();
    return iso.endsWith('T00:00:00.000Z') ? iso.slice(0, 10) : iso;
  }
  if (Array.isArray(value)) return value.map(plain);
  if (value instanceof Map) return plain(Object.fromEntries(value));
  if (value instanceof Set) return [...value].map(plain);
  if (typeof value === 'bigint') return Number(value);
  if (typeof value === 'number' && !Number.isFinite(value)) return null;
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plain(v)]));
  }
  return value;
}

/** `"[[X]]"` strings in properties (also in lists and nested maps), with offsets into the file. */
function frontmatterLinks(
  doc: Document.Parsed,
  source: string,
  yamlStart: number,
  lines: LineIndex,
): LinkRef[] {
  const links: LinkRef[] = [];
  const visit = (node: unknown, property: string): void => {
    if (isScalar(node)) {
      if (typeof node.value !== 'string' || !node.value.includes('[[') || !node.range) return;
      const [from, to] = node.range;
      const offset = yamlStart + from;
      const found = scanLinks(source.slice(from, to), {
        skip: [],
        offset,
        lineOffset: lines.lineAt(offset) - 1,
      });
      for (const link of found) {
        if (link.kind === 'wiki' || link.kind === 'embed')
          links.push({ ...link, kind: 'frontmatter', property });
      }
    } else if (isSeq(node)) {
      for (const item of node.items) visit(item, property);
    } else if (isMap(node)) {
      for (const pair of node.items) visit(pair.value, property);
    }
  };
  if (isMap(doc.contents)) {
    for (const pair of doc.contents.items) {
      const key = pair.key as YamlNode | null;
      visit(pair.value, isScalar(key) ? String(key.value) : String(key));
    }
  }
  return links;
}

function stringValue(value: unknown): string {
  if (typeof value === 'string') return value.trim();
  if (typeof value === 'number') return String(value);
  return '';
}

/** Obsidian reads `aliases` and the older `alias`, in any case. */
function propertyOf(data: Record<string, unknown>, name: RegExp): unknown {
  const key = Object.keys(data).find((k) => name.test(k));
  return key === undefined ? undefined : data[key];
}

function listOf(value: unknown, split: RegExp): string[] {
  const items = Array.isArray(value) ? value.map(stringValue) : stringValue(value).split(split);
  return items.map((s) => s.trim()).filter((s) => s !== '');
}

function readAliases(data: Record<string, unknown>): string[] {
  return [...new Set(listOf(propertyOf(data, /^alias(es)?$/i), /,/))];
}

function frontmatterTags(data: Record<string, unknown>): string[] {
  return listOf(propertyOf(data, /^tags?$/i), /[,\s]+/)
    .map((t) => normaliseTag(t.replace(/^#+/, '')))
    .filter((t) => t !== '');
}

// A tag starts after whitespace or at the start of a line, so `http://x.com/#frag`, `[[a#b]]`
// and `# Heading` (space after the mark) are not tags.
const INLINE_TAG = /(?<=^|\s)#([\p{L}\p{N}\p{M}_\-/]+)/gu;
const NON_DIGIT = /\P{N}/u;

function inlineTags(masked: string): string[] {
  const tags: string[] = [];
  for (const m of masked.matchAll(INLINE_TAG)) {
    const tag = normaliseTag(m[1] ?? '');
    // `#1984` is not a tag: a tag needs at least one character that is not a digit.
    if (tag !== '' && NON_DIGIT.test(tag.replaceAll('/', ''))) tags.push(tag);
  }
  return tags;
}

function normaliseTag(tag: string): string {
  return tag.replace(/^\/+|\/+$/g, '').toLowerCase();
}

function fileTitle(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1).replace(/\.md$/i, '');
}

// ---------------------------------------------------------------------------------------------
// Structure: headings and block ids from the remark tree

interface HeadingInfo {
  text: string;
  depth: number;
  line: number;
  start: number;
  end: number;
}

interface BlockInfo extends Block {
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

function readStructure(tree: Parents, text: string): { headings: HeadingInfo[]; blocks: BlockInfo[] } {
  const headings: HeadingInfo[] = [];
  const blocks: BlockInfo[] = [];
  const addBlock = (id: string, node: Nodes, textEnd: number): void => {
    const at = span(node);
    if (!at) return;
    const item = node.type === 'listItem';
    blocks.push({ id, line: node.position!.start.line, start: at[0], end: at[1], textEnd, item });
  };
  const visit = (parent: Parents): void => {
    const children: Nodes[] = parent.children;
    children.forEach((node, index) => {
      const at = span(node);
      if (node.type === 'heading' && at) {
        const first = node.children[0] ? span(node.children[0]) : undefined;
        const last = node.children.at(-1) ? span(node.children.at(-1)!) : undefined;
        const raw = first && last ? text.slice(first[0], last[1]) : '';
        const headingText = raw.replace(/\r?\n/g, ' ').trim();
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
      if ('children' in node && node.type !== 'heading') visit(node);
    });
  };
  visit(tree);
  blocks.sort((a, b) => a.start - b.start);
  return { headings, blocks };
}

function range(at: Span): { start: number; end: number } {
  return { start: at[0], end: at[1] };
}

// ---------------------------------------------------------------------------------------------
// Sections: the unit of search

interface SectionInput {
  path: string;
  text: string;
  lines: LineIndex;
  headings: HeadingInfo[];
  blocks: BlockInfo[];
  /** Where the body starts: after valid frontmatter, else 0 (invalid frontmatter stays searchable) */
  bodyStart: number;
}

/** Removes ` ^id` marks of known blocks (and lines holding only one) and `\r`, then trims. */
function cleanText(raw: string, ids: ReadonlySet<string>): string {
  return raw
    .replace(/\r/g, '')
    .replace(/(^|[ \t]+)\^([A-Za-z0-9-]+)[ \t]*$/gm, (mark, _space, id: string) => (ids.has(id) ? '' : mark))
    .trim();
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
  private readonly used = new Set<string>();
  constructor(private readonly path: string) {}
  /** `path#anchor`, with ` (2)`, ` (3)` … appended when two sections share an anchor */
  next(anchor: string): string {
    const base = `${this.path}#${anchor}`;
    let id = base;
    for (let n = 2; this.used.has(id); n++) id = `${base} (${n})`;
    this.used.add(id);
    return id;
  }
}

/** A preamble and one section per heading, each running to the next heading of any level. */
function headingSections(input: SectionInput): Section[] {
  const { path, text, lines, headings, blocks, bodyStart } = input;
  const ids = new Set(blocks.map((b) => b.id));
  const sectionIds = new SectionIds(path);
  const sections: Section[] = [];
  const firstHeading = headings[0]?.start ?? text.length;
  const [pStart, pEnd] = trimSpan(text, bodyStart, Math.max(bodyStart, firstHeading));
  const preamble = cleanText(text.slice(pStart, pEnd), ids);
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
      text: cleanText(text.slice(h.end, regionEnd), ids),
      start: h.start,
      end,
      line: h.line,
    });
  });
  return sections;
}

function episodeDate(path: string, data: Record<string, unknown>): string | undefined {
  const fromName = /^(\d{4}-\d{2}-\d{2})\.md$/i.exec(fileTitle(path) + '.md')?.[1];
  if (fromName) return fromName;
  const fromData = /^\d{4}-\d{2}-\d{2}/.exec(stringValue(data['date']))?.[0];
  return fromData;
}

/**
 * Episode notes: each block with an id is its own section (one entry); the text around the
 * entries stays in preamble/heading sections, which are skipped when nothing else is left.
 */
function episodeSections(input: SectionInput, date: string | undefined): Section[] {
  const { path, text, lines, headings, blocks, bodyStart } = input;
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
      if (start > cursor) pieces.push(text.slice(cursor, start));
      cursor = Math.max(cursor, end);
      entries.push({
        id: '',
        anchor: `^${block.id}`,
        kind: 'block',
        ...(region.heading ? { heading: region.heading.text } : {}),
        ...entryText(text.slice(start, end), block.item, ids),
        start,
        end: trimSpan(text, start, end)[1],
        line: block.line,
        ...dated,
      });
    }
    if (cursor < to) pieces.push(text.slice(cursor, to));
    // Pieces are what is left between entries; one blank line between them reads as written.
    const rest = pieces
      .map((piece) => cleanText(piece, ids))
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
  for (const section of sections) section.id = sectionIds.next(section.anchor);
  return sections;
}

const LIST_MARKER = /^[ \t]*(?:[-*+]|\d{1,9}[.)])(?:[ \t]+\[.\])?[ \t]+/;
const TIME = /^(\d{1,2}):([0-5]\d)(?=\s|$)[ \t]*/;
const SPEAKER = /^\*\*([^*\n]+?)(?:[:：]\*\*|\*\*[:：])[ \t]*/;

/** An entry's content without list marker, `HH:MM`, `**Speaker:**` and block id; those go to their own fields. */
function entryText(
  raw: string,
  item: boolean,
  ids: ReadonlySet<string>,
): Pick<Section, 'text' | 'time' | 'speaker'> {
  let body = raw.replace(/\r/g, '');
  if (item) {
    const marker = LIST_MARKER.exec(body)?.[0] ?? '';
    body = body.slice(marker.length);
    // Continuation lines are indented to the item's content; drop that indent.
    if (marker.length > 0) body = body.replace(new RegExp(`\\n(?: {1,${marker.length}}|\\t)`, 'g'), '\n');
  }
  const result: Pick<Section, 'text' | 'time' | 'speaker'> = { text: '' };
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
  result.text = cleanText(body, ids);
  return result;
}
