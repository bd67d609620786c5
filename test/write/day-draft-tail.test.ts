// The text an append adds to a day note, found alone (DayDraft.tail), is the whole note's text as
// placed (DayDraft.text) less the note: for notes with CRLF or LF line breaks, with or without a
// last line break, empty, and entries of one line or several.

import { describe, expect, it } from 'vitest';
import { DayDraft } from '../../src/write/day-draft.js';
import { renderEntry } from '../../src/write/episode-entry.js';
import { seeded } from '../helpers/seeded.js';

const PIECES = [
  '# 2026-11-30',
  '',
  '- 08:00 hello ^e1',
  'a line of prose',
  '- 09:00 **Rain:** tea ^e2',
  '%%x%%',
];

describe('DayDraft.tail', () => {
  it('is text() less the note, over seeds', () => {
    let checked = 0;
    for (let seed = 1; seed <= 300; seed++) {
      const r = seeded(seed);
      const eol = r() < 0.3 ? '\r\n' : '\n';
      const lines: string[] = [];
      for (let n = Math.floor(r() * 6); n > 0; n--) lines.push(PIECES[Math.floor(r() * PIECES.length)]!);
      let base = lines.join(eol);
      if (base !== '' && r() < 0.7) base += eol;
      const draft = new DayDraft(base, 0);
      for (let n = Math.floor(r() * 4); n > 0; n--) {
        const text = r() < 0.3 ? `said ${seed}\nand more ${n}` : `said ${seed} ${n}`;
        draft.add(renderEntry({ text, time: '10:00', blockId: draft.nextBlockId() }));
      }
      const whole = draft.text(undefined);
      expect(whole.startsWith(base), `seed ${seed}`).toBe(true);
      expect(draft.tail(undefined), `seed ${seed}`).toBe(whole.slice(base.length));
      expect(draft.tail('## Memory')).toBeUndefined();
      checked++;
    }
    expect(checked).toBe(300);
  });
});
