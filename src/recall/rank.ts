import type { MemConfig } from '../core/config.js';
import type { Layer, Note, Section } from '../core/types.js';
import { parseInstant } from '../time/parse-instant.js';

/** Each part of a recall score, every one in 0..1, so `--explain` can show why a hit ranks where it does. */
export interface ScoreParts {
  /** BPE-free lexical relevance: the BM25 score divided by the best hit's */
  text: number;
  /** Strength of the link from a strong text hit (0 when reached by text alone) */
  graph: number;
  /** Exponential decay of the memory's age at `now` (0.5 when it has no date) */
  recency: number;
  /** The entry's inline `[importance:: x]`, else frontmatter `importance`, else a default by layer */
  importance: number;
  /** Prior for the note's layer from the config */
  layer: number;
  /**
   * Only with embeddings on: cosine similarity of the section to the query, divided by the best
   * section's (negative similarity counts as 0)
   */
  semantic?: number;
}

const DEFAULT_IMPORTANCE: Record<Layer, number> = {
  persona: 0.8,
  profile: 0.7,
  insights: 0.6,
  episodes: 0.4,
  archive: 0.1,
  other: 0.3,
};

const DAY_MS = 86_400_000;

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

/** `zone|text` → epoch ms: an entry's day and time, or a frontmatter time without an offset */
const wallClockMemo = new Map<string, number>();
const MEMO_LIMIT = 50_000;
/** A time of day followed by `Z` or an offset (a bare date's `-30` is no offset) */
const HAS_OFFSET = /\d:\d{2}(?::\d{2}(?:[.,]\d+)?)?\s*(?:Z|[+-]\d{2}(?::?\d{2})?)$/i;

/** A time written without an offset, read in `timeZone` (memoized: recall asks for it per candidate). */
function wallClockTime(text: string, timeZone: string): number | undefined {
  const key = `${timeZone}|${text}`;
  const known = wallClockMemo.get(key);
  if (known !== undefined) return Number.isNaN(known) ? undefined : known;
  const time = parseInstant(text, timeZone)?.getTime() ?? Number.NaN;
  if (wallClockMemo.size >= MEMO_LIMIT) wallClockMemo.clear();
  wallClockMemo.set(key, time);
  return Number.isNaN(time) ? undefined : time;
}

/** `zone|YYYY-MM-DD` → the zone's offset from UTC in ms all that day, NaN when it changes within it */
const dayOffsetMemo = new Map<string, number>();
const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;
const CLOCK = /^(\d{2}):(\d{2})$/;
const HOUR_MS = 3_600_000;

/** The offset of `timeZone` on `date` if it is the same at its start, noon and end. */
function dayOffset(date: string, timeZone: string, midnightUtc: number): number {
  const key = `${timeZone}|${date}`;
  const known = dayOffsetMemo.get(key);
  if (known !== undefined) return known;
  const offsets = ['00:00', '12:00', '23:59'].map((clock, i) => {
    const instant = parseInstant(`${date}T${clock}`, timeZone)?.getTime();
    const wall = midnightUtc + [0, 12 * HOUR_MS, 23 * HOUR_MS + 59 * 60_000][i]!;
    return instant === undefined ? Number.NaN : wall - instant;
  });
  const offset = offsets.every((o) => o === offsets[0]) ? (offsets[0] as number) : Number.NaN;
  if (dayOffsetMemo.size >= MEMO_LIMIT) dayOffsetMemo.clear();
  dayOffsetMemo.set(key, offset);
  return offset;
}

/**
 * An entry's day and `HH:MM` read in `timeZone`, as `parseInstant` reads them: on a day whose offset
 * does not change (every day but a zone's few transition days) it is the wall clock less that
 * offset, one memo per day instead of a time-zone calculation per entry and minute.
 */
function entryTime(date: string, time: string, timeZone: string): number | undefined {
  const day = DAY.exec(date);
  const clock = CLOCK.exec(time);
  if (day && clock) {
    const hour = Number(clock[1]);
    const minute = Number(clock[2]);
    const midnight = Date.UTC(Number(day[1]), Number(day[2]) - 1, Number(day[3]));
    if (hour < 24 && minute < 60) {
      const offset = dayOffset(date, timeZone, midnight);
      if (!Number.isNaN(offset)) return midnight + hour * HOUR_MS + minute * 60_000 - offset;
    }
  }
  return wallClockTime(`${date}T${time}`, timeZone);
}

/**
 * When a memory happened (episode entries) or was last known true (other notes), as epoch ms. An
 * entry's `HH:MM` is a clock reading in the vault's zone, and so is a frontmatter time without an
 * offset (`updated: 2026-11-30 09:00`); one with an offset is that instant.
 */
export function memoryTime(note: Note, section: Section, timeZone: string): number | undefined {
  if (section.date) return entryTime(section.date, section.time ?? '12:00', timeZone);
  for (const key of ['updated', 'created', 'date']) {
    const value = note.frontmatter[key];
    if (typeof value === 'string' && value !== '') {
      const time = HAS_OFFSET.test(value.trim()) ? Date.parse(value) : wallClockTime(value, timeZone);
      if (time !== undefined && Number.isFinite(time)) return time;
    }
  }
  return undefined;
}

export function recencyOf(time: number | undefined, now: Date, halfLifeDays: number): number {
  if (time === undefined) return 0.5;
  const ageDays = Math.max(0, (now.getTime() - time) / DAY_MS);
  return 0.5 ** (ageDays / halfLifeDays);
}

/**
 * Relevance (text and graph) decides whether a memory belongs at all; recency, importance and
 * layer only scale it, so a recent but unrelated note can never outrank a real match.
 */
export function combineScore(
  parts: ScoreParts,
  weights: MemConfig['recall']['weights'],
  semanticWeight = 0,
): number {
  const relevance =
    weights.text * parts.text + weights.graph * parts.graph + semanticWeight * (parts.semantic ?? 0);
  const prior =
    1 + weights.recency * parts.recency + weights.importance * parts.importance + weights.layer * parts.layer;
  return relevance * prior;
}

/** Notes that recall leaves out unless asked for everything. */
export function isRetired(note: Note): boolean {
  const status = String(note.frontmatter['status'] ?? 'active').toLowerCase();
  return note.layer === 'archive' || status === 'superseded' || status === 'archived';
}
