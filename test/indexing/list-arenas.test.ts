import { afterEach, describe, expect, it } from 'vitest';
import { LIST_ARENA, ListArenas, type ListHolder } from '../../src/indexing/text/list-arenas.js';

/** 4 bytes of document and 8 of score a posting */
const PAIR = 12;

/** A holder that counts how often it was told to drop its lists. */
function holder(): ListHolder & { dropped: number } {
  const made = {
    dropped: 0,
    dropLists() {
      made.dropped++;
    },
    ref: undefined as unknown as WeakRef<ListHolder>,
  };
  made.ref = new WeakRef(made);
  return made;
}

describe('list arenas', () => {
  const saved = { ...LIST_ARENA };
  afterEach(() => Object.assign(LIST_ARENA, saved));

  it('allocates one arena for an index below the full size, and the second when the first is full', () => {
    Object.assign(LIST_ARENA, { postings: 64, first: 8 });
    const a = holder();
    const arenas = new ListArenas();
    arenas.reserve(32);
    expect(arenas.bytes).toBe(32 * PAIR);
    // Filled, then grown to twice its size, the full size (a new first arena, the old one let go).
    arenas.begin();
    arenas.take(32, true, a);
    arenas.take(4, true, a);
    expect(arenas.bytes).toBe(64 * PAIR);
    // The full first arena filled: every kept list dropped, the second made at the full size.
    arenas.begin();
    arenas.take(60, true, a);
    arenas.begin();
    arenas.take(10, true, a);
    expect(a.dropped).toBe(1);
    expect(arenas.bytes).toBe(2 * 64 * PAIR);
  });

  it('allocates both arenas at once for an index of the full size', () => {
    Object.assign(LIST_ARENA, { postings: 64, first: 8 });
    const a = holder();
    const arenas = new ListArenas();
    arenas.reserve(1000);
    expect(arenas.bytes).toBe(2 * 64 * PAIR);
    arenas.begin();
    const room = arenas.take(64, false, a);
    expect(room.docs).toBeUndefined();
    expect(room.scores.length).toBe(64);
    // The switch reuses the second arena as it is: nothing new is allocated.
    arenas.begin();
    arenas.take(8, true, a);
    expect(arenas.bytes).toBe(2 * 64 * PAIR);
  });

  it('is one room for many indexes: a second reserve no larger than the first allocates nothing', () => {
    Object.assign(LIST_ARENA, { postings: 64, first: 8 });
    const arenas = new ListArenas();
    for (let i = 0; i < 100; i++) arenas.reserve(16);
    expect(arenas.bytes).toBe(16 * PAIR);
    arenas.reserve(40);
    expect(arenas.bytes).toBe(40 * PAIR);
  });

  it('tells every holder to drop its lists on a switch, and only once per switch', () => {
    Object.assign(LIST_ARENA, { postings: 16, first: 16 });
    const arenas = new ListArenas();
    arenas.reserve(16);
    const [a, b, c] = [holder(), holder(), holder()];
    arenas.begin();
    arenas.take(6, true, a);
    arenas.begin();
    arenas.take(6, true, b);
    expect(arenas.holderCount).toBe(2);
    // c's list does not fit: a and b drop theirs (c kept none), and c fills the other arena.
    arenas.begin();
    arenas.take(6, true, c);
    expect([a.dropped, b.dropped, c.dropped]).toEqual([1, 1, 0]);
    expect(arenas.holderCount).toBe(1);
    // A second switch in the same search would overwrite c's first list: arrays of its own instead.
    const first = arenas.take(8, true, c);
    const own = arenas.take(8, true, c);
    expect(own.scores.buffer).not.toBe(first.scores.buffer);
    expect([a.dropped, b.dropped, c.dropped]).toEqual([1, 1, 0]);
    // The next search may switch: c's lists are dropped then.
    arenas.begin();
    arenas.take(8, true, a);
    expect([a.dropped, b.dropped, c.dropped]).toEqual([1, 1, 1]);
  });

  it('fills the arena from its start once no other holder keeps a list, and not before', () => {
    Object.assign(LIST_ARENA, { postings: 64, first: 8 });
    const arenas = new ListArenas();
    arenas.reserve(32);
    const [a, b] = [holder(), holder()];
    arenas.begin();
    const first = arenas.take(10, true, a);
    arenas.take(10, true, b);
    // a's index changed: b still reads its list, so nothing is reused.
    arenas.release(a);
    expect(arenas.holderCount).toBe(1);
    const next = arenas.take(10, true, a);
    expect(next.scores.byteOffset).toBe(20 * 8);
    arenas.release(a);
    arenas.release(b);
    expect(arenas.holderCount).toBe(0);
    const reused = arenas.take(10, true, a);
    expect(reused.scores.buffer).toBe(first.scores.buffer);
    expect(reused.scores.byteOffset).toBe(0);
  });
});
