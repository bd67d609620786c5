import { MemError } from '../../core/errors.js';
import type { ClientSpec } from './clients.js';
import { lineIndent, type Member, objectMembers, renderJson, skipSpace } from './json-text.js';
import { isPlainObject, type MergeResult, sameJson } from './merge-result.js';

export const SERVER_NAME = 'memvault';

/** The snippet a JSON client reads: `{ "<serversKey>": { "memvault": entry } }` (examples/mcp/). */
export function jsonSnippet(client: ClientSpec, entry: Record<string, unknown>): string {
  return `${renderJson({ [client.serversKey]: { [SERVER_NAME]: entry } }, '  ')}\n`;
}

/**
 * `text` (a client's JSON config, '' when there is none) with `entry` as its `memvault` server.
 * The entry is spliced into the text, so every other byte (servers, settings, their order and
 * layout) stays as it was; the result is checked by parsing it, and written whole in the file's
 * indentation should a layout defeat the splice. A file that is not a JSON object (comments
 * included: JSON.parse is the judge), or whose server map is no object, is refused.
 */
export function mergeJson(
  text: string,
  client: ClientSpec,
  entry: Record<string, unknown>,
  options: { force: boolean; path: string },
): MergeResult {
  const body = text.replace(/^\uFEFF/, '');
  let config: unknown = {};
  if (body.trim() !== '') {
    try {
      config = JSON.parse(body);
    } catch (error) {
      throw new MemError(
        'INVALID_CONFIG',
        `${options.path} is not valid JSON (${(error as Error).message}); mem left it untouched: fix it, or move it aside and run again`,
      );
    }
  }
  if (!isPlainObject(config)) {
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
  if (body.trim() === '') return { kind: 'changed', text: jsonSnippet(client, entry), replaced };
  servers[SERVER_NAME] = entry;
  config[key] = servers;
  const unit = /\n([ \t]+)\S/.exec(body)?.[1] ?? '  ';
  const eol = body.includes('\r\n') ? '\r\n' : '\n';
  const bom = text.length - body.length;
  const spliced = text.slice(0, bom) + trySplice(body, key, entry, unit, eol);
  if (parsesTo(spliced.slice(bom), config)) return { kind: 'changed', text: spliced, replaced };
  const whole = renderJson(config, unit, '', eol);
  return {
    kind: 'changed',
    text: `${text.slice(0, bom)}${whole}${/\n\s*$/.test(body) ? eol : ''}`,
    replaced,
  };
}

function parsesTo(text: string, expected: unknown): boolean {
  try {
    return sameJson(JSON.parse(text), expected);
  } catch {
    return false;
  }
}

function trySplice(text: string, key: string, entry: unknown, unit: string, eol: string): string {
  try {
    return splice(text, key, entry, unit, eol);
  } catch {
    return ''; // parsesTo refuses it, and the file is written whole
  }
}

/** `text` with `servers[memvault] = entry`, only that member's text written. */
function splice(text: string, key: string, entry: unknown, unit: string, eol: string): string {
  const open = skipSpace(text, 0);
  const root = objectMembers(text, open);
  // JSON.parse keeps the last of a repeated key: so does the edit.
  const servers = root.members.findLast((m) => m.key === key);
  if (!servers) return insertMember(text, open, root, key, { [SERVER_NAME]: entry }, unit, eol);
  const inner = objectMembers(text, servers.valueStart);
  const own = inner.members.findLast((m) => m.key === SERVER_NAME);
  if (!own) return insertMember(text, servers.valueStart, inner, SERVER_NAME, entry, unit, eol);
  const at = lineIndent(text, own.keyStart) ?? '';
  return text.slice(0, own.valueStart) + renderJson(entry, unit, at, eol) + text.slice(own.valueEnd);
}

/** Adds `"name": value` as the last member of the object whose `{` is at `open`. */
function insertMember(
  text: string,
  open: number,
  object: { members: Member[]; close: number },
  name: string,
  value: unknown,
  unit: string,
  eol: string,
): string {
  const lineStart = text.lastIndexOf('\n', open - 1) + 1;
  const lead = /^[ \t]*/.exec(text.slice(lineStart))?.[0] ?? '';
  const last = object.members.at(-1);
  const indent = (last && lineIndent(text, last.keyStart)) ?? lead + unit;
  const member = `${indent}${JSON.stringify(name)}: ${renderJson(value, unit, indent, eol)}`;
  if (last) return `${text.slice(0, last.valueEnd)},${eol}${member}${text.slice(last.valueEnd)}`;
  return `${text.slice(0, open + 1)}${eol}${member}${eol}${lead}${text.slice(object.close)}`;
}
