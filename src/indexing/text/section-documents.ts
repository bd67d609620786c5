// What the text index indexes of a note: one document per section, its fields and their boosts,
// and the query options (prefix and fuzzy matching) it searches them with.
import type { Layer, Note, Section } from '../../core/types.js';
import { MONTH_NAMES } from '../../time/number-words.js';
import { noteFactsKey, storedFacts } from '../../vault/section-facts.js';
import { QUERY_LIMITS } from './query-limits.js';
import type { TopKOptions, TopKResult } from './top-k-search.js';

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
  /**
   * What recall ranks the section by besides its words (vault/section-facts.ts storedFacts); `''`
   * for the stand-in document of a note without sections, which is no section recall may return
   */
  facts: string;
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
  /**
   * The words of the entries just before an episode entry on its day (CONTEXT_ENTRIES): a reply
   * ("Yes, every Sunday since June!") is found by the topic it answers, named a turn earlier
   */
  context: string;
}

export const FIELDS = ['title', 'aliases', 'tags', 'headings', 'speaker', 'when', 'text', 'context'];
export const STORED = ['path', 'anchor', 'layer', 'date', 'facts'];
// A query word in the title or an alias says more about a note than one in its body.
// The entries before an entry say what it is about, not what it says: a third of its own words.
export const BOOST = {
  title: 3,
  aliases: 3,
  tags: 2,
  headings: 1.5,
  speaker: 1,
  when: 1,
  text: 1,
  context: 1 / 3,
};
/** How many entries before an episode entry, on its day, lend it their words. */
const CONTEXT_ENTRIES = 2;
/**
 * The most of an entry's text (its end, UTF-16 units) that an entry after it takes as context: a
 * reply answers the end of the turn before it, and a pasted page is not indexed three times.
 */
const CONTEXT_CHARS = 600;
/** A spaced-script word character (not Chinese or Japanese, whose bigrams any cut leaves intact). */
const WORD_CHARACTER = /(?![\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}])[\p{L}\p{M}\p{N}'’]/u;
/** The rest of a word CONTEXT_CHARS cut at the start of a tail: dropped, not indexed as another word. */
const CUT_WORD = new RegExp(`^(?:${WORD_CHARACTER.source})+`, 'u');
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

/** SEARCH_OPTIONS as the top-k search takes them; BM25's parameters are MiniSearch's defaults. */
export const TOP_K_OPTIONS: TopKOptions = {
  fieldBoosts: FIELDS.map((field) =>
    Object.hasOwn(BOOST, field) ? BOOST[field as keyof typeof BOOST] || 1 : 1,
  ),
  weights: SEARCH_OPTIONS.weights,
  bm25: { k: 1.2, b: 0.7, d: 0.5 },
  maxFuzzy: 6,
  // A section's own words: every field but the entries before it (TextHit.onlyContext).
  ownFields: FIELDS.reduce((mask, field, f) => (field === 'context' ? mask : mask | (1 << f)), 0),
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
    before.speaker === after.speaker &&
    // What its stored facts read of the section (storedFacts); the importance field is not in its text.
    before.kind === after.kind &&
    before.time === after.time &&
    before.importance === after.importance
  );
}

/** Whether every field a note gives all its sections' documents is alike in both versions. */
export function sameNoteFields(before: Note, after: Note): boolean {
  return (
    before.path === after.path &&
    before.layer === after.layer &&
    before.title === after.title &&
    sameList(before.aliases, after.aliases) &&
    sameList(before.tags, after.tags) &&
    noteFactsKey(before) === noteFactsKey(after)
  );
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((item, i) => item === b[i]);
}

/**
 * Each episode entry's context (see SectionDocument.context), by section id: the text of the
 * CONTEXT_ENTRIES entries before it in its note with the same day. A section's document depends on
 * these, so an incremental replace compares them too.
 */
export function entryContexts(note: Note, from = 0): Map<string, string> {
  const contexts = new Map<string, string>();
  if (note.layer !== 'episodes') return contexts;
  const { sections } = note;
  // From a later section (an append's): the entries before it that lend it their words.
  const before: Section[] = [];
  for (let k = from - 1; k >= 0 && before.length < CONTEXT_ENTRIES; k--)
    if (sections[k]?.kind === 'block') before.unshift(sections[k] as Section);
  for (let k = from; k < sections.length; k++) {
    const section = sections[k] as Section;
    if (section.kind !== 'block') continue;
    const sameDay = before.filter((entry) => entry.date === section.date).slice(-CONTEXT_ENTRIES);
    contexts.set(section.id, sameDay.map((entry) => contextOf(entry.text)).join('\n'));
    before.push(section);
    if (before.length > CONTEXT_ENTRIES) before.shift();
  }
  return contexts;
}

/** The last CONTEXT_CHARS of an entry's text, from a word's start (a surrogate pair kept whole). */
function contextOf(text: string): string {
  if (text.length <= CONTEXT_CHARS) return text;
  const tail = text.slice(text.length - CONTEXT_CHARS);
  return WORD_CHARACTER.test(text.charAt(text.length - CONTEXT_CHARS - 1))
    ? tail.replace(CUT_WORD, '')
    : tail.replace(/^[\uDC00-\uDFFF]/, '');
}

/**
 * The documents of a note's sections; with `only`, of those sections alone (their context still
 * read from the whole note); with `from`, of the sections from that position on.
 */
export function sectionDocuments(note: Note, only?: ReadonlySet<string>, from = 0): SectionDocument[] {
  const common = {
    path: note.path,
    layer: note.layer,
    title: note.title,
    aliases: note.aliases.join('\n'),
    tags: note.tags.join(' '),
  };
  // A note with no sections (only frontmatter) is still found by its title, aliases and tags.
  const stand = note.sections.length === 0;
  const sections: Section[] = !stand
    ? note.sections
    : [{ id: `${note.path}#`, anchor: '', kind: 'preamble', text: '', start: 0, end: 0, line: 1 }];
  const contexts = entryContexts(note, from);
  const byId = new Map<string, SectionDocument>();
  for (let k = from; k < sections.length; k++) {
    const section = sections[k] as Section;
    if (only && !only.has(section.id)) continue;
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
      facts: stand ? '' : storedFacts(note, section),
      headings: section.heading === undefined ? note.title : `${section.heading}\n${note.title}`,
      speaker: section.speaker ?? '',
      when: section.date ? dateWords(section.date) : '',
      text: section.text,
      context: contexts.get(section.id) ?? '',
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

/** A section's id and the fields the index stores for it (`STORED`). */
export function storedSource(id: string, stored: Record<string, unknown>): TextHitSource {
  const source: TextHitSource = {
    id,
    path: stored['path'] as string,
    anchor: stored['anchor'] as string,
    layer: stored['layer'] as Layer,
    facts: typeof stored['facts'] === 'string' ? stored['facts'] : '',
  };
  if (typeof stored['date'] === 'string') source.date = stored['date'];
  return source;
}

export interface TextHit extends TextHitSource {
  /** BM25 score (as MiniSearch computes it), field boosts included */
  score: number;
  /** Indexed terms that matched (after stemming; a prefix or fuzzy match shows the longer term) */
  terms: string[];
  /** Query terms that matched */
  queryTerms: string[];
  /** Matched in the entries before it alone (its context field), in none of its own words */
  onlyContext: boolean;
}

/**
 * A hit: its source with the score and matched terms added to it. Spread into a new object
 * instead, each hit was a dictionary of about a kilobyte, a fifth of what a recall allocated.
 */
export function textHit(source: TextHitSource, { score, terms, queryTerms, own }: TopKResult): TextHit {
  const hit = source as TextHit;
  hit.score = score;
  hit.terms = terms;
  hit.queryTerms = queryTerms;
  hit.onlyContext = !own;
  return hit;
}
