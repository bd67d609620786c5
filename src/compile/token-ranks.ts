// A BPE encoding's ranks as three typed arrays (the tokens' bytes end to end, where each starts,
// and a hash table from bytes to rank), read from one file that the build writes beside dist/.
// gpt-tokenizer keeps them as a JavaScript string per token in Maps: loading o200k_base cost
// 150 ms of CPU and 50-70 MiB of a process's memory, in every process that counted a token (every
// server that compiled a turn). This table is 4 MiB, read in a few milliseconds.
import { isUtf8 } from 'node:buffer';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { crc32 } from 'node:zlib';

export type Encoding = 'o200k_base' | 'cl100k_base';

export const ENCODINGS: readonly Encoding[] = ['o200k_base', 'cl100k_base'];

/** Where the build writes the tables: `dist/token-ranks/` of the package (beside `dist/` or `src/`). */
export const RANKS_DIR = fileURLToPath(new URL('../../dist/token-ranks/', import.meta.url));

const MAGIC = 0x524b_4d4d; // "MMKR" read little-endian
const FORMAT = 1;
/** magic, format, ranks, bytes, slots, CRC-32 of what follows the header */
const HEADER_WORDS = 6;

const require = createRequire(import.meta.url);

/** One encoding's tokens: the rank of a run of bytes, without a string or object per token. */
export class RankTable {
  private constructor(
    /** Token `r` is `bytes[starts[r]] … bytes[starts[r + 1] - 1]`; an unused rank is empty */
    private readonly starts: Uint32Array,
    private readonly bytes: Uint8Array,
    /** Open addressing (FNV-1a, linear probing, at least half empty): a rank, or -1 */
    private readonly slots: Int32Array,
  ) {}

  /**
   * The rank a byte-pair merge finds for `piece[from … to-1]`, as gpt-tokenizer's does: it turns
   * bytes that are UTF-8 into a string with a TextDecoder, which drops a leading byte-order mark,
   * so such bytes count as the token of the rest (none when nothing is left).
   */
  mergeRank(piece: Uint8Array, from: number, to: number): number {
    if (to - from >= 3 && piece[from] === 0xef && piece[from + 1] === 0xbb && piece[from + 2] === 0xbf) {
      if (isUtf8(piece.subarray(from, to))) return to - from === 3 ? -1 : this.rank(piece, from + 3, to);
    }
    return this.rank(piece, from, to);
  }

  /** The rank of `piece[from … to-1]`, or -1 when no token is those bytes. */
  rank(piece: Uint8Array, from: number, to: number): number {
    const { starts, bytes, slots } = this;
    const mask = slots.length - 1;
    const length = to - from;
    for (let i = fnv1a(piece, from, to) & mask; ; i = (i + 1) & mask) {
      const rank = slots[i] as number;
      if (rank === -1) return -1;
      const start = starts[rank] as number;
      if ((starts[rank + 1] as number) - start !== length) continue;
      let k = 0;
      while (k < length && bytes[start + k] === piece[from + k]) k++;
      if (k === length) return rank;
    }
  }

  /**
   * The table of `ranks` (gpt-tokenizer's: by rank, a token's text, or its bytes when its text
   * would not give them back). A token kept as bytes that are UTF-8 (those starting with a
   * byte-order mark) is one gpt-tokenizer never finds (see mergeRank): it is left out of the
   * lookup too, so the counts stay gpt-tokenizer's.
   */
  static fromRanks(ranks: ReadonlyArray<string | readonly number[] | undefined>): RankTable {
    const encoder = new TextEncoder();
    const tokens = Array.from(ranks, (token) =>
      token === undefined
        ? new Uint8Array(0)
        : typeof token === 'string'
          ? encoder.encode(token)
          : Uint8Array.from(token),
    );
    const starts = new Uint32Array(tokens.length + 1);
    for (let r = 0; r < tokens.length; r++)
      starts[r + 1] = (starts[r] as number) + (tokens[r] as Uint8Array).length;
    const bytes = new Uint8Array(starts[tokens.length] as number);
    for (let r = 0; r < tokens.length; r++) bytes.set(tokens[r] as Uint8Array, starts[r]);
    let size = 1;
    while (size < tokens.length * 2) size *= 2;
    const slots = new Int32Array(size).fill(-1);
    const table = new RankTable(starts, bytes, slots);
    tokens.forEach((token, r) => {
      if (token.length === 0 || table.rank(token, 0, token.length) !== -1) return;
      if (typeof ranks[r] !== 'string' && isUtf8(token)) return;
      let i = fnv1a(token, 0, token.length) & (size - 1);
      while (slots[i] !== -1) i = (i + 1) & (size - 1);
      slots[i] = r;
    });
    return table;
  }

  /** The file of this table (native byte order, checked by its magic word when read). */
  encode(): Uint8Array {
    const { starts, bytes, slots } = this;
    const body = new Uint8Array(starts.byteLength + slots.byteLength + bytes.byteLength);
    body.set(new Uint8Array(starts.buffer, starts.byteOffset, starts.byteLength), 0);
    body.set(new Uint8Array(slots.buffer, slots.byteOffset, slots.byteLength), starts.byteLength);
    body.set(bytes, starts.byteLength + slots.byteLength);
    const header = Uint32Array.of(MAGIC, FORMAT, starts.length - 1, bytes.length, slots.length, crc32(body));
    const file = new Uint8Array(header.byteLength + body.length);
    file.set(new Uint8Array(header.buffer), 0);
    file.set(body, header.byteLength);
    return file;
  }

  /** The table a file holds; throws when it is not one whole table of this format. */
  static decode(file: Uint8Array): RankTable {
    // Views need 4-byte alignment: a buffer that does not start on one is copied (a Buffer's
    // slice() would be a view).
    const data = file.byteOffset % 4 === 0 ? file : new Uint8Array(file);
    if (data.length < HEADER_WORDS * 4) throw new Error('the token rank table is cut short');
    const header = new Uint32Array(data.buffer, data.byteOffset, HEADER_WORDS);
    const [magic, format, ranks, byteCount, slotCount, crc] = header as unknown as number[];
    if (magic !== MAGIC || format !== FORMAT) throw new Error('not a token rank table of this format');
    const at = data.byteOffset + HEADER_WORDS * 4;
    const startsBytes = ((ranks as number) + 1) * 4;
    const slotsBytes = (slotCount as number) * 4;
    if (data.length !== HEADER_WORDS * 4 + startsBytes + slotsBytes + (byteCount as number))
      throw new Error('the token rank table is not whole');
    if (crc32(data.subarray(HEADER_WORDS * 4)) !== crc) throw new Error('the token rank table is damaged');
    const starts = new Uint32Array(data.buffer, at, (ranks as number) + 1);
    const slots = new Int32Array(data.buffer, at + startsBytes, slotCount as number);
    // A lookup ends at an empty slot: the table must be a power of two with more slots than ranks,
    // every slot empty or a rank, and every token's bytes inside the bytes.
    const count = ranks as number;
    let sound = slots.length > count && (slots.length & (slots.length - 1)) === 0 && starts[0] === 0;
    for (let r = 0; sound && r < count; r++) sound = (starts[r] as number) <= (starts[r + 1] as number);
    sound &&= starts[count] === byteCount;
    for (let i = 0; sound && i < slots.length; i++)
      sound = (slots[i] as number) >= -1 && (slots[i] as number) < count;
    if (!sound) throw new Error('the token rank table is damaged');
    return new RankTable(
      starts,
      new Uint8Array(data.buffer, at + startsBytes + slotsBytes, byteCount as number),
      slots,
    );
  }
}

function fnv1a(bytes: Uint8Array, from: number, to: number): number {
  let hash = 0x811c9dc5;
  for (let i = from; i < to; i++) hash = Math.imul(hash ^ (bytes[i] as number), 0x01000193);
  return hash >>> 0;
}

/** gpt-tokenizer's ranks of `encoding`: megabytes of source, parsed into a string per token. */
function packageRanks(encoding: Encoding): Array<string | number[]> {
  return (require(`gpt-tokenizer/cjs/bpeRanks/${encoding}`) as { default: Array<string | number[]> }).default;
}

/**
 * The table of `encoding`: from the file the build wrote, or, when there is none (a test run
 * before a build) or it is damaged, made from gpt-tokenizer's ranks.
 */
export function loadRankTable(encoding: Encoding): RankTable {
  try {
    return RankTable.decode(readFileSync(join(RANKS_DIR, `${encoding}.bin`)));
  } catch {
    // Missing, or not whole: never trusted, made again (in memory; a build writes the file).
    return RankTable.fromRanks(packageRanks(encoding));
  }
}

/** Writes every encoding's table into `dir` (the build does, into dist/token-ranks/). */
export function writeRankTables(dir: string = RANKS_DIR): void {
  mkdirSync(dir, { recursive: true });
  for (const encoding of ENCODINGS) {
    writeFileSync(join(dir, `${encoding}.bin`), RankTable.fromRanks(packageRanks(encoding)).encode());
  }
}
