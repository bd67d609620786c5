// A three-way merge of two line sequences that never yields conflict markers: where both sides
// changed the same lines, the two versions are joined (lines both hold once, the rest of each kept),
// and the caller orders what only one side holds. Pure; the diff itself is jsdiff's.
import { diffArrays } from 'diff';

/** One side's change to the base: base lines [start, end) became `lines`. */
interface Hunk {
  start: number;
  end: number;
  lines: string[];
}

/** Where a merged line came from: both sides agree (`b`), or only ours (`o`) or theirs (`t`) changed it. */
export type Origin = 'b' | 'o' | 't';

export interface MergedLine {
  line: string;
  origin: Origin;
  /** Set on the lines of a region both sides changed */
  joined?: true;
}

/**
 * Orders the lines only one side holds inside a region both sides changed: `ours` and `theirs`
 * are the runs between two lines both hold. Must not depend on which side is which, so the merge
 * is symmetric.
 */
export type JoinRuns = (ours: string[], theirs: string[]) => MergedLine[];

function hunksOf(base: string[], side: string[]): Hunk[] {
  const hunks: Hunk[] = [];
  let at = 0;
  let open: Hunk | undefined;
  for (const change of diffArrays(base, side)) {
    if (!change.added && !change.removed) {
      if (open) hunks.push(open);
      open = undefined;
      at += change.value.length;
      continue;
    }
    open ??= { start: at, end: at, lines: [] };
    if (change.removed) {
      at += change.value.length;
      open.end = at;
    } else open.lines.push(...change.value);
  }
  if (open) hunks.push(open);
  return hunks;
}

/**
 * Whether two hunks touch the same base lines: they overlap, or insert at the same place, or one
 * inserts where the other's change ends while both add lines (two appends after the same line).
 */
function overlaps(a: Hunk, b: Hunk): boolean {
  if (a.start < b.end && b.start < a.end) return true;
  if (a.start === b.start) return true;
  const inside = (h: Hunk, p: number) => h.start < p && p < h.end;
  if ((a.start === a.end && inside(b, a.start)) || (b.start === b.end && inside(a, b.start))) return true;
  const adds = a.lines.length > 0 && b.lines.length > 0;
  return adds && (a.start === b.end || b.start === a.end);
}

/** The side's version of base lines [start, end), from its hunks inside that range. */
function sideRange(base: string[], hunks: Hunk[], start: number, end: number): string[] {
  const out: string[] = [];
  let at = start;
  for (const h of hunks) {
    out.push(...base.slice(at, h.start), ...h.lines);
    at = h.end;
  }
  out.push(...base.slice(at, end));
  return out;
}

/** Lines both versions hold once (their longest common subsequence), the runs between them joined. */
export function unionOf(ours: string[], theirs: string[], join: JoinRuns): MergedLine[] {
  const out: MergedLine[] = [];
  let o: string[] = [];
  let t: string[] = [];
  const flush = () => {
    if (o.length > 0 || t.length > 0) out.push(...join(o, t));
    o = [];
    t = [];
  };
  for (const change of diffArrays(ours, theirs)) {
    if (change.removed) o.push(...change.value);
    else if (change.added) t.push(...change.value);
    else {
      flush();
      out.push(...change.value.map((line) => ({ line, origin: 'b' as const })));
    }
  }
  flush();
  return out;
}

/** Merges `ours` and `theirs`, both changed from `base`; see the file comment. */
export function mergeLines(base: string[], ours: string[], theirs: string[], join: JoinRuns): MergedLine[] {
  const tagged = [
    ...hunksOf(base, ours).map((h) => ({ ...h, side: 'o' as const })),
    ...hunksOf(base, theirs).map((h) => ({ ...h, side: 't' as const })),
  ].sort((a, b) => a.start - b.start || a.end - b.end);
  const out: MergedLine[] = [];
  let at = 0;
  let k = 0;
  while (k < tagged.length) {
    // A group of hunks that touch one another, directly or through a chain.
    const group = [tagged[k]!];
    let start = group[0]!.start;
    let end = group[0]!.end;
    for (k++; k < tagged.length && group.some((h) => overlaps(h, tagged[k]!)); k++) {
      group.push(tagged[k]!);
      start = Math.min(start, tagged[k]!.start);
      end = Math.max(end, tagged[k]!.end);
    }
    out.push(...base.slice(at, start).map((line) => ({ line, origin: 'b' as const })));
    at = end;
    const mine = group.filter((h) => h.side === 'o');
    const yours = group.filter((h) => h.side === 't');
    const o = sideRange(base, mine, start, end);
    const t = sideRange(base, yours, start, end);
    if (yours.length === 0) out.push(...o.map((line) => ({ line, origin: 'o' as const })));
    else if (mine.length === 0) out.push(...t.map((line) => ({ line, origin: 't' as const })));
    else out.push(...unionOf(o, t, join).map((m) => ({ ...m, joined: true as const })));
  }
  out.push(...base.slice(at).map((line) => ({ line, origin: 'b' as const })));
  return out;
}
