// Ranges of offsets into a note's text, and blanking them without moving any offset.

/** A `[start, end)` range of offsets into a text. */
export type Span = readonly [start: number, end: number];

/** Same length, same line breaks, no content: offsets and line numbers stay valid. */
export function blank(text: string): string {
  return text.replace(/[^\r\n]/g, ' ');
}

/** `text` with every span blanked (see blank); spans may overlap and come in any order. */
export function blankSpans(text: string, spans: readonly Span[]): string {
  if (spans.length === 0) return text;
  const sorted = [...spans].sort((a, b) => a[0] - b[0]);
  const parts: string[] = [];
  let pos = 0;
  for (const [start, end] of sorted) {
    if (end <= pos) continue;
    const from = Math.max(start, pos);
    parts.push(text.slice(pos, from), blank(text.slice(from, end)));
    pos = end;
  }
  parts.push(text.slice(pos));
  return parts.join('');
}
