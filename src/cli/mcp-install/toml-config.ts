import { MemError } from '../../core/errors.js';
import type { ServerCommand } from './clients.js';
import { SERVER_NAME } from './json-config.js';
import { isPlainObject, type MergeResult, sameJson } from './merge-result.js';
import { readTomlLines, type TomlLine } from './toml-lines.js';

const TABLE = ['mcp_servers', SERVER_NAME];

/** A TOML basic string: JSON's form, with DEL escaped too (TOML forbids it raw). */
function tomlString(value: string): string {
  return JSON.stringify(value).replace(/\x7f/g, '\\u007f');
}

/** The `[mcp_servers.memvault]` table, one line per key, ending with a newline. */
export function tomlTable(server: ServerCommand): string {
  return [
    `[${TABLE.join('.')}]`,
    `command = ${tomlString(server.command)}`,
    `args = [${server.args.map(tomlString).join(', ')}]`,
    '',
  ].join('\n');
}

const startsWithTable = (path: string[]) => path[0] === TABLE[0] && path[1] === TABLE[1];

/**
 * `text` (a Codex config.toml, '' when there is none) with the `[mcp_servers.memvault]` table set
 * to `server`. Only that table and its subtables (`[mcp_servers.memvault.env]`) are touched: a new
 * one is appended, an old one replaced where it stood; every other line stays byte for byte.
 * Comments and blank lines after a replaced table's last key stay too (they belong to what follows).
 */
export function mergeToml(
  text: string,
  server: ServerCommand,
  options: { force: boolean; path: string },
): MergeResult {
  const lines = readTomlLines(text, options.path);
  const table = tomlTable(server);
  const segments = ownSegments(lines, options.path);
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  if (segments.length === 0) {
    const sep = text === '' ? '' : text.endsWith('\n') ? eol : `${eol}${eol}`;
    return { kind: 'changed', text: `${text}${sep}${table.replace(/\n/g, eol)}`, replaced: false };
  }
  const raw = text.split('\n');
  const old = segments.flatMap(([from, to]) => raw.slice(from, to)).join('\n');
  if (sameJson(readOwnTable(segments, raw), { command: server.command, args: server.args })) {
    return { kind: 'unchanged' };
  }
  if (!options.force) return { kind: 'conflict', existing: old.replace(/\r/g, '') };
  const [first] = segments;
  const kept = raw.flatMap((line, k) => {
    if (k === first?.[0])
      return table
        .replace(/\n$/, '')
        .split('\n')
        .map((l) => `${l}${eol === '\r\n' ? '\r' : ''}`);
    return segments.some(([from, to]) => k >= from && k < to) ? [] : [line];
  });
  return { kind: 'changed', text: kept.join('\n'), replaced: true };
}

/**
 * The line ranges [from, to) of the memvault table and its subtables: from the header to its last
 * key line. memvault written any other way (a dotted key, an inline table, `[mcp_servers]` with a
 * `memvault` key) is refused: an appended table would define it twice.
 */
function ownSegments(lines: TomlLine[], path: string): Array<[number, number]> {
  const segments: Array<[number, number]> = [];
  let current: string[] = [];
  let open: number | null = null;
  let last = -1;
  const close = () => {
    if (open !== null) segments.push([open, last + 1]);
    open = null;
  };
  lines.forEach((line, k) => {
    if (line.kind === 'header') {
      close();
      current = line.path;
      if (startsWithTable(line.path) && !line.array) {
        open = k;
        last = k;
      } else if (startsWithTable(line.path)) {
        throw otherForm(path);
      }
      return;
    }
    if (line.kind === 'value' && open !== null) last = k;
    if (line.kind !== 'key') return;
    if (open !== null) last = k;
    const full = [...current, ...line.path];
    const isOwn = open !== null;
    if (!isOwn && (startsWithTable(full) || (full.length === 1 && full[0] === TABLE[0])))
      throw otherForm(path);
  });
  close();
  return segments;
}

function otherForm(path: string): MemError {
  return new MemError(
    'INVALID_CONFIG',
    `${path} defines mcp_servers.${SERVER_NAME} in a form mem does not edit (not a [mcp_servers.${SERVER_NAME}] table); mem left it untouched: edit it by hand`,
  );
}

/** The keys of the memvault table whose values read as JSON (`"…"`, `["…", …]`), for comparison. */
function readOwnTable(segments: Array<[number, number]>, raw: string[]): unknown {
  const [first, ...rest] = segments;
  if (!first || rest.length > 0) return null; // subtables: something more than command and args
  const values: Record<string, unknown> = {};
  for (const line of raw.slice(first[0] + 1, first[1])) {
    const text = line.replace(/\r$/, '');
    if (/^\s*(#.*)?$/.test(text)) continue;
    const match = /^\s*([A-Za-z0-9_-]+)\s*=\s*(.*?)\s*$/.exec(text);
    if (!match) return null;
    try {
      values[match[1] ?? ''] = JSON.parse(match[2] ?? '');
    } catch {
      return null;
    }
  }
  return isPlainObject(values) ? values : null;
}
