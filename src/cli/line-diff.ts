import { diffLines } from '../core/diff-lines.js';

/** Unchanged lines shown on each side of a change. */
const CONTEXT = 2;

/**
 * A small unified-style diff for --dry-run: lines removed (`-`) and added (`+`) with up to two
 * lines of context; `  …` stands for unchanged lines left out. The diff is the day merge's
 * (core/diff-lines.ts: jsdiff's where the texts are a few edits apart, linear in their length beyond).
 */
export function lineDiff(before: string, after: string): string {
  const a = before === '' ? [] : splitLines(before);
  const b = splitLines(after);
  const ops: Array<[' ' | '-' | '+', string]> = [];
  // jsdiff lists a removal before the addition that replaces it, as diff(1) shows a changed line.
  for (const change of diffLines(a, b)) {
    const mark = change.removed ? '-' : change.added ? '+' : ' ';
    for (const line of change.value) ops.push([mark, line]);
  }
  const keep = ops.map(
    (op, k) =>
      op[0] !== ' ' || ops.slice(Math.max(0, k - CONTEXT), k + CONTEXT + 1).some((o) => o[0] !== ' '),
  );
  const out: string[] = [];
  ops.forEach((op, k) => {
    if (keep[k]) out.push(`${op[0]}${op[1]}`);
    else if (keep[k - 1]) out.push('  …');
  });
  return out.join('\n');
}

function splitLines(text: string): string[] {
  return text.replace(/\r\n/g, '\n').replace(/\n$/, '').split('\n');
}
