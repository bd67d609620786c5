// A hash map in front of MiniSearch's radix tree, for the exact-term lookups of add() and search().
import type MiniSearch from 'minisearch';
import type { TermData } from './minisearch-internals.js';

/** The three methods of MiniSearch 7's SearchableMap that add(), search() and vacuum() call by term. */
interface TermTree {
  fetch(term: string, initial: () => TermData): TermData;
  get(term: string): TermData | undefined;
  delete(term: string): void;
}

const MEMO = Symbol('memvault.termMemo');

/**
 * Puts a Map from term to its postings in front of the index's radix tree. Every term of every
 * section goes through `fetch()`, which walks the tree from the root and, at each node, scans its
 * children one by one: with Chinese text the root has a child per character (515 at 10,000 notes),
 * and that scan was 18 % of a cold index. The Map holds the very objects the tree holds, so the
 * index is the same as without it; a term deleted from the tree (vacuum) is dropped from the Map.
 * Installed on the tree object itself, so an index that replaces its tree (`removeAll`, a cache
 * load) simply gets a fresh memo the next time this is called.
 */
export function memoizeTerms(miniSearch: MiniSearch<never> | MiniSearch<object>): void {
  const tree = (miniSearch as unknown as { _index?: TermTree & { [MEMO]?: true } })._index;
  if (!tree || tree[MEMO] || typeof tree.fetch !== 'function' || typeof tree.get !== 'function') return;
  const memo = new Map<string, TermData>();
  const { fetch, get } = tree;
  const remove = tree.delete;
  tree.fetch = function (term, initial) {
    let data = memo.get(term);
    if (data === undefined) {
      data = fetch.call(this, term, initial);
      memo.set(term, data);
    }
    return data;
  };
  tree.get = function (term) {
    const known = memo.get(term);
    if (known !== undefined) return known;
    const data = get.call(this, term);
    if (data !== undefined) memo.set(term, data);
    return data;
  };
  tree.delete = function (term) {
    memo.delete(term);
    remove.call(this, term);
  };
  tree[MEMO] = true;
}
