// What a rollup of one period is built from: the level below. A week reads its days; a month the
// weeklies inside it, a quarter its monthlies, a year its quarterlies, and the days none of those
// covers (a week that straddles two months belongs to neither, so each month reads those days).

import { capsuleOf, rollupNotes } from '../../compile/fold-rollups.js';
import type { Note, Section } from '../../core/types.js';
import type { VaultIndex } from '../../indexing/vault-index.js';
import { entriesNewestFirst } from '../../recall/episode-entries.js';
import { citation } from '../../recall/recall.js';
import {
  levelBelow,
  type Period,
  type RollupLevel,
  rollupLevel,
  rollupPeriod,
  within,
} from '../../time/rollup-period.js';
import { isRetired } from '../../vault/section-facts.js';

export interface RollupEntry {
  note: Note;
  section: Section;
  /** `[[2026-11-17#^e6]]` */
  cite: string;
  /** How many notes of the level below cite this entry (a rollup, an insight) */
  citedBy: number;
}

export interface RollupPart {
  note: Note;
  /** `[[2026-W45]]` or `[[2026-11-01]]` */
  cite: string;
  /** A child rollup's one-line summary, which the next level reads first */
  capsule?: string;
  kind: 'rollup' | 'day';
}

export interface RollupInput {
  period: string;
  level: RollupLevel;
  days: Period;
  /** The child rollups and the uncovered days, oldest first: the rollup's `sources` */
  parts: RollupPart[];
  /** The entries to choose from, oldest first */
  entries: RollupEntry[];
}

const dayOfNote = (note: Note): string | undefined => note.sections.find((s) => s.date)?.date;

/** Entries a note links to by block (`[[2026-11-17#^e6]]`), as section ids. */
function citedEntries(index: VaultIndex, path: string): string[] {
  const ids: string[] = [];
  for (const edge of index.graph.outEdges(path)) {
    const anchor = edge.link.subpath?.replace(/^#/, '');
    if (!edge.to || !anchor?.startsWith('^')) continue;
    const found = index.sectionByAnchor(edge.to, anchor);
    if (found && found.section.anchor === anchor) ids.push(found.section.id);
  }
  return ids;
}

/** The parts and the candidate entries of `period`; undefined when it is not a rollup period. */
export function rollupInput(index: VaultIndex, period: string): RollupInput | undefined {
  const level = rollupLevel(period);
  const days = rollupPeriod(period);
  if (!level || !days) return undefined;
  const inPeriod = (date: string | undefined) => date !== undefined && date >= days.from && date <= days.to;
  const below = levelBelow(level);
  const children = below ? rollupNotes(index).filter((r) => r.level === below && within(r.period, days)) : [];
  const seen = new Set<string>();
  const childRollups = children.filter((r) => !seen.has(r.name) && seen.add(r.name));
  const coveredByChild = (date: string) =>
    childRollups.some((r) => date >= r.period.from && date <= r.period.to);

  // A day's section that is still only its template's text (an empty `## Plan`) is nothing of the day.
  const all = [...entriesNewestFirst(index)].filter(
    (e) =>
      !isRetired(e.note) &&
      e.note.layer === 'episodes' &&
      inPeriod(e.section.date) &&
      !index.isTemplateSection(e.section),
  );
  const citedBy = new Map<string, number>();
  // A child that cites entries hands those up; one that cites none (a hand-written summary) hands up its days.
  const handedUp = new Set<string>();
  for (const child of childRollups) {
    const ids = citedEntries(index, child.note.path);
    for (const id of ids) {
      handedUp.add(id);
      citedBy.set(id, (citedBy.get(id) ?? 0) + 1);
    }
    if (ids.length === 0)
      for (const e of all)
        if (e.section.date && within({ from: e.section.date, to: e.section.date }, child.period))
          handedUp.add(e.section.id);
  }
  const entries = all
    .filter((e) => handedUp.has(e.section.id) || !coveredByChild(e.section.date ?? ''))
    .reverse()
    .map(({ note, section }) => ({
      note,
      section,
      cite: citation(index, note.path, section.anchor),
      citedBy:
        (citedBy.get(section.id) ?? 0) +
        index.graph.backlinks(note.path).filter((b) => b.link.subpath?.replace(/^#/, '') === section.anchor)
          .length,
    }));

  const dayNotes = new Map<string, Note>();
  for (const e of all)
    if (!coveredByChild(e.section.date ?? '') && !dayNotes.has(e.note.path))
      dayNotes.set(e.note.path, e.note);
  const parts: Array<RollupPart & { from: string }> = [
    ...childRollups.map((r) => ({
      note: r.note,
      cite: citation(index, r.note.path, ''),
      capsule: capsuleOf(r.note),
      kind: 'rollup' as const,
      from: r.period.from,
    })),
    ...[...dayNotes.values()].map((note) => ({
      note,
      cite: citation(index, note.path, ''),
      kind: 'day' as const,
      from: dayOfNote(note) ?? '',
    })),
  ];
  parts.sort((a, b) => (a.from < b.from ? -1 : a.from > b.from ? 1 : a.note.path < b.note.path ? -1 : 1));
  return { period, level, days, parts: parts.map(({ from: _, ...part }) => part), entries };
}
