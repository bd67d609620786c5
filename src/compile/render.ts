import type { Note, Section } from '../core/types.js';

/** Section titles of the compiled document, in order. */
export const SECTION_TITLES = {
  persona: 'Persona',
  user: 'About the user',
  relevant: 'Relevant memories',
  recent: 'Recent',
} as const;

export type CompileSectionName = keyof typeof SECTION_TITLES;

export function sectionHeading(name: CompileSectionName): string {
  return `## ${SECTION_TITLES[name]}\n`;
}

/**
 * A whole note (persona, core profile): its sections without frontmatter. Section text never holds
 * `%%comments%%`: parseNote leaves them out (vault/comments.ts).
 */
export function noteBody(note: Note): string {
  const topHeadings = new Set(note.headings.filter((h) => h.level === 1).map((h) => h.text));
  return note.sections
    .map((s) => {
      const text = s.text.trim();
      const heading = s.heading ?? s.anchor;
      // The item's own title already names the note: its top heading would say it twice.
      if (text === '' || s.kind !== 'heading' || heading === note.title || topHeadings.has(heading))
        return text;
      return `#### ${heading}\n${text}`;
    })
    .filter((text) => text !== '')
    .join('\n\n')
    .replace(/\n{3,}/g, '\n\n');
}

export function renderNoteItem(title: string, cite: string, body: string): string {
  return `### ${title} ${cite}\n${body}\n`;
}

/**
 * The line that heads a note's episode entries in the document, once: its link, and its day when
 * the link does not already say it (`[[2023-05-08]]`, `[[episodes/chat-2023#^x]]` → with the day).
 */
export function entryGroupHeading(noteLink: string, date: string | undefined): string {
  const day = date && !noteLink.startsWith(`[[${date}`) ? ` (${date})` : '';
  return `${noteLink}${day}\n`;
}

/**
 * One episode entry under its note's heading line: `- ^d3-7 Speaker: text`. The block id with the
 * link above it cites the entry (`[[2023-05-08#^d3-7]]`) for about a third of the tokens of a full
 * citation with time and speaker on every item.
 */
export function renderEntryItem(section: Section, text: string): string {
  const flat = text.replace(/\s*\n\s*/g, ' ').trim();
  const who = section.speaker ? `${section.speaker}: ` : '';
  return `- ${section.anchor} ${who}${flat}\n`;
}

/**
 * One memory as a list item: citation, when and who (episodes), then the text on one line. A
 * daily note's citation already names the day, so only the time is repeated.
 */
export function renderMemoryItem(cite: string, section: Section, text: string): string {
  const day = section.date && !cite.startsWith(`[[${section.date}#`) ? section.date : undefined;
  const when = [day, section.time].filter(Boolean).join(' ');
  const meta = [when, section.speaker].filter(Boolean).join(', ');
  const flat = text.replace(/\s*\n\s*/g, ' ').trim();
  return `- ${cite}${meta ? ` (${meta})` : ''} ${flat}\n`;
}
