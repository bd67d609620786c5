// MiniSearch's own index and search over the sections TextIndex indexes, with the options it has:
// the reference the differential tests hold TextIndex (its own postings, BM25 and top-k) to.
import MiniSearch, { type SearchResult } from 'minisearch';
import type { Note } from '../../src/core/types.js';
import { boundQueryText, boundTerms } from '../../src/indexing/text/query-limits.js';
import {
  documentsById,
  FIELDS,
  SEARCH_OPTIONS,
  type SectionDocument,
  STORED,
  sameDocument,
  sectionDocuments,
  type TextHitSource,
} from '../../src/indexing/text/section-documents.js';
import type { TextHit, TextSearchOptions } from '../../src/indexing/text/text-index.js';
import { processTerm, tokenize } from '../../src/indexing/text/tokenize.js';

// The query is tokenized and processed once in search(); MiniSearch then only splits the result.
const PROCESSED_QUERY = { tokenize: (text: string) => text.split(' '), processTerm: (term: string) => term };

export class ReferenceIndex {
  /** Vacuumed only when asked (vacuum()), so a test knows when discarded postings are gone */
  readonly miniSearch = new MiniSearch<SectionDocument>({
    fields: FIELDS,
    storeFields: STORED,
    tokenize: (text) => tokenize(text),
    processTerm: (term) => processTerm(term),
    searchOptions: SEARCH_OPTIONS,
    autoVacuum: false,
  });
  private readonly idsByPath = new Map<string, string[]>();
  /** Every indexed section's terms, field by field, for the document frequencies of `rareTerms` */
  private readonly documents = new Map<string, Array<Set<string | null>>>();

  /** Indexes every section of the note, as TextIndex.add does (a path already indexed is replaced). */
  add(note: Note): void {
    this.remove(note.path);
    this.addDocuments(note.path, sectionDocuments(note), new Set());
  }

  /**
   * TextIndex.replace's steps, discard and add, section by section: the document counts and the
   * average field lengths BM25 reads are then the same doubles in both.
   */
  replace(note: Note, previous?: Note): void {
    const ids = this.idsByPath.get(note.path);
    const before = previous?.path === note.path ? documentsById(previous) : undefined;
    if (!ids || !before || ids.length !== before.size || !ids.every((id) => before.has(id))) {
      this.add(note);
      return;
    }
    const after = sectionDocuments(note);
    const kept = new Set(after.filter((doc) => sameDocument(before.get(doc.id), doc)).map((doc) => doc.id));
    const gone = ids.filter((id) => !kept.has(id));
    if (gone.length === 0 && kept.size === after.length) return;
    this.miniSearch.discardAll(gone);
    for (const id of gone) this.documents.delete(id);
    this.addDocuments(note.path, after, kept);
  }

  private addDocuments(path: string, documents: SectionDocument[], kept: ReadonlySet<string>): void {
    for (const document of documents) {
      if (kept.has(document.id)) continue;
      if (this.miniSearch.has(document.id)) this.miniSearch.discard(document.id);
      this.miniSearch.add(document);
      this.documents.set(
        document.id,
        FIELDS.map((field) => {
          const value = document[field as keyof SectionDocument];
          return new Set<string | null>(value === undefined ? [] : tokenize(String(value)).map(processTerm));
        }),
      );
    }
    this.idsByPath.set(
      path,
      documents.map((document) => document.id),
    );
  }

  remove(path: string): void {
    const ids = this.idsByPath.get(path);
    if (!ids) return;
    this.miniSearch.discardAll(ids);
    for (const id of ids) this.documents.delete(id);
    this.idsByPath.delete(path);
  }

  /** Drops the postings of discarded sections, after which MiniSearch's scores count live ones only. */
  vacuum(): Promise<void> {
    return this.miniSearch.vacuum();
  }

  /** Every match scored by MiniSearch, best first (ties by id); the top `limit`, as TextIndex.search. */
  search(query: string, options: TextSearchOptions = {}): TextHit[] {
    const terms = boundTerms(
      [...new Set(tokenize(boundQueryText(query)).map(processTerm))].filter((term): term is string => !!term),
    );
    if (terms.length === 0) return [];
    const boosts = options.rareTerms ? this.rarity(terms) : undefined;
    const { filter } = options;
    const results = this.miniSearch.search(terms.join(' '), {
      ...PROCESSED_QUERY,
      ...(boosts ? { boostTerm: (term: string) => boosts.get(term) ?? 1 } : {}),
      ...(filter ? { filter: (result: SearchResult) => filter(source(result)) } : {}),
    });
    const limit = options.limit === undefined ? results.length : Math.max(0, options.limit);
    // The top `limit` and any ties with the last, then ordered by score and id.
    let end = Math.min(results.length, limit);
    while (end > 0 && end < results.length && results[end]?.score === results[end - 1]?.score) end++;
    const hits = results.slice(0, end).map(
      (result): TextHit => ({
        ...source(result),
        score: result.score,
        terms: result.terms,
        queryTerms: result.queryTerms,
        // MiniSearch's own record of the fields each term matched in.
        onlyContext: Object.values(result.match).every((fields) => fields.every((f) => f === 'context')),
      }),
    );
    hits.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    return hits.slice(0, limit);
  }

  /** BM25's idf of each term over the live sections (df: the most sections one field holds it in). */
  private rarity(terms: string[]): Map<string, number> {
    const total = this.documents.size;
    const weights = new Map<string, number>();
    for (const term of terms) {
      let df = 0;
      for (let field = 0; field < FIELDS.length; field++) {
        let count = 0;
        for (const fields of this.documents.values()) if (fields[field]?.has(term)) count++;
        df = Math.max(df, count);
      }
      weights.set(term, Math.log(1 + (total - df + 0.5) / (df + 0.5)));
    }
    return weights;
  }
}

/** A hit's source as TextIndex gives it: the id and the stored fields, in that order. */
function source(result: SearchResult): TextHitSource {
  const hit: TextHitSource = {
    id: String(result.id),
    path: result['path'] as string,
    anchor: result['anchor'] as string,
    layer: result['layer'] as TextHitSource['layer'],
    facts: typeof result['facts'] === 'string' ? result['facts'] : '',
  };
  if (typeof result['date'] === 'string') hit.date = result['date'];
  return hit;
}
