// MiniSearch 7.x's private state, in one place. The cache (text-index-store.ts), the top-k search
// (top-k-search.ts) and the posting packer read it directly because MiniSearch's public API copies
// or scores everything; `internalsOf` checks its shape, so a MiniSearch upgrade that changed it
// fails with one clear error instead of wrong answers.
import type MiniSearch from 'minisearch';
import { MemError } from '../core/errors.js';

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

/** The MiniSearch version whose private state this module was written against (package.json pins it). */
export const MINISEARCH_VERSION = '7.2.0';

/** Each private field read here, with the test its value must pass. */
const SHAPE: Array<[field: string, holds: (state: Partial<MiniSearchState>) => boolean]> = [
  ['_documentIds', (s) => s._documentIds instanceof Map],
  ['_idToShortId', (s) => s._idToShortId instanceof Map],
  ['_fieldLength', (s) => s._fieldLength instanceof Map],
  ['_storedFields', (s) => s._storedFields instanceof Map],
  ['_index._tree', (s) => s._index?._tree instanceof Map],
  ['_index._prefix', (s) => s._index?._prefix === ''],
  ['_documentCount', (s) => typeof s._documentCount === 'number'],
  ['_nextId', (s) => typeof s._nextId === 'number'],
  ['_avgFieldLength', (s) => Array.isArray(s._avgFieldLength)],
];

/**
 * MiniSearch's private state, or an error that says which private field is not as expected: an
 * installed MiniSearch other than the pinned one would otherwise give wrong answers, not errors.
 */
export function internalsOf(miniSearch: MiniSearch<never> | MiniSearch<object>): MiniSearchState {
  const state = miniSearch as unknown as Partial<MiniSearchState>;
  const off = SHAPE.filter(([, holds]) => !holds(state)).map(([field]) => field);
  if (off.length > 0) {
    throw new MemError(
      'INVALID_CONFIG',
      `the installed minisearch is not the version memvault was built for (${MINISEARCH_VERSION}): ` +
        `its private field${off.length > 1 ? 's' : ''} ${off.join(', ')} ${off.length > 1 ? 'are' : 'is'} ` +
        `missing or of another type. Install minisearch@${MINISEARCH_VERSION} (npm install minisearch@${MINISEARCH_VERSION}).`,
    );
  }
  return state as MiniSearchState;
}
