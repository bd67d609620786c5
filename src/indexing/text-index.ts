import MiniSearch, { type Options, type SearchResult } from 'minisearch';
import { MemError } from '../core/errors.js';
import type { Layer, Note, Section } from '../core/types.js';
import { MONTH_NAMES } from '../time/number-words.js';
import { internalsOf } from './minisearch-internals.js';
import { boundQueryText, boundTerms, QUERY_LIMITS } from './query-limits.js';
import { memoizeTerms } from './term-memo.js';
import {
  largestFieldSize,
  packPostings,
  type TextSegment,
  type TextStoreHeader,
  type TextStoreLimits,
  TextStoreLoader,
  textStoreHeader,
  textStoreSegments,
} from './text-index-store.js';
import { CJK_CHARACTER, processTerm, tokenize } from './tokenize.js';
import { type QueryTerm, TopKSearch } from './top-k-search.js';

/** Bump when the tokenizer, the stemmer, the stop words or the fields change: old caches are then rebuilt. */
export const TEXT_INDEX_VERSION = 5;

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

export interface TextHit extends TextHitSource {
  /** BM25 score from MiniSearch, field boosts included */
  score: number;
  /** Indexed terms that matched (after stemming; a prefix or fuzzy match shows the longer term) */
  terms: string[];
  /** Query terms that matched */
  queryTerms: string[];
}

export interface TextSearchOptions {
  /** Most hits to return (default: all) */
  limit?: number;
  /**
   * Weighs each query term by its rarity (BM25's idf), on top of the idf inside BM25's score: in a
   * question the rare words (`pottery`, `adoption`) carry the meaning, the common ones
   * (`feel`, `time`) match half the vault (default: false)
   */
  rareTerms?: boolean;
  /** Keeps only the hits for which it returns true, before the limit is applied */
  filter?: (hit: TextHitSource) => boolean;
  /**
   * Scores through MiniSearch's own search, which builds a result for every match: the reference
   * that the top-k search is tested against (default: false)
   */
  exhaustive?: boolean;
}

interface SectionDocument extends TextHitSource {
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

const FIELDS = ['title', 'aliases', 'tags', 'headings', 'speaker', 'when', 'text'];
const STORED = ['path', 'anchor', 'layer', 'date'];
// A query word in the title or an alias says more about a note than one in its body.
const BOOST = { title: 3, aliases: 3, tags: 2, headings: 1.5, speaker: 1, when: 1, text: 1 };
const LATIN = /^[\p{L}\p{M}\p{N}]+$/u;
const CJK = /[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}]/u;

/** A word of a spaced script (Latin, Cyrillic, Hangul …), not a CJK bigram or segment. */
function isLatinTerm(term: string, minLength: number): boolean {
  return term.length >= minLength && LATIN.test(term) && !CJK.test(term);
}

const SEARCH_OPTIONS = {
  boost: BOOST,
  combineWith: 'OR' as const,
  // Prefix: `obsid` finds `obsidian`; short stems would match too much. CJK bigrams stay exact.
  prefix: (term: string) => isLatinTerm(term, 4) && term.length <= QUERY_LIMITS.maxPrefixLength,
  // One typo in a long word (`obsidain` is two edits, `obsidan` one). Short words have too
  // many neighbours at distance 1 (`cat`, `car`, `hat`) to guess which one was meant.
  fuzzy: (term: string) => (isLatinTerm(term, 6) && term.length <= QUERY_LIMITS.maxFuzzyLength ? 1 : false),
  weights: { prefix: 0.3, fuzzy: 0.2 },
};

const OPTIONS: Options<SectionDocument> = {
  fields: FIELDS,
  storeFields: STORED,
  tokenize: (text) => tokenize(text),
  processTerm: (term) => processTerm(term),
  searchOptions: SEARCH_OPTIONS,
};

/** Sections added between two packings of the postings */
const PACK_EVERY = 4096;

// The query is tokenized and processed once in search(); MiniSearch then only splits the result.
const PROCESSED_QUERY = { tokenize: (text: string) => text.split(' '), processTerm: (term: string) => term };

/** Full-text index over note sections (one MiniSearch document per section), CJK-aware. */
export class TextIndex {
  private miniSearch = new MiniSearch<SectionDocument>(OPTIONS);
  /** Note path → its section ids, so remove() can discard them all */
  private idsByPath = new Map<string, string[]>();
  /** Sections added since the postings were last packed */
  private unpacked = 0;
  /** Searches for the best few hits, keeping typed copies of common postings between searches */
  private topK: TopKSearch | undefined;

  /** Number of indexed sections. */
  get size(): number {
    return this.miniSearch.documentCount;
  }

  has(path: string): boolean {
    return this.idsByPath.has(path);
  }

  /** Indexes every section of the note; a path already indexed is replaced. */
  add(note: Note): void {
    if (this.idsByPath.has(note.path)) this.remove(note.path);
    this.addDocuments(note.path, sectionDocuments(note), new Set());
  }

  /**
   * Makes `documents` (every section of the note at `path`, in order) what the index holds for
   * it, adding those not in `kept` (already indexed as they are). When an add fails, nothing of
   * the note is left indexed.
   */
  private addDocuments(path: string, documents: SectionDocument[], kept: ReadonlySet<string>): void {
    const fresh = documents.filter((document) => !kept.has(document.id));
    // A section left from an add that failed half-way (or a cache saved then) is replaced, never
    // met with MiniSearch's "duplicate ID", which made every later write to the note fail.
    for (const document of fresh) if (this.miniSearch.has(document.id)) this.discard([document.id]);
    const added: string[] = [];
    memoizeTerms(this.miniSearch);
    this.topK?.changed();
    try {
      for (const document of fresh) this.addDocument(document, added);
    } catch (error) {
      this.discard([...added, ...kept]);
      this.idsByPath.delete(path);
      throw error;
    }
    this.idsByPath.set(
      path,
      documents.map((document) => document.id),
    );
    // Long posting lists are packed into typed arrays now and then (see PackedPostings): as Maps,
    // a cold index held twice the memory of everything else together.
    this.unpacked += added.length;
    if (this.unpacked >= PACK_EVERY) this.packPostings();
  }

  /** Packs the long posting lists now, as add() does every PACK_EVERY sections (see PackedPostings). */
  packPostings(): void {
    this.unpacked = 0;
    packPostings(this.miniSearch);
    // The lists are new objects (the same postings): the search's typed copies are made afresh.
    this.topK?.changed();
  }

  /** Drops every section of the note at `path`; an unknown path is ignored. */
  remove(path: string): void {
    const ids = this.idsByPath.get(path);
    if (!ids) return;
    // discard is O(1); MiniSearch cleans the inverted index lazily and auto-vacuums.
    this.discard(ids);
    this.topK?.changed();
    this.idsByPath.delete(path);
  }

  /**
   * Adds one section's document and pushes its id to `added`, or throws with `added` naming every
   * document of it the index holds: MiniSearch takes a document's id before it reads its fields,
   * so one that failed on the way was left in the index, found by searches, with no path to be
   * removed by.
   */
  private addDocument(document: SectionDocument, added: string[]): void {
    try {
      this.miniSearch.add(document);
    } catch (error) {
      if (this.miniSearch.has(document.id)) added.push(document.id);
      throw error;
    }
    added.push(document.id);
  }

  /** Discards sections by id, and tells the top-k search which of its documents they were. */
  private discard(ids: readonly string[]): void {
    const topK = this.topK?.miniSearch === this.miniSearch ? this.topK : undefined;
    const known = topK ? internalsOf(this.miniSearch)._idToShortId : undefined;
    const shortIds = known ? ids.map((id) => known.get(id)).filter((id) => id !== undefined) : [];
    this.miniSearch.discardAll(ids as string[]);
    topK?.discarded(shortIds);
  }

  /**
   * Replaces the indexed version of a note. Given the version it replaces, only the sections whose
   * indexed fields changed are discarded and added: a chat turn appends one entry to a day's note,
   * and re-adding every entry of a busy day (hundreds) was most of a `remember` at 100,000 notes.
   * The index then holds the same sections as after re-adding them all.
   */
  replace(note: Note, previous?: Note): void {
    const ids = this.idsByPath.get(note.path);
    const before = previous?.path === note.path ? documentsById(previous) : undefined;
    if (!ids || !before || ids.length !== before.size || !ids.every((id) => before.has(id))) {
      this.remove(note.path);
      this.add(note);
      return;
    }
    const after = sectionDocuments(note);
    const kept = new Set(
      after.filter((doc) => sameDocument(before.get(doc.id), doc)).map((document) => document.id),
    );
    const gone = ids.filter((id) => !kept.has(id));
    if (gone.length === 0 && kept.size === after.length) return;
    this.discard(gone);
    this.addDocuments(note.path, after, kept);
  }

  /**
   * Sections matching any query term (OR), best first; equal scores are ordered by id so the same
   * index always answers the same way. An empty or stop-word-only query returns [].
   */
  search(query: string, options: TextSearchOptions = {}): TextHit[] {
    const terms = boundTerms(
      [...new Set(tokenize(boundQueryText(query)).map(processTerm))].filter((term): term is string => !!term),
    );
    if (terms.length === 0) return [];
    memoizeTerms(this.miniSearch);
    const boosts = options.rareTerms ? this.rarity(terms) : undefined;
    if (options.limit === undefined || options.exhaustive) return this.searchAll(terms, boosts, options);
    const { filter } = options;
    const queryTerms = terms.map(
      (term): QueryTerm => ({
        term,
        prefix: SEARCH_OPTIONS.prefix(term),
        fuzzy: SEARCH_OPTIONS.fuzzy(term),
        boost: boosts?.get(term) ?? 1,
      }),
    );
    const top = this.topKSearch().search(
      queryTerms,
      Math.max(0, options.limit),
      filter ? (id, stored) => filter(storedSource(id, stored)) : undefined,
    );
    return top.map((result) => textHit(storedSource(result.id, result.stored), result));
  }

  /** Every match scored by MiniSearch, best first; the top `limit` (and ties) become hits. */
  private searchAll(
    terms: string[],
    boosts: Map<string, number> | undefined,
    options: TextSearchOptions,
  ): TextHit[] {
    const { filter } = options;
    const results = this.miniSearch.search(terms.join(' '), {
      ...PROCESSED_QUERY,
      ...(boosts ? { boostTerm: (term: string) => boosts.get(term) ?? 1 } : {}),
      // A result carries the stored fields itself: no copy per matching section.
      ...(filter ? { filter: (result: SearchResult) => filter(result as unknown as TextHitSource) } : {}),
    });
    // MiniSearch returns results best first; only the top `limit` (and any ties with the last)
    // are turned into hits, since a common term can match thousands of sections.
    let end =
      options.limit === undefined ? results.length : Math.min(results.length, Math.max(0, options.limit));
    while (end > 0 && end < results.length && results[end]?.score === results[end - 1]?.score) end++;
    const hits = results.slice(0, end).map((result) => textHit(hitSource(result), result));
    hits.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    return options.limit === undefined ? hits : hits.slice(0, Math.max(0, options.limit));
  }

  /** The top-k search over the current MiniSearch (a cache load replaces it). */
  private topKSearch(): TopKSearch {
    if (this.topK?.miniSearch !== this.miniSearch) this.topK = new TopKSearch(this.miniSearch, CJK_CHARACTER);
    return this.topK;
  }

  /**
   * The idf of each term, `ln(1 + (N - df + 0.5) / (df + 0.5))` as BM25 has it, where df counts
   * the sections that hold the term in any field. (idf² measured within noise of it on LoCoMo.)
   */
  private rarity(terms: string[]): Map<string, number> {
    const total = this.miniSearch.documentCount;
    const weights = new Map<string, number>();
    for (const term of terms) {
      const df = this.documentFrequency(term);
      const idf = Math.log(1 + (total - df + 0.5) / (df + 0.5));
      weights.set(term, idf);
    }
    return weights;
  }

  /**
   * How many sections hold `term`, a term as processTerm() gives it (the largest count over fields). MiniSearch keeps this in its
   * inverted index but has no public accessor.
   */
  documentFrequency(term: string): number {
    const fields = internalsOf(this.miniSearch)._index.get(term);
    return fields === undefined ? 0 : largestFieldSize(fields);
  }

  /** What the cache needs besides the segments: counts and field averages (see text-index-store.ts). */
  storeHeader(): TextStoreHeader & { version: number } {
    return { version: TEXT_INDEX_VERSION, ...textStoreHeader(this.miniSearch) };
  }

  /** The index in bounded segments, one at a time, for the `.mem/` cache. */
  storeSegments(limits?: TextStoreLimits): Iterable<TextSegment> {
    return textStoreSegments(this.miniSearch, this.idsByPath, limits);
  }

  /**
   * Restores an index from `storeHeader()` and the `storeSegments()` fed in order to the loader;
   * call `finish()` once all are in. Throws when the header is from another version.
   */
  static loader(header: TextStoreHeader & { version: number }): {
    docs(text: string): void;
    terms(bytes: Uint8Array): void;
    finish(): TextIndex;
  } {
    if (header?.version !== TEXT_INDEX_VERSION) {
      throw new MemError(
        'INVALID_INPUT',
        `text index: saved version ${JSON.stringify(header?.version)} does not match ${TEXT_INDEX_VERSION}; rebuild it`,
      );
    }
    const loader = new TextStoreLoader(new MiniSearch<SectionDocument>(OPTIONS), header);
    return {
      docs: (text) => loader.docs(text),
      terms: (bytes) => loader.terms(bytes),
      finish: () => {
        const { miniSearch, idsByPath } = loader.finish();
        const index = new TextIndex();
        index.miniSearch = miniSearch;
        index.idsByPath = idsByPath;
        // Its arenas are allocated with the rest of what opening allocates, not at the first search.
        index.topKSearch();
        return index;
      },
    };
  }
}

function documentsById(note: Note): Map<string, SectionDocument> {
  return new Map(sectionDocuments(note).map((document) => [document.id, document]));
}

/** Whether two documents of a section index the same (every field alike). */
function sameDocument(a: SectionDocument | undefined, b: SectionDocument): boolean {
  if (a === undefined) return false;
  const keys = Object.keys(b) as Array<keyof SectionDocument>;
  return keys.length === Object.keys(a).length && keys.every((key) => a[key] === b[key]);
}

function sectionDocuments(note: Note): SectionDocument[] {
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
      // Section ids should be unique; if a parser ever repeats one, merge rather than let MiniSearch
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

/**
 * A hit: its source with the score and matched terms added to it. Spread into a new object
 * instead, each hit was a dictionary of about a kilobyte, a fifth of what a recall allocated.
 */
function textHit(
  source: TextHitSource,
  { score, terms, queryTerms }: Pick<TextHit, 'score' | 'terms' | 'queryTerms'>,
): TextHit {
  const hit = source as TextHit;
  hit.score = score;
  hit.terms = terms;
  hit.queryTerms = queryTerms;
  return hit;
}

function hitSource(result: SearchResult): TextHitSource {
  return storedSource(String(result.id), result);
}

/** A section's id and the fields the index stores for it (`STORED`). */
function storedSource(id: string, stored: Record<string, unknown>): TextHitSource {
  const source: TextHitSource = {
    id,
    path: stored['path'] as string,
    anchor: stored['anchor'] as string,
    layer: stored['layer'] as Layer,
  };
  if (typeof stored['date'] === 'string') source.date = stored['date'];
  return source;
}
