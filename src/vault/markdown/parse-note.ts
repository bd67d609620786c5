// Reads one note's text into a Note: composes frontmatter, links, tags and sections.
import type { Root } from 'mdast';
import type { Note } from '../../core/types.js';
import { DEFAULT_LAYOUT, dayOfPath, layerOf, type VaultLayout } from '../layout.js';
import { maskIgnored, scanLinks } from '../links/scan-links.js';
import { hashText } from '../write-note.js';
import { commentSpans } from './comments.js';
import { LineIndex } from './line-index.js';
import { episodeSections, headingSections, readStructure, type SectionInput } from './note-sections.js';
import { codeSpans, frontmatterBlock, parseMarkdown } from './parse-markdown.js';
import { plainTree } from './plain-tree.js';
import {
  frontmatterTags,
  normaliseTag,
  readAliases,
  readFrontmatter,
  stringValue,
} from './read-frontmatter.js';
import { blankSpans, type Span } from './spans.js';

/**
 * Reads one note's text into a Note. Pure: no file IO, never throws. Offsets are into the full
 * text (BOM and CRLF kept); text fields have `\r` removed.
 */
export function parseNote(
  path: string,
  text: string,
  stat?: { size: number; mtimeMs: number },
  /** The note's hash when the caller has it (the file's, when `text` is only the part indexed) */
  hash?: string,
  /** Which folders hold which layer, and where the daily notes are */
  layout: VaultLayout = DEFAULT_LAYOUT,
): Note {
  return parseNoteParts(path, text, stat, hash, layout).note;
}

/** What parseNote read on the way to the note, for a later append to pick up from (append-note.ts). */
export interface NoteParts {
  note: Note;
  tree: Root;
  /** Comments (hidden from everything) */
  hidden: Span[];
  /** The frontmatter block, when the parse found one, and whether it is read as YAML */
  frontmatter: { region: Span; valid: boolean } | undefined;
  /** An episode note's date, which its entries carry */
  date: string | undefined;
}

/** parseNote, with the tree and spans it read. */
export function parseNoteParts(
  path: string,
  text: string,
  stat?: { size: number; mtimeMs: number },
  hash?: string,
  layout: VaultLayout = DEFAULT_LAYOUT,
): NoteParts {
  const lines = new LineIndex(text);
  // A plain note (most of a vault) skips remark: its tree is built from its lines.
  const tree = plainTree(text) ?? parseMarkdown(text);
  const fm = readFrontmatter(path, text, lines, frontmatterBlock(tree, text));
  // `%%` inside code or frontmatter is literal; the rest of a comment is hidden from everything
  // below: links, tags, headings, block ids and section text.
  const code = codeSpans(tree);
  const hidden = commentSpans(text, fm.region ? [...code, fm.region] : code);
  const skip = [...code, ...hidden];
  // Invalid frontmatter is indexed as plain text, so its links and tags count as body ones.
  if (fm.valid && fm.region) skip.push(fm.region);
  const bodyLinks = scanLinks(text, { skip });
  const { headings, blocks } = readStructure(tree, blankSpans(text, hidden), hidden);
  const links = [...fm.links, ...bodyLinks];
  const tagText = maskIgnored(text, [...skip, ...bodyLinks.map((l): Span => [l.start, l.end])]);
  const title = stringValue(fm.data['title']) || headings.find((h) => h.depth === 1)?.text || fileTitle(path);
  const layer = layerOf(path, layout);
  const bodyStart = fm.valid && fm.region ? fm.region[1] : 0;
  const sectionInput: SectionInput = { path, text, lines, headings, blocks, bodyStart, hidden };
  const date = layer === 'episodes' ? episodeDate(path, fm.data, layout) : undefined;
  const sections = layer === 'episodes' ? episodeSections(sectionInput, date) : headingSections(sectionInput);
  const note: Note = {
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
    hash: hash ?? hashText(text),
    size: stat?.size ?? Buffer.byteLength(text, 'utf8'),
    mtimeMs: stat?.mtimeMs ?? 0,
  };
  const frontmatter = fm.region ? { region: fm.region, valid: fm.valid } : undefined;
  return { note, tree, hidden, frontmatter, date };
}

// A tag starts after whitespace or at the start of a line, so `http://x.com/#frag`, `[[a#b]]`
// and `# Heading` (space after the mark) are not tags.
const INLINE_TAG = /(?<=^|\s)#([\p{L}\p{N}\p{M}_\-/]+)/gu;
const NON_DIGIT = /\P{N}/u;

/** The inline tags of a note's text with code, comments and links masked (see parseNote). */
export function inlineTags(masked: string): string[] {
  const tags: string[] = [];
  for (const m of masked.matchAll(INLINE_TAG)) {
    const tag = normaliseTag(m[1] ?? '');
    // `#1984` is not a tag: a tag needs at least one character that is not a digit.
    if (tag !== '' && NON_DIGIT.test(tag.replaceAll('/', ''))) tags.push(tag);
  }
  return tags;
}

function fileTitle(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1).replace(/\.md$/i, '');
}

function episodeDate(path: string, data: Record<string, unknown>, layout: VaultLayout): string | undefined {
  const daily = dayOfPath(path, layout);
  if (daily) return daily;
  const fromName = /^(\d{4}-\d{2}-\d{2})\.md$/i.exec(fileTitle(path) + '.md')?.[1];
  if (fromName) return fromName;
  const fromData = /^\d{4}-\d{2}-\d{2}/.exec(stringValue(data['date']))?.[0];
  return fromData;
}
