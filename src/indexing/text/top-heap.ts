// The best few documents of a search: kept as a heap while the matches stream past (TopHeap), or
// taken in rank order from all of them (RankOrder).

/**
 * The best `size` documents seen so far, worst at the root: lower score, then the larger id (so
 * ids ascend among equal scores, as the final order has them).
 */
export class TopHeap {
  private readonly docs: number[] = [];
  private readonly scores: number[] = [];

  constructor(
    private readonly size: number,
    /** A document's id, for the order among equal scores */
    private readonly idOf: (doc: number) => string | undefined,
  ) {}

  /** Whether a document with this score would enter now. */
  admits(doc: number, score: number): boolean {
    if (this.size === 0) return false;
    if (this.docs.length < this.size) return true;
    return this.worse(this.docs[0] as number, this.scores[0] as number, doc, score);
  }

  push(doc: number, score: number): void {
    if (this.docs.length < this.size) {
      this.docs.push(doc);
      this.scores.push(score);
      this.up(this.docs.length - 1);
    } else {
      this.docs[0] = doc;
      this.scores[0] = score;
      this.down(0);
    }
  }

  /** Best first. */
  sorted(): Array<{ doc: number; score: number }> {
    const all = this.docs.map((doc, i) => ({ doc, score: this.scores[i] as number }));
    return all.sort((x, y) => (this.worse(x.doc, x.score, y.doc, y.score) ? 1 : -1));
  }

  /** Whether document a ranks below document b. */
  private worse(a: number, scoreA: number, b: number, scoreB: number): boolean {
    if (scoreA !== scoreB) return scoreA < scoreB;
    return (this.idOf(a) as string) > (this.idOf(b) as string);
  }

  /** Whether the document in slot i ranks below the one in slot j. */
  private below(i: number, j: number): boolean {
    return this.worse(
      this.docs[i] as number,
      this.scores[i] as number,
      this.docs[j] as number,
      this.scores[j] as number,
    );
  }

  private up(i: number): void {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.below(i, parent)) break;
      this.swap(i, parent);
      i = parent;
    }
  }

  private down(i: number): void {
    const n = this.docs.length;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let worst = i;
      if (left < n && this.below(left, worst)) worst = left;
      if (right < n && this.below(right, worst)) worst = right;
      if (worst === i) return;
      this.swap(i, worst);
      i = worst;
    }
  }

  private swap(i: number, j: number): void {
    const doc = this.docs[i] as number;
    const score = this.scores[i] as number;
    this.docs[i] = this.docs[j] as number;
    this.scores[i] = this.scores[j] as number;
    this.docs[j] = doc;
    this.scores[j] = score;
  }
}

/**
 * The matches of a top-k search in rank order, taken from the best down only as far as the search
 * needs them: `docs[0..count)` as a heap by score alone (each document's in `scores`), the best at
 * the root; `docs` is the heap's own room (its first `count` entries are reordered).
 *
 * Equal scores are put in order by id, and a loaded index reads an id from its segment files. A
 * TopHeap of the best `limit`, each match compared with its worst as they streamed past, read the
 * ids of every match that tied with that worst on the way: some 1,500 a recall at 100,000 notes,
 * where about 30 tied at the final cut. Here only the ids of matches that tie at a score the
 * search reaches are read.
 */
export class RankOrder {
  private size: number;

  constructor(
    private readonly docs: Uint32Array,
    private readonly scores: Float64Array,
    count: number,
  ) {
    this.size = count;
    for (let i = (count >> 1) - 1; i >= 0; i--) this.down(i);
  }

  /**
   * The documents of the best score left, in ascending order of their ids (read only when more
   * than one holds it), with that score; undefined when none is left.
   */
  next(idOf: (doc: number) => string): { docs: number[]; score: number } | undefined {
    if (this.size === 0) return undefined;
    const score = this.scores[this.docs[0] as number] as number;
    const docs = [this.pop()];
    while (this.size > 0 && this.scores[this.docs[0] as number] === score) docs.push(this.pop());
    if (docs.length === 1) return { docs, score };
    const ids = docs.map(idOf);
    const order = docs.map((_, k) => k).sort((a, b) => compare(ids[a] as string, ids[b] as string));
    return { docs: order.map((k) => docs[k] as number), score };
  }

  private pop(): number {
    const best = this.docs[0] as number;
    this.size--;
    if (this.size > 0) {
      this.docs[0] = this.docs[this.size] as number;
      this.down(0);
    }
    return best;
  }

  private down(i: number): void {
    const { docs, scores, size } = this;
    const doc = docs[i] as number;
    const score = scores[doc] as number;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= size) break;
      const right = left + 1;
      let child = left;
      if (
        right < size &&
        (scores[docs[right] as number] as number) > (scores[docs[left] as number] as number)
      )
        child = right;
      const childDoc = docs[child] as number;
      if (!((scores[childDoc] as number) > score)) break;
      docs[i] = childDoc;
      i = child;
    }
    docs[i] = doc;
  }
}

/** Code-unit order, as `<` compares strings (TopHeap's order among equal scores). */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
