// The blocks of cache segments read lately, checked, kept in one buffer of a fixed size for the
// whole process (every vault a `mem serve --vaults` pool holds shares it). A read from the page
// cache costs here some 15 µs for 4 KiB, and a recall asks the same common terms' record heads
// and the same documents' ids again and again; kept, they cost a copy.

/** Bytes of one block (segment-source.ts reads and checks segments in blocks of this size) */
export const BLOCK = 4096;

/** The cache's size: 2,048 blocks */
const CACHE_BYTES = 8 << 20;

/**
 * Least recently used blocks, each under the key (file number, block number). The slab is
 * allocated at the first block kept, and its pages are only made resident as they are filled.
 */
class BlockCache {
  private slab: Buffer | undefined;
  /** key → slot, in the order used (the first is the least recent) */
  private readonly slots = new Map<number, number>();
  /** slot → the bytes it holds (a file's last block may be short) */
  private readonly lengths: Uint16Array;
  /** Slots never filled yet start at `filled`; slots of forgotten files are in `free` */
  private filled = 0;
  private readonly free: number[] = [];

  constructor(private readonly count: number) {
    this.lengths = new Uint16Array(count);
  }

  /** Copies block `block` of file `file` into `into` at `at` when it is kept; its length, or -1. */
  copy(file: number, block: number, into: Uint8Array, at: number): number {
    const key = keyOf(file, block);
    if (key === undefined || !this.slab) return -1;
    const slot = this.slots.get(key);
    if (slot === undefined) return -1;
    // Used now: moved to the end of the order.
    this.slots.delete(key);
    this.slots.set(key, slot);
    const length = this.lengths[slot] as number;
    into.set(this.slab.subarray(slot * BLOCK, slot * BLOCK + length), at);
    return length;
  }

  /** Keeps a copy of a checked block, in place of the least recently used one when full. */
  keep(file: number, block: number, bytes: Uint8Array): void {
    const key = keyOf(file, block);
    if (key === undefined || this.slots.has(key)) return;
    this.slab ??= Buffer.allocUnsafeSlow(this.count * BLOCK);
    let slot: number;
    const reused = this.free.pop();
    if (reused !== undefined) slot = reused;
    else if (this.filled < this.count) slot = this.filled++;
    else {
      const [oldest, oldSlot] = this.slots.entries().next().value as [number, number];
      this.slots.delete(oldest);
      slot = oldSlot;
    }
    this.slab.set(bytes, slot * BLOCK);
    this.lengths[slot] = bytes.length;
    this.slots.set(key, slot);
  }

  /** Drops a closed file's blocks, so a number used again never finds them. */
  forget(file: number): void {
    for (const [key, slot] of this.slots) {
      if (Math.floor(key / BLOCKS_A_FILE) !== file) continue;
      this.slots.delete(key);
      this.free.push(slot);
    }
  }
}

/** Blocks of one file a key has room for (64 GiB); a file's number is below 2^53 / this */
const BLOCKS_A_FILE = 2 ** 24;

/** The key of a block, or undefined for one past what a key holds (such a block is not kept). */
function keyOf(file: number, block: number): number | undefined {
  const key = file * BLOCKS_A_FILE + block;
  return block < BLOCKS_A_FILE && Number.isSafeInteger(key) ? key : undefined;
}

export const blockCache = new BlockCache(CACHE_BYTES / BLOCK);
