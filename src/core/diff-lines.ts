// The line diff of the day merge and of the --dry-run diffs: jsdiff's (Myers) where the two sides
// differ by a few edits, and otherwise a diff whose work grows with the length of the text, not
// with its square: Myers costs (lines × edits), and two copies of a 150,000-entry day that each
// added thousands of entries took minutes. Iterative throughout: no step recurses or spreads a
// long list into a call.
import { diffArrays } from 'diff';

/** One run of the diff: lines both hold, or only the old one (`removed`) or the new one (`added`). */
export interface LineChange {
  value: string[];
  added?: boolean;
  removed?: boolean;
}

/** Counts the work a diff does (line comparisons and steps), so a test can bound it by size. */
export interface DiffWork {
  steps: number;
}

/**
 * Edits up to which Myers runs: its result is jsdiff's exactly, at a cost of at most (lines ×
 * this). Beyond, the lines both sides hold once are matched first (their longest increasing run,
 * as patience diff does) and Myers runs, bounded again, only in the gaps between them.
 */
const EXACT_EDITS = 64;

function myers(a: string[], b: string[], work: DiffWork): LineChange[] | undefined {
  if (a.length === 0 && b.length === 0) return [];
  if (a.length === 0) return [{ value: b, added: true }];
  if (b.length === 0) return [{ value: a, removed: true }];
  const comparator = (x: string, y: string) => {
    work.steps++;
    return x === y;
  };
  return diffArrays(a, b, { maxEditLength: EXACT_EDITS, comparator }) as LineChange[] | undefined;
}

/** Appends `change` to `out`, joining it with the last run when both are of the same kind. */
function push(out: LineChange[], value: string[], kind: 'same' | 'added' | 'removed'): void {
  if (value.length === 0) return;
  const last = out.at(-1);
  const lastKind = last === undefined ? undefined : last.added ? 'added' : last.removed ? 'removed' : 'same';
  if (last && lastKind === kind) {
    for (const line of value) last.value.push(line);
    return;
  }
  out.push(
    kind === 'same' ? { value } : kind === 'added' ? { value, added: true } : { value, removed: true },
  );
}

function pushAll(out: LineChange[], changes: LineChange[]): void {
  for (const c of changes) push(out, [...c.value], c.added ? 'added' : c.removed ? 'removed' : 'same');
}

/** The gap a[i0, i1) against b[j0, j1): trimmed ends, then bounded Myers, else replaced whole. */
function diffGap(
  a: string[],
  b: string[],
  [i0, i1]: [number, number],
  [j0, j1]: [number, number],
  out: LineChange[],
  work: DiffWork,
): void {
  let start = 0;
  while (i0 + start < i1 && j0 + start < j1 && a[i0 + start] === b[j0 + start]) start++;
  let end = 0;
  while (i1 - end > i0 + start && j1 - end > j0 + start && a[i1 - end - 1] === b[j1 - end - 1]) end++;
  work.steps += start + end + 1;
  push(out, a.slice(i0, i0 + start), 'same');
  const oldMid = a.slice(i0 + start, i1 - end);
  const newMid = b.slice(j0 + start, j1 - end);
  const exact = myers(oldMid, newMid, work);
  if (exact) pushAll(out, exact);
  else {
    push(out, oldMid, 'removed');
    push(out, newMid, 'added');
  }
  push(out, a.slice(i1 - end, i1), 'same');
}

/**
 * Pairs of positions (in `a`, in `b`) of lines that each side holds exactly once, in a's order,
 * keeping the longest run whose positions in `b` increase too (patience sorting: n log n).
 */
function anchors(a: string[], b: string[], work: DiffWork): Array<[number, number]> {
  const countA = new Map<string, number>();
  for (const line of a) countA.set(line, (countA.get(line) ?? 0) + 1);
  const inB = new Map<string, number>();
  for (let j = 0; j < b.length; j++) {
    const line = b[j]!;
    // -1: seen more than once in b
    inB.set(line, inB.has(line) ? -1 : j);
  }
  work.steps += a.length + b.length;
  const pairs: Array<[number, number]> = [];
  for (let i = 0; i < a.length; i++) {
    const j = inB.get(a[i]!);
    if (j !== undefined && j >= 0 && countA.get(a[i]!) === 1) pairs.push([i, j]);
  }
  // tails[k]: index in pairs of the smallest b-position ending an increasing run of length k + 1.
  const tails: number[] = [];
  const previous = new Int32Array(pairs.length).fill(-1);
  for (let p = 0; p < pairs.length; p++) {
    const j = pairs[p]![1];
    let lo = 0;
    let hi = tails.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      work.steps++;
      if (pairs[tails[mid]!]![1] < j) lo = mid + 1;
      else hi = mid;
    }
    if (lo > 0) previous[p] = tails[lo - 1]!;
    tails[lo] = p;
  }
  const run: Array<[number, number]> = [];
  for (let p = tails.at(-1) ?? -1; p >= 0; p = previous[p]!) run.push(pairs[p]!);
  return run.reverse();
}

/**
 * The diff of `a` to `b` as jsdiff's `diffArrays` gives it (runs of common, removed and added
 * lines): the same result where the sides differ by at most EXACT_EDITS edits, a minimal-enough one
 * beyond, in work about linear in the lines (n log n where many lines move).
 */
export function diffLines(a: string[], b: string[], work: DiffWork = { steps: 0 }): LineChange[] {
  // Myers itself starts with the common prefix; taking it here first changes nothing it returns.
  let prefix = 0;
  while (prefix < a.length && prefix < b.length && a[prefix] === b[prefix]) prefix++;
  work.steps += prefix + 1;
  const out: LineChange[] = [];
  push(out, a.slice(0, prefix), 'same');
  const exact = myers(a.slice(prefix), b.slice(prefix), work);
  if (exact) {
    pushAll(out, exact);
    return out;
  }
  const restA = a.slice(prefix);
  const restB = b.slice(prefix);
  let i = 0;
  let j = 0;
  for (const [ai, bj] of anchors(restA, restB, work)) {
    diffGap(restA, restB, [i, ai], [j, bj], out, work);
    push(out, [restA[ai]!], 'same');
    i = ai + 1;
    j = bj + 1;
  }
  diffGap(restA, restB, [i, restA.length], [j, restB.length], out, work);
  return out;
}
