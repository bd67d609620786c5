import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RecentValues } from '../../src/indexing/text/recent-values.js';

// The saved documents' ids and stored fields a restored text index keeps decoded: bounded, and
// never a wrong value. Checked against a plain record of every value set, over random reads.
describe('recent values', () => {
  it('give back what was set or nothing, keep at most two limits, and keep what was just read', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 8 }),
        fc.array(fc.tuple(fc.boolean(), fc.integer({ min: 0, max: 30 })), { maxLength: 200 }),
        (limit, steps) => {
          const recent = new RecentValues<string>(limit);
          const truth = new Map<number, string>();
          /** Slots set or found, the latest last */
          const touched: number[] = [];
          let n = 0;
          for (const [write, slot] of steps) {
            if (write) {
              // A slot's value never changes once decoded (a saved document is read-only).
              const value = truth.get(slot) ?? `v${slot}:${n++}`;
              truth.set(slot, value);
              if (recent.get(slot) === undefined) recent.set(slot, value);
              expect(recent.get(slot)).toBe(value);
              touched.push(slot);
            } else {
              const got = recent.get(slot);
              if (got !== undefined) expect(got).toBe(truth.get(slot));
              // What was just read is kept for the next read.
              if (got !== undefined) {
                expect(recent.get(slot)).toBe(got);
                touched.push(slot);
              }
            }
            expect(recent.count).toBeLessThanOrEqual(2 * limit);
            // The last `limit` slots set or found are all still there.
            const last = [...new Set(touched.toReversed())].slice(0, limit);
            for (const kept of last) expect(recent.get(kept)).toBe(truth.get(kept));
          }
        },
      ),
    );
  });
});
