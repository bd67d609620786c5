/**
 * JSON laid out the way Biome formats it (the repository lints `bench/`): objects one key per line,
 * arrays of plain values on one line when they fit the 110-column width.
 */
export function formatJson(value, indent = '', lead = 0) {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    const flat = value.every((v) => v === null || typeof v !== 'object');
    const line = `[${value.map((v) => JSON.stringify(v) ?? 'null').join(', ')}]`;
    if (flat && lead + line.length <= 110) return line;
    return `[\n${value.map((v) => inner + formatJson(v, inner, inner.length)).join(',\n')}\n${indent}]`;
  }
  const entries = Object.entries(value).filter(([, v]) => v !== undefined);
  if (entries.length === 0) return '{}';
  const lines = entries.map(([k, v]) => {
    const key = `${JSON.stringify(k)}: `;
    return inner + key + formatJson(v, inner, inner.length + key.length + 1);
  });
  return `{\n${lines.join(',\n')}\n${indent}}`;
}
