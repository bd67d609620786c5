// Section vectors in typed arrays: one row per vector, keyed by the 32-byte sha256 of the text
// embedded. Vectors are normalized when stored, so a dot product is their cosine. Two encodings:
// Float32 (4 bytes a dimension) or int8 with one Float32 scale per vector (1 byte a dimension).
// Keys are found through an open-addressing table over the keys' first word (sha256 is uniform), so
// a store read from a file is usable without making a string or an object per vector.

export type VectorEncoding = 'float32' | 'int8';

/** The rows a top-k scan reads: `count` vectors of `dims`, in one of the two encodings. */
export interface VectorRows {
  readonly dims: number;
  readonly count: number;
  /** Float32: `count * dims` values. Int8: undefined */
  readonly f32: Float32Array | undefined;
  /** Int8: `count * dims` values, vector i being `i8[i*dims ..] * scales[i]` */
  readonly i8: Int8Array | undefined;
  readonly scales: Float32Array | undefined;
}

/** 8 words (32 bytes) per key */
export const KEY_WORDS = 8;

/** The arrays a store is made of; a loaded file's are views of its bytes, sized exactly. */
export interface StoreArrays {
  encoding: VectorEncoding;
  dims: number;
  count: number;
  keys: Int32Array;
  f32?: Float32Array;
  i8?: Int8Array;
  scales?: Float32Array;
}

/** An sha256 digest (32 bytes) as 8 little-endian words. */
export function keyWords(digest: Uint8Array, out = new Int32Array(KEY_WORDS)): Int32Array {
  const view = new DataView(digest.buffer, digest.byteOffset, digest.byteLength);
  for (let w = 0; w < KEY_WORDS; w++) out[w] = view.getInt32(w * 4, true);
  return out;
}

export class VectorStore implements VectorRows {
  readonly encoding: VectorEncoding;
  readonly dims: number;
  count: number;
  private keys: Int32Array;
  f32: Float32Array | undefined;
  i8: Int8Array | undefined;
  scales: Float32Array | undefined;
  /** slot + 1 per table entry (0 = empty); the table has a power-of-two size, at most half full */
  private table: Int32Array = new Int32Array(0);
  private scratch: Float64Array;

  constructor(arrays: StoreArrays) {
    this.encoding = arrays.encoding;
    this.dims = arrays.dims;
    this.count = arrays.count;
    this.keys = arrays.keys;
    this.f32 = arrays.f32;
    this.i8 = arrays.i8;
    this.scales = arrays.scales;
    this.scratch = new Float64Array(arrays.dims);
    this.rehash(Math.max(16, this.count * 2));
  }

  static empty(encoding: VectorEncoding, dims: number): VectorStore {
    return new VectorStore({ encoding, dims, count: 0, keys: new Int32Array(0) });
  }

  get capacity(): number {
    return this.keys.length / KEY_WORDS;
  }

  /** The slot of a key (8 words), -1 when absent. */
  find(key: Int32Array): number {
    const mask = this.table.length - 1;
    for (let i = (key[0] ?? 0) & mask; ; i = (i + 1) & mask) {
      const entry = this.table[i] ?? 0;
      if (entry === 0) return -1;
      if (this.keyEquals(entry - 1, key)) return entry - 1;
    }
  }

  /**
   * The slot whose key starts with these two words (the second without its top bit), -1 when none:
   * how an index keyed by 63 bits of the key finds a slot.
   */
  findPrefix(word0: number, word1: number): number {
    const mask = this.table.length - 1;
    const w1 = word1 & 0x7fffffff;
    for (let i = word0 & mask; ; i = (i + 1) & mask) {
      const entry = this.table[i] ?? 0;
      if (entry === 0) return -1;
      const at = (entry - 1) * KEY_WORDS;
      if (this.keys[at] === word0 && ((this.keys[at + 1] ?? 0) & 0x7fffffff) === w1) return entry - 1;
    }
  }

  /** The key of a slot, as 64 hex digits. */
  hashAt(slot: number): string {
    const bytes = new Uint8Array(
      this.keys.buffer,
      this.keys.byteOffset + slot * KEY_WORDS * 4,
      KEY_WORDS * 4,
    );
    return Buffer.from(bytes).toString('hex');
  }

  /** The keys of every slot in order, 8 words each (a view, not a copy). */
  keyRows(): Int32Array {
    return this.keys.subarray(0, this.count * KEY_WORDS);
  }

  /**
   * Stores a vector under a key (replacing the one there) and returns its slot; false when the
   * vector cannot be stored: another length than the store's, or a value that is not a finite number.
   */
  add(key: Int32Array, vector: ArrayLike<number>): number | false {
    const dims = this.dims;
    if (vector.length !== dims) return false;
    const values = this.scratch;
    let squares = 0;
    for (let j = 0; j < dims; j++) {
      const x = vector[j];
      if (typeof x !== 'number' || !Number.isFinite(x)) return false;
      values[j] = x;
      squares += x * x;
    }
    let slot = this.find(key);
    if (slot < 0) slot = this.append(key);
    const norm = Math.sqrt(squares);
    const base = slot * dims;
    if (this.f32) {
      for (let j = 0; j < dims; j++) this.f32[base + j] = norm > 0 ? (values[j] ?? 0) / norm : 0;
    } else if (this.i8 && this.scales) {
      let max = 0;
      for (let j = 0; j < dims; j++) max = Math.max(max, Math.abs(values[j] ?? 0));
      // Components scaled so the largest is ±127; the scale then makes the rounded vector unit length.
      let intSquares = 0;
      for (let j = 0; j < dims; j++) {
        const q = max > 0 ? Math.round(((values[j] ?? 0) / max) * 127) : 0;
        this.i8[base + j] = q;
        intSquares += q * q;
      }
      this.scales[slot] = intSquares > 0 ? 1 / Math.sqrt(intSquares) : 0;
    }
    return slot;
  }

  /** The stored (normalized) vector of a slot. */
  vectorAt(slot: number): number[] {
    const out = new Array<number>(this.dims);
    const base = slot * this.dims;
    const scale = this.scales?.[slot] ?? 1;
    for (let j = 0; j < this.dims; j++)
      out[j] = this.f32 ? (this.f32[base + j] ?? 0) : (this.i8?.[base + j] ?? 0) * scale;
    return out;
  }

  private keyEquals(slot: number, key: Int32Array): boolean {
    const at = slot * KEY_WORDS;
    for (let w = 0; w < KEY_WORDS; w++) if (this.keys[at + w] !== key[w]) return false;
    return true;
  }

  private append(key: Int32Array): number {
    if (this.count === this.capacity) this.grow(Math.max(64, this.capacity * 2));
    const slot = this.count++;
    this.keys.set(key.subarray(0, KEY_WORDS), slot * KEY_WORDS);
    if (this.table.length < this.count * 2) this.rehash(this.table.length * 2);
    else this.insert(slot);
    return slot;
  }

  private grow(capacity: number): void {
    const keys = new Int32Array(capacity * KEY_WORDS);
    keys.set(this.keys.subarray(0, this.count * KEY_WORDS));
    this.keys = keys;
    if (this.encoding === 'float32') {
      const f32 = new Float32Array(capacity * this.dims);
      if (this.f32) f32.set(this.f32.subarray(0, this.count * this.dims));
      this.f32 = f32;
    } else {
      const i8 = new Int8Array(capacity * this.dims);
      const scales = new Float32Array(capacity);
      if (this.i8) i8.set(this.i8.subarray(0, this.count * this.dims));
      if (this.scales) scales.set(this.scales.subarray(0, this.count));
      this.i8 = i8;
      this.scales = scales;
    }
  }

  private rehash(size: number): void {
    let length = 16;
    while (length < size) length *= 2;
    this.table = new Int32Array(length);
    for (let slot = 0; slot < this.count; slot++) this.insert(slot);
  }

  private insert(slot: number): void {
    const mask = this.table.length - 1;
    let i = (this.keys[slot * KEY_WORDS] ?? 0) & mask;
    while (this.table[i] !== 0) i = (i + 1) & mask;
    this.table[i] = slot + 1;
  }
}
