/**
 * Writing JSON text by position, so that a config file gains one member and keeps every other byte
 * (where the members are comes from jsonc-parser's tree, json-tree.ts).
 */

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
