// What a person wrote in their own daily note, read as a day's entries: a journal section (a
// heading with paragraphs, a bullet list, tasks, a log of timed items) is split into its items,
// each with the time written at its start when it has one (`- 09:30 went running`, `09:30 …`).
// Nothing is attributed: a person's item has no speaker, and its text is the text as written.
import type { Note, Section } from '../../core/types.js';

/** One item of a person's journal section. */
export interface JournalItem {
  /** `HH:MM`, when the item starts with a time */
  time?: string;
  /** The item as written, without its list marker and its leading time */
  text: string;
}

/** A top-level list item's marker (`-`, `*`, `+`, `1.`, `1)`), at the start of a line. */
const ITEM = /^(?:[-*+]|\d{1,9}[.)])(?:[ \t]+|$)/;
/** A task's box after the marker: kept in the text, as it says whether the task was done. */
const TASK_BOX = /^\[.\](?:[ \t]+|$)/;
const TIME = /^(\d{1,2})[:h]([0-5]\d)(?=\s|$)[ \t]*/;

/**
 * A person's section of a day, not one of mem's entries: in a daily note (an episode note that is
 * no rollup), dated, not an entry block with an id (mem's `- HH:MM **Speaker:** text ^eN`), and
 * holding at least one item.
 */
export function isJournalSection(note: Note, section: Section): boolean {
  return (
    note.layer === 'episodes' &&
    section.kind !== 'block' &&
    section.date !== undefined &&
    note.frontmatter['type'] !== 'rollup' &&
    // Headings over nothing but empty tasks (a template's `- [ ] `) hold no item of the day.
    hasItem(section.text)
  );
}

/**
 * Whether `text` has an item: a line with words besides a list marker and a task box (the first
 * such line is met early, and no item is built).
 */
export function hasItem(text: string): boolean {
  for (const line of text.split(/\r?\n/)) {
    const marker = ITEM.exec(line)?.[0] ?? '';
    const rest = line.slice(marker.length);
    if (rest.slice(TASK_BOX.exec(rest)?.[0].length ?? 0).trim() !== '') return true;
  }
  return false;
}

/** Reads `09:30 ` (or `9h30`) at the start of `text`. */
function readTime(text: string): { time?: string; rest: string } {
  const match = TIME.exec(text);
  if (!match || Number(match[1]) >= 24) return { rest: text };
  return { time: `${match[1]!.padStart(2, '0')}:${match[2]}`, rest: text.slice(match[0].length) };
}

/** `line` without up to `width` spaces (or one tab) of indent. */
function dedent(line: string, width: number): string {
  if (width === 0) return line;
  if (line.startsWith('\t')) return line.slice(1);
  let cut = 0;
  while (cut < width && line[cut] === ' ') cut++;
  return line.slice(cut);
}

function itemOf(lines: string[], marker: string): JournalItem | undefined {
  const first = (lines[0] ?? '').slice(marker.length);
  const box = TASK_BOX.exec(first)?.[0] ?? '';
  // A time after the task box (`- [ ] 09:30 call the bank`) is the item's time too; the box stays.
  const { time, rest } = readTime(first.slice(box.length));
  // Nested lines are indented to the item's text: read without that indent, as mem's entries are.
  const nested = lines.slice(1).map((line) => dedent(line, marker.length));
  const text = [`${box}${rest}`, ...nested].join('\n').trim();
  if (text === '' || text === box.trim()) return undefined;
  return { ...(time ? { time } : {}), text };
}

/**
 * The items of a person's section text: each top-level list item (with its nested lines) and each
 * paragraph, in the order written. An empty task (`- [ ] `, a template's leftover) is no item.
 */
export function journalItems(text: string): JournalItem[] {
  const items: JournalItem[] = [];
  let lines: string[] = [];
  let marker = '';
  const flush = () => {
    const item = lines.length > 0 ? itemOf(lines, marker) : undefined;
    if (item) items.push(item);
    lines = [];
    marker = '';
  };
  for (const line of text.replace(/\r/g, '').split('\n')) {
    const start = ITEM.exec(line)?.[0];
    if (start !== undefined) {
      flush();
      marker = start;
      lines.push(line);
    } else if (line.trim() === '') {
      // A blank line ends a paragraph; a list item's nested lines may follow one, indented.
      if (marker === '') flush();
      else lines.push(line);
    } else if (marker !== '' && !/^[ \t]/.test(line) && lines.at(-1)?.trim() === '') {
      // Text back at the margin after a blank line: a paragraph after the list.
      flush();
      lines.push(line);
    } else lines.push(line);
  }
  flush();
  return items;
}
