// A day note with entries being added, in time linear in the note's length: the note is read once
// (its lines and block ids), each entry is checked and numbered against that reading and against
// the entries added before it, and all of them are placed in one splice. Checking each entry
// against the whole text (a search per entry for its line, its id and the next free id, and a new
// copy of the note per placed entry) made one conversation of 20,000 messages cost minutes.
import { textAfter } from '../vault/grown-text.js';
import { addLinesUnderHeading } from '../vault/markdown/add-under-heading.js';
import { ownString } from '../vault/markdown/own-string.js';
import {
  appendedPart,
  appendLine,
  blockIdNumber,
  countedIds,
  countIds,
  formatBlockId,
  freshAfter,
  freshBlockIds,
  type IdCount,
} from './episode-entry.js';

/** The lines of `text`, a CRLF note's read as LF. */
export function lineSet(text: string): Set<string> {
  return new Set(text.split(/\r?\n/));
}

/**
 * Whether `held` is true of every line of `line` (an entry may continue on indented lines). Most
 * entries are one line: checked without a list of their parts (a busy day checks 200 of them).
 */
function everyLine(line: string, held: (part: string) => boolean): boolean {
  return line.includes('\n') ? line.split('\n').every(held) : held(line);
}

/** Whether `lines` holds every line of `line` as a whole line. */
export function holdsIn(lines: ReadonlySet<string>, line: string): boolean {
  return everyLine(line, (part) => lines.has(part));
}

/** Block ids ending a line (after a space or alone; `\^id` is escaped text), as `hasBlockId` finds them. */
const BLOCK_ID = /(?<=^|[ \t])\^([A-Za-z0-9-]+)[ \t]*\r?$/gm;

function blockIdsOf(text: string): string[] {
  return [...text.matchAll(BLOCK_ID)].map((m) => m[1]!);
}

/** The number of the next free id after `line`'s, given the one before it (`nextBlockId`'s rule). */
const nextAfter = (line: string, next: number) =>
  Math.max(next, blockIdNumber(freshBlockIds(countedIds(line), 0, 1)[0]!));

/**
 * `text` with `lines` placed: at the end, or at the end of the section under `heading` (made at the
 * end when missing). The same text as placing them one by one, in one pass over the note.
 */
export function placeEntries(text: string, lines: readonly string[], heading: string | undefined): string {
  if (lines.length === 0) return text;
  return heading
    ? addLinesUnderHeading(text, heading, [...lines], { own: true }).text
    : appendLine(text, lines.join('\n'));
}

/**
 * What a day note's text holds, as a draft reads it: its lines, its block ids and the ids mem
 * counts. Read on from the reading before when the note only grew (a day's appends), so a day's
 * write costs what it appends, not the day.
 */
export class DayReading {
  private constructor(
    /** The text read */
    public text: string,
    readonly lines: Set<string>,
    readonly ids: Set<string>,
    readonly counted: IdCount,
    /** Whether the text holds a CRLF line break (then an entry is written with them) */
    public crlf: boolean,
    /** Whether the text ends in a line break (a reading grows only on one that does, and stays so) */
    readonly endsInBreak: boolean,
  ) {}

  static of(text: string): DayReading {
    return new DayReading(
      text,
      lineSet(text),
      new Set(blockIdsOf(text)),
      countIds(countedIds(text)),
      text.includes('\r\n'),
      text.endsWith('\n'),
    );
  }

  /**
   * This reading moved on to `text`, the text it read with more after it; false (nothing changed)
   * when `text` is not that. Lines and ids are read line by line, so the text read must end in a
   * line break, and so must `text` (a last line without one is no line yet of the one it becomes).
   * What it reads is the part after: an append's text is never copied whole (grown-text.ts).
   */
  grow(text: string): boolean {
    const { text: read } = this;
    if (text.length <= read.length || !this.endsInBreak) return false;
    const after = textAfter(text, read);
    if (after === undefined || !after.endsWith('\n')) return false;
    // Its own copy: a slice would keep this version of the day alive in the lines kept from it.
    const tail = ownString(after);
    for (const line of tail.split(/\r?\n/)) this.lines.add(line);
    for (const id of blockIdsOf(tail)) this.ids.add(id);
    countIds(countedIds(tail), this.counted);
    // The text before ends in `\n`: a CRLF can only be whole inside the tail.
    this.crlf ||= tail.includes('\r\n');
    this.text = text;
    return true;
  }
}

/** The last reading of each day note (by absolute path) this process drafted on; a few. */
const readings = new Map<string, DayReading>();
const READINGS = 8;

/**
 * A reading of `text`, the note at `key`: the one kept for it, read on when the note only grew,
 * else read afresh. The reading is shared: what it holds changes when the note is read again.
 */
export function readingOf(key: string, text: string): DayReading {
  const kept = readings.get(key);
  if (kept && (kept.text === text || kept.grow(text))) return kept;
  const reading = DayReading.of(text);
  readings.delete(key);
  readings.set(key, reading);
  if (readings.size > READINGS) readings.delete(readings.keys().next().value!);
  return reading;
}

/** A day note as read, and the entry lines to add to it. */
export class DayDraft {
  /** Lines and ids of the lines added (the note's own are the reading's) */
  private readonly lines = new Set<string>();
  private readonly ids = new Set<string>();
  private readonly added: string[] = [];
  private readonly reading: DayReading;
  /** The number the next id gets */
  private next: number;

  constructor(
    readonly base: string,
    /** The highest id ever given out or cited in the note (block-id-floor.ts) */
    private readonly floor: number,
    /** This device's tag (device-tag.ts), which its new ids carry; none: plain `eN` */
    private readonly tag?: string,
    /** The reading of `base`, when the caller keeps one (readingOf) */
    reading?: DayReading,
  ) {
    this.reading = reading?.text === base ? reading : DayReading.of(base);
    this.next = blockIdNumber(freshAfter(this.reading.counted, floor, 1)[0]!);
  }

  /** Whether the note, with the lines added so far, holds `line` whole. */
  holds(line: string): boolean {
    const { lines } = this.reading;
    return everyLine(line, (part) => lines.has(part) || this.lines.has(part));
  }

  /** Whether `^id` ends a line of the note or of a line added so far. */
  hasBlockId(id: string): boolean {
    return this.reading.ids.has(id) || this.ids.has(id);
  }

  /**
   * The next free id: numbered one more than every one in the note, the lines added and the floor,
   * with the device's tag when it has one (`e8-k7q2`).
   */
  nextBlockId(): string {
    return formatBlockId(this.next, this.tag);
  }

  /** Adds `line` (its ids and its lines count from now on). */
  add(line: string): void {
    this.added.push(line);
    for (const part of line.split('\n')) this.lines.add(part);
    for (const id of blockIdsOf(line)) this.ids.add(id);
    this.next = nextAfter(line, this.next);
    // Numbering on stops where the note holds the next id by hand, or at the ids' bound: then the
    // next is chosen among all the ids (rare; episode-entry.ts freshBlockIds).
    if (this.hasBlockId(this.nextBlockId()) || blockIdNumber(`e${this.next}`) === 0)
      this.next = blockIdNumber(freshBlockIds([...this.reading.ids, ...this.ids], this.floor, 1)[0]!);
  }

  /** The note with every added line placed. */
  text(heading: string | undefined): string {
    return placeEntries(this.base, this.added, heading);
  }

  /**
   * What placing the added lines puts after the note's text, when they all go at its end (no
   * heading): `text(heading)` less the note, found without copying and comparing the whole day
   * ('' for no line). Undefined under a heading: take `text`.
   */
  tail(heading: string | undefined): string | undefined {
    if (heading) return undefined;
    if (this.added.length === 0) return '';
    const { crlf, endsInBreak } = this.reading;
    return appendedPart(this.base, this.added.join('\n'), { crlf, endsInBreak });
  }
}
