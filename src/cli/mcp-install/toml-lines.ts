import { MemError } from '../../core/errors.js';

/**
 * One line of a TOML file, as far as `mem mcp install` needs to know it: a table header with its
 * key path, a key/value line with its (dotted) key, the rest of a value that spans lines, or
 * anything else (blank, comment).
 */
export type TomlLine =
  | { kind: 'header'; path: string[]; array: boolean }
  | { kind: 'key'; path: string[] }
  /** The rest of a value begun on an earlier line */
  | { kind: 'value' }
  | { kind: 'other' };

const KEY_PART = String.raw`(?:[A-Za-z0-9_-]+|"(?:[^"\\\n]|\\.)*"|'[^'\n]*')`;
const KEY = String.raw`${KEY_PART}(?:\s*\.\s*${KEY_PART})*`;
const HEADER = new RegExp(String.raw`^\s*(\[\[?)\s*(${KEY})\s*(\]\]?)\s*(?:#.*)?$`);
const KEY_LINE = new RegExp(String.raw`^\s*(${KEY})\s*=\s*(.*)$`);

/** `a."b.c".'d'` → ['a', 'b.c', 'd'] */
export function keyPath(key: string): string[] {
  const parts = key.match(new RegExp(KEY_PART, 'g')) ?? [];
  return parts.map((part) =>
    part.startsWith('"') ? (JSON.parse(part) as string) : part.startsWith("'") ? part.slice(1, -1) : part,
  );
}

/**
 * Reads `text` line by line, tracking strings (one-line and multi-line, basic and literal),
 * arrays and inline tables that span lines, and comments. Not a TOML parser: it checks the
 * structure (every line at the top is blank, a comment, a header or `key = value`; brackets and
 * strings close; no table is defined twice), which is what a textual edit must be sure of, and
 * refuses a file that fails it.
 */
export function readTomlLines(text: string, path: string): TomlLine[] {
  const lines = text
    .replace(/^\uFEFF/, '')
    .split('\n')
    .map((line) => line.replace(/\r$/, ''));
  const out: TomlLine[] = [];
  const tables = new Set<string>();
  const state: ValueState = { depth: 0, multiline: null };
  const invalid = (k: number, why: string) =>
    new MemError(
      'INVALID_CONFIG',
      `${path} is not valid TOML (line ${k + 1}: ${why}); mem left it untouched: fix it and run again`,
    );
  lines.forEach((line, k) => {
    if (state.depth > 0 || state.multiline) {
      if (!scanValue(line, 0, state)) throw invalid(k, 'a value that does not close');
      out.push({ kind: 'value' });
      return;
    }
    if (/^\s*(#.*)?$/.test(line)) {
      out.push({ kind: 'other' });
      return;
    }
    const header = HEADER.exec(line);
    if (header) {
      const array = header[1] === '[[';
      if (array !== (header[3] === ']]')) throw invalid(k, 'a table header with unmatched brackets');
      const tablePath = keyPath(header[2] ?? '');
      const name = JSON.stringify(tablePath);
      if (!array && tables.has(name)) throw invalid(k, `table [${tablePath.join('.')}] is defined twice`);
      if (!array) tables.add(name);
      out.push({ kind: 'header', path: tablePath, array });
      return;
    }
    const keyLine = KEY_LINE.exec(line);
    if (!keyLine || (keyLine[2] ?? '').trim() === '')
      throw invalid(k, 'neither a table, a key = value nor a comment');
    const valueStart = line.length - (keyLine[2] ?? '').length;
    if (!scanValue(line, valueStart, state)) throw invalid(k, 'a value that does not close');
    out.push({ kind: 'key', path: keyPath(keyLine[1] ?? '') });
  });
  if (state.multiline) throw invalid(lines.length - 1, 'a multi-line string is not closed');
  if (state.depth > 0) throw invalid(lines.length - 1, 'an array or inline table is not closed');
  return out;
}

interface ValueState {
  depth: number;
  multiline: '"""' | "'''" | null;
}

/** Walks a value's characters from `from`; false when a bracket closes one that never opened. */
function scanValue(line: string, from: number, state: ValueState): boolean {
  let k = from;
  while (k < line.length) {
    if (state.multiline) {
      const end = findClose(line, k, state.multiline);
      if (end < 0) return true;
      k = end + 3;
      state.multiline = null;
      continue;
    }
    const c = line[k];
    if (c === '#') return true;
    if (line.startsWith('"""', k) || line.startsWith("'''", k)) {
      state.multiline = line.startsWith('"""', k) ? '"""' : "'''";
      k += 3;
      continue;
    }
    if (c === '"' || c === "'") {
      let j = k + 1;
      while (j < line.length && line[j] !== c) j += c === '"' && line[j] === '\\' ? 2 : 1;
      if (j >= line.length) return false;
      k = j + 1;
      continue;
    }
    if (c === '[' || c === '{') state.depth += 1;
    if (c === ']' || c === '}') {
      state.depth -= 1;
      if (state.depth < 0) return false;
    }
    k += 1;
  }
  return true;
}

function findClose(line: string, from: number, quote: '"""' | "'''"): number {
  for (let k = from; k < line.length; k += 1) {
    if (quote === '"""' && line[k] === '\\') {
      k += 1;
      continue;
    }
    if (line.startsWith(quote, k)) return k;
  }
  return -1;
}
