// Frontmatter: reads the `---` block's YAML (a warning when invalid), and its title, aliases, tags and links.
import { type Document, isMap, isScalar, isSeq, parseDocument, type Node as YamlNode } from 'yaml';
import type { LinkRef } from '../../core/types.js';
import { linkRef, scanLinks } from '../links/scan-links.js';
import { readFlatFrontmatter } from './flat-frontmatter.js';
import type { LineIndex } from './line-index.js';
import { ownString } from './own-string.js';
import type { FrontmatterBlock } from './parse-markdown.js';
import type { Span } from './spans.js';

export interface Frontmatter {
  data: Record<string, unknown>;
  /** `[0, end)`: from the file start (BOM included) to after the closing `---` line */
  region?: Span;
  valid: boolean;
  links: LinkRef[];
  warning?: string;
}

const YAML_REASONS: Partial<Record<string, string>> = {
  BAD_INDENT: 'bad indentation',
  BLOCK_AS_IMPLICIT_KEY: 'bad indentation',
  MULTILINE_IMPLICIT_KEY: 'bad indentation',
  TAB_AS_INDENT: 'tab used as indentation',
  DUPLICATE_KEY: 'duplicate key',
  MISSING_CHAR: 'missing closing character',
  BAD_DQ_ESCAPE: 'bad escape in a double-quoted string',
};

/**
 * Reads the frontmatter block that parseMarkdown found (see frontmatterBlock). Flat `key: value`
 * blocks, most of a vault, skip the YAML parser (`flat: false` forces it, for tests).
 */
export function readFrontmatter(
  path: string,
  text: string,
  lines: LineIndex,
  block: FrontmatterBlock | undefined,
  { flat = true }: { flat?: boolean } = {},
): Frontmatter {
  if (!block) return { data: {}, valid: true, links: [] };
  const { region } = block;
  const [yamlStart, yamlEnd] = block.yaml;
  const source = text.slice(yamlStart, yamlEnd);
  const simple = flat ? readFlatFrontmatter(source) : undefined;
  if (simple) {
    const links: LinkRef[] = [];
    for (const { range, property } of simple.linkScalars)
      links.push(...scalarLinks(source, range, property, yamlStart, lines));
    return { data: simple.data, region, valid: true, links };
  }
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
    // logLevel 'error': the yaml package prints its warnings through process.emitWarning, on the
    // stderr of whatever runs mem. A template's `date: {{date:YYYY-MM-DD}}` (a map as a key) warned
    // there; what is wrong with a note is said in its warnings, never on another program's stderr.
    doc = parseDocument(source, { uniqueKeys: true, prettyErrors: true, logLevel: 'error' });
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
  if (typeof value === 'string') return ownString(value);
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
      links.push(...scalarLinks(source, [node.range[0], node.range[1]], property, yamlStart, lines));
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

/** The wiki links and embeds in one string scalar, `range` being its place in the YAML source. */
function scalarLinks(
  source: string,
  [from, to]: Span,
  property: string,
  yamlStart: number,
  lines: LineIndex,
): LinkRef[] {
  const offset = yamlStart + from;
  const found = scanLinks(source.slice(from, to), { skip: [], offset, lineOffset: lines.lineAt(offset) - 1 });
  return found
    .filter((link) => link.kind === 'wiki' || link.kind === 'embed')
    .map((link) => {
      // Built, not spread: see linkRef.
      const copy = linkRef({ ...link, kind: 'frontmatter' }, link.raw, link.start, link.end, link.line);
      copy.property = property;
      return copy;
    });
}

export function stringValue(value: unknown): string {
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

export function readAliases(data: Record<string, unknown>): string[] {
  return [...new Set(listOf(propertyOf(data, /^alias(es)?$/i), /,/))];
}

export function frontmatterTags(data: Record<string, unknown>): string[] {
  return listOf(propertyOf(data, /^tags?$/i), /[,\s]+/)
    .map((t) => normaliseTag(t.replace(/^#+/, '')))
    .filter((t) => t !== '');
}

export function normaliseTag(tag: string): string {
  return tag.replace(/^\/+|\/+$/g, '').toLowerCase();
}
