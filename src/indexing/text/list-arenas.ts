// Where the top-k search keeps the scores of the posting lists it compiled, between searches.

/**
 * How many postings' scores are kept between searches, in each of two arenas: 8 bytes a score,
 * plus 4 for its document unless the list is a view of packed postings, so at most 72 MiB for
 * both. The common terms that make a search slow are the ones asked again and again (a single
 * Chinese character matches a fifth of all sections); a rare term's short list is cheap to score
 * each time. A setting, so tests can make arenas of a few postings.
 */
export const LIST_ARENA = {
  /** Postings an arena holds at most */
  postings: 3_000_000,
  /** The first arena's size; each one after is twice the last, up to `postings` */
  first: 1 << 16,
};

/**
 * Where compiled lists keep their scores and documents: two pairs of typed arrays, each filled
 * from its start. One grows (a new pair twice as large; the lists in the old one stay readable, as
 * their views hold it) until it holds LIST_ARENA.postings; when that one is full, every kept list is
 * dropped (each is scored again on its next use) and the other pair is filled from its start: its
 * lists were dropped the time before, so none is still read by the search that asks. Reused, these
 * arrays keep the memory of the kept lists from growing: a new pair of arrays for every list, as an
 * LRU of lists made, kept V8's count of external memory rising, which set off full collections of
 * a 600 MB heap every few hundred searches at 100,000 notes.
 */
export class ListArenas {
  private readonly pairs: Array<{ docs: Uint32Array; scores: Float64Array }>;
  private current = 0;
  private used = 0;
  /** The search that last switched arenas: a second switch in one search would overwrite lists it reads */
  private switchedIn = -1;

  /**
   * The first arena is allocated at `size` postings (at most LIST_ARENA.postings) when the search
   * is made, so that a search never allocates one: V8 answers tens of MB of new external memory
   * with a full collection, which would land on the searches of the next moments instead of on
   * opening the vault. The second is filled only once the first holds LIST_ARENA.postings, and
   * then at that size: it is allocated now only when the first already has it (a large index).
   * Below that, a second pair made now was never read (the switch replaced it by a full one), and
   * cost each vault of a `mem serve --vaults` pool some 0.9 MiB at 1,000 notes.
   */
  constructor(
    size: number,
    private readonly dropAll: () => void,
  ) {
    const n = Math.min(LIST_ARENA.postings, Math.max(LIST_ARENA.first, Math.ceil(size)));
    const second = n === LIST_ARENA.postings ? n : 0;
    this.pairs = [n, second].map((k) => ({ docs: new Uint32Array(k), scores: new Float64Array(k) }));
  }

  /** Room for `n` postings (a documents array too when `docs`), kept until the next switch. */
  take(n: number, docs: boolean, search: number): { docs: Uint32Array | undefined; scores: Float64Array } {
    let pair = this.pairs[this.current] as { docs: Uint32Array; scores: Float64Array };
    if (this.used + n > pair.scores.length) {
      if (n > LIST_ARENA.postings)
        return { docs: docs ? new Uint32Array(n) : undefined, scores: new Float64Array(n) };
      const length = pair.scores.length;
      if (length < LIST_ARENA.postings) {
        const size = Math.min(LIST_ARENA.postings, Math.max(LIST_ARENA.first, length * 2, n));
        pair = { docs: new Uint32Array(size), scores: new Float64Array(size) };
      } else if (this.switchedIn === search) {
        // This search already started the other arena: arrays of its own (kept with the other
        // lists until the next switch or change, like them).
        return { docs: docs ? new Uint32Array(n) : undefined, scores: new Float64Array(n) };
      } else {
        this.dropAll();
        this.current = 1 - this.current;
        this.switchedIn = search;
        pair = this.pairs[this.current] as { docs: Uint32Array; scores: Float64Array };
        if (pair.scores.length < LIST_ARENA.postings) {
          pair = {
            docs: new Uint32Array(LIST_ARENA.postings),
            scores: new Float64Array(LIST_ARENA.postings),
          };
        }
      }
      this.pairs[this.current] = pair;
      this.used = 0;
    }
    const at = this.used;
    this.used += n;
    return {
      docs: docs ? pair.docs.subarray(at, at + n) : undefined,
      scores: pair.scores.subarray(at, at + n),
    };
  }

  /** Bytes of the arenas allocated now (not counting lists that outgrew them, or pairs a switch let go) */
  get bytes(): number {
    return this.pairs.reduce((sum, pair) => sum + pair.docs.byteLength + pair.scores.byteLength, 0);
  }

  /** The index changed and every kept list was dropped: the arena in use is filled again from its start. */
  reset(): void {
    this.used = 0;
  }
}
