// Postings held compactly in typed arrays once they grow (see PackedPostings).
import type { TermData } from './postings.js';

/** Where `id` is among the first `count` values of ascending `ids` (a binary search), or -1. */
export function indexOfSorted(ids: Uint32Array, count: number, id: number): number {
  let lo = 0;
  let hi = count - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const at = ids[mid] as number;
    if (at === id) return mid;
    if (at < id) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/** A field's postings are packed once they hold this many: smaller Maps cost little either way */
const PACK_AT = 16;

/** Term frequencies in a byte each, widened to two or four bytes when one does not fit */
export type Frequencies = Uint8Array | Uint16Array | Uint32Array;

/** `freqs` copied into an array of the smallest kind that holds `freq` too, with room for `capacity`. */
function widened(freqs: Frequencies, freq: number, capacity: number): Frequencies {
  const wide =
    freq <= 0xff
      ? new Uint8Array(capacity)
      : freq <= 0xffff
        ? new Uint16Array(capacity)
        : new Uint32Array(capacity);
  wide.set(freqs);
  return wide;
}

/** The largest frequency `freqs` holds */
function largest(freqs: Frequencies): number {
  return freqs instanceof Uint8Array ? 0xff : freqs instanceof Uint16Array ? 0xffff : 0xffffffff;
}

/**
 * One field's postings of one term, as TermIndex keeps them (`Map<shortId, frequency>`), held in
 * two typed arrays instead of a hash table: 5 bytes a posting instead of about 40. A cold index at
 * 100,000 notes holds 12.5 million postings, and as Maps they were 600 MB of its peak. The
 * frequencies take a byte each (a word seldom comes 256 times in one field of one section), and
 * two or four when one does not fit: 4 bytes each were some 45 MiB of that peak.
 *
 * Short ids only grow (TermIndex never reuses one), so postings arrive in increasing id order
 * and are appended; a lookup is a binary search, or the posting just iterated or just added. A
 * deleted posting (a vacuum drops discarded documents' lazily) is kept as a frequency of 0 and
 * skipped, so iteration order stays insertion order, exactly as a Map's. Anything else (an id
 * below the last, a deleted one set again) turns it into an ordinary Map, in the same order.
 */
export class PackedPostings extends Map<number, number> {
  private ids: Uint32Array;
  private freqs: Frequencies;
  /** Postings stored, deleted ones included */
  private count = 0;
  /** Postings not deleted */
  private live = 0;
  /** Where the last lookup or iteration step was: a vacuum deletes `id` right after iterating to it */
  private cursor = 0;
  /** Turned into an ordinary Map: every method is Map's own from then on */
  private plain = false;

  constructor(from: Map<number, number>) {
    super();
    const capacity = Math.max(PACK_AT, from.size + (from.size >> 2));
    this.ids = new Uint32Array(capacity);
    this.freqs = new Uint8Array(capacity);
    for (const [id, freq] of from) this.set(id, freq);
  }

  /**
   * The arrays themselves, for a reader that walks every posting (the top-k search scores each
   * one): the first `count` slots, in order, a frequency of 0 marking a deleted posting; undefined
   * once this has become an ordinary Map. Valid until the next change.
   */
  packed(): { ids: Uint32Array; freqs: Frequencies; count: number } | undefined {
    return this.plain ? undefined : { ids: this.ids, freqs: this.freqs, count: this.count };
  }

  /** Whether a Map's ids are in increasing order and fit, so it can be packed keeping its order. */
  static canPack(map: Map<number, number>): boolean {
    let last = -1;
    for (const [id, freq] of map) {
      if (!(id > last) || !Number.isInteger(id) || id > 0xffffffff) return false;
      if (!Number.isInteger(freq) || freq < 1 || freq > 0xffffffff) return false;
      last = id;
    }
    return true;
  }

  private find(id: number): number {
    const { ids, cursor, count } = this;
    if (cursor < count && ids[cursor] === id) return cursor;
    if (count === 0) return -1;
    const last = ids[count - 1] as number;
    // Adding a document asks for each of its terms first: an id past the end is the common miss.
    if (id >= last) return id === last ? count - 1 : -1;
    return indexOfSorted(ids, count, id);
  }

  /** Becomes an ordinary Map holding the live postings in their order. */
  private unpack(): void {
    const { ids, freqs, count } = this;
    this.plain = true;
    for (let i = 0; i < count; i++) if (freqs[i] !== 0) super.set(ids[i] as number, freqs[i] as number);
    this.ids = new Uint32Array(0);
    this.freqs = new Uint8Array(0);
    this.count = 0;
    this.live = 0;
  }

  override get size(): number {
    return this.plain ? super.size : this.live;
  }

  override get(id: number): number | undefined {
    if (this.plain) return super.get(id);
    const at = this.find(id);
    if (at < 0) return undefined;
    this.cursor = at;
    const freq = this.freqs[at] as number;
    return freq === 0 ? undefined : freq;
  }

  override has(id: number): boolean {
    return this.get(id) !== undefined;
  }

  override set(id: number, freq: number): this {
    if (this.plain) return super.set(id, freq);
    const fits = Number.isInteger(freq) && freq >= 1 && freq <= 0xffffffff;
    const { count } = this;
    if (
      fits &&
      Number.isInteger(id) &&
      id >= 0 &&
      id <= 0xffffffff &&
      (count === 0 || id > (this.ids[count - 1] as number))
    ) {
      if (count === this.ids.length) this.grow();
      if (freq > largest(this.freqs)) this.freqs = widened(this.freqs, freq, this.ids.length);
      this.ids[count] = id;
      this.freqs[count] = freq;
      this.count = count + 1;
      this.live++;
      this.cursor = count;
      return this;
    }
    const at = fits ? this.find(id) : -1;
    if (at >= 0 && this.freqs[at] !== 0) {
      if (freq > largest(this.freqs)) this.freqs = widened(this.freqs, freq, this.ids.length);
      this.freqs[at] = freq;
      this.cursor = at;
      return this;
    }
    this.unpack();
    return super.set(id, freq);
  }

  override delete(id: number): boolean {
    if (this.plain) return super.delete(id);
    const at = this.find(id);
    if (at < 0 || this.freqs[at] === 0) return false;
    this.freqs[at] = 0;
    this.live--;
    return true;
  }

  override clear(): void {
    if (this.plain) {
      super.clear();
      return;
    }
    this.count = 0;
    this.live = 0;
    this.cursor = 0;
  }

  private grow(): void {
    const capacity = this.ids.length + (this.ids.length >> 1) + 16;
    const ids = new Uint32Array(capacity);
    ids.set(this.ids);
    const freqs = new (this.freqs.constructor as new (length: number) => Frequencies)(capacity);
    freqs.set(this.freqs);
    this.ids = ids;
    this.freqs = freqs;
  }

  override forEach(fn: (value: number, key: number, map: Map<number, number>) => void, self?: unknown): void {
    if (this.plain) super.forEach(fn, self);
    else for (const [id, freq] of this.entries()) fn.call(self, freq, id, this);
  }

  override keys(): MapIterator<number> {
    return this.plain ? super.keys() : this.walk((id) => id);
  }

  override values(): MapIterator<number> {
    return this.plain ? super.values() : this.walk((_id, freq) => freq);
  }

  override entries(): MapIterator<[number, number]> {
    return this.plain ? super.entries() : this.walk((id, freq): [number, number] => [id, freq]);
  }

  override [Symbol.iterator](): MapIterator<[number, number]> {
    return this.entries();
  }

  /** Live postings in order; a posting deleted or added during the walk is seen as a Map would show it. */
  private walk<T>(pick: (id: number, freq: number) => T): MapIterator<T> {
    let i = 0;
    const self = this;
    const iterator = {
      next(): IteratorResult<T, undefined> {
        if (self.plain) return { done: true, value: undefined };
        while (i < self.count) {
          const at = i++;
          const freq = self.freqs[at] as number;
          if (freq === 0) continue;
          self.cursor = at;
          return { done: false, value: pick(self.ids[at] as number, freq) };
        }
        return { done: true, value: undefined };
      },
      [Symbol.iterator]() {
        return iterator;
      },
    };
    return iterator as unknown as MapIterator<T>;
  }
}

/**
 * Packs every field's postings of a term that has grown to PACK_AT or more (see PackedPostings).
 * Postings still in their saved bytes (see saved-postings.ts) are left as they are by the caller.
 */
export function packTerm(data: TermData): void {
  for (const [fieldId, postings] of data) {
    if (postings instanceof PackedPostings || postings.size < PACK_AT || !PackedPostings.canPack(postings))
      continue;
    data.set(fieldId, new PackedPostings(postings));
  }
}
