import { isMap, isScalar, type Node, type Pair, parseDocument, stringify } from 'yaml';
import { MemError } from '../../core/errors.js';
import { findFrontmatter } from './parse-markdown.js';

export interface EditFrontmatterOptions {
  /** Name used in error messages, e.g. the note's path (default: `note`) */
  label?: string;
}

interface Edit {
  start: number;
  end: number;
  text: string;
}

function lineStart(text: string, pos: number): number {
  return text.lastIndexOf('\n', pos - 1) + 1;
}

/** End of the line holding the last non-blank character before `pos`, line break included. */
function lineEndAfter(text: string, pos: number): number {
  let last = pos - 1;
  while (last > 0 && /\s/.test(text[last] ?? '')) last--;
  const newline = text.indexOf('\n', last);
  return newline === -1 ? text.length : newline + 1;
}

/**
 * `data` as YAML, never with a block scalar that keeps its trailing line breaks (`|+`, `>+`: a
 * string that ends in blank lines): spliced above a blank line of the note, such a scalar takes
 * that line in too, and the value read back gains a line break. Those strings are double-quoted.
 */
function yamlOf(data: unknown): string {
  const yaml = stringify(data, { lineWidth: 0 });
  return /[|>][1-9]?\+[ \t]*$/m.test(yaml) ? stringify(data, { lineWidth: 0, blockQuote: false }) : yaml;
}

/** `key: value` as YAML lines ending in `\n`: one line for scalars, a block list for arrays. */
function serialise(key: string, value: unknown, indent: string): string {
  const yaml = yamlOf({ [key]: value });
  return yaml
    .split('\n')
    .map((line) => (line === '' ? line : indent + line))
    .join('\n');
}

/** The value alone as a one-line YAML scalar, or undefined when it needs more than one line. */
function inlineScalar(value: unknown): string | undefined {
  if (typeof value === 'object' && value !== null && !(value instanceof Date)) return undefined;
  const text = yamlOf(value).replace(/\n$/, '');
  return text.includes('\n') ? undefined : text;
}

function isOneLineScalar(
  node: Node | null | undefined,
  yaml: string,
): node is Node & { range: [number, number, number] } {
  if (!isScalar(node) || !node.range) return false;
  if (node.type === 'BLOCK_FOLDED' || node.type === 'BLOCK_LITERAL') return false;
  // An empty value (`key:`) has no text to replace; the whole line is rewritten instead.
  if (node.range[1] === node.range[0]) return false;
  return !yaml.slice(node.range[0], node.range[1]).includes('\n');
}

function keyName(pair: Pair): string | undefined {
  return isScalar(pair.key) ? String(pair.key.value) : undefined;
}

/**
 * Changes only the given frontmatter keys (undefined deletes one) by splicing text at their exact
 * lines; every other byte (comments, quoting, order, blank lines, CRLF, BOM, body) is kept.
 */
export function setFrontmatterKeys(
  text: string,
  changes: Record<string, unknown>,
  options: EditFrontmatterOptions = {},
): string {
  const label = options.label ?? 'note';
  const bom = text.startsWith('\uFEFF') ? 1 : 0;
  const entries = Object.entries(changes);
  const block = findFrontmatter(text);
  const frontmatter = block && { start: block.yaml[0], end: block.yaml[1], eol: block.eol };

  if (!frontmatter) {
    const additions = entries.filter(([, value]) => value !== undefined);
    if (additions.length === 0) return text;
    const eol = /^[^\n]*\r\n/.test(text) ? '\r\n' : '\n';
    const block = additions.map(([key, value]) => serialise(key, value, '')).join('');
    const inserted = `---\n${block}---\n`.replace(/\n/g, eol);
    return text.slice(0, bom) + inserted + text.slice(bom);
  }

  const yaml = text.slice(frontmatter.start, frontmatter.end);
  const doc = parseDocument(yaml, { logLevel: 'error' });
  const firstError = doc.errors[0];
  if (firstError) {
    const line = (firstError.linePos?.[0]?.line ?? 1) + 1;
    throw new MemError(
      'INVALID_ARGUMENT',
      `${label}: frontmatter is not valid YAML (line ${line}); not changed`,
    );
  }
  const contents = doc.contents;
  if (contents !== null && !(isMap(contents) && !contents.flow)) {
    throw new MemError(
      'INVALID_ARGUMENT',
      `${label}: frontmatter is not a block of \`key: value\` lines; not changed`,
    );
  }

  const pairs = contents ? (contents.items as Pair[]) : [];
  const firstKey = pairs[0]?.key as Node | undefined;
  const indent = firstKey?.range ? yaml.slice(lineStart(yaml, firstKey.range[0]), firstKey.range[0]) : '';
  const edits: Edit[] = [];
  const appended: string[] = [];

  for (const [key, value] of entries) {
    const pair = pairs.find((candidate) => keyName(candidate) === key);
    if (!pair) {
      if (value !== undefined) appended.push(serialise(key, value, indent));
      continue;
    }
    const keyNode = pair.key as Node;
    const valueNode = pair.value as Node | null;
    const start = lineStart(yaml, keyNode.range?.[0] ?? 0);
    const end = lineEndAfter(yaml, valueNode?.range?.[1] ?? keyNode.range?.[1] ?? 0);
    if (value === undefined) {
      edits.push({ start, end, text: '' });
      continue;
    }
    const scalar = inlineScalar(value);
    if (scalar !== undefined && isOneLineScalar(valueNode, yaml)) {
      // Replace only the value, so the key's spelling and a trailing `# comment` stay as written.
      edits.push({ start: valueNode.range[0], end: valueNode.range[1], text: scalar });
    } else {
      const replacement = serialise(key, value, indent);
      const keepsNoNewline = !yaml.slice(start, end).endsWith('\n');
      edits.push({ start, end, text: keepsNoNewline ? replacement.replace(/\n$/, '') : replacement });
    }
  }
  if (appended.length > 0) {
    const needsBreak = yaml.length > 0 && !yaml.endsWith('\n');
    edits.push({ start: yaml.length, end: yaml.length, text: (needsBreak ? '\n' : '') + appended.join('') });
  }

  let result = yaml;
  for (const edit of edits.sort((a, b) => b.start - a.start)) {
    const piece = edit.text.replace(/\r?\n/g, frontmatter.eol);
    result = result.slice(0, edit.start) + piece + result.slice(edit.end);
  }
  if (parseDocument(result, { logLevel: 'error' }).errors.length > 0) {
    // A splice that breaks the YAML is a bug here; refuse rather than write a broken note.
    throw new MemError(
      'INVALID_ARGUMENT',
      `${label}: changing ${Object.keys(changes).join(', ')} would break the frontmatter; not changed`,
    );
  }
  return text.slice(0, frontmatter.start) + result + text.slice(frontmatter.end);
}
