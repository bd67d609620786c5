// The terms of one terms segment, as a hash table the segment carries: a load copies three typed
// arrays and makes no string, Map entry or object per term, and a lookup hashes the asked term's
// UTF-16 code units and compares them with the saved ones. Before, a load parsed every term out of
// JSON into a string and a Map: some 0.85 MiB of each loaded 1,000-note vault of a
// `mem serve --vaults` pool (13,000 terms), where these arrays are 0.25 MiB.
//
// Bytes (little-endian): u32 term count, u32 slot count (a power of two), then u32 × (count + 1)
// the ends of the terms in code units (the first 0), u32 × slots the table (a term's place + 1, or
// 0 for an empty slot; linear probing from the term's hash), then the terms' UTF-16 code units.
// UTF-16, not UTF-8: a term is compared and hashed as the string it is, lone surrogates included.

/** Whether this machine's typed arrays read little-endian words as they are */
const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/** FNV-1a over a string's UTF-16 code units. */
export function termHash(term: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < term.length; i++) hash = Math.imul(hash ^ term.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}

/** The slot count for `count` terms: a power of two with at least half the slots empty. */
function slotCount(count: number): number {
  let slots = 8;
  while (slots < count * 2) slots *= 2;
  return slots;
}

/** The dictionary bytes of `terms` (distinct, in their order in the segment). */
export function encodeTermDictionary(terms: readonly string[]): Uint8Array {
  const count = terms.length;
  const slots = slotCount(count);
  let units = 0;
  for (const term of terms) units += term.length;
  const words = 2 + count + 1 + slots;
  const out = Buffer.alloc(4 * words + 2 * units);
  out.writeUInt32LE(count, 0);
  out.writeUInt32LE(slots, 4);
  const table = new Uint32Array(slots);
  let end = 0;
  out.writeUInt32LE(0, 8);
  for (let i = 0; i < count; i++) {
    const term = terms[i] as string;
    out.write(term, 4 * words + 2 * end, 'utf16le');
    end += term.length;
    out.writeUInt32LE(end, 12 + 4 * i);
    let slot = termHash(term) & (slots - 1);
    while (table[slot] !== 0) slot = (slot + 1) & (slots - 1);
    table[slot] = i + 1;
  }
  const tableAt = 4 * (3 + count);
  for (let s = 0; s < slots; s++) out.writeUInt32LE(table[s] as number, tableAt + 4 * s);
  return out;
}

/** Little-endian u32 words of `bytes` from `at`, copied into an array of their own. */
function wordsAt(bytes: Uint8Array, at: number, count: number): Uint32Array {
  const words = new Uint32Array(count);
  if (LITTLE_ENDIAN) new Uint8Array(words.buffer).set(bytes.subarray(at, at + 4 * count));
  else {
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    for (let i = 0; i < count; i++) words[i] = view.getUint32(at + 4 * i, true);
  }
  return words;
}

/** One segment's terms, read from its dictionary bytes (copied: the bytes are not kept). */
export class TermDictionary {
  readonly count: number;
  /** Where each term ends in `units`, in 2 bytes a term when the segment has at most 65,535 code units */
  private readonly ends: Uint16Array | Uint32Array;
  /** Each slot's term place + 1 (0: empty), in 2 bytes a slot when the segment has fewer than 65,535 terms */
  private readonly table: Uint16Array | Uint32Array;
  private readonly units: Uint16Array;

  /** Throws when the bytes do not hold a whole dictionary, or its ends or table point outside it. */
  constructor(bytes: Uint8Array) {
    if (bytes.length < 12) throw new Error('a terms segment has no term dictionary');
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const count = view.getUint32(0, true);
    const slots = view.getUint32(4, true);
    if (slots < 8 || (slots & (slots - 1)) !== 0 || slots < count * 2) {
      throw new Error('the term dictionary of a terms segment has a bad table');
    }
    const unitsAt = 4 * (3 + count + slots);
    if (unitsAt > bytes.length || (bytes.length - unitsAt) % 2 !== 0) {
      throw new Error('the term dictionary of a terms segment is cut short');
    }
    this.count = count;
    const ends = wordsAt(bytes, 8, count + 1);
    const table = wordsAt(bytes, 4 * (3 + count), slots);
    this.table = count < 0xffff ? Uint16Array.from(table) : table;
    const unitCount = (bytes.length - unitsAt) / 2;
    this.units = new Uint16Array(unitCount);
    if (LITTLE_ENDIAN) new Uint8Array(this.units.buffer).set(bytes.subarray(unitsAt));
    else for (let i = 0; i < unitCount; i++) this.units[i] = view.getUint16(unitsAt + 2 * i, true);
    let previous = 0;
    for (let i = 0; i <= count; i++) {
      const end = ends[i] as number;
      // Every term but none is empty, and the last ends where the code units do.
      if ((i === 0 ? end !== 0 : end <= previous) || end > unitCount) {
        throw new Error('the term dictionary of a terms segment has a bad term');
      }
      previous = end;
    }
    if (previous !== unitCount) throw new Error('the term dictionary of a terms segment has a bad term');
    // Checked: every end is at most unitCount.
    this.ends = unitCount <= 0xffff ? Uint16Array.from(ends) : ends;
  }

  /** The place of `term` (hashed with termHash) in the segment, or -1. */
  find(term: string, hash: number): number {
    const { table, ends, units } = this;
    const mask = table.length - 1;
    for (let slot = hash & mask, probes = 0; probes <= mask; slot = (slot + 1) & mask, probes++) {
      const entry = table[slot] as number;
      if (entry === 0) return -1;
      const i = entry - 1;
      if (i >= this.count) throw new Error('the term dictionary of a terms segment has a bad table');
      const start = ends[i] as number;
      if ((ends[i + 1] as number) - start !== term.length) continue;
      let same = true;
      for (let k = 0; k < term.length; k++) {
        if (units[start + k] !== term.charCodeAt(k)) {
          same = false;
          break;
        }
      }
      if (same) return i;
    }
    return -1;
  }

  /** Term `i`'s first code unit (as String#charCodeAt(0) gives it) */
  firstUnit(i: number): number {
    return this.units[this.ends[i] as number] as number;
  }

  /** Term `i` as a string. */
  term(i: number): string {
    const start = this.ends[i] as number;
    const end = this.ends[i + 1] as number;
    if (!LITTLE_ENDIAN) return String.fromCharCode(...this.units.subarray(start, end));
    return Buffer.from(this.units.buffer, this.units.byteOffset + 2 * start, 2 * (end - start)).toString(
      'utf16le',
    );
  }
}
