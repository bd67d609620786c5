import { createScanner, type Node, SyntaxKind } from 'jsonc-parser';
import { MemError } from '../../core/errors.js';
import type { ClientSpec } from './clients.js';
import { lineIndent, renderJson } from './json-text.js';
import { jsoncValue, memberOf, readJsonTree } from './json-tree.js';
import { isPlainObject, type MergeResult, sameJson } from './merge-result.js';

export const SERVER_NAME = 'memvault';

/** The snippet a JSON client reads: `{ "<serversKey>": { "memvault": entry } }` (examples/mcp/). */
export function jsonSnippet(client: ClientSpec, entry: Record<string, unknown>): string {
  return `${renderJson({ [client.serversKey]: { [SERVER_NAME]: entry } }, '  ')}\n`;
}

/**
 * `text` (a client's JSON config, '' when there is none) with `entry` as its `memvault` server.
 * The entry is spliced into the text, so every other byte (servers, settings, comments, their
 * order and layout) stays as it was. jsonc-parser's own `modify` was not used: it formats the
 * lines around the edit anew (a one-line sibling server became five lines, and an end-of-line
 * comment moved to the new entry). A file the client could not read (a comment or trailing comma
 * in a strict JSON client's file), that is not an object, or whose server map is no object, is
 * refused.
 */
export function mergeJson(
  text: string,
  client: ClientSpec,
  entry: Record<string, unknown>,
  options: { force: boolean; path: string },
): MergeResult {
  const body = text.replace(/^\uFEFF/, '');
  const { root, value } = readJsonTree(body, { jsonc: client.jsonc === true, path: options.path });
  const config = root ? value : {};
  if (!isPlainObject(config) || (root && root.type !== 'object')) {
    throw new MemError(
      'INVALID_CONFIG',
      `${options.path} does not hold a JSON object; mem left it untouched`,
    );
  }
  const key = client.serversKey;
  const servers = config[key] === undefined ? {} : config[key];
  if (!isPlainObject(servers)) {
    throw new MemError(
      'INVALID_CONFIG',
      `"${key}" in ${options.path} is not an object; mem left it untouched`,
    );
  }
  const existing = Object.hasOwn(servers, SERVER_NAME) ? servers[SERVER_NAME] : undefined;
  if (existing !== undefined && sameJson(existing, entry)) return { kind: 'unchanged' };
  if (existing !== undefined && !options.force) {
    return { kind: 'conflict', existing: JSON.stringify(existing) };
  }
  const replaced = existing !== undefined;
  const eol = body.includes('\r\n') ? '\r\n' : '\n';
  if (!root) {
    // Empty, or comments only (JSONC): the snippet goes after them.
    const lead = body.trim() === '' ? '' : `${text}${/\n$/.test(body) ? '' : eol}`;
    return { kind: 'changed', text: lead + jsonSnippet(client, entry).replace(/\n/g, eol), replaced };
  }
  servers[SERVER_NAME] = entry;
  config[key] = servers;
  const unit = /\n([ \t]+)\S/.exec(body)?.[1] ?? '  ';
  const bom = text.slice(0, text.length - body.length);
  // The result is read back before it is written: a layout the splice misjudged is refused, never
  // written wrong.
  const spliced = splice(body, root, key, entry, unit, eol);
  if (sameJson(jsoncValue(spliced), config)) return { kind: 'changed', text: bom + spliced, replaced };
  throw new MemError(
    'INVALID_CONFIG',
    `mem could not add memvault to ${options.path} without changing what else it holds; mem left it untouched`,
  );
}

/** `text` with `servers[memvault] = entry`, only that member's text written. */
function splice(text: string, root: Node, key: string, entry: unknown, unit: string, eol: string): string {
  const servers = memberOf(root, key);
  if (!servers) return insertMember(text, root, key, { [SERVER_NAME]: entry }, unit, eol);
  const own = memberOf(servers.value, SERVER_NAME);
  if (!own) return insertMember(text, servers.value, SERVER_NAME, entry, unit, eol);
  const at = lineIndent(text, own.property.offset) ?? '';
  const end = own.value.offset + own.value.length;
  return text.slice(0, own.value.offset) + renderJson(entry, unit, at, eol) + text.slice(end);
}

/**
 * Adds `"name": value` as the last member of `object`, on a line of its own after the last
 * member's line, so a comment at the end of that line stays with the member it is about; a
 * trailing comma there (JSONC) gets one after the new member too.
 */
function insertMember(
  text: string,
  object: Node,
  name: string,
  value: unknown,
  unit: string,
  eol: string,
): string {
  const open = object.offset;
  const close = object.offset + object.length - 1;
  const lineStart = text.lastIndexOf('\n', open - 1) + 1;
  const lead = /^[ \t]*/.exec(text.slice(lineStart))?.[0] ?? '';
  const last = object.children?.at(-1);
  const indent = (last && lineIndent(text, last.offset)) ?? lead + unit;
  const member = `${indent}${JSON.stringify(name)}: ${renderJson(value, unit, indent, eol)}`;
  if (last) {
    const end = last.offset + last.length;
    const { comma, lineEnd } = restOfLine(text, end);
    const before = comma === undefined ? `${text.slice(0, end)},` : text.slice(0, end);
    const after = comma === undefined ? '' : ',';
    if (lineEnd === undefined) {
      const at = comma ?? end;
      return `${before}${text.slice(end, at)}${eol}${member}${after}${text.slice(at)}`;
    }
    return `${before}${text.slice(end, lineEnd)}${eol}${member}${after}${text.slice(lineEnd)}`;
  }
  const inside = text.slice(open + 1, close);
  if (inside.trim() === '')
    return `${text.slice(0, open + 1)}${eol}${member}${eol}${lead}${text.slice(close)}`;
  // Only comments inside: the member goes on the line before the `}`, after them.
  const closeLine = text.lastIndexOf('\n', close - 1) + 1;
  if (closeLine > open && /^[ \t]*$/.test(text.slice(closeLine, close))) {
    return `${text.slice(0, closeLine)}${member}${eol}${text.slice(closeLine)}`;
  }
  return `${text.slice(0, close)}${eol}${member}${eol}${lead}${text.slice(close)}`;
}

/**
 * What follows a member: the end of a trailing comma, and where its line ends when nothing but
 * spaces, that comma and comments come first (a block comment begun there may run over lines:
 * it stays with the member too); undefined when another token comes first: a layout of several
 * members a line.
 */
function restOfLine(text: string, from: number): { comma?: number; lineEnd?: number } {
  const scanner = createScanner(text, false);
  scanner.setPosition(from);
  let comma: number | undefined;
  for (;;) {
    const token = scanner.scan();
    const trivia =
      token === SyntaxKind.Trivia ||
      token === SyntaxKind.LineCommentTrivia ||
      token === SyntaxKind.BlockCommentTrivia;
    if (trivia) continue;
    if (token === SyntaxKind.CommaToken && comma === undefined) {
      comma = scanner.getPosition();
      continue;
    }
    if (token === SyntaxKind.LineBreakTrivia) return { comma, lineEnd: scanner.getTokenOffset() };
    return { comma };
  }
}
