// A three-way merge of two line sequences that never yields conflict markers: where both sides
// changed the same lines, the two versions are joined (lines both hold once, the rest of each kept),
// and the caller orders what only one side holds. Pure; the diff is diff-lines.ts'. Iterative and
// linear in the lines: no list is spread into a call (a 150,000-line day overflowed the stack).
import { type DiffWork, diffLines } from '../../core/diff-lines.js';

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

/** Appends `lines` to `out` one by one (`push(...lines)` overflows the stack on a long list). */
function append<T>(out: T[], lines: readonly T[]): void {
  for (const line of lines) out.push(line);
}

function hunksOf(base: string[], side: string[], work: DiffWork): Hunk[] {
  const hunks: Hunk[] = [];
  let at = 0;
  let open: Hunk | undefined;
  for (const change of diffLines(base, side, work)) {
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
    } else append(open.lines, change.value);
  }
  if (open) hunks.push(open);
  return hunks;
}

/** The side's version of base lines [start, end), from its hunks inside that range. */
function sideRange(base: string[], hunks: Hunk[], start: number, end: number): string[] {
  const out: string[] = [];
  let at = start;
  for (const h of hunks) {
    for (let i = at; i < h.start; i++) out.push(base[i]!);
    append(out, h.lines);
    at = h.end;
  }
  for (let i = at; i < end; i++) out.push(base[i]!);
  return out;
}

/**
 * Whether hunk `next` touches a group of hunks that start at or before it: it touches one of them
 * when they overlap, or insert at the same place, or one inserts where the other's change ends
 * while both add lines (two appends after the same line). Told from the group's furthest end, last
 * start and furthest end of a hunk that adds lines: checking every member made long chains quadratic.
 */
function touchesGroup(group: { end: number; lastStart: number; addEnd: number }, next: Hunk): boolean {
  // Every member starts at or before next: one that ends after next's start overlaps or holds it.
  if (group.end > next.start || group.lastStart === next.start) return true;
  // All end at or before next's start: two appends after the same line.
  return next.lines.length > 0 && group.addEnd === next.start;
}

/** Lines both versions hold once (their longest common subsequence), the runs between them joined. */
export function unionOf(
  ours: string[],
  theirs: string[],
  join: JoinRuns,
  work: DiffWork = { steps: 0 },
): MergedLine[] {
  const out: MergedLine[] = [];
  let o: string[] = [];
  let t: string[] = [];
  const flush = () => {
    if (o.length > 0 || t.length > 0) append(out, join(o, t));
    o = [];
    t = [];
  };
  for (const change of diffLines(ours, theirs, work)) {
    if (change.removed) append(o, change.value);
    else if (change.added) append(t, change.value);
    else {
      flush();
      for (const line of change.value) out.push({ line, origin: 'b' });
    }
  }
  flush();
  return out;
}

/** Merges `ours` and `theirs`, both changed from `base`; see the file comment. */
export function mergeLines(
  base: string[],
  ours: string[],
  theirs: string[],
  join: JoinRuns,
  work: DiffWork = { steps: 0 },
): MergedLine[] {
  const tagged = [
    ...hunksOf(base, ours, work).map((h) => ({ ...h, side: 'o' as const })),
    ...hunksOf(base, theirs, work).map((h) => ({ ...h, side: 't' as const })),
  ].sort((a, b) => a.start - b.start || a.end - b.end);
  const out: MergedLine[] = [];
  const emit = (lines: readonly string[], origin: Origin) => {
    for (const line of lines) out.push({ line, origin });
  };
  let at = 0;
  let k = 0;
  while (k < tagged.length) {
    // A group of hunks that touch one another, directly or through a chain.
    const group = [tagged[k]!];
    const start = group[0]!.start;
    const reach = {
      end: group[0]!.end,
      lastStart: start,
      addEnd: group[0]!.lines.length > 0 ? group[0]!.end : -1,
    };
    for (k++; k < tagged.length && touchesGroup(reach, tagged[k]!); k++) {
      const h = tagged[k]!;
      group.push(h);
      reach.end = Math.max(reach.end, h.end);
      reach.lastStart = h.start;
      if (h.lines.length > 0) reach.addEnd = Math.max(reach.addEnd, h.end);
    }
    const end = reach.end;
    for (let i = at; i < start; i++) out.push({ line: base[i]!, origin: 'b' });
    at = end;
    const mine = group.filter((h) => h.side === 'o');
    const yours = group.filter((h) => h.side === 't');
    const o = sideRange(base, mine, start, end);
    const t = sideRange(base, yours, start, end);
    if (yours.length === 0) emit(o, 'o');
    else if (mine.length === 0) emit(t, 't');
    else for (const m of unionOf(o, t, join, work)) out.push({ ...m, joined: true });
  }
  for (let i = at; i < base.length; i++) out.push({ line: base[i]!, origin: 'b' });
  return out;
}
