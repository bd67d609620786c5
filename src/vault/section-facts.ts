// What recall ranks a section by, apart from its words: its layer's and note's state, its day and
// time, who said it, its importance, what its memory time is read from. The text index stores these
// with each section (section-documents.ts), so a search ranks its hits without decoding their notes;
// a note in hand gives the same facts through sectionFacts.
import type { Layer, Note, Section } from '../core/types.js';
import { type Period, rollupPeriod } from '../time/rollup-period.js';
import { isJournalSection } from './markdown/journal-items.js';
import { lines } from './template-notes.js';

/** A section as recall ranks it before it is shown. */
export interface SectionFacts {
  layer: Layer;
  /** Episode entries: `YYYY-MM-DD` */
  date?: string;
  /** Episode entries: `HH:MM` */
  time?: string;
  speaker?: string;
  /** 0..1: the entry's own, else its note's, else its layer's default (importanceOf) */
  importance: number;
  /** Archived or superseded (isRetired) */
  retired: boolean;
  /** An entry of a day (isDayEntry) */
  dayEntry: boolean;
  /** A block (`^id`) section: never a template's text */
  block: boolean;
  /** Of a section that is no block: its lines as a template's are counted (TemplateSections.mostLines) */
  lines?: number;
  /** The frontmatter times an undated section's memory time is read from, in order (memoryTime) */
  since?: string[];
  /** An undated episode note that is a rollup: the period it speaks for */
  period?: Period;
}

const DEFAULT_IMPORTANCE: Record<Layer, number> = {
  persona: 0.8,
  profile: 0.7,
  insights: 0.6,
  episodes: 0.4,
  archive: 0.1,
  other: 0.3,
};

/** The frontmatter keys an undated memory's time is read from, the first that reads as a time winning. */
const TIME_KEYS = ['updated', 'created', 'date'];

/** An episode entry's own `[importance:: x]` (remember --importance) wins over its note's. */
export function importanceOf(note: Note, section?: Section): number {
  if (section?.importance !== undefined) return section.importance;
  const value = Number(note.frontmatter['importance']);
  return Number.isFinite(value) &&
    note.frontmatter['importance'] !== null &&
    note.frontmatter['importance'] !== ''
    ? Math.min(1, Math.max(0, value))
    : DEFAULT_IMPORTANCE[note.layer];
}

/** Notes that recall leaves out unless asked for everything. */
export function isRetired(note: Note): boolean {
  const status = String(note.frontmatter['status'] ?? 'active').toLowerCase();
  return note.layer === 'archive' || status === 'superseded' || status === 'archived';
}

/**
 * An entry of a day: one of mem's (a dated block with its `^id`), or a section of the person's
 * own daily note (their headings, paragraphs, lists and tasks, whatever their daily format): a
 * journal written by hand is memory by date as much as what mem wrote into it.
 */
export const isDayEntry = (note: Note, section: Section): boolean =>
  (section.kind === 'block' && section.date !== undefined) || isJournalSection(note, section);

/** The frontmatter times of a note, in the order memoryTime tries them (non-empty strings only). */
export function timeSources(note: Note): string[] {
  const sources: string[] = [];
  for (const key of TIME_KEYS) {
    const value = note.frontmatter[key];
    if (typeof value === 'string' && value !== '') sources.push(value);
  }
  return sources;
}

/** The period an undated rollup note speaks for (frontmatter `type: rollup`, `period`). */
export function rollupOf(note: Note): Period | undefined {
  return note.frontmatter['type'] === 'rollup' ? rollupPeriod(note.frontmatter['period']) : undefined;
}

/**
 * What a note gives every section's facts (its state, importance, times, rollup period and type),
 * as one string: two versions of a note with the same key give each unchanged section the same facts.
 */
export function noteFactsKey(note: Note): string {
  const rollup = note.frontmatter['type'] === 'rollup';
  // Its layer is compared on its own (sameNoteFields).
  return JSON.stringify([
    isRetired(note),
    importanceOf(note),
    timeSources(note),
    rollup,
    rollupOf(note) ?? null,
  ]);
}

export function sectionFacts(note: Note, section: Section): SectionFacts {
  const facts: SectionFacts = {
    layer: note.layer,
    importance: importanceOf(note, section),
    retired: isRetired(note),
    dayEntry: isDayEntry(note, section),
    block: section.kind === 'block',
  };
  if (section.kind !== 'block') facts.lines = lines(section.text).length;
  if (section.date !== undefined) facts.date = section.date;
  if (section.time !== undefined) facts.time = section.time;
  if (section.speaker !== undefined) facts.speaker = section.speaker;
  if (section.date === undefined) {
    const since = timeSources(note);
    if (since.length > 0) facts.since = since;
    const period = note.layer === 'episodes' ? rollupOf(note) : undefined;
    if (period) facts.period = period;
  }
  return facts;
}

/**
 * The facts of a section as the text index stores them (one string, so two versions of a
 * document compare with `===`): all but the layer and date, which it stores on their own.
 */
export function storedFacts(note: Note, section: Section): string {
  const f = sectionFacts(note, section);
  const flags = (f.retired ? 1 : 0) | (f.dayEntry ? 2 : 0) | (f.block ? 4 : 0);
  return JSON.stringify([
    flags,
    f.importance,
    f.time ?? null,
    f.speaker ?? null,
    f.since ?? null,
    f.period ?? null,
    f.lines ?? null,
  ]);
}

/** A section's facts from its stored layer, date and facts string (storedFacts). */
export function readStoredFacts(layer: Layer, date: string | undefined, stored: string): SectionFacts {
  const [flags, importance, time, speaker, since, period, lineCount] = JSON.parse(stored) as [
    number,
    number,
    string | null,
    string | null,
    string[] | null,
    Period | null,
    number | null,
  ];
  const facts: SectionFacts = {
    layer,
    importance,
    retired: (flags & 1) !== 0,
    dayEntry: (flags & 2) !== 0,
    block: (flags & 4) !== 0,
  };
  if (date !== undefined) facts.date = date;
  if (time !== null) facts.time = time;
  if (speaker !== null) facts.speaker = speaker;
  if (since !== null) facts.since = since;
  if (period !== null) facts.period = period;
  if (lineCount !== null) facts.lines = lineCount;
  return facts;
}
