// The day merge on long days: a 150,000-entry day merges without a RangeError (lists spread into a
// call and jsdiff's Myers, lines × edits, were the limits), and its work, counted in diff steps,
// grows linearly with the day. The line diff under it is a valid diff on any input, and jsdiff's
// own result wherever the sides differ by a few edits.
import { diffArrays } from 'diff';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type DiffWork, diffLines, type LineChange } from '../../src/core/diff-lines.js';
import { mergeDay } from '../../src/write/sync/merge-day.js';
import { type JoinRuns, type MergedLine, mergeLines } from '../../src/write/sync/merge-lines.js';

const DATE = '2026-12-01';
const HEAD = ['---', 'type: daily', '---', `# ${DATE}`, ''];
const hhmm = (i: number) =>
  `${String(Math.floor(i / 60) % 24).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}`;
const entry = (i: number, text: string) => `- ${hhmm(Math.floor(i / 200))} **Rain:** ${text} ^e${i}`;

/**
 * A base day of `n` entries and two sides: ours edits every 50th entry and deletes every 97th,
 * theirs edits every 70th, adds a hand line every 500th and both append n/100 entries. Hundreds of
 * edits apart: the exact diff gives way to the anchored one.
 */
function sides(n: number) {
  const base = [...HEAD];
  for (let i = 1; i <= n; i++) base.push(entry(i, `message ${i}`));
  const ours = [...HEAD];
  const theirs = [...HEAD];
  for (let i = 1; i <= n; i++) {
    if (i % 97 !== 0) ours.push(entry(i, i % 50 === 0 ? `message ${i} (ours)` : `message ${i}`));
    theirs.push(entry(i, i % 70 === 0 ? `message ${i} (theirs)` : `message ${i}`));
    if (i % 500 === 0) theirs.push(`a line by hand ${i}`);
  }
  for (let k = 1; k <= n / 100; k++) {
    ours.push(entry(n + k, `ours new ${k}`));
    theirs.push(entry(n + k, `theirs new ${k}`));
  }
  const text = (lines: string[]) => `${lines.join('\n')}\n`;
  return { base: text(base), ours: text(ours), theirs: text(theirs) };
}

const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));

function merge(n: number) {
  const { base, ours, theirs } = sides(n);
  const work: DiffWork = { steps: 0 };
  const { text } = mergeDay(base, ours, theirs, DATE, work);
  return { text, work: work.steps, n };
}

describe('mergeDay on a long day', () => {
  it('merges two sides of a 150,000-entry day: no RangeError, every entry once, ids distinct', () => {
    const { text } = merge(150_000);
    const ids = [...text.matchAll(/ \^(e\d+)$/gm)].map((m) => m[1]);
    // Base entries but ours' deletes (theirs' edit of one keeps it), those both edited twice, and
    // both sides' appends (theirs' renumbered).
    const n = 150_000;
    const count = (every: number, but?: number) =>
      Math.floor(n / every) - (but ? Math.floor(n / ((every * but) / gcd(every, but))) : 0);
    const kept = n - count(97, 70) + count(350, 97) + (2 * n) / 100;
    expect(ids).toHaveLength(kept);
    expect(new Set(ids).size).toBe(ids.length);
    expect(text).toContain('message 150 (ours)');
    expect(text).toContain('message 140 (theirs)');
    expect(text).toContain('a line by hand 149500\n');
  }, 60_000);

  it('does work linear in the day: four times the entries, about four times the diff steps', () => {
    const small = merge(5_000);
    const large = merge(20_000);
    // Linear is 4× (the longest increasing run's binary search adds a little); the square is 16×.
    expect(large.work / small.work).toBeLessThan(5);
    expect(large.work).toBeLessThan(40 * large.n);
  });

  it('does work linear in the day when every line is alike (no line to anchor on, Myers bounded)', () => {
    const alike = (n: number) => {
      const base = `${HEAD.join('\n')}\n${'- the same line by hand\n'.repeat(n)}`;
      const work: DiffWork = { steps: 0 };
      // Every 50th line another: hundreds of edits, none of them on a line said once.
      const lines = base.split('\n');
      for (let i = HEAD.length; i < lines.length - 1; i += 50) lines[i] = '- ours by hand';
      const ours = `${lines.join('\n')}- 09:00 **Rain:** ours ^e1\n`;
      const theirs = `${base}${'- another line\n'.repeat(n / 10)}- 09:00 **Rain:** theirs ^e1\n`;
      const { text } = mergeDay(base, ours, theirs, DATE, work);
      expect(text).toContain('ours ^e1');
      expect(text).toContain('theirs ^e2');
      return work.steps;
    };
    const [small, large] = [alike(5_000), alike(20_000)];
    expect(large / small).toBeLessThan(5);
  });
});

/** Applies a diff: the old lines (common and removed) and the new lines (common and added). */
function apply(changes: LineChange[]) {
  const old: string[] = [];
  const next: string[] = [];
  for (const c of changes) {
    if (!c.added) old.push(...c.value);
    if (!c.removed) next.push(...c.value);
  }
  return { old, next };
}

const runs = (changes: LineChange[]) =>
  changes.map((c) => ({ kind: c.added ? 'added' : c.removed ? 'removed' : 'same', value: c.value }));

const lines = (max: number) =>
  fc.array(fc.constantFrom('a', 'b', 'c', 'd', '', '- x ^e1'), { maxLength: max });

describe('diffLines', () => {
  it('is a diff of any two line lists, and jsdiff`s own where the sides are a few edits apart', () => {
    fc.assert(
      fc.property(lines(40), lines(40), (a, b) => {
        const changes = diffLines(a, b);
        expect(apply(changes)).toEqual({ old: a, next: b });
        const exact = diffArrays(a, b, { maxEditLength: 64 });
        if (exact) expect(runs(changes)).toEqual(runs(exact));
      }),
      { numRuns: 500 },
    );
  });

  it('is a diff of long lists far apart (the anchored path), with each line both hold once kept', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 400 }), { minLength: 150, maxLength: 400 }),
        fc.array(fc.integer({ min: 0, max: 400 }), { minLength: 150, maxLength: 400 }),
        (x, y) => {
          const [a, b] = [x.map(String), y.map(String)];
          const changes = diffLines(a, b);
          expect(apply(changes)).toEqual({ old: a, next: b });
        },
      ),
      { numRuns: 100 },
    );
  });
});

// ---------------------------------------------------------------------------------------------
// mergeLines as it was before (every group member checked, jsdiff's diff): the new one merges the
// same wherever the sides are a few edits apart.

interface Hunk {
  start: number;
  end: number;
  lines: string[];
}

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

function overlaps(a: Hunk, b: Hunk): boolean {
  if (a.start < b.end && b.start < a.end) return true;
  if (a.start === b.start) return true;
  const inside = (h: Hunk, p: number) => h.start < p && p < h.end;
  if ((a.start === a.end && inside(b, a.start)) || (b.start === b.end && inside(a, b.start))) return true;
  const adds = a.lines.length > 0 && b.lines.length > 0;
  return adds && (a.start === b.end || b.start === a.end);
}

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

function unionOf(ours: string[], theirs: string[], join: JoinRuns): MergedLine[] {
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

function referenceMerge(base: string[], ours: string[], theirs: string[], join: JoinRuns): MergedLine[] {
  const tagged = [
    ...hunksOf(base, ours).map((h) => ({ ...h, side: 'o' as const })),
    ...hunksOf(base, theirs).map((h) => ({ ...h, side: 't' as const })),
  ].sort((a, b) => a.start - b.start || a.end - b.end);
  const out: MergedLine[] = [];
  let at = 0;
  let k = 0;
  while (k < tagged.length) {
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

describe('mergeLines', () => {
  it('groups hunks and merges as the member-by-member check did', () => {
    const join: JoinRuns = (o, t) => [
      ...o.map((line) => ({ line, origin: 'o' as const })),
      ...t.map((line) => ({ line, origin: 't' as const })),
    ];
    fc.assert(
      fc.property(lines(14), lines(14), lines(14), (base, ours, theirs) => {
        expect(mergeLines(base, ours, theirs, join)).toEqual(referenceMerge(base, ours, theirs, join));
      }),
      { numRuns: 1000 },
    );
  });
});
