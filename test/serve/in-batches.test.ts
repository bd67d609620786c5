import { describe, expect, it } from 'vitest';
import { inBatches } from '../../src/serve/pool/vault-moves.js';

/** Lets every pending callback run. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

describe("inBatches (a drain's releases, a restarted server's recoveries)", () => {
  it('runs four at a time, the next four once those end, and keeps each result in order', async () => {
    const started: number[] = [];
    const gates = new Map<number, () => void>();
    const running = inBatches([0, 1, 2, 3, 4, 5], (n) => {
      started.push(n);
      return new Promise<number>((resolve, reject) =>
        gates.set(n, () => (n === 2 ? reject(new Error('two')) : resolve(n * 10))),
      );
    });
    await settle();
    expect(started).toEqual([0, 1, 2, 3]);
    for (const n of [0, 1, 2]) gates.get(n)!();
    await settle();
    expect(started).toEqual([0, 1, 2, 3]);
    gates.get(3)!();
    await settle();
    expect(started).toEqual([0, 1, 2, 3, 4, 5]);
    gates.get(5)!();
    gates.get(4)!();
    const results = await running;
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message))).toEqual([
      0,
      10,
      'two',
      30,
      40,
      50,
    ]);
  });
});
