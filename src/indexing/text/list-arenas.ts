// Where the top-k searches keep the scores of the posting lists they compiled, between searches:
// one set of arenas for every index of the process (a `mem serve --vaults` pool holds many).

/**
 * How many postings' scores are kept between searches, in each of two arenas: 8 bytes a score,
 * plus 4 for its document unless the list is a view of packed postings, so at most 24 MiB for
 * both, for the whole process (each worker thread has its own). The common terms that make a
 * search slow are the ones asked again and again (a single Chinese character matches a fifth of
 * all sections); a rare term's short list is cheap to score each time. 3 million postings an
 * arena (72 MiB) cost a serving 100k-note vault 40 to 140 MiB more RSS after 400 recalls than 1
 * million, for 2 % less recall CPU (4 paired runs, 15.0 against 15.3 ms a recall); below a million
 * the CPU rose (10 % at 400,000). A setting, so tests can make arenas of a few postings (then call
 * `resetListArenas`).
 */
export const LIST_ARENA = {
  /** Postings an arena holds at most */
  postings: 1_000_000,
  /** The first arena's size; each one after is twice the last, up to `postings` */
  first: 1 << 16,
};

/** A search that keeps lists in the arenas: it drops them all when asked (their room is about to be filled again). */
export interface ListHolder {
  dropLists(): void;
  /** A weak reference to itself, by which the arenas know it: they must not keep a closed index alive */
  readonly ref: WeakRef<ListHolder>;
}

type Pair = { docs: Uint32Array; scores: Float64Array };

const pairOf = (n: number): Pair => ({ docs: new Uint32Array(n), scores: new Float64Array(n) });

/**
 * Where compiled lists keep their scores and documents: two pairs of typed arrays, each filled
 * from its start. One grows (a new pair twice as large; the lists in the old one stay readable, as
 * their views hold it) until it holds LIST_ARENA.postings; when that one is full, every kept list of
 * every holder is dropped (each is scored again on its next use) and the other pair is filled from
 * its start: its lists were dropped the time before, so none is still read by the search that
 * asks. Reused, these arrays keep the memory of the kept lists from growing: a new pair of arrays
 * for every list, as an LRU of lists made, kept V8's count of external memory rising, which set
 * off full collections of a 600 MB heap every few hundred searches at 100,000 notes.
 *
 * One ListArenas serves every search of the process (`listArenas()`): a pool of vaults pays for
 * one set, not one each (the first arena alone was 0.75 MiB a vault of 1,000 notes, and each grew
 * with use). That is safe because searches run one at a time, start to end, in one thread; the
 * holders of kept lists are held weakly, so a vault let go without close() is not kept alive.
 */
export class ListArenas {
  private readonly pairs: Pair[] = [pairOf(0), pairOf(0)];
  private current = 0;
  private used = 0;
  /** Counts the searches of the process, so a switch knows which one asks */
  private search = 0;
  /** The search that last switched arenas: a second switch in one search would overwrite lists it reads */
  private switchedIn = -1;
  /** The searches that kept lists since the last switch, by their weak references */
  private readonly holders = new Set<WeakRef<ListHolder>>();

  /**
   * Makes the arena in use hold at least `size` postings (at most LIST_ARENA.postings), for an
   * index being opened, so that a search never allocates one: V8 answers tens of MB of new external
   * memory with a full collection, which would land on the searches of the next moments instead of
   * on opening the vault. The second is filled only once the first holds LIST_ARENA.postings, and
   * then at that size: it is allocated now only when the first already has it (a large index).
   * Below that, a second pair made now was never read (the switch replaced it by a full one).
   */
  reserve(size: number): void {
    const n = Math.min(LIST_ARENA.postings, Math.max(LIST_ARENA.first, Math.ceil(size)));
    if ((this.pairs[this.current] as Pair).scores.length < n) {
      // Lists in the smaller pair stay readable (their views hold it) until the next switch.
      this.pairs[this.current] = pairOf(n);
      this.used = 0;
    }
    const other = 1 - this.current;
    if (n === LIST_ARENA.postings && (this.pairs[other] as Pair).scores.length < n) {
      // Its lists were dropped at the last switch, and no search is under way.
      this.pairs[other] = pairOf(n);
    }
  }

  /** A search starts: from here to its end, a second switch would overwrite lists it reads. */
  begin(): void {
    this.search++;
  }

  /**
   * Room for `n` postings (a documents array too when `docs`) for a list `holder` keeps until the
   * next switch (which drops it, with every holder's lists).
   */
  take(
    n: number,
    docs: boolean,
    holder: ListHolder,
  ): { docs: Uint32Array | undefined; scores: Float64Array } {
    let pair = this.pairs[this.current] as Pair;
    if (this.used + n > pair.scores.length) {
      if (n > LIST_ARENA.postings) return this.own(n, docs, holder);
      const length = pair.scores.length;
      if (length < LIST_ARENA.postings) {
        pair = pairOf(Math.min(LIST_ARENA.postings, Math.max(LIST_ARENA.first, length * 2, n)));
      } else if (this.switchedIn === this.search) {
        // This search already started the other arena: arrays of its own (kept with the other
        // lists until the next switch or change, like them).
        return this.own(n, docs, holder);
      } else {
        this.dropAll();
        this.current = 1 - this.current;
        this.switchedIn = this.search;
        pair = this.pairs[this.current] as Pair;
        if (pair.scores.length < LIST_ARENA.postings) pair = pairOf(LIST_ARENA.postings);
      }
      this.pairs[this.current] = pair;
      this.used = 0;
    }
    this.holders.add(holder.ref);
    const at = this.used;
    this.used += n;
    return {
      docs: docs ? pair.docs.subarray(at, at + n) : undefined,
      scores: pair.scores.subarray(at, at + n),
    };
  }

  private own(
    n: number,
    docs: boolean,
    holder: ListHolder,
  ): { docs: Uint32Array | undefined; scores: Float64Array } {
    this.holders.add(holder.ref);
    return { docs: docs ? new Uint32Array(n) : undefined, scores: new Float64Array(n) };
  }

  /** Every holder drops its kept lists (the arena about to be filled again may hold them). */
  dropAll(): void {
    const holders = [...this.holders];
    this.holders.clear();
    for (const ref of holders) ref.deref()?.dropLists();
  }

  /**
   * `holder` dropped its lists (its index changed, or closed) and keeps none until its next take.
   * When no other live holder keeps any, the arena in use is filled again from its start.
   */
  release(holder: ListHolder): void {
    this.holders.delete(holder.ref);
    for (const ref of this.holders) {
      if (ref.deref() !== undefined) return;
      this.holders.delete(ref);
    }
    this.used = 0;
  }

  /** Bytes of the arenas allocated now (not counting lists that outgrew them, or pairs a switch let go) */
  get bytes(): number {
    return this.pairs.reduce((sum, pair) => sum + pair.docs.byteLength + pair.scores.byteLength, 0);
  }

  /** How many searches may keep lists in the arenas now (weakly held; for tests) */
  get holderCount(): number {
    return this.holders.size;
  }
}

let shared = new ListArenas();

/** The arenas of every top-k search in this thread. */
export function listArenas(): ListArenas {
  return shared;
}

/** New arenas for the process (every list kept in the old ones dropped): after a change of LIST_ARENA, in tests. */
export function resetListArenas(): ListArenas {
  shared.dropAll();
  shared = new ListArenas();
  return shared;
}
