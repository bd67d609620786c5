/**
 * Adds each of `lines` that the section under `heading` does not already hold, at the end of that
 * section (or in a new `## heading` at the end of the note). Every other byte of the note stays as
 * it is: a person's edits to a profile note are never reflowed or dropped. Returns the text and
 * how many lines were added.
 */
export function addLinesUnder(
  text: string,
  heading: string,
  lines: string[],
): { text: string; added: number } {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const body = text.split(/\r?\n/);
  let fence = false;
  const isHeading = body.map((l) => {
    if (/^\s*(```|~~~)/.test(l)) fence = !fence;
    return !fence && /^#{1,6}\s/.test(l);
  });
  const wanted = heading.toLowerCase();
  const at = body.findIndex(
    (l, i) =>
      isHeading[i] &&
      l
        .replace(/^#+\s+/, '')
        .trim()
        .toLowerCase() === wanted,
  );
  const level = at < 0 ? 0 : (/^#+/.exec(body[at] ?? '')?.[0].length ?? 2);
  let end = at + 1;
  while (
    at >= 0 &&
    end < body.length &&
    !(isHeading[end] && (/^#+/.exec(body[end] ?? '')?.[0].length ?? 7) <= level)
  )
    end++;
  const present = new Set((at < 0 ? [] : body.slice(at + 1, end)).map((l) => l.trim()));
  const missing = [...new Set(lines)].filter((l) => !present.has(l.trim()));
  if (missing.length === 0) return { text, added: 0 };
  if (at < 0) {
    const base = text === '' || text.endsWith('\n') ? text : `${text}${eol}`;
    return { text: `${base}${eol}## ${heading}${eol}${missing.join(eol)}${eol}`, added: missing.length };
  }
  let insert = end;
  while (insert > at + 1 && (body[insert - 1] ?? '').trim() === '') insert--;
  body.splice(insert, 0, ...missing);
  return { text: body.join(eol), added: missing.length };
}
