// What the text index indexes of a note: one document per section, its fields and their boosts,
// and the query options (prefix and fuzzy matching) it searches them with.
import type { Layer, Note, Section } from '../../core/types.js';
import { MONTH_NAMES } from '../../time/number-words.js';
import { QUERY_LIMITS } from './query-limits.js';

/** Where a hit points; what a search filter sees. */
export interface TextHitSource {
  /** Section id, `path#anchor` */
  id: string;
  path: string;
  /** Section anchor: `''` (preamble), heading text, or `^blockid` */
  anchor: string;
  layer: Layer;
  /** Episode date `YYYY-MM-DD` of the section, when it has one */
  date?: string;
}

export interface SectionDocument extends TextHitSource {
  title: string;
  aliases: string;
  tags: string;
  headings: string;
  /** Who said it (episode entries): most questions about a conversation name a person */
  speaker: string;
  /** An entry's day as words (`2023-05-08 8 May 2023`), so "in May 2023" can find it */
  when: string;
  text: string;
}

export const FIELDS = ['title', 'aliases', 'tags', 'headings', 'speaker', 'when', 'text'];
export const STORED = ['path', 'anchor', 'layer', 'date'];
// A query word in the title or an alias says more about a note than one in its body.
export const BOOST = { title: 3, aliases: 3, tags: 2, headings: 1.5, speaker: 1, when: 1, text: 1 };
const LATIN = /^[\p{L}\p{M}\p{N}]+$/u;
const CJK = /[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}]/u;

/** A word of a spaced script (Latin, Cyrillic, Hangul …), not a CJK bigram or segment. */
function isLatinTerm(term: string, minLength: number): boolean {
  return term.length >= minLength && LATIN.test(term) && !CJK.test(term);
}

export const SEARCH_OPTIONS = {
  boost: BOOST,
  combineWith: 'OR' as const,
  // Prefix: `obsid` finds `obsidian`; short stems would match too much. CJK bigrams stay exact.
  prefix: (term: string) => isLatinTerm(term, 4) && term.length <= QUERY_LIMITS.maxPrefixLength,
  // One typo in a long word (`obsidain` is two edits, `obsidan` one). Short words have too
  // many neighbours at distance 1 (`cat`, `car`, `hat`) to guess which one was meant.
  fuzzy: (term: string) => (isLatinTerm(term, 6) && term.length <= QUERY_LIMITS.maxFuzzyLength ? 1 : false),
  weights: { prefix: 0.3, fuzzy: 0.2 },
};

export function documentsById(note: Note): Map<string, SectionDocument> {
  return new Map(sectionDocuments(note).map((document) => [document.id, document]));
}

/** Whether two documents of a section index the same (every field alike). */
export function sameDocument(a: SectionDocument | undefined, b: SectionDocument): boolean {
  if (a === undefined) return false;
  const keys = Object.keys(b) as Array<keyof SectionDocument>;
  return keys.length === Object.keys(a).length && keys.every((key) => a[key] === b[key]);
}

/**
 * Whether a section indexes as `before` did in a note whose title, aliases, tags, path and layer
 * are unchanged (see sameNoteFields): the fields its document is made of (sectionDocuments) alike.
 */
export function sameSection(before: Section | undefined, after: Section): boolean {
  return (
    before !== undefined &&
    before.id === after.id &&
    before.anchor === after.anchor &&
    before.text === after.text &&
    before.heading === after.heading &&
    before.date === after.date &&
    before.speaker === after.speaker
  );
}

/** Whether every field a note gives all its sections' documents is alike in both versions. */
export function sameNoteFields(before: Note, after: Note): boolean {
  return (
    before.path === after.path &&
    before.layer === after.layer &&
    before.title === after.title &&
    sameList(before.aliases, after.aliases) &&
    sameList(before.tags, after.tags)
  );
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((item, i) => item === b[i]);
}

export function sectionDocuments(note: Note): SectionDocument[] {
  const common = {
    path: note.path,
    layer: note.layer,
    title: note.title,
    aliases: note.aliases.join('\n'),
    tags: note.tags.join(' '),
  };
  // A note with no sections (only frontmatter) is still found by its title, aliases and tags.
  const sections: Section[] =
    note.sections.length > 0
      ? note.sections
      : [{ id: `${note.path}#`, anchor: '', kind: 'preamble', text: '', start: 0, end: 0, line: 1 }];
  const byId = new Map<string, SectionDocument>();
  for (const section of sections) {
    const seen = byId.get(section.id);
    if (seen) {
      // Section ids should be unique; if a parser ever repeats one, merge rather than let the index
      // throw "duplicate ID" and leave the note half-indexed.
      seen.text += '\n' + section.text;
      continue;
    }
    byId.set(section.id, {
      ...common,
      id: section.id,
      anchor: section.anchor,
      ...(section.date === undefined ? {} : { date: section.date }),
      headings: section.heading === undefined ? note.title : `${section.heading}\n${note.title}`,
      speaker: section.speaker ?? '',
      when: section.date ? dateWords(section.date) : '',
      text: section.text,
    });
  }
  return [...byId.values()];
}

/** `2023-05-08` → `2023-05-08 8 May 2023`: the day as written in a note and as people say it. */
export function dateWords(date: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  const month = m ? MONTH_NAMES[Number(m[2]) - 1] : undefined;
  return m && month ? `${date} ${Number(m[3])} ${month} ${m[1]}` : date;
}
