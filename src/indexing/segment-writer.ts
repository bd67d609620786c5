// One segment file of a cache generation as a save writes it (see index-cache.ts).
import type { FileHandle } from 'node:fs/promises';
import { crc32 } from 'node:zlib';
import { BLOCK } from './block-cache.js';

/** A segment as the manifest lists it: its part, file name, size and CRC-32. */
export interface Segment {
  part: 'notes' | 'table' | 'trackers' | 'docs' | 'terms';
  file: string;
  bytes: number;
  crc: number;
  /**
   * A docs segment's CRC-32 of each 4 KiB block, little-endian u32s in base64: an open reads and
   * checks only the blocks of its tables, and a query each block of strings it reads (cache schema 20).
   */
  blocks?: string;
}

/** Pieces are gathered up to this many characters before a write: small enough for V8's young generation */
const WRITE_CHARS = 32 * 1024;

/**
 * One segment file written piece by piece, with its size and CRC-32 kept as it goes. No piece is
 * joined with the rest of its segment: joined strings of many MiB went to V8's large-object space,
 * which only a full collection frees, and a save left hundreds of MiB of them behind.
 */
export class SegmentFile {
  private pieces: string[] = [];
  private chars = 0;
  bytes = 0;
  crc = 0;
  /** The CRC-32 of each whole block written so far (docs segments), and of the block being written */
  private readonly blockCrcs: number[] | undefined;
  private blockCrc = 0;
  private blockFill = 0;

  constructor(
    private readonly handle: FileHandle,
    readonly part: Segment['part'],
    readonly file: string,
  ) {
    if (part === 'docs') this.blockCrcs = [];
  }

  /** Bytes gathered and not yet written (binary pieces; strings are flushed before a binary write) */
  pending = 0;
  private buffers: Uint8Array[] = [];

  async write(data: string | Uint8Array): Promise<void> {
    if (typeof data !== 'string') {
      if (this.pieces.length > 0) await this.flush();
      // Small pieces (a note's JSON) are gathered into one write.
      this.buffers.push(data);
      this.pending += data.length;
      if (this.pending >= WRITE_CHARS) await this.flushBuffers();
      return;
    }
    await this.flushBuffers();
    this.pieces.push(data);
    this.chars += data.length;
    if (this.chars >= WRITE_CHARS) await this.flush();
  }

  private async flushBuffers(): Promise<void> {
    if (this.buffers.length === 0) return;
    const bytes = this.buffers.length === 1 ? (this.buffers[0] as Uint8Array) : Buffer.concat(this.buffers);
    this.buffers = [];
    this.pending = 0;
    await this.out(bytes);
  }

  async close(): Promise<Segment> {
    try {
      await this.flushBuffers();
      await this.flush();
    } finally {
      await this.handle.close();
    }
    const segment: Segment = { part: this.part, file: this.file, bytes: this.bytes, crc: this.crc };
    if (this.blockCrcs) {
      if (this.blockFill > 0) this.blockCrcs.push(this.blockCrc);
      this.blockFill = 0;
      const words = Buffer.alloc(4 * this.blockCrcs.length);
      for (let b = 0; b < this.blockCrcs.length; b++) words.writeUInt32LE(this.blockCrcs[b] as number, 4 * b);
      segment.blocks = words.toString('base64');
    }
    return segment;
  }

  private async flush(): Promise<void> {
    if (this.pieces.length === 0) return;
    const bytes = Buffer.from(this.pieces.join(''));
    this.pieces = [];
    this.chars = 0;
    await this.out(bytes);
  }

  private async out(bytes: Uint8Array): Promise<void> {
    this.crc = crc32(bytes, this.crc);
    this.bytes += bytes.length;
    if (this.blockCrcs) this.countBlocks(bytes);
    await this.handle.writeFile(bytes);
  }

  private countBlocks(bytes: Uint8Array): void {
    const crcs = this.blockCrcs as number[];
    for (let at = 0; at < bytes.length; ) {
      const take = Math.min(BLOCK - this.blockFill, bytes.length - at);
      this.blockCrc = crc32(bytes.subarray(at, at + take), this.blockCrc);
      this.blockFill += take;
      at += take;
      if (this.blockFill === BLOCK) {
        crcs.push(this.blockCrc);
        this.blockCrc = 0;
        this.blockFill = 0;
      }
    }
  }
}
