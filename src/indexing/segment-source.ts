// Where the text index reads its saved documents and postings from after an open: the segment
// files themselves, read by offset, instead of their bytes held in the heap (at 100,000 notes the
// docs and terms segments are 72 MiB, which every open read and kept for the life of the process,
// and which made each vault of a `mem serve --vaults` pool cost about 1.8 MiB more at 1,000 notes).
//
// A terms segment is checked whole when it is opened (its CRC-32 against the manifest's), and the
// CRC-32 of each 4 KiB block is kept from that pass: every later read checks the blocks it covers,
// so bytes changed on disk after the open are refused, never trusted. The whole file's CRC-32 is
// put together from the blocks' (crc32Combine), so the open reads each byte once. A docs segment
// comes with its blocks' CRC-32s from the manifest (Segment.blocks): the open reads only its
// tables, and the strings a query reads are checked as they are read, block by block.
import { closeSync, fstatSync, readSync } from 'node:fs';
import { crc32 } from 'node:zlib';
import { MemError } from '../core/errors.js';
import { BLOCK, blockCache } from './block-cache.js';

export { BLOCK };

/**
 * A block of a segment read after the open is not the one saved (changed on disk since the save,
 * before the open or after it): the index that reads it rebuilds its text index from the notes
 * (TextIndex.recover) instead of failing every query that touches the block.
 */
export class SegmentDamaged extends Error {
  override readonly name = 'SegmentDamaged';
}

let nextNumber = 0;

/** Saved bytes read by offset: a view valid until the next read of the same source. */
export interface SegmentSource {
  readonly size: number;
  read(from: number, to: number): Uint8Array;
}

/** Bytes held in memory (an index restored from segments given as buffers, as tests do). */
export class BytesSource implements SegmentSource {
  constructor(private readonly bytes: Uint8Array) {}

  get size(): number {
    return this.bytes.length;
  }

  read(from: number, to: number): Uint8Array {
    if (from < 0 || to > this.bytes.length || to < from) throw new Error('a read past the end of a segment');
    return this.bytes.subarray(from, to);
  }
}

/**
 * The last read's blocks are kept for the next read that falls inside them, up to this size: a
 * record's head and then its fields, or a walk over a segment's strings, read a block once. A
 * larger read gets a buffer of its own, so no file keeps one grown by a common term's postings
 * (a `mem serve --vaults` pool holds two files a vault).
 */
const KEEP_SPAN = 2 * BLOCK;

/** A segment file kept open and read by offset, every block read checked against the CRC-32 it had at the open. */
export class CheckedFile implements SegmentSource {
  private span: Buffer = Buffer.alloc(0);
  /** The file offset of span[0], and the end of what the span holds */
  private spanFrom = 0;
  private spanTo = 0;
  private closed = false;
  /** The file's number in the block cache */
  private readonly number = nextNumber++;

  private constructor(
    private readonly fd: number,
    readonly size: number,
    private readonly crcs: Uint32Array,
    readonly name: string,
  ) {}

  /**
   * Checks the open file `fd` against the size and CRC-32 its manifest gives and returns it with
   * its whole bytes, read into `scratch` (grown when too small: the caller passes it back for the
   * next file) and valid until the caller reads the next file. Throws when the file differs; the
   * caller closes `fd` then.
   */
  static check(
    fd: number,
    name: string,
    expected: { bytes: number; crc: number },
    scratch: { buffer: Buffer },
  ): { file: CheckedFile; bytes: Buffer } {
    const info = fstatSync(fd);
    if (!info.isFile() || info.size !== expected.bytes)
      throw new Error(`${name} is not the file that was saved`);
    const size = info.size;
    if (scratch.buffer.length < size)
      scratch.buffer = Buffer.allocUnsafe(Math.max(size, scratch.buffer.length * 2));
    const bytes = scratch.buffer.subarray(0, size);
    readFully(fd, bytes, 0);
    const crcs = new Uint32Array(Math.ceil(size / BLOCK));
    let whole = 0;
    for (let b = 0; b < crcs.length; b++) {
      const from = b * BLOCK;
      const to = Math.min(size, from + BLOCK);
      const crc = crc32(bytes.subarray(from, to));
      crcs[b] = crc;
      whole = b === 0 ? crc : crc32Combine(whole, crc, to - from);
    }
    if (whole !== expected.crc) throw new Error(`${name} is not the file that was saved`);
    return { file: new CheckedFile(fd, size, crcs, name), bytes };
  }

  /**
   * The open file `fd` as its manifest lists it with the CRC-32 of each block: its size checked,
   * and those CRC-32s against the whole file's, without reading it. Each block is checked when it
   * is read. Throws when they differ; the caller closes `fd` then.
   */
  static withBlocks(
    fd: number,
    name: string,
    expected: { bytes: number; crc: number; blocks: string },
  ): CheckedFile {
    const info = fstatSync(fd);
    if (!info.isFile() || info.size !== expected.bytes)
      throw new Error(`${name} is not the file that was saved`);
    const words = Buffer.from(expected.blocks, 'base64');
    const crcs = new Uint32Array(Math.ceil(info.size / BLOCK));
    if (words.length !== 4 * crcs.length) throw new Error(`the block CRC-32s of ${name} do not fit its size`);
    let whole = 0;
    for (let b = 0; b < crcs.length; b++) {
      const crc = words.readUInt32LE(4 * b);
      crcs[b] = crc;
      whole = b === 0 ? crc : crc32Combine(whole, crc, Math.min(info.size, (b + 1) * BLOCK) - b * BLOCK);
    }
    if (whole !== expected.crc) throw new Error(`the block CRC-32s of ${name} are not the file's`);
    return new CheckedFile(fd, info.size, crcs, name);
  }

  /**
   * Bytes `from` to `to`, read into `scratch` (grown when too small) and checked block by block,
   * kept nowhere: valid until the caller's next use of `scratch`. An open reads tables this way.
   */
  readOnce(from: number, to: number, scratch: { buffer: Buffer }): Uint8Array {
    if (from < 0 || to > this.size || to < from) throw new Error(`a read past the end of ${this.name}`);
    const first = Math.floor(from / BLOCK);
    const start = first * BLOCK;
    const length = Math.min(this.size, Math.max(Math.ceil(to / BLOCK), first + 1) * BLOCK) - start;
    if (scratch.buffer.length < length)
      scratch.buffer = Buffer.allocUnsafe(Math.max(length, scratch.buffer.length * 2));
    const into = scratch.buffer.subarray(0, length);
    readFully(this.fd, into, start);
    const bad = this.badBlock(into, first);
    if (bad !== undefined) throw new Error(`${this.name} is not the file that was saved (block ${bad})`);
    return into.subarray(from - start, to - start);
  }

  read(from: number, to: number): Uint8Array {
    if (from < 0 || to > this.size || to < from) throw new Error(`a read past the end of ${this.name}`);
    if (from >= this.spanFrom && to <= this.spanTo)
      return this.span.subarray(from - this.spanFrom, to - this.spanFrom);
    if (this.closed)
      throw new MemError('CLOSED', `the vault is closed: ${this.name} was read after its index was closed`);
    const first = Math.floor(from / BLOCK);
    const start = first * BLOCK;
    const end = Math.min(this.size, Math.max(Math.ceil(to / BLOCK), first + 1) * BLOCK);
    const length = end - start;
    // A read larger than the span kept is one buffer of its own, not kept.
    const keep = length <= KEEP_SPAN;
    let buffer = this.span;
    if (!keep) buffer = Buffer.allocUnsafe(length);
    else if (buffer.length < KEEP_SPAN) buffer = this.span = Buffer.allocUnsafe(KEEP_SPAN);
    // Nothing is kept until the blocks check out: a failed read leaves no span behind.
    if (keep) this.spanTo = this.spanFrom;
    const read = buffer.subarray(0, length);
    let cached = true;
    for (let b = 0; cached && b * BLOCK < length; b++)
      cached = blockCache.copy(this.number, first + b, read, b * BLOCK) >= 0;
    if (!cached) this.readChecked(read, first);
    if (keep) {
      this.spanFrom = start;
      this.spanTo = end;
    }
    return read.subarray(from - start, to - start);
  }

  /** Reads `into` from block `first` on, checks each block against its CRC-32, and keeps them in the block cache. */
  private readChecked(into: Uint8Array, first: number): void {
    readFully(this.fd, into, first * BLOCK);
    const bad = this.badBlock(into, first);
    if (bad !== undefined) {
      throw new SegmentDamaged(
        `${this.name} changed on disk since it was saved (block ${bad}): the index cache is damaged`,
      );
    }
    for (let b = 0; b * BLOCK < into.length; b++) {
      blockCache.keep(
        this.number,
        first + b,
        into.subarray(b * BLOCK, Math.min(into.length, (b + 1) * BLOCK)),
      );
    }
  }

  /** The first block of `bytes` (read from block `first` on) whose CRC-32 is not the one saved, if any. */
  private badBlock(bytes: Uint8Array, first: number): number | undefined {
    for (let b = 0; b * BLOCK < bytes.length; b++) {
      const block = bytes.subarray(b * BLOCK, Math.min(bytes.length, (b + 1) * BLOCK));
      if (crc32(block) !== this.crcs[first + b]) return first + b;
    }
    return undefined;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    blockCache.forget(this.number);
    this.span = Buffer.alloc(0);
    this.spanFrom = this.spanTo = 0;
    try {
      closeSync(this.fd);
    } catch {
      // Already closed: nothing to release.
    }
  }
}

function readFully(fd: number, into: Uint8Array, position: number): void {
  let done = 0;
  while (done < into.length) {
    const n = readSync(fd, into, done, into.length - done, position + done);
    if (n === 0) throw new Error('a segment file ended before its size');
    done += n;
  }
}

/** The CRC-32 of A followed by B, from CRC-32(A), CRC-32(B) and B's length (zlib's crc32_combine). */
export function crc32Combine(crc1: number, crc2: number, length2: number): number {
  if (length2 <= 0) return crc1 >>> 0;
  const operator = length2 === BLOCK ? blockOperator() : zerosOperator(length2);
  return (timesMatrix(operator, crc1) ^ crc2) >>> 0;
}

let blockMatrix: Uint32Array | undefined;
function blockOperator(): Uint32Array {
  blockMatrix ??= zerosOperator(BLOCK);
  return blockMatrix;
}

/**
 * The matrix over GF(2) that takes a CRC to the CRC of its message followed by `length` zero bytes,
 * built by squaring the one-zero-bit operator (zlib's crc32_combine_ derivation).
 */
function zerosOperator(length: number): Uint32Array {
  // One zero bit: the CRC polynomial (reflected) in the first row, then shifts.
  let odd: Uint32Array = new Uint32Array(32);
  odd[0] = 0xedb88320;
  for (let n = 1; n < 32; n++) odd[n] = 1 << (n - 1);
  let even = squared(odd); // two zero bits
  odd = squared(even); // four zero bits
  // The result, as a matrix: start from the identity.
  let result: Uint32Array = new Uint32Array(32);
  for (let n = 0; n < 32; n++) result[n] = 1 << n;
  let left = length;
  // Each round squares the operator (8, 16, 32, … zero bits) and applies it for each set bit.
  while (left !== 0) {
    even = squared(odd);
    if (left & 1) result = product(even, result);
    left >>>= 1;
    if (left === 0) break;
    odd = squared(even);
    if (left & 1) result = product(odd, result);
    left >>>= 1;
  }
  return result;
}

/** mat × vec over GF(2), the matrix given by its columns. */
function timesMatrix(mat: Uint32Array, vec: number): number {
  let sum = 0;
  let v = vec >>> 0;
  for (let i = 0; v !== 0; i++, v >>>= 1) if (v & 1) sum ^= mat[i] as number;
  return sum >>> 0;
}

function squared(mat: Uint32Array): Uint32Array {
  return product(mat, mat);
}

/** a × b: column n of the product is a applied to column n of b. */
function product(a: Uint32Array, b: Uint32Array): Uint32Array {
  const out = new Uint32Array(32);
  for (let n = 0; n < 32; n++) out[n] = timesMatrix(a, b[n] as number);
  return out;
}
