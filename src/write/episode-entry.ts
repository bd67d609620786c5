import { entryLines, escapeEntryLines, sanitizeText } from '../vault/markdown/entry-text.js';

/** How one episode entry is written: `- 09:14 **Rain:** text ^e7` (chat) or `- 21:30 (event) text ^e8`. */
export type EntryKind = 'chat' | 'event' | 'note';

export interface EntryInput {
  text: string;
  time: string;
  blockId: string;
  speaker?: string;
  kind?: EntryKind;
  tags?: string[];
  importance?: number;
}

/**
 * Longest speaker name or tag kept (characters). The entry's first line holds both, and a line
 * past the index's 20,000 characters is cut with its block id, which loses the entry.
 */
export const MAX_NAME = 200;

/** Cuts `text` to `max` characters, never inside a surrogate pair. */
function cap(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = /[\ud800-\udbff]/.test(text[max - 1]!) ? max - 1 : max;
  return text.slice(0, cut);
}

/**
 * Speaker names end up between `**` and `:**`; keep them to one plain line without `*`, `:` or
 * `%%` (which would end the name or open a comment), so the parser reads back the name written.
 */
export function cleanSpeaker(speaker: string): string {
  const name = sanitizeText(speaker)
    .replace(/[*:：\s]+/g, ' ')
    .replace(/%+/g, '%')
    .trim();
  return cap(name, MAX_NAME).trim();
}

/** A tag as the parser reads one: letters, digits, marks, `_`, `-` and `/`; the rest is dropped. */
export function cleanTag(tag: string): string {
  const cleaned = sanitizeText(tag)
    .replace(/^#/, '')
    .replace(/\s+/g, '-')
    .replace(/[^\p{L}\p{N}\p{M}_\-/]/gu, '');
  return cap(cleaned, MAX_NAME);
}

/**
 * The entry's line(s). The text goes through the one entry rule (src/vault/markdown/entry-text.ts): what
 * the parser reads back is `entryText(text)` followed by the tags, whatever the text holds.
 */
export function renderEntry(entry: EntryInput): string {
  // The speaker goes first, where the parser reads it; an event or note says so after it.
  const name = entry.speaker ? cleanSpeaker(entry.speaker) : '';
  const kind = entry.kind === 'event' || entry.kind === 'note' ? `(${entry.kind}) ` : '';
  const who = `${name ? `**${name}:** ` : ''}${kind}`;
  // Tags are part of the text (the parser reads `#tag` in it), so they are escaped with it.
  const tags = (entry.tags ?? [])
    .map(cleanTag)
    .filter((t) => t !== '')
    .map((t) => `#${t}`)
    .join(' ');
  const lines = entryLines(entry.text);
  if (tags !== '') {
    if (lines.length === 0) lines.push(tags);
    else lines[lines.length - 1] = `${lines.at(-1)} ${tags}`;
  }
  // A list item continues on indented lines; a blank line would end it, so there is none.
  const first = kind ? 'inline' : name ? 'backslash' : 'structure';
  const body = escapeEntryLines(lines, first).join('\n  ');
  const importance = entry.importance === undefined ? '' : ` [importance:: ${entry.importance}]`;
  return `- ${entry.time} ${who}${body}${importance} ^${entry.blockId}`;
}

/**
 * A device tag (device-tag.ts) as mem writes one after an id's number: `e12-k7q2`. Read back, a
 * tag is two to eight base-36 characters, lower case, so ids a later version writes still count.
 */
export const DEVICE_TAG = /^[0-9a-z]{4}$/;
const TAG = '[0-9a-z]{2,8}';

/**
 * Block ids mem counts in a day: ` ^e` and up to nine digits, with or without a device's tag
 * (`^e7`, `^e7-k7q2`), at a line end (or alone on a line). Anything else (a `^e` with a hundred
 * digits in a message) is not counted: `Number()` of it gave `e1e+23`.
 */
const MEM_ID = new RegExp(String.raw`(?<=^|[ \t])\^e([1-9]\d{0,8})(?:-${TAG})?[ \t\r]*$`, 'gm');
const ID = new RegExp(String.raw`^e([1-9]\d{0,8})(?:-(${TAG}))?$`);

/** The highest `eN` mem counts: nine digits, far below Number.MAX_SAFE_INTEGER. */
export const MAX_BLOCK_ID = 999_999_999;

/**
 * The highest id a citation (or the record of ids given out, block-id-floor.ts) may move a day's
 * counter to: a day of ten million entries. One beyond it is not one mem gave out, and counting it
 * would leave too few ids before MAX_BLOCK_ID (a cited `^e999999999` made every later entry of the
 * day `e1000000000`, an id no count saw).
 */
export const MAX_CITED_ID = 10_000_000;

/**
 * The number of a block id mem counts (`e1` … `e999999999`, each also with a device's tag:
 * `e7-k7q2` is 7), else 0. One number for every device: a day's ids number on from the highest of
 * any tag, so they read in the order they were given out.
 */
export function blockIdNumber(id: string): number {
  const digits = ID.exec(id)?.[1];
  return digits === undefined ? 0 : Number(digits);
}

/** The device tag of a block id mem counts (`k7q2` of `e7-k7q2`); '' for a plain `eN` or another id. */
export function blockIdTag(id: string): string {
  return ID.exec(id)?.[2] ?? '';
}

/** The block id numbered `n` on the device tagged `tag` (none: a plain `eN`). */
export function formatBlockId(n: number, tag?: string): string {
  return tag ? `e${n}-${tag}` : `e${n}`;
}

/** Ids this near MAX_BLOCK_ID leave too few to number on from: only a hand edit puts one there. */
const NEAR_BOUND = MAX_BLOCK_ID - 1_000_000;

/**
 * `count` new ids for a note whose block ids are `ids`: numbered on from the highest number of them
 * (of any device) and of `floor` (the highest given out or cited there, counted up to
 * MAX_CITED_ID), each with this device's `tag` when it has one (`e13-k7q2`). Each differs from
 * every id in `ids` and from the others, and has at most nine digits. When a note holds an id too
 * near MAX_BLOCK_ID to number on, they number on from the highest below NEAR_BOUND (the numbers
 * between it and NEAR_BOUND are free, so the id after each is too, as a day's draft counts them);
 * and when those run out as well, the free numbers above MAX_CITED_ID are used, lowest first.
 */
export function freshBlockIds(ids: Iterable<string>, floor: number, count: number, tag?: string): string[] {
  return freshAfter(countIds(ids), floor, count, tag);
}

/** What freshBlockIds needs of a note's ids: the highest number, the highest below NEAR_BOUND, those above MAX_CITED_ID. */
export interface IdCount {
  max: number;
  below: number;
  high: Set<number>;
}

/** Counts `ids` (into `count`, to add to one kept: a day's draft counts only what was appended). */
export function countIds(
  ids: Iterable<string>,
  count: IdCount = { max: 0, below: 0, high: new Set() },
): IdCount {
  for (const id of ids) {
    const n = blockIdNumber(id);
    if (n > count.max) count.max = n;
    if (n > count.below && n <= NEAR_BOUND) count.below = n;
    if (n > MAX_CITED_ID) count.high.add(n);
  }
  return count;
}

/** freshBlockIds from the ids' count. */
export function freshAfter(counted: IdCount, floor: number, count: number, tag?: string): string[] {
  const start = Number.isSafeInteger(floor) && floor > 0 && floor <= MAX_CITED_ID ? floor : 0;
  const max = Math.max(start, counted.max);
  const below = Math.max(start, counted.below);
  const { high } = counted;
  const fresh: string[] = [];
  const from = max + count <= MAX_BLOCK_ID ? max : below + count <= NEAR_BOUND ? below : undefined;
  if (from !== undefined) {
    for (let k = 1; k <= count; k++) fresh.push(formatBlockId(from + k, tag));
    return fresh;
  }
  for (let n = MAX_CITED_ID + 1; fresh.length < count; n++)
    if (!high.has(n)) fresh.push(formatBlockId(n, tag));
  return fresh;
}

/** The numbers of the block ids mem counts in `text` (see MEM_ID), as ids. */
export function countedIds(text: string): string[] {
  const ids: string[] = [];
  for (const match of text.matchAll(MEM_ID)) ids.push(`e${match[1]}`);
  return ids;
}

/**
 * The next free block id in a daily note: one more than the highest number used in it (by any
 * device), and than `floor`, the highest ever given out or cited there (see block-id-floor.ts),
 * with this device's `tag` when it has one; see freshBlockIds.
 */
export function nextBlockId(text: string, floor = 0, tag?: string): string {
  return freshBlockIds(countedIds(text), floor, 1, tag)[0]!;
}

/** Appends `line` as the last line of `text`, keeping the note's line endings. */
export function appendLine(text: string, line: string): string {
  return `${text}${appendedPart(text, line)}`;
}

/**
 * What appendLine puts after `text`: a line break the text lacks, then `line` in its line endings.
 * `known`: whether the text holds a CRLF and ends in a line break, when the caller has read that
 * (day-draft.ts), so the whole day is not searched again.
 */
export function appendedPart(
  text: string,
  line: string,
  known: { crlf: boolean; endsInBreak: boolean } = {
    crlf: text.includes('\r\n'),
    endsInBreak: text.endsWith('\n'),
  },
): string {
  const eol = known.crlf ? '\r\n' : '\n';
  const gap = text === '' || known.endsInBreak ? '' : eol;
  return `${gap}${line.replace(/\n/g, eol)}${eol}`;
}
