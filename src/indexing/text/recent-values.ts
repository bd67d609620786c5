// What a restored text index decodes from its saved documents as searches ask (a hit's id, its
// stored fields), kept while recently read. Kept once decoded, they grew with every new word a
// server was asked: 150,000 ids and stored objects, some 25 MiB of a 100,000-note vault's heap,
// after 1,000 queries. Two generations of at most `limit` values each: a read finds a value in
// `young`, one found in `old` moves to `young`; a full `young` becomes `old` and the old `old` goes.

export class RecentValues<T, K = number> {
  private young = new Map<K, T>();
  private old = new Map<K, T>();

  constructor(private readonly limit: number) {}

  get(slot: K): T | undefined {
    const young = this.young.get(slot);
    if (young !== undefined) return young;
    const old = this.old.get(slot);
    if (old !== undefined) {
      this.old.delete(slot);
      this.set(slot, old);
    }
    return old;
  }

  set(slot: K, value: T): void {
    if (this.young.size >= this.limit) {
      this.old = this.young;
      this.young = new Map();
    }
    this.young.set(slot, value);
  }

  /** How many values are kept */
  get count(): number {
    return this.young.size + this.old.size;
  }
}
