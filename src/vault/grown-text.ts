// A day note's text after a chat turn's append is the text before it with the appended lines
// after it. Joined with `+`, V8 keeps the two as a pair and copies them into one string only when
// something reads the characters (a slice, a search, an `endsWith`). What reads the day on after
// an append (the next append's reading of the day, the index's read of the new entries) needs only
// the appended part: it takes it from here, so no chat turn copies the whole day into a new string.
// A day of a thousand turns is some 150 KiB of text (twice that with one non-Latin-1 character),
// and each copy went to the young generation's large-object space, which grew the process.

interface Grown {
  text: string;
  before: string;
  tail: string;
}

/** The last few texts made here: one per note being written, a few notes at once. */
const made: Grown[] = [];
const KEPT = 8;

/** `before` followed by `tail`, joined without a copy, and remembered as such. */
export function grownText(before: string, tail: string): string {
  const text = before + tail;
  if (tail === '') return text;
  const at = made.findIndex((g) => g.text === before);
  // The text it grew from is no longer asked for: only the newest of a chain is kept.
  if (at !== -1) made.splice(at, 1);
  made.push({ text, before, tail });
  if (made.length > KEPT) made.shift();
  return text;
}

/**
 * What follows `before` in `text`, when `text` is `before` with more after it: from what
 * grownText remembers when it made `text` (no copy of the text), else found by comparing
 * (which reads the characters). Undefined when `text` does not start with `before`.
 */
export function textAfter(text: string, before: string): string | undefined {
  if (text.length < before.length) return undefined;
  // `===` on the very strings grownText joined is a comparison of references.
  for (const g of made) if (g.text === text && g.before === before) return g.tail;
  return text.startsWith(before) ? text.slice(before.length) : undefined;
}

/**
 * The part of `text` after its first `length` characters, when grownText made `text` by joining
 * that many characters and the rest; undefined otherwise (slice it). The caller checks that the
 * text before is the one it means (append-note.ts compares the file's hash).
 */
export function grownTail(text: string, length: number): string | undefined {
  for (const g of made) if (g.text === text && g.before.length === length) return g.tail;
  return undefined;
}
