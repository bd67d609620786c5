// Cascade folding: a yearly rollup stands in for its quarterlies, a quarterly for its monthlies, a
// monthly for its weeklies, a weekly for its days. Each day is spoken for by at most one rollup,
// the highest one that covers it, so the working memory never says the same week twice.

import type { Note } from '../core/types.js';
import { declareFacet } from '../indexing/trackers.js';
import type { VaultIndex } from '../indexing/vault-index.js';
import { addDays } from '../time/calendar-day.js';
import { parseInstant } from '../time/parse-instant.js';
import {
  overlaps,
  type Period,
  ROLLUP_LEVELS,
  type RollupLevel,
  rollupLevel,
  rollupPeriod,
} from '../time/rollup-period.js';
import { dayOf } from '../time/zoned-date.js';
import { isRetired } from '../vault/section-facts.js';

export interface Rollup {
  note: Note;
  /** The period name as written, e.g. `2026-W47` */
  name: string;
  level: RollupLevel;
  /** The days of the period */
  period: Period;
  /**
   * The days it can speak for: the period, cut at the day before it was written when that came
   * first (a summary written mid-period cannot speak for the days after it)
   */
  covers: Period;
}

/** What one shown rollup stands in for (reported by `compile --json`). */
export interface FoldedRollup {
  path: string;
  period: string;
  /** The days no higher rollup speaks for, as spans of `YYYY-MM-DD` */
  standsFor: Period[];
  /** Lower rollups it folds (hidden because every day of theirs is spoken for above them) */
  hides: string[];
}

export interface Folding {
  /** Shown rollups, newest first */
  shown: Rollup[];
  report: FoldedRollup[];
  /** The last day a shown rollup speaks for: only entries after it stay raw */
  rawAfter: string;
}

const isRollup = (n: Note) => n.layer === 'episodes' && !isRetired(n) && n.frontmatter['type'] === 'rollup';
// Declared so that a save keeps it and an open restores it instead of scanning every note.
declareFacet('rollups', isRollup);

/** The rollup notes, kept as notes change: every view below is made of them alone. */
const rollupFacet = (index: VaultIndex) => index.facet('rollups', isRollup);

/** Every rollup note (written by reflect or by hand) whose period mem can read. */
export function rollupNotes(index: VaultIndex): Array<Omit<Rollup, 'covers'>> {
  const facet = rollupFacet(index);
  return index.viewOf('compile:rollups', facet, () =>
    [...facet.notes.values()]
      .flatMap((note) => {
        const raw = note.frontmatter['period'];
        const name = typeof raw === 'number' ? String(raw) : raw;
        const level = rollupLevel(name);
        const period = rollupPeriod(name);
        return level && period && typeof name === 'string' ? [{ note, name, level, period }] : [];
      })
      .sort((a, b) => (a.note.path < b.note.path ? -1 : 1)),
  );
}

/**
 * Every readable rollup with the days it can speak for, kept until a rollup changes: reading
 * `created` in the zone costs about 0.3 ms a rollup, 24 ms a turn for 76 of them.
 */
function coveredDays(index: VaultIndex, timeZone: string): Rollup[] {
  return index.viewOf(`compile:rollup-covers:${timeZone}`, rollupFacet(index), () =>
    rollupNotes(index).flatMap((rollup) => {
      const created = parseInstant(String(rollup.note.frontmatter['created'] ?? ''), timeZone);
      const dayBefore = created ? addDays(dayOf(created, timeZone), -1) : rollup.period.to;
      // Days are `YYYY-MM-DD` strings, compared as text (Math.min would make them NaN).
      // biome-ignore lint/complexity/useMathMinMax: strings, not numbers
      const to = dayBefore < rollup.period.to ? dayBefore : rollup.period.to;
      return to < rollup.period.from ? [] : [{ ...rollup, covers: { from: rollup.period.from, to } }];
    }),
  );
}

/** `span` without the days in `taken` (sorted or not), as the spans left, oldest first. */
function subtract(span: Period, taken: Period[]): Period[] {
  let left: Period[] = [span];
  for (const cut of taken) {
    left = left.flatMap((part) => {
      if (!overlaps(part, cut)) return [part];
      const pieces: Period[] = [];
      if (part.from < cut.from) pieces.push({ from: part.from, to: addDays(cut.from, -1) });
      if (part.to > cut.to) pieces.push({ from: addDays(cut.to, 1), to: part.to });
      return pieces;
    });
  }
  return left.sort((a, b) => (a.from < b.from ? -1 : 1));
}

/**
 * The rollups that stand in for the days before `today` (`YYYY-MM-DD` in `timeZone`): highest level
 * first, each speaks for the days no higher one covers; one that is left with no day is folded.
 */
export function foldRollups(index: VaultIndex, today: string, timeZone: string): Folding {
  // Kept per day until a rollup changes: a conversation asks about the same day every turn.
  const byDay = index.viewOf(
    `compile:fold:${timeZone}`,
    rollupFacet(index),
    () => new Map<string, Folding>(),
  );
  const known = byDay.get(today);
  if (known) return known;
  const folding = fold(index, today, timeZone);
  byDay.set(today, folding);
  return folding;
}

function fold(index: VaultIndex, today: string, timeZone: string): Folding {
  const finished = coveredDays(index, timeZone).filter((r) => r.period.to < today);
  const rank = (r: Rollup) => ROLLUP_LEVELS.indexOf(r.level);
  // Highest level first; within a level oldest first, and one file per period (the first by path).
  const ordered = [...finished].sort((a, b) => rank(b) - rank(a) || (a.period.from < b.period.from ? -1 : 1));

  const taken: Array<{ rollup: Rollup; span: Period }> = [];
  const shown: Array<{ rollup: Rollup; standsFor: Period[] }> = [];
  const folded: Rollup[] = [];
  for (const rollup of ordered) {
    const standsFor = subtract(
      rollup.covers,
      taken.map((t) => t.span),
    );
    if (standsFor.length === 0) folded.push(rollup);
    else shown.push({ rollup, standsFor });
    taken.push(...standsFor.map((span) => ({ rollup, span })));
  }
  const report = shown.map(({ rollup, standsFor }) => ({
    path: rollup.note.path,
    period: rollup.name,
    standsFor,
    hides: folded
      .filter((f) => rank(f) < rank(rollup) && standsFor.some((s) => overlaps(s, f.covers)))
      .map((f) => f.note.path),
  }));
  const lastDay = (r: { standsFor: Period[] }) => r.standsFor[r.standsFor.length - 1]?.to ?? '';
  const byNewest = [...shown].sort((a, b) => (lastDay(a) < lastDay(b) ? 1 : -1));
  return {
    shown: byNewest.map((s) => s.rollup),
    report: [...report].sort((a, b) => (lastDay(a) < lastDay(b) ? 1 : -1)),
    rawAfter: byNewest[0] ? lastDay(byNewest[0]) : '',
  };
}

/**
 * The line a rollup sums itself up in, which the next level and compile read first: the text under
 * its `Capsule` heading, else frontmatter `capsule`, else undefined.
 */
export function capsuleOf(note: Note): string | undefined {
  const section = note.sections.find(
    (s) => s.kind === 'heading' && (s.heading ?? s.anchor).trim().toLowerCase() === 'capsule',
  );
  const fromBody = section?.text
    .split('\n')
    .map((l) => l.replace(/^[>\-*\s]+/, '').trim())
    .find((l) => l !== '' && l.toLowerCase() !== 'capsule' && !l.startsWith('#'));
  if (fromBody) return fromBody;
  const fromFrontmatter = note.frontmatter['capsule'];
  return typeof fromFrontmatter === 'string' && fromFrontmatter.trim() !== ''
    ? fromFrontmatter.trim()
    : undefined;
}
