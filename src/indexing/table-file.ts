// The cache's note table (`table-0000.bin`): where each saved note's records lie in the notes files,
// each record's length and CRC-32, the note's size and mtime, and the link graph's rows, as typed
// arrays each read from the file into its own buffer at open.

import { closeSync, fstatSync, readSync } from 'node:fs';
import { crc32 } from 'node:zlib';
import { openRegularFileSync } from '../core/regular-file.js';
import { placesFit } from './links/link-places.js';
import type { SavedLinks } from './links/saved-links.js';
import type { SavedNotes } from './note-table.js';
import { SECTION_RECORD } from './saved-note.js';

/** `MEMT`, then a word written as 1 that reads 1 only in the byte order it was written in */
const MAGIC = 0x544d454d;
const FORMAT = 4;
const HEAD = 24;

/** The table as saved: everything of SavedNotes but the open files, and the links. */
export type TableData = Omit<SavedNotes, 'fds'> & { links: SavedLinks };

const pad8 = (n: number) => (n + 7) & ~7;

export function encodeTable(data: TableData): Buffer {
  const count = data.paths.length;
  const edges = data.links.outTarget.length;
  const records = data.recordLength.length;
  const names = Buffer.from(
    JSON.stringify({ paths: data.paths, dangling: data.links.dangling, subpaths: data.links.subpaths }),
  );
  let at = pad8(HEAD + names.length);
  const total = at + count * 8 * 3 + count * 4 * 2 + (count + 1) * 8 + records * 8 + edges * 8;
  const out = Buffer.alloc(total);
  out.writeUInt32LE(MAGIC, 0);
  // Native order, so the arrays are copied as they are; a table from a machine of the other order
  // fails this check and is rebuilt.
  new Uint32Array(out.buffer, out.byteOffset + 4, 1)[0] = FORMAT;
  out.writeUInt32LE(count, 8);
  out.writeUInt32LE(edges, 12);
  out.writeUInt32LE(names.length, 16);
  out.writeUInt32LE(records, 20);
  names.copy(out, HEAD);
  for (const array of [
    data.mtime,
    data.size,
    data.offset,
    data.file,
    data.length,
    data.records,
    data.recordLength,
    data.recordCrc,
    data.links.outStart,
    data.links.outTarget,
    data.links.outPlace,
  ]) {
    out.set(new Uint8Array(array.buffer, array.byteOffset, array.byteLength), at);
    at += array.byteLength;
  }
  return out;
}

/** Fills `target` with the table's next bytes. */
type Fill = (target: Uint8Array) => void;

/**
 * The table in the file at `path`, read straight into its arrays: neither the whole file nor a
 * copy of it is held (at 100,000 notes, 17 MiB the process kept as resident memory after the
 * open). Its CRC-32 is taken over the pieces as read; throws unless it is `saved`'s.
 */
export function readTable(
  path: string,
  saved: { bytes: number; crc: number },
  files: readonly number[],
): TableData {
  const fd = openRegularFileSync(path);
  try {
    const info = fstatSync(fd);
    if (info.size !== saved.bytes) throw new Error(`${path} is not the file that was saved`);
    let at = 0;
    let crc = 0;
    const data = decodeWith(info.size, files, (target) => {
      // Nothing to read for an empty array (and zlib's crc32 of one over an empty ArrayBuffer is 0).
      if (target.length === 0) return;
      if (readSync(fd, target, 0, target.length, at) !== target.length)
        throw new Error('the note table is cut short');
      at += target.length;
      crc = crc32(target, crc);
    });
    if (at !== info.size || crc !== saved.crc) throw new Error(`${path} is not the file that was saved`);
    return data;
  } finally {
    closeSync(fd);
  }
}

function decodeWith(total: number, files: readonly number[], fill: Fill): TableData {
  const head = Buffer.alloc(HEAD);
  if (total < HEAD) throw new Error('the note table has no header');
  fill(head);
  if (head.readUInt32LE(0) !== MAGIC) throw new Error('the note table has no header');
  if (new Uint32Array(head.buffer.slice(head.byteOffset + 4, head.byteOffset + 8))[0] !== FORMAT) {
    throw new Error('the note table is of another format or byte order');
  }
  const count = head.readUInt32LE(8);
  const edges = head.readUInt32LE(12);
  const namesLength = head.readUInt32LE(16);
  const recordCount = head.readUInt32LE(20);
  const arraysAt = pad8(HEAD + namesLength);
  if (total !== arraysAt + count * 32 + (count + 1) * 8 + recordCount * 8 + edges * 8)
    throw new Error('the note table is cut short');
  const names = Buffer.alloc(arraysAt - HEAD);
  fill(names);
  const listed = JSON.parse(names.toString('utf8', 0, namesLength)) as {
    paths?: unknown;
    dangling?: unknown;
    subpaths?: unknown;
  };
  const { paths, dangling, subpaths } = listed ?? {};
  if (!Array.isArray(paths) || paths.length !== count || !paths.every((p) => typeof p === 'string')) {
    throw new Error('the note table lists other paths than it counts');
  }
  if (!Array.isArray(dangling) || !dangling.every((name) => typeof name === 'string')) {
    throw new Error('the note table lists no names of unresolved links');
  }
  if (!Array.isArray(subpaths) || !subpaths.every((name) => typeof name === 'string')) {
    throw new Error('the note table lists no anchors that links name');
  }
  // Each array filled in place: its own buffer, aligned to its element size.
  const take = <T extends Float64Array | Uint32Array | Int32Array>(
    make: new (n: number) => T,
    n: number,
  ): T => {
    const array = new make(n);
    fill(new Uint8Array(array.buffer));
    return array;
  };
  const mtime = take(Float64Array, count);
  const size = take(Float64Array, count);
  const offset = take(Float64Array, count);
  const file = take(Uint32Array, count);
  const length = take(Uint32Array, count);
  const records = take(Uint32Array, count + 1);
  const recordLength = take(Uint32Array, recordCount);
  const recordCrc = take(Uint32Array, recordCount);
  const outStart = take(Int32Array, count + 1);
  const outTarget = take(Int32Array, edges);
  const outPlace = take(Int32Array, edges);
  for (let i = 0; i < count; i++) {
    if ((file[i] as number) >= files.length)
      throw new Error('the note table names a notes file that is not there');
  }
  checkRecords(records, recordLength, length);
  if (outStart[0] !== 0 || outStart[count] !== edges) throw new Error('the link rows do not cover the links');
  for (let i = 0; i < count; i++) {
    if ((outStart[i + 1] as number) < (outStart[i] as number))
      throw new Error('the link rows are out of order');
  }
  for (let i = 0; i < edges; i++) {
    const to = outTarget[i] as number;
    if (to < -1 || to >= count) throw new Error('a link points past the note table');
  }
  if (!placesFit(outPlace, subpaths)) throw new Error('a link names an anchor the note table does not list');
  return {
    paths: paths as string[],
    file,
    offset,
    length,
    records,
    recordLength,
    recordCrc,
    size,
    mtime,
    links: { outStart, outTarget, outPlace, subpaths: subpaths as string[], dangling: dangling as string[] },
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
  const { paths, file, offset, length, records, recordLength, recordCrc, size, mtime } = data;
  return { fds, paths, file, offset, length, records, recordLength, recordCrc, size, mtime };
}

/**
 * Each note has its head, its body and its sections' records, in order, and they fill its bytes
 * exactly (each record followed by a newline).
 */
function checkRecords(records: Uint32Array, recordLength: Uint32Array, length: Uint32Array): void {
  const count = length.length;
  if (records[0] !== 0 || records[count] !== recordLength.length)
    throw new Error('the record rows do not cover the records');
  for (let i = 0; i < count; i++) {
    const from = records[i] as number;
    const to = records[i + 1] as number;
    if (to < from + SECTION_RECORD) throw new Error('a saved note has fewer records than a note has');
    let bytes = 0;
    for (let r = from; r < to; r++) bytes += (recordLength[r] as number) + 1;
    if (bytes !== length[i]) throw new Error("a saved note's records do not fill its bytes");
  }
}
