// The per-document arrays a top-k search works in: one set for every index of the thread.

/**
 * What a top-k search writes as it goes, by document: one set serves every search of the thread
 * (searches run one at a time, start to end), sized to the largest index that asked. A set per
 * index cost each vault of a `mem serve --vaults` pool some 0.1 MiB at 1,000 notes. Nothing in it
 * outlives a search but `stamp` (stamps only grow, so an old one never equals a new mark) and
 * `matched` (set back to 0 for every document the search touched, even when its filter throws).
 */
export class SearchScratch {
  /** Per document: the score so far, summed over query terms in order */
  total = new Float64Array(0);
  /** Per document: this query term's score so far, then (in best()) its final score */
  current = new Float64Array(0);
  /** Per document: how many query terms matched it (MiniSearch's `quality`); 0 between searches */
  matched = new Uint8Array(0);
  /** Per document: the stamp of the query term that last touched it */
  stamp = new Uint32Array(0);
  /** The documents a search touched */
  touched = new Uint32Array(0);
  /** The documents one query term touched, then (in best()) the heap of them all */
  termTouched = new Uint32Array(0);
  /** Whether a search is under way: a search inside another's filter would overwrite what it reads */
  busy = false;
  private nextStamp = 0;
  /** Where postings read from saved bytes or a Map wait to be scored */
  private docs = new Uint32Array(0);
  private freqs = new Uint32Array(0);

  /** A stamp no document holds yet. */
  takeStamp(): number {
    if (this.nextStamp >= 0xffff_fffe) {
      this.stamp.fill(0);
      this.nextStamp = 0;
    }
    return ++this.nextStamp;
  }

  /** Room for documents below `size`. */
  ensureCapacity(size: number): void {
    if (this.total.length >= size) return;
    const capacity = Math.max(size, Math.ceil(this.total.length * 1.5), 1024);
    this.total = new Float64Array(capacity);
    this.current = new Float64Array(capacity);
    this.matched = new Uint8Array(capacity);
    this.stamp = new Uint32Array(capacity);
    this.nextStamp = 0;
    this.touched = new Uint32Array(capacity);
    this.termTouched = new Uint32Array(capacity);
  }

  /** Arrays with room for `n` postings, reused from one list to the next (the search copies out of them). */
  postings(n: number): { docs: Uint32Array; freqs: Uint32Array } {
    if (this.docs.length < n) {
      const size = Math.max(n, this.docs.length * 2);
      this.docs = new Uint32Array(size);
      this.freqs = new Uint32Array(size);
    }
    return { docs: this.docs.subarray(0, n), freqs: this.freqs.subarray(0, n) };
  }

  /** Bytes of the arrays allocated now (for tests) */
  get bytes(): number {
    return [
      this.total,
      this.current,
      this.matched,
      this.stamp,
      this.touched,
      this.termTouched,
      this.docs,
      this.freqs,
    ].reduce((sum, array) => sum + array.byteLength, 0);
  }
}

/** The scratch of every top-k search in this thread */
export const searchScratch = new SearchScratch();
