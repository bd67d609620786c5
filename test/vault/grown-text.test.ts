// A text joined by grownText answers what follows a given start as comparing the characters would:
// the tail it was joined with only for the very text it grew from, whatever else has the same length.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { grownTail, grownText, textAfter } from '../../src/vault/grown-text.js';

/** What comparing the characters gives: the rest of `text` when it starts with `before`. */
const sliced = (text: string, before: string) =>
  text.length >= before.length && text.startsWith(before) ? text.slice(before.length) : undefined;

const piece = fc.string({ unit: fc.constantFrom('a', 'b', '\n', '\r', '好', '😀', '\ud800'), maxLength: 12 });

describe('a text joined by grownText', () => {
  it('gives what follows any start as a comparison of its characters does', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(piece, piece, piece), { minLength: 1, maxLength: 12 }), (steps) => {
        let text = '';
        for (const [tail, other, edit] of steps) {
          const before = text;
          text = grownText(text, tail);
          expect(text).toBe(before + tail);
          expect(textAfter(text, before)).toBe(tail);
          // Another start of the same length (a text the note had before a hand edit) or any other.
          const sameLength = (edit + before).slice(0, before.length).padEnd(before.length, 'x');
          expect(textAfter(text, sameLength)).toBe(sliced(text, sameLength));
          expect(textAfter(text, other)).toBe(sliced(text, other));
          if (tail !== '') expect(grownTail(text, before.length)).toBe(tail);
          // At any other length, a tail given is the text's rest there.
          for (let at = 0; at <= text.length; at++) {
            const rest = grownTail(text, at);
            if (rest !== undefined) expect(rest).toBe(text.slice(at));
          }
          // A text made alike but not by grownText is compared, and gives the same.
          const copy = `${before}${tail}`.split('').join('');
          expect(textAfter(copy, before)).toBe(tail);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('takes the tail only for the text it grew from, not another of the same length', () => {
    const day = grownText('- 09:00 a ^e1\n', '- 10:00 b ^e2\n');
    expect(textAfter(day, '- 09:00 a ^e1\n')).toBe('- 10:00 b ^e2\n');
    // The note as it was before a same-size hand edit: no tail of it is in the joined text.
    expect(textAfter(day, '- 09:00 A ^e1\n')).toBeUndefined();
    // Texts of other notes joined since push this one out of those remembered; it is still right.
    for (let i = 0; i < 20; i++) grownText(`note ${i}\n`, 'more\n');
    expect(grownTail(day, 14)).toBeUndefined();
    expect(textAfter(day, '- 09:00 a ^e1\n')).toBe('- 10:00 b ^e2\n');
  });
});
