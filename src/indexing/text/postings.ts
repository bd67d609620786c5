// The in-memory postings of the text index: what a term holds in each field. Types only, so the
// engine (term-index.ts), the top-k search and the on-disk format (text-index-store.ts) share them.

/** One field's postings of one term: short id → term frequency */
export type Postings = Map<number, number>;
/** One term's postings: field id → its postings */
export type TermData = Map<number, Postings>;
