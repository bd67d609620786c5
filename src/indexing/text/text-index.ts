import type { Note, Section } from '../../core/types.js';
import { type CheckedFile, SegmentDamaged, type SegmentSource } from '../segment-source.js';
import { boundQueryText, boundTerms } from './query-limits.js';
import {
  documentsById,
  entryContexts,
  FIELDS,
  SEARCH_OPTIONS,
  type SectionDocument,
  STORED,
  sameDocument,
  sameNoteFields,
  sameSection,
  sectionDocuments,
  storedSource,
  type TextHit,
  type TextHitSource,
  TOP_K_OPTIONS,
  textHit,
} from './section-documents.js';
import { TermIndex, type TermIndexOptions } from './term-index.js';
import {
  checkStoreVersion,
  type TextSegment,
  type TextStoreHeader,
  type TextStoreLimits,
  TextStoreLoader,
  textStoreHeader,
  textStoreSegments,
} from './text-index-store.js';
import { CJK_CHARACTER, processTerm, tokenize } from './tokenize.js';
import { type QueryTerm, TopKSearch } from './top-k-search.js';

export { dateWords, type TextHit, type TextHitSource } from './section-documents.js';

/** Bump when the tokenizer, the stemmer, the stop words or the fields change: old caches are then rebuilt. */
export const TEXT_INDEX_VERSION = 8;

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
}

/** How sections are turned into terms; the terms of CJK text are looked up exactly (see TermIndexOptions). */
export const TERM_OPTIONS: TermIndexOptions = {
  fields: FIELDS,
  storeFields: STORED,
  tokenize: (text) => tokenize(text),
  processTerm: (term) => processTerm(term),
  separate: CJK_CHARACTER,
};

/** Sections added between two packings of the postings */
const PACK_EVERY = 4096;

/** Full-text index over note sections (one document per section), CJK-aware. */
export class TextIndex {
  private terms = new TermIndex(TERM_OPTIONS);
  /**
   * Note path → section ids (null: removed); of a loaded index only the notes changed since, the
   * rest found in the saved documents (idsOf): a whole map took a first add at 100k notes 1.3 s.
   */
  private pathIds = new Map<string, string[] | null>();
  /** The section ids of the note appended to last (appendSections), as a set, and the list they are */
  private appended: { ids: readonly string[]; set: Set<string> } | undefined;
  /** Sections added since the postings were last packed */
  private unpacked = 0;
  /** Searches for the best few hits, keeping typed copies of common postings between searches */
  private topK: TopKSearch | undefined;
  /** The cache's segment files the saved documents and postings are read from (see segment-source.ts) */
  private files: CheckedFile[] = [];

  /** The notes indexed (set by VaultIndex), which recover() rebuilds the index from */
  rebuildFrom: (() => Iterable<Note>) | undefined;
  /** Told why, after recover() rebuilt the index */
  onRebuilt: ((reason: string) => void) | undefined;
  /** recover() rebuilt the index since it was loaded or last saved (saveIndexCache): the cache on disk is damaged */
  recovered = false;

  /** Runs `read`, or after recover() `again` (a change half-applied is made again whole). */
  private guard<T>(read: () => T, again: () => T = read): T {
    try {
      return read();
    } catch (error) {
      this.recover(error);
      return again();
    }
  }

  /**
   * After a SegmentDamaged error (a block read is not the one saved), makes the index what a
   * build from the notes makes it, as the next open would, and closes its segment files: nothing
   * damaged is read or saved again (`recovered` until the next save). Any other error is thrown again.
   */
  recover(error: unknown): void {
    const notes = this.rebuildFrom;
    if (!(error instanceof SegmentDamaged) || !notes) throw error;
    const fresh = new TextIndex();
    for (const note of notes()) fresh.add(note);
    fresh.packPostings();
    this.terms = fresh.terms;
    this.pathIds = fresh.pathIds;
    this.unpacked = 0;
    this.topK?.release();
    this.topK = undefined;
    closeWhenCollected.unregister(this);
    closeFiles(this.files);
    this.recovered = true;
    this.onRebuilt?.(error.message);
  }

  /** Holds what `loaded` holds (its terms and segment files) instead of its own index. */
  protected take(loaded: TextIndex): void {
    const files = loaded.files.splice(0);
    loaded.close();
    [this.terms, this.pathIds] = [loaded.terms, new Map()];
    this.holdFiles(files);
  }

  /** Keeps `files` open until close() (or until the index is collected): the saved postings are read from them. */
  holdFiles(files: CheckedFile[]): void {
    this.files.push(...files);
    closeWhenCollected.register(this, this.files, this);
  }

  /** Closes the segment files; saved postings and documents cannot be read after. */
  close(): void {
    closeWhenCollected.unregister(this);
    closeFiles(this.files);
    // Its scored lists leave the process's arenas (see list-arenas.ts).
    this.topK?.release();
  }

  /** Number of indexed sections. */
  get size(): number {
    return this.terms.documentCount;
  }

  has(path: string): boolean {
    return this.guard(() => this.idsOf(path) !== undefined);
  }

  /** The ids of the sections indexed for the note at `path`, or undefined when it has none indexed. */
  private idsOf(path: string): string[] | undefined {
    const changed = this.pathIds.get(path);
    return changed === undefined ? this.terms.liveSavedIds(path) : (changed ?? undefined);
  }

  /** The ids of those of `shortIds` still in the index. */
  private liveIds(shortIds: readonly number[]): string[] {
    return shortIds.map((shortId) => this.terms.idOf(shortId)).filter((id) => id !== undefined);
  }

  /** The note at `path` has no sections indexed now. */
  private dropIds(path: string): void {
    this.terms.saved ? this.pathIds.set(path, null) : this.pathIds.delete(path);
  }

  /** Every indexed note's path and section ids, in the order of the paths (as a save writes them). */
  private sortedPathIds(): Array<[string, string[]]> {
    const all: Array<[string, string[]]> = [];
    for (const [path, shortIds] of this.terms.saved?.notes() ?? [])
      if (!this.pathIds.has(path)) all.push([path, this.liveIds(shortIds)]);
    for (const [path, ids] of this.pathIds) if (ids) all.push([path, ids]);
    return all.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  }

  /** Indexes every section of the note; a path already indexed is replaced. */
  add(note: Note): void {
    this.guard(() => {
      if (this.idsOf(note.path) !== undefined) this.remove(note.path);
      this.addDocuments(note.path, sectionDocuments(note), new Set());
    });
  }

  /**
   * Makes `documents` (every section of the note at `path`, in order) what the index holds for
   * it, adding those not in `kept` (already indexed as they are). When an add fails, nothing of
   * the note is left indexed.
   */
  private addDocuments(path: string, documents: SectionDocument[], kept: ReadonlySet<string>): void {
    this.addFresh(
      path,
      documents.map((document) => document.id),
      documents.filter((document) => !kept.has(document.id)),
      kept,
    );
  }

  /** addDocuments with the note's section ids (in order) and the documents to add given apart. */
  private addFresh(path: string, ids: string[], fresh: SectionDocument[], kept: Iterable<string>): void {
    // A section left from an add that failed half-way (or a cache saved then) is replaced, never
    // met with "duplicate ID", which made every later write to the note fail.
    this.discard(fresh.map((document) => document.id).filter((id) => this.terms.has(id)));
    const added: string[] = [];
    try {
      for (const document of fresh) {
        // An add that throws (a field that cannot be read) leaves nothing of its section.
        this.terms.add(document.id, document as unknown as Record<string, unknown>);
        added.push(document.id);
      }
    } catch (error) {
      this.discard([...added, ...kept]);
      this.dropIds(path);
      throw error;
    }
    this.pathIds.set(path, ids);
    // Long posting lists are packed into typed arrays now and then (see PackedPostings): as Maps,
    // a cold index held twice the memory of everything else together.
    this.unpacked += added.length;
    if (this.unpacked >= PACK_EVERY) this.packPostings();
  }

  /** Packs the long posting lists now, as add() does every PACK_EVERY sections (see PackedPostings). */
  packPostings(): void {
    this.unpacked = 0;
    this.terms.packPostings();
  }

  /** Drops every section of the note at `path`; an unknown path is ignored. */
  remove(path: string): void {
    this.guard(() => {
      const ids = this.idsOf(path);
      if (!ids) return;
      this.discard(ids);
      this.dropIds(path);
    });
  }

  /**
   * Discards sections by id: O(1) each, their postings are dropped by a vacuum once enough are
   * discarded (MiniSearch's auto-vacuum conditions).
   */
  private discard(ids: readonly string[]): void {
    for (const id of ids) this.terms.discard(id);
    this.terms.maybeVacuum();
  }

  /**
   * Replaces the indexed version of a note. Given the version it replaces, only the sections whose
   * indexed fields changed are discarded and added: a chat turn appends one entry to a day's note,
   * and re-adding every entry of a busy day (hundreds) was most of a `remember` at 100,000 notes.
   * The index then holds the same sections as after re-adding them all.
   */
  replace(note: Note, previous?: Note): void {
    this.guard(
      () => this.replaceNow(note, previous),
      () => this.add(note),
    );
  }

  private replaceNow(note: Note, previous?: Note): void {
    const ids = this.idsOf(note.path);
    if (ids && previous && this.replaceSections(note, previous, ids)) return;
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
   * replace() when the note's own fields (title, aliases, tags) are unchanged and every section id
   * is unique: sections are compared as they are and only the changed ones become documents, so a
   * chat turn's append to a day of a thousand entries makes one document, not two thousand.
   * Returns false (nothing done) when the case is not that simple.
   */
  private replaceSections(note: Note, previous: Note, ids: readonly string[]): boolean {
    if (!sameNoteFields(previous, note) || previous.sections.length === 0 || note.sections.length === 0)
      return false;
    if (this.appendSections(note, previous, ids)) return true;
    const before = new Map<string, Section>();
    for (const section of previous.sections) before.set(section.id, section);
    if (before.size !== previous.sections.length || ids.length !== before.size) return false;
    for (const id of ids) if (!before.has(id)) return false;
    const kept = new Set<string>();
    const fresh: Section[] = [];
    const seen = new Set<string>();
    // An entry's document holds the words of the entries before it: it changes with them.
    const contextBefore = entryContexts(previous);
    const contextAfter = entryContexts(note);
    for (const section of note.sections) {
      if (seen.has(section.id)) return false;
      seen.add(section.id);
      if (
        sameSection(before.get(section.id), section) &&
        contextBefore.get(section.id) === contextAfter.get(section.id)
      )
        kept.add(section.id);
      else fresh.push(section);
    }
    const gone = ids.filter((id) => !kept.has(id));
    if (gone.length === 0 && fresh.length === 0) return true;
    this.discard(gone);
    // Without sections sectionDocuments would make the empty preamble a note without any gets.
    const documents =
      fresh.length === 0 ? [] : sectionDocuments(note, new Set(fresh.map((section) => section.id)));
    this.addFresh(
      note.path,
      note.sections.map((section) => section.id),
      documents,
      kept,
    );
    return true;
  }

  /**
   * replaceSections when entries were appended: the note's sections are the previous version's
   * (alike as sameSection tells, the same objects after an append was read alone) and new ones
   * after them. The sections before are kept without a look at their contexts (an entry's context
   * is the entries before it), and only the new ones become documents: a cost of the entries
   * added, not of the day. False (nothing done) when the note is not that.
   */
  private appendSections(note: Note, previous: Note, ids: readonly string[]): boolean {
    const before = previous.sections;
    const after = note.sections;
    if (after.length <= before.length || ids.length !== before.length) return false;
    for (let k = 0; k < before.length; k++) {
      const a = before[k] as Section;
      const b = after[k] as Section;
      if (ids[k] !== a.id) return false;
      if (a !== b && (a.kind !== b.kind || !sameSection(a, b))) return false;
    }
    // The ids must stay unique. The note appended to last keeps its ids as a set, while the index
    // holds the very list it was made for: a chat turn checks its new ids, not the day's.
    const last = this.appended?.ids === ids ? this.appended.set : undefined;
    const seen = last ?? new Set(ids);
    if (seen.size !== ids.length) return false;
    const fresh = new Set<string>();
    for (let k = before.length; k < after.length; k++) {
      const { id } = after[k] as Section;
      if (seen.has(id) || fresh.has(id)) return false;
      fresh.add(id);
    }
    const all = [...ids, ...fresh];
    for (const id of fresh) seen.add(id);
    this.appended = undefined;
    this.addFresh(note.path, all, sectionDocuments(note, undefined, before.length), ids);
    this.appended = { ids: all, set: seen };
    return true;
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
    const boosts = options.rareTerms ? this.rarity(terms) : undefined;
    const { filter } = options;
    const queryTerms = terms.map(
      (term): QueryTerm => ({
        term,
        prefix: SEARCH_OPTIONS.prefix(term),
        fuzzy: SEARCH_OPTIONS.fuzzy(term),
        boost: boosts?.get(term) ?? 1,
      }),
    );
    const limit = options.limit === undefined ? this.terms.documentCount : Math.max(0, options.limit);
    const top = this.guard(() =>
      this.topKSearch().search(
        queryTerms,
        limit,
        filter ? (id, stored) => filter(storedSource(id, stored)) : undefined,
      ),
    );
    return top.map((result) => textHit(storedSource(result.id, result.stored), result));
  }

  /** The top-k search over the current index (a cache load replaces it). */
  private topKSearch(): TopKSearch {
    if (this.topK?.index !== this.terms) {
      this.topK?.release();
      this.topK = new TopKSearch(this.terms, TOP_K_OPTIONS);
    }
    return this.topK;
  }

  /**
   * The idf of each term, `ln(1 + (N - df + 0.5) / (df + 0.5))` as BM25 has it, where df counts
   * the sections that hold the term in any field. (idf² measured within noise of it on LoCoMo.)
   */
  private rarity(terms: string[]): Map<string, number> {
    // A term's count takes in the sections discarded until a vacuum: so must the total, or a term of
    // most sections weighs less than nothing once a few are replaced (a recall then scored all 0).
    const total = this.terms.documentCount + this.terms.dirtCount;
    const weights = new Map<string, number>();
    for (const term of terms) {
      const df = this.documentFrequency(term);
      const idf = Math.log(1 + (total - df + 0.5) / (df + 0.5));
      weights.set(term, idf);
    }
    return weights;
  }

  /**
   * How many sections hold `term`, a term as processTerm() gives it (the largest count over
   * fields; discarded sections count until a vacuum).
   */
  documentFrequency(term: string): number {
    return this.guard(() => this.terms.documentFrequency(term));
  }

  /**
   * The stored source of section `k` of the note at `path` (a note's documents are its sections, in
   * order), read from the index without the note; undefined when the index has no such section.
   */
  sectionSource(path: string, k: number): TextHitSource | undefined {
    return this.guard(() => {
      const changed = this.pathIds.get(path);
      const id = changed?.[k];
      const shortId =
        changed === undefined
          ? this.terms.saved?.shortIdAt(path, k)
          : id === undefined
            ? undefined
            : this.terms.shortIdOf(id);
      const stored = shortId === undefined ? undefined : this.terms.storedOf(shortId);
      const own = shortId === undefined ? undefined : (id ?? this.terms.idOf(shortId));
      return stored && own !== undefined ? storedSource(own, stored) : undefined;
    });
  }

  /** How rare `term` is, `log(1 + sections / df)` (no BM25 smoothing; a term in no section counts as in one). */
  plainIdf(term: string): number {
    return Math.log(1 + this.size / Math.max(1, this.documentFrequency(term)));
  }

  /** What the cache needs besides the segments: counts and field averages (see text-index-store.ts). */
  storeHeader(): TextStoreHeader & { version: number } {
    return { version: TEXT_INDEX_VERSION, ...textStoreHeader(this.terms) };
  }

  /** The index in bounded segments, one at a time, for the `.mem/` cache. */
  storeSegments(limits?: TextStoreLimits): Iterable<TextSegment> {
    return textStoreSegments(this.terms, this.sortedPathIds(), limits);
  }

  /**
   * Restores an index from `storeHeader()` and the `storeSegments()` fed in order to the loader;
   * call `finish()` once all are in. Throws when the header is from another version.
   */
  static loader(header: TextStoreHeader & { version: number }): {
    docs(bytes: Uint8Array, source?: SegmentSource): void;
    docsTablesEnd(head: Uint8Array): number;
    terms(bytes: Uint8Array, source?: SegmentSource): void;
    finish(): TextIndex;
  } {
    checkStoreVersion(header?.version, TEXT_INDEX_VERSION);
    const loader = new TextStoreLoader(new TermIndex(TERM_OPTIONS), header);
    return {
      docs: (bytes, source) => loader.docs(bytes, source),
      docsTablesEnd: (head) => loader.docsTablesEnd(head),
      terms: (bytes, source) => loader.terms(bytes, source),
      finish: () => {
        const index = new TextIndex();
        index.terms = loader.finish();
        index.pathIds = new Map();
        // Its arenas are allocated with the rest of what opening allocates, not at the first search.
        index.topKSearch();
        return index;
      },
    };
  }
}

function closeFiles(files: CheckedFile[]): void {
  for (const file of files.splice(0)) file.close();
}

const closeWhenCollected = new FinalizationRegistry<CheckedFile[]>(closeFiles);
