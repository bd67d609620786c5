// The lines of `profile/commitments.md`, one promise or plan each, and which are due soon. The
// format is read here (compile shows the due ones) and written by reflect, which sits above.

import type { Note } from '../core/types.js';
import type { VaultIndex } from '../indexing/vault-index.js';
import { addDays } from '../time/calendar-day.js';
import { commitmentsPath } from '../vault/layout.js';
import { isRetired } from '../vault/section-facts.js';

/** Where commitments live: a profile note, so a person reads and edits them like any other. */

export type CommitmentStatus = 'pending' | 'done' | 'expired';

export interface Commitment {
  status: CommitmentStatus;
  /** `YYYY-MM-DD` in the vault's time zone */
  due: string;
  /** Who promised (the entry's speaker) */
  who: string;
  /** What was promised or planned, in the entry's words */
  what: string;
  /** The entry it came from, `[[2026-11-30#^e3]]` */
  source: string;
  /** The entry that fulfilled it, when done */
  doneBy?: string;
}

const SEP = ' · ';

/**
 * `- pending · due 2026-12-04 · Rain · remind me to call Mum on Friday · [[2026-11-30#^e3]]`, and
 * for a done one ` · done [[2026-12-04#^e1]]` at the end. A line a person wrote otherwise is kept
 * and left alone.
 */
const LINE =
  /^[-*]\s+(pending|done|expired)\s+·\s+due\s+(\d{4}-\d{2}-\d{2})\s+·\s+(.*?)\s+·\s+(.*)\s+·\s+(\[\[[^\]\n]+\]\])(?:\s+·\s+done\s+(\[\[[^\]\n]+\]\]))?\s*$/;

export function parseCommitmentLine(line: string): Commitment | undefined {
  const m = LINE.exec(line.trim());
  if (!m) return undefined;
  return {
    status: m[1] as CommitmentStatus,
    due: m[2] ?? '',
    who: m[3] ?? '',
    what: m[4] ?? '',
    source: m[5] ?? '',
    ...(m[6] ? { doneBy: m[6] } : {}),
  };
}

/** One line, with the separator taken out of the free text so the line reads back the same. */
export function formatCommitmentLine(c: Commitment): string {
  const flat = (s: string) =>
    s
      .replace(/\s*·\s*/g, ', ')
      .replace(/\s+/g, ' ')
      .trim();
  const done = c.doneBy ? `${SEP}done ${c.doneBy}` : '';
  return `- ${c.status}${SEP}due ${c.due}${SEP}${flat(c.who) || 'user'}${SEP}${flat(c.what)}${SEP}${c.source}${done}`;
}

/** Two lines with the same key are one promise: the same words for the same day. */
export function commitmentKey(c: Pick<Commitment, 'due' | 'what'>): string {
  return `${c.due} ${c.what.toLowerCase().replace(/\s+/g, ' ').trim()}`;
}

/** Every commitment line of a note's text, in order. */
export function parseCommitments(text: string): Commitment[] {
  return text.split(/\r?\n/).flatMap((line) => parseCommitmentLine(line) ?? []);
}

function commitmentsNote(index: VaultIndex): Note | undefined {
  return index.notes.get(commitmentsPath(index.layout));
}

/**
 * Pending commitments due from `today` to `today + windowDays` (both inclusive), soonest first.
 * One whose day has passed is expired even before a reflect run writes so.
 */
export function dueCommitments(index: VaultIndex, today: string, windowDays: number): Commitment[] {
  const last = addDays(today, windowDays);
  // Parsed once per change of the vault, not once per turn.
  const all = index.view('compile:commitments', () => {
    const note = commitmentsNote(index);
    return !note || isRetired(note) ? [] : note.sections.flatMap((s) => parseCommitments(s.text));
  });
  return all
    .filter((c) => c.status === 'pending' && c.due >= today && c.due <= last)
    .sort((a, b) => (a.due < b.due ? -1 : a.due > b.due ? 1 : 0));
}
