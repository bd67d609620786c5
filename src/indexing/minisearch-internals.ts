// MiniSearch 7.x's private state, in one place. The cache (text-index-store.ts), the top-k search
// (top-k-search.ts) and the posting packer read it directly because MiniSearch's public API copies
// or scores everything; `internalsOf` checks its shape, so a MiniSearch upgrade that changed it
// fails with one clear error instead of wrong answers.
import type MiniSearch from 'minisearch';

/** One field's postings of one term: short id → term frequency */
export type Postings = Map<number, number>;
/** One term's postings: field id → its postings */
export type TermData = Map<number, Postings>;
/** A node of MiniSearch's radix tree: edge label → child node, and `''` → the data of the term ending here */
export type TreeNode = Map<string, TreeNode | TermData>;

export interface MiniSearchState {
  _index: {
    _tree: TreeNode;
    _prefix: string;
    constructor: new (tree: TreeNode) => MiniSearchState['_index'];
    get(term: string): TermData | undefined;
    atPrefix(prefix: string): Iterable<[string, TermData]>;
    fuzzyGet(term: string, maxDistance: number): Map<string, [TermData, number]>;
  };
  _documentIds: Map<number, string>;
  _idToShortId: Map<string, number>;
  _fieldLength: Map<number, number[]>;
  _storedFields: Map<number, Record<string, unknown> | undefined>;
  _documentCount: number;
  _nextId: number;
  _fieldIds: Record<string, number>;
  _avgFieldLength: number[];
  _dirtCount: number;
  _options: {
    fields: string[];
    searchOptions: {
      boost?: Record<string, number>;
      weights?: { fuzzy?: number; prefix?: number };
      maxFuzzy?: number;
      bm25?: { k: number; b: number; d: number };
    };
  };
}

/** MiniSearch's private state, or a clear error when a MiniSearch upgrade changed it. */
export function internalsOf(miniSearch: MiniSearch<never> | MiniSearch<object>): MiniSearchState {
  const state = miniSearch as unknown as Partial<MiniSearchState>;
  const ok =
    state._documentIds instanceof Map &&
    state._idToShortId instanceof Map &&
    state._fieldLength instanceof Map &&
    state._storedFields instanceof Map &&
    state._index?._tree instanceof Map &&
    state._index._prefix === '' &&
    typeof state._documentCount === 'number' &&
    typeof state._nextId === 'number' &&
    Array.isArray(state._avgFieldLength);
  if (!ok) throw new Error('this version of minisearch keeps its index in another shape; the cache is off');
  return state as MiniSearchState;
}
