// The one "add lines under a heading" of the vault: reflect files its facts, links and commitments
// with it, and `mem import` of an MCP memory graph files observations and relations. Both read the
// note through its remark outline (note-outline.ts), so a heading inside code of any fence length, a
// comment, a list or a quote is never taken for a real one; an older line scanner of the importer
// closed a ```` fence at its first ``` line.
import { outlineOf } from './note-outline.js';

function eolOf(text: string): string {
  return text.includes('\r\n') ? '\r\n' : '\n';
}

/**
 * Inserts each of `lines` the section under `heading` (any level) does not already state, after
 * that section's last non-blank line, or in a new `## heading` at the end. Only a real heading
 * counts, and the lines are spliced in by offset, so every other byte stays as it was (a person's
 * edits are never reflowed). A line the section already holds outside code, compared trimmed, is
 * not added again: a re-run after a kill must not repeat what the killed run wrote.
 */
export function addLinesUnderHeading(
  text: string,
  heading: string,
  lines: string[],
  /** `own`: the lines go before the section's first subheading, directly under the heading */
  options: { own?: boolean } = {},
): { text: string; added: number } {
  const eol = eolOf(text);
  const outline = outlineOf(text);
  const { headings, openFence } = outline;
  const wanted = heading.trim().toLowerCase();
  const at = headings.findIndex((h) => h.text.trim().toLowerCase() === wanted);
  const found = headings[at];
  // The section runs to the next real heading of the same level or above (of any level: `own`).
  const next = found && headings.slice(at + 1).find((h) => options.own || h.depth <= found.depth);
  const first = found ? found.lastLine + 1 : 0;
  const end = found ? (next?.line ?? outline.lines.length) : 0;
  const present = new Set<string>();
  for (let i = first; i < end; i++) {
    const l = outline.lines[i]!;
    if (!l.code) present.add(text.slice(l.start, l.end).trim());
  }
  const missing: string[] = [];
  for (const line of lines) {
    if (present.has(line.trim())) continue;
    present.add(line.trim());
    missing.push(line);
  }
  if (missing.length === 0) return { text, added: 0 };
  const added = missing.length;
  const block = missing.join(eol);
  if (!found) {
    const base = text.endsWith('\n') || text === '' ? text : `${text}${eol}`;
    // A fence left open runs to the end of the note: closed first, or the new section is code.
    const closed = openFence ? `${base}${openFence}${eol}` : base;
    return { text: `${closed}${eol}## ${heading.trim()}${eol}${block}${eol}`, added };
  }
  // Insert after the section's last non-blank line.
  let insert = end;
  const blank = (i: number) => text.slice(outline.lines[i]!.start, outline.lines[i]!.end).trim() === '';
  while (insert > first && blank(insert - 1)) insert--;
  // A fence left open at the end runs to the end of the note: it is closed first, or the lines
  // would be code. (Put before the fence instead, a list item could take the fence in.)
  if (openFence && end === outline.lines.length && insert > first && outline.lines[insert - 1]!.code) {
    const base = text.endsWith('\n') ? text : `${text}${eol}`;
    return { text: `${base}${openFence}${eol}${block}${eol}`, added };
  }
  const target = outline.lines[insert];
  if (target) return { text: text.slice(0, target.start) + block + eol + text.slice(target.start), added };
  return { text: `${text}${eol}${block}`, added };
}
