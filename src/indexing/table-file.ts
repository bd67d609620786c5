// The cache's note table (`table-0000.bin`): where each saved note's JSON lies in the notes files,
// its size and mtime, and the link graph's rows, as typed arrays read in one piece at open.

import type { SavedLinks } from './links/saved-links.js';
import type { SavedNotes } from './note-table.js';

/** `MEMT`, then a word written as 1 that reads 1 only in the byte order it was written in */
const MAGIC = 0x544d454d;
const FORMAT = 2;
const HEAD = 24;

/** The table as saved: everything of SavedNotes but the open files, and the links. */
export type TableData = Omit<SavedNotes, 'fds'> & { links: SavedLinks };

const pad8 = (n: number) => (n + 7) & ~7;

export function encodeTable(data: TableData): Buffer {
  const count = data.paths.length;
  const edges = data.links.outTarget.length;
  const names = Buffer.from(JSON.stringify({ paths: data.paths, dangling: data.links.dangling }));
  let at = pad8(HEAD + names.length);
  const total = at + count * 8 * 3 + count * 4 * 3 + (count + 1) * 4 + edges * 4;
  const out = Buffer.alloc(total);
  out.writeUInt32LE(MAGIC, 0);
  // Native order, so the arrays are copied as they are; a table from a machine of the other order
  // fails this check and is rebuilt.
  new Uint32Array(out.buffer, out.byteOffset + 4, 1)[0] = FORMAT;
  out.writeUInt32LE(count, 8);
  out.writeUInt32LE(edges, 12);
  out.writeUInt32LE(names.length, 16);
  names.copy(out, HEAD);
  for (const array of [
    data.mtime,
    data.size,
    data.offset,
    data.file,
    data.length,
    data.crc,
    data.links.outStart,
    data.links.outTarget,
  ]) {
    out.set(new Uint8Array(array.buffer, array.byteOffset, array.byteLength), at);
    at += array.byteLength;
  }
  return out;
}

/** The table in `bytes`; throws on anything that is not a whole, consistent table. */
export function decodeTable(bytes: Buffer, files: readonly number[]): TableData {
  if (bytes.length < HEAD || bytes.readUInt32LE(0) !== MAGIC) throw new Error('the note table has no header');
  if (new Uint32Array(bytes.buffer.slice(bytes.byteOffset + 4, bytes.byteOffset + 8))[0] !== FORMAT) {
    throw new Error('the note table is of another format or byte order');
  }
  const count = bytes.readUInt32LE(8);
  const edges = bytes.readUInt32LE(12);
  const namesLength = bytes.readUInt32LE(16);
  let at = pad8(HEAD + namesLength);
  if (bytes.length !== at + count * 36 + (count + 1) * 4 + edges * 4)
    throw new Error('the note table is cut short');
  const head = JSON.parse(bytes.toString('utf8', HEAD, HEAD + namesLength)) as {
    paths?: unknown;
    dangling?: unknown;
  };
  const { paths, dangling } = head ?? {};
  if (!Array.isArray(paths) || paths.length !== count || !paths.every((p) => typeof p === 'string')) {
    throw new Error('the note table lists other paths than it counts');
  }
  if (!Array.isArray(dangling) || !dangling.every((name) => typeof name === 'string')) {
    throw new Error('the note table lists no names of unresolved links');
  }
  // Copies: a view needs its offset aligned to its element size, which a read buffer need not be.
  const take = <T extends Float64Array | Uint32Array | Int32Array>(
    make: new (n: number) => T,
    n: number,
  ): T => {
    const array = new make(n);
    new Uint8Array(array.buffer).set(bytes.subarray(at, at + array.byteLength));
    at += array.byteLength;
    return array;
  };
  const mtime = take(Float64Array, count);
  const size = take(Float64Array, count);
  const offset = take(Float64Array, count);
  const file = take(Uint32Array, count);
  const length = take(Uint32Array, count);
  const crc = take(Uint32Array, count);
  const outStart = take(Int32Array, count + 1);
  const outTarget = take(Int32Array, edges);
  for (let i = 0; i < count; i++) {
    if ((file[i] as number) >= files.length)
      throw new Error('the note table names a notes file that is not there');
  }
  if (outStart[0] !== 0 || outStart[count] !== edges) throw new Error('the link rows do not cover the links');
  for (let i = 0; i < count; i++) {
    if ((outStart[i + 1] as number) < (outStart[i] as number))
      throw new Error('the link rows are out of order');
  }
  for (let i = 0; i < edges; i++) {
    const to = outTarget[i] as number;
    if (to < -1 || to >= count) throw new Error('a link points past the note table');
  }
  return {
    paths: paths as string[],
    file,
    offset,
    length,
    crc,
    size,
    mtime,
    links: { outStart, outTarget, dangling: dangling as string[] },
  };
}

/** Checks each slot's bytes lie inside its notes file (of `sizes[file]` bytes). */
export function checkExtents(data: TableData, sizes: readonly number[]): void {
  for (let i = 0; i < data.paths.length; i++) {
    const end = (data.offset[i] as number) + (data.length[i] as number);
    if (end > (sizes[data.file[i] as number] as number))
      throw new Error('a saved note lies past its notes file');
  }
}

export function savedNotes(data: TableData, fds: number[]): SavedNotes {
  const { paths, file, offset, length, crc, size, mtime } = data;
  return { fds, paths, file, offset, length, crc, size, mtime };
}
