// One segment file of a cache generation as a save writes it (see index-cache.ts).
import type { FileHandle } from 'node:fs/promises';
import { crc32 } from 'node:zlib';

/** A segment as the manifest lists it: its part, file name, size and CRC-32. */
export interface Segment {
  part: 'notes' | 'table' | 'trackers' | 'docs' | 'terms';
  file: string;
  bytes: number;
  crc: number;
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

  constructor(
    private readonly handle: FileHandle,
    readonly part: Segment['part'],
    readonly file: string,
  ) {}

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
    return { part: this.part, file: this.file, bytes: this.bytes, crc: this.crc };
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
    await this.handle.writeFile(bytes);
  }
}
