/**
 * Reading and writing JSON text by position, so that a config file gains one member and keeps
 * every other byte. The text is known to be valid JSON (JSON.parse read it first).
 */

/** One `"key": value` of an object: where its key starts and its value starts and ends. */
export interface Member {
  key: string;
  keyStart: number;
  valueStart: number;
  valueEnd: number;
}

export function skipSpace(text: string, at: number): number {
  let k = at;
  while (k < text.length && ' \t\n\r'.includes(text[k] ?? '')) k += 1;
  return k;
}

function skipString(text: string, at: number): number {
  let k = at + 1;
  while (k < text.length && text[k] !== '"') k += text[k] === '\\' ? 2 : 1;
  return k + 1;
}

/** The index just after the value that starts at `at`. */
export function skipValue(text: string, at: number): number {
  const c = text[at];
  if (c === '"') return skipString(text, at);
  if (c === '{' || c === '[') {
    let depth = 0;
    let k = at;
    do {
      const d = text[k];
      if (d === '"') {
        k = skipString(text, k);
        continue;
      }
      if (d === '{' || d === '[') depth += 1;
      if (d === '}' || d === ']') depth -= 1;
      k += 1;
    } while (depth > 0 && k < text.length);
    return k;
  }
  let k = at;
  while (k < text.length && !',}] \t\n\r'.includes(text[k] ?? '')) k += 1;
  return k;
}

/** The members of the object whose `{` is at `open`, and the index of its `}`. */
export function objectMembers(text: string, open: number): { members: Member[]; close: number } {
  const members: Member[] = [];
  if (text[open] !== '{') throw new Error('not an object');
  let k = skipSpace(text, open + 1);
  while (k < text.length && text[k] !== '}') {
    const keyStart = k;
    const keyEnd = skipString(text, k);
    const key = JSON.parse(text.slice(keyStart, keyEnd)) as string;
    const valueStart = skipSpace(text, skipSpace(text, keyEnd) + 1);
    const valueEnd = skipValue(text, valueStart);
    members.push({ key, keyStart, valueStart, valueEnd });
    k = skipSpace(text, valueEnd);
    if (text[k] === ',') k = skipSpace(text, k + 1);
  }
  return { members, close: k };
}

/** The whitespace before `at` on its line, or null when something else comes first there. */
export function lineIndent(text: string, at: number): string | null {
  const start = text.lastIndexOf('\n', at - 1) + 1;
  const before = text.slice(start, at);
  return /^[ \t]*$/.test(before) ? before : null;
}

/**
 * JSON as the examples and Biome write it: objects one member a line, arrays of plain values on
 * one line (`["mcp", "--vault", "…"]`), `{}` and `[]` when empty. `indent` is one level, `at` the
 * indentation of the line the value starts on.
 */
export function renderJson(value: unknown, indent: string, at = '', eol = '\n'): string {
  if (Array.isArray(value)) {
    if (value.every((v) => v === null || typeof v !== 'object')) {
      return `[${value.map((v) => JSON.stringify(v)).join(', ')}]`;
    }
    const inner = at + indent;
    return `[${eol}${value.map((v) => inner + renderJson(v, indent, inner, eol)).join(`,${eol}`)}${eol}${at}]`;
  }
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  const entries = Object.entries(value);
  if (entries.length === 0) return '{}';
  const inner = at + indent;
  const lines = entries.map(([k, v]) => `${inner}${JSON.stringify(k)}: ${renderJson(v, indent, inner, eol)}`);
  return `{${eol}${lines.join(`,${eol}`)}${eol}${at}}`;
}
