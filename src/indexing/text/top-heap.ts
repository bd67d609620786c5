// The best few documents of a search, kept as a heap while the matches stream past.

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

  /** Each document held and its score, in no particular order. */
  forEach(visit: (doc: number, score: number) => void): void {
    for (let i = 0; i < this.docs.length; i++) visit(this.docs[i] as number, this.scores[i] as number);
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
