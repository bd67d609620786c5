// Which decoded saved notes a note table keeps between reads. A recall decodes the notes of up to
// a few hundred candidates, and over a large vault most of them are not read again soon: kept in
// the table's generations, each was carried into V8's old space and dropped there at a turn.
// A note is kept only when it is decoded in a second read (a recall: DECODED_NOTES.newRead); a
// note decoded once is held until its read ends, and dies young. Reads are counted per slot in two
// small arrays and halved every window (TinyLFU's reset), so a note read often long ago does not
// stay kept for ever. Measured on a 100,000-note vault over 1,000 varied recalls with a 16 MiB
// bound: 8 % fewer notes decoded per recall than keeping every note read.
import type { Note } from '../core/types.js';
import { DECODED_NOTES, type ReadHolder } from './decoded-budget.js';

/** Reads are halved after the table decoded this many times its bound of bytes */
const WINDOW = 10;

export class ReadTwice implements ReadHolder {
  /** The read in which each slot was last decoded (0: never) */
  private lastRead = new Uint32Array(0);
  /** In how many reads each slot was decoded since the last halving (at most 255) */
  private reads = new Uint8Array(0);
  /** The notes decoded once in the current read */
  private held = new Map<number, Note>();
  private decodedSinceHalving = 0;

  /** The note of `slot` decoded earlier in this read, not kept. */
  get(slot: number): Note | undefined {
    return this.held.get(slot);
  }

  /**
   * A note just decoded from its `bytes` of JSON: true when it was decoded in an earlier read too
   * (the table keeps it within `bound`); otherwise it is held until this read ends, and false.
   */
  admit(slot: number, note: Note, bytes: number, bound: number): boolean {
    if (slot >= this.reads.length) this.grow(slot + 1);
    this.decodedSinceHalving += bytes;
    if (this.decodedSinceHalving > WINDOW * bound) this.halve();
    const read = DECODED_NOTES.read;
    if (this.lastRead[slot] !== read) {
      this.lastRead[slot] = read;
      if ((this.reads[slot] as number) < 255) (this.reads[slot] as number)++;
    }
    if ((this.reads[slot] as number) >= 2) return true;
    DECODED_NOTES.hold(this, bytes, bound);
    this.held.set(slot, note);
    return false;
  }

  dropHeld(): void {
    if (this.held.size > 0) this.held = new Map();
  }

  /** Slots mean other notes from now on (a save rebased the table): nothing is known of them. */
  clear(): void {
    this.lastRead = new Uint32Array(0);
    this.reads = new Uint8Array(0);
    this.dropHeld();
    this.decodedSinceHalving = 0;
  }

  private grow(slots: number): void {
    const size = Math.max(slots, this.reads.length * 2, 1024);
    const lastRead = new Uint32Array(size);
    lastRead.set(this.lastRead);
    const reads = new Uint8Array(size);
    reads.set(this.reads);
    this.lastRead = lastRead;
    this.reads = reads;
  }

  private halve(): void {
    this.decodedSinceHalving = 0;
    for (let s = 0; s < this.reads.length; s++) (this.reads[s] as number) >>= 1;
  }
}
