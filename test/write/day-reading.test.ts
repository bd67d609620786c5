// Differential: a day's reading grown by appends (what a chat write drafts on) holds what a reading
// of the whole text holds, and a draft on it numbers and checks entries as one on a fresh reading.
// The appends are joined as a chat write joins them (grown-text.ts) or by hand, in the note's line
// breaks or the other kind.
import { describe, expect, it } from 'vitest';
import { grownText } from '../../src/vault/grown-text.js';
import { DayDraft, DayReading, readingOf } from '../../src/write/day-draft.js';
import { appended, dayNote, random } from '../helpers/day-notes.js';

const sorted = (set: Iterable<unknown>) => [...set].map(String).sort();

function same(a: DayReading, b: DayReading): void {
  expect(a.text).toBe(b.text);
  expect([a.crlf, a.endsInBreak]).toEqual([b.crlf, b.endsInBreak]);
  expect(sorted(a.lines)).toEqual(sorted(b.lines));
  expect(sorted(a.ids)).toEqual(sorted(b.ids));
  expect({ ...a.counted, high: sorted(a.counted.high) }).toEqual({
    ...b.counted,
    high: sorted(b.counted.high),
  });
}

describe('a day reading grown by appends', () => {
  it('holds what a reading of the whole text holds', () => {
    let grown = 0;
    for (let seed = 1; seed <= 200; seed++) {
      const r = random(3000 + seed);
      const day = dayNote(r);
      let text = r.chance(0.2) ? day.text.replace(/\n/g, '\r\n') : day.text;
      const key = `/vault/${seed}.md`;
      readingOf(key, text);
      for (let step = 1; step <= 5; step++) {
        let tail = appended(r, day);
        // Now and then in the other line breaks (a tool that writes CRLF), no line break at the
        // end, or a high or tagged id, or a hand edit.
        if (r.chance(0.15)) tail = tail.replace(/\r?\n/g, r.chance(0.5) ? '\r\n' : '\n');
        tail = r.chance(0.1) ? tail.trimEnd() : r.chance(0.1) ? `- x ^e${r.int(1, 2e9)}-k7q2\n` : tail;
        text = r.chance(0.6) ? grownText(text, tail) : text + tail;
        if (r.chance(0.05)) text = text.replace('e', 'E');
        const kept = readingOf(key, text);
        const whole = DayReading.of(text);
        same(kept, whole);
        if (kept !== whole) grown++;
        const a = new DayDraft(text, 3, 'k7q2', kept);
        const b = new DayDraft(text, 3, 'k7q2');
        for (let k = 0; k < 3; k++) {
          expect(a.nextBlockId()).toBe(b.nextBlockId());
          const line = `- 10:00 more ^${a.nextBlockId()}`;
          expect(a.holds(line)).toBe(b.holds(line));
          a.add(line);
          b.add(line);
        }
        expect(a.tail(undefined)).toBe(b.tail(undefined));
        expect(a.text(undefined)).toBe(b.text(undefined));
      }
    }
    expect(grown).toBeGreaterThan(300);
  });
});
