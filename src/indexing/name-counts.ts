import { basenameOf, foldPath } from '../vault/links/resolve-link.js';

/** File names compare as link resolution compares them (NFC, case-insensitive). */
export function nameKey(path: string): string {
  return foldPath(basenameOf(path));
}

/**
 * How many of a set of paths share each file name (folded as nameKey folds it), kept as paths
 * come and go. Made in one pass over the paths into one typed array: each path gives a hash of
 * its folded name, read off its characters without making the name when they are ASCII (then the
 * fold is their lower case). A count is a native search of that array for the name's hash, and
 * folds only the paths found (0.05 ms at 100,000 paths). At 100,000 notes the Map of folded names
 * this replaces cost 54 ms of a fresh recall, a fold, a string and a map entry per note.
 */
export class NameCounts {
  /** The paths by entry; undefined: removed */
  private entries: Array<string | undefined>;
  /** The hash of each entry's folded name (hashOfPath); `entries.length` of them are used */
  private hashes: Int32Array;
  private removed = 0;
  /** Counts asked for so far, until the entries are sorted (see sort()) */
  private counted = 0;
  /** The entries up to sortedUpTo, sorted by hash (see sort()); undefined until then */
  private sorted: Float64Array | undefined;
  private sortedUpTo = 0;

  constructor(paths: Iterable<string> = []) {
    this.entries = [...paths];
    this.hashes = new Int32Array(Math.max(16, this.entries.length));
    for (let i = 0; i < this.entries.length; i++) this.hashes[i] = hashOfPath(this.entries[i] as string);
  }

  get size(): number {
    return this.entries.length - this.removed;
  }

  /** Adds a path; the caller adds each path once (as VaultIndex adds a note new to it). */
  add(path: string): void {
    const at = this.entries.length;
    if (at === this.hashes.length) {
      const grown = new Int32Array(at * 2);
      grown.set(this.hashes);
      this.hashes = grown;
    }
    this.entries.push(path);
    this.hashes[at] = hashOfPath(path);
  }

  /** Removes a path; false when it was not there. */
  remove(path: string): boolean {
    const at = this.find(hashOfPath(path), (entry) => entry === path);
    if (at === -1) return false;
    this.entries[at] = undefined;
    // Removed entries keep their hash (a count passes them by) until they are half of the array.
    if (++this.removed * 2 > this.entries.length) this.compact();
    return true;
  }

  /** How many paths have the file name `name`, folded (`note.md`). */
  count(name: string): number {
    let found = 0;
    const test = (entry: string | undefined) => {
      if (entry !== undefined && nameKey(entry) === name) found++;
      return false;
    };
    const hash = hashOfName(name);
    if (this.sorted === undefined && ++this.counted > SORT_AFTER && this.entries.length < MAX_SORTED)
      this.sort();
    const sorted = this.sorted;
    if (sorted === undefined) {
      this.find(hash, test);
      return found;
    }
    // The entries sorted by hash, found by a binary search; then those added since, one by one.
    const high = (hash + 2 ** 31) * MAX_SORTED;
    let low = 0;
    let top = sorted.length;
    while (low < top) {
      const middle = (low + top) >>> 1;
      if ((sorted[middle] as number) < high) low = middle + 1;
      else top = middle;
    }
    for (let i = low; i < sorted.length && (sorted[i] as number) < high + MAX_SORTED; i++) {
      test(this.entries[(sorted[i] as number) - high]);
    }
    for (let at = this.sortedUpTo; at < this.entries.length; at++) {
      if (this.hashes[at] === hash) test(this.entries[at]);
    }
    // Too many added since: sorted again at a later count.
    if (this.entries.length - this.sortedUpTo > MAX_UNSORTED) this.sorted = undefined;
    return found;
  }

  /**
   * Each entry as (its hash + 2^31) × MAX_SORTED + its position, sorted: a count is then a binary
   * search, not a pass over every path (a recall cites dozens of notes, and a pass over 100,000
   * paths per citation cost a server's recall 5 ms at 100,000 notes).
   */
  private sort(): void {
    const keys = new Float64Array(this.entries.length);
    for (let at = 0; at < keys.length; at++)
      keys[at] = ((this.hashes[at] as number) + 2 ** 31) * MAX_SORTED + at;
    this.sorted = keys.sort();
    this.sortedUpTo = keys.length;
  }

  /** The first entry of that hash `test` holds for, calling it with each in turn; -1: none. */
  private find(hash: number, test: (entry: string | undefined) => boolean): number {
    const used = this.hashes.subarray(0, this.entries.length);
    for (let at = used.indexOf(hash); at !== -1; at = used.indexOf(hash, at + 1)) {
      if (test(this.entries[at])) return at;
    }
    return -1;
  }

  private compact(): void {
    const kept: string[] = [];
    const hashes = new Int32Array(this.hashes.length);
    this.entries.forEach((entry, at) => {
      if (entry === undefined) return;
      hashes[kept.length] = this.hashes[at] as number;
      kept.push(entry);
    });
    this.entries = kept;
    this.hashes = hashes;
    this.removed = 0;
    // Positions moved: sorted again at a later count.
    this.sorted = undefined;
  }
}

/** Counts made by a pass over every entry before they are sorted: a command's few citations never pay for a sort */
const SORT_AFTER = 64;
/** Entries a sort key has room for (2^21: a key is below 2^53); more are only ever counted by a pass */
const MAX_SORTED = 2 ** 21;
/** Entries added after a sort before the next one */
const MAX_UNSORTED = 1024;

const FNV_OFFSET = 0x811c9dc5 | 0;
const FNV_PRIME = 0x01000193;

/** FNV-1a over the UTF-16 code units of a folded name. */
export function hashOfName(name: string): number {
  let hash = FNV_OFFSET;
  for (let i = 0; i < name.length; i++) hash = Math.imul(hash ^ name.charCodeAt(i), FNV_PRIME);
  return hash;
}

/**
 * hashOfName(nameKey(path)), without making the name when it is ASCII: NFC leaves ASCII as it is
 * and lower-casing maps only A-Z, each to one character.
 */
export function hashOfPath(path: string): number {
  let hash = FNV_OFFSET;
  for (let i = path.lastIndexOf('/') + 1; i < path.length; i++) {
    let code = path.charCodeAt(i);
    if (code >= 0x80) return hashOfName(nameKey(path));
    if (code >= 0x41 && code <= 0x5a) code += 0x20;
    hash = Math.imul(hash ^ code, FNV_PRIME);
  }
  return hash;
}
