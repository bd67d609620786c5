import { afterEach, describe, expect, it } from 'vitest';
import { LIST_ARENA, ListArenas } from '../../src/indexing/text/list-arenas.js';

/** 4 bytes of document and 8 of score a posting */
const PAIR = 12;

describe('list arenas', () => {
  const saved = { ...LIST_ARENA };
  afterEach(() => Object.assign(LIST_ARENA, saved));

  it('allocates one arena for an index below the full size, and the second when the first is full', () => {
    Object.assign(LIST_ARENA, { postings: 64, first: 8 });
    let dropped = 0;
    const arenas = new ListArenas(32, () => dropped++);
    expect(arenas.bytes).toBe(32 * PAIR);
    // Filled, then grown to twice its size, the full size (a new first arena, the old one let go).
    arenas.take(32, true, 1);
    arenas.take(4, true, 1);
    expect(arenas.bytes).toBe(64 * PAIR);
    // The full first arena filled: every kept list dropped, the second made at the full size.
    arenas.take(60, true, 2);
    arenas.take(10, true, 3);
    expect(dropped).toBe(1);
    expect(arenas.bytes).toBe(2 * 64 * PAIR);
  });

  it('allocates both arenas at once for an index of the full size', () => {
    Object.assign(LIST_ARENA, { postings: 64, first: 8 });
    const arenas = new ListArenas(1000, () => undefined);
    expect(arenas.bytes).toBe(2 * 64 * PAIR);
    const room = arenas.take(64, false, 1);
    expect(room.docs).toBeUndefined();
    expect(room.scores.length).toBe(64);
    // The switch reuses the second arena as it is: nothing new is allocated.
    arenas.take(8, true, 2);
    expect(arenas.bytes).toBe(2 * 64 * PAIR);
  });

  it('gives each taker its own room until the arena is reset', () => {
    Object.assign(LIST_ARENA, { postings: 64, first: 8 });
    const arenas = new ListArenas(32, () => undefined);
    const a = arenas.take(10, true, 1);
    const b = arenas.take(10, true, 1);
    a.scores.fill(1);
    b.scores.fill(2);
    expect([...a.scores]).toEqual(new Array(10).fill(1));
    arenas.reset();
    const c = arenas.take(10, true, 2);
    expect(c.scores.buffer).toBe(a.scores.buffer);
    expect(c.scores.byteOffset).toBe(a.scores.byteOffset);
  });
});
