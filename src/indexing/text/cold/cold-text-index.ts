// The text index of a cold build: notes added to a ColdTerms (cold-terms.ts) until the save writes
// its segments, then read from them. Anything else asked of it first makes it an ordinary
// TextIndex over a TermIndex loaded from those segments (from memory before the save, from the
// files after), which answers as one built note by note would: the segments are the same bytes.
import type { Note } from '../../../core/types.js';
import { SegmentDamaged } from '../../segment-source.js';
import { sectionDocuments } from '../section-documents.js';
import {
  TERM_OPTIONS,
  TEXT_INDEX_VERSION,
  type TextHit,
  type TextHitSource,
  TextIndex,
  type TextSearchOptions,
} from '../text-index.js';
import type { TextSegment, TextStoreHeader, TextStoreLimits } from '../text-index-store.js';
import { ColdTerms } from './cold-terms.js';

/** The segments a save wrote, opened: loaded when first asked for, or closed unread. */
export interface SavedText {
  load(): TextIndex;
  close(): void;
}

const closeWhenCollected = new FinalizationRegistry<SavedText>((saved) => saved.close());

/** A TermIndex's TextIndex loaded from the build's own segments, in memory. */
function fromSegments(cold: ColdTerms): TextIndex {
  const loader = TextIndex.loader({ version: TEXT_INDEX_VERSION, ...cold.header() });
  for (const segment of cold.segments()) {
    if (segment.part === 'docs') loader.docs(segment.data);
    else loader.terms(segment.data);
  }
  return loader.finish();
}

export class ColdTextIndex extends TextIndex {
  /** The build's terms; after its save, what loads the saved index; undefined once warm */
  private cold: ColdTerms | SavedText | undefined = new ColdTerms(TERM_OPTIONS);

  /** No more notes come from the build: the last docs segment is encoded. */
  endCold(): void {
    if (this.cold instanceof ColdTerms) this.cold.close();
  }

  /**
   * A save wrote the build's segments: they are read from there when first needed (`load`), and
   * the build's own copy is let go. Before then, nothing of the index is in the heap.
   */
  savedIn(saved: SavedText): void {
    if (!(this.cold instanceof ColdTerms)) {
      saved.close();
      return;
    }
    this.cold = saved;
    // Its files are closed with it if it is let go without close().
    closeWhenCollected.register(this, saved, this);
  }

  /** Whether the build's segments are what this index holds (it has not become a TermIndex) */
  get holdsSegments(): boolean {
    return this.cold instanceof ColdTerms;
  }

  /**
   * Becomes an ordinary TextIndex: over the build's segments, or the saved ones. When those cannot
   * be read (damaged on disk, or an add that failed half-way), it is made again from the notes.
   */
  private warm(): void {
    const cold = this.cold;
    if (cold === undefined) return;
    let loaded: TextIndex;
    try {
      loaded = cold instanceof ColdTerms ? fromSegments(cold) : cold.load();
    } catch (error) {
      this.recover(
        new SegmentDamaged(`the text index of the cold build could not be read (${String(error)})`),
      );
      return;
    }
    this.letGo();
    this.take(loaded);
  }

  override add(note: Note): void {
    if (this.cold instanceof ColdTerms) {
      const documents = sectionDocuments(note);
      if (this.cold.accepts(note.path, documents)) {
        this.cold.add(note.path, documents);
        return;
      }
    }
    this.warm();
    super.add(note);
  }

  override recover(error: unknown): void {
    // Let go only when the notes can make the index again (else recover throws, and it is kept).
    if (error instanceof SegmentDamaged && this.rebuildFrom) this.letGo();
    super.recover(error);
  }

  override close(): void {
    this.letGo();
    super.close();
  }

  private letGo(): void {
    if (this.cold !== undefined && !(this.cold instanceof ColdTerms)) {
      closeWhenCollected.unregister(this);
      this.cold.close();
    }
    this.cold = undefined;
  }

  override get size(): number {
    if (this.cold instanceof ColdTerms) return this.cold.documentCount;
    this.warm();
    return super.size;
  }

  override has(path: string): boolean {
    this.warm();
    return super.has(path);
  }

  override packPostings(): void {
    this.warm();
    super.packPostings();
  }

  override remove(path: string): void {
    this.warm();
    super.remove(path);
  }

  override replace(note: Note, previous?: Note): void {
    this.warm();
    super.replace(note, previous);
  }

  override search(query: string, options?: TextSearchOptions): TextHit[] {
    this.warm();
    return super.search(query, options);
  }

  override documentFrequency(term: string): number {
    this.warm();
    return super.documentFrequency(term);
  }

  override plainIdf(term: string): number {
    this.warm();
    return super.plainIdf(term);
  }

  override sectionSource(path: string, k: number): TextHitSource | undefined {
    this.warm();
    return super.sectionSource(path, k);
  }

  override storeHeader(): TextStoreHeader & { version: number } {
    if (this.cold instanceof ColdTerms) return { version: TEXT_INDEX_VERSION, ...this.cold.header() };
    this.warm();
    return super.storeHeader();
  }

  override storeSegments(limits?: TextStoreLimits): Iterable<TextSegment> {
    if (this.cold instanceof ColdTerms && limits === undefined) return this.cold.segments();
    this.warm();
    return super.storeSegments(limits);
  }
}
