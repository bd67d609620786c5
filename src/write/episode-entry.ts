import { escapeComments } from '../vault/comments.js';

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

/** Speaker names end up between `**` and `:**`; keep them to one plain line. */
function cleanSpeaker(speaker: string): string {
  return escapeComments(speaker.replace(/[*\r\n:]+/g, ' ').trim());
}

export function renderEntry(entry: EntryInput): string {
  // A list item continues on indented lines; a blank line would end it, so paragraphs fold into one item.
  const body = escapeComments(
    entry.text
      .replace(/\r\n?/g, '\n')
      .trim()
      .split(/\n\s*\n*/)
      .map((line) => line.trim())
      .filter((line) => line !== '')
      .join('\n  '),
  );
  // The speaker goes first, where the parser reads it; an event or note says so after it.
  const name = entry.speaker ? cleanSpeaker(entry.speaker) : '';
  const kind = entry.kind === 'event' || entry.kind === 'note' ? `(${entry.kind}) ` : '';
  const who = `${name ? `**${name}:** ` : ''}${kind}`;
  const tags = (entry.tags ?? [])
    .map((t) => t.replace(/^#/, '').replace(/\s+/g, '-'))
    .filter(Boolean)
    .map((t) => ` #${t}`)
    .join('');
  const importance = entry.importance === undefined ? '' : ` [importance:: ${entry.importance}]`;
  return `- ${entry.time} ${who}${body}${tags}${importance} ^${entry.blockId}`;
}

/** The next free `eN` block id in a daily note (one more than the highest used). */
export function nextBlockId(text: string): string {
  let max = 0;
  for (const match of text.matchAll(/\^e(\d+)\s*$/gm)) max = Math.max(max, Number(match[1]));
  return `e${max + 1}`;
}

/** Appends `line` as the last line of `text`, keeping the note's line endings. */
export function appendLine(text: string, line: string): string {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const base = text === '' || text.endsWith('\n') ? text : `${text}${eol}`;
  return `${base}${line.replace(/\n/g, eol)}${eol}`;
}
