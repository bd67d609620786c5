// Differential: an episode note read as an append (append-note.ts) is what parseNote gives the
// whole new text, byte for byte, over hundreds of random day notes and random appends.
import { describe, expect, it } from 'vitest';
import type { Note } from '../../src/core/types.js';
import { DEFAULT_LIMITS } from '../../src/indexing/bound-note.js';
import { grownText } from '../../src/vault/grown-text.js';
import { appendToNote, isAppendable, keepAppendState } from '../../src/vault/markdown/append-note.js';
import { parseNote, parseNoteParts } from '../../src/vault/markdown/parse-note.js';
import { hashText } from '../../src/vault/write-note.js';
import { appendLine } from '../../src/write/episode-entry.js';
import { appended, dayNote, random } from '../helpers/day-notes.js';

const PATH = 'episodes/daily/2026-11-30.md';

const stat = (text: string, step: number) => ({ size: Buffer.byteLength(text), mtimeMs: 1000 + step });

/** The note of `text` read whole, keeping what an append needs (as the live index does). */
function readWhole(text: string, step: number): Note {
  const parts = parseNoteParts(PATH, text, stat(text, step), hashText(text));
  keepAppendState(parts, text);
  return parts.note;
}

/**
 * `previous` read on with `text`: as an append when it is one, else undefined. `bytes`: the file's,
 * as a chat write hands them over with the text it joined (grown-text.ts).
 */
function readAppend(previous: Note, text: string, step: number, bytes?: Buffer): Note | undefined {
  return appendToNote(previous, text, hashText(text), stat(text, step), DEFAULT_LIMITS, bytes);
}

describe('an append read alone', () => {
  it('gives what a parse of the whole note gives, over random day notes and appends', () => {
    let incremental = 0;
    let joined = 0;
    let steps = 0;
    for (let seed = 1; seed <= 300; seed++) {
      const r = random(seed);
      const day = dayNote(r);
      let text = day.text;
      let note = readWhole(text, 0);
      for (let step = 1; step <= 6; step++) {
        const tail = appended(r, day);
        // As the writer appends (a line break first when the note lacks one), joined as a chat
        // write joins them and handed over with the file's bytes, or by hand.
        const before = text;
        text = r.chance(0.85) ? appendLine(text, tail.replace(/\n$/, '')) : text + tail;
        const chat = r.chance(0.5);
        if (chat) text = grownText(before, text.slice(before.length));
        steps++;
        const whole = parseNote(PATH, text, stat(text, step), hashText(text));
        const read = readAppend(note, text, step, chat ? Buffer.from(text) : undefined);
        if (read && chat) joined++;
        if (read) {
          incremental++;
          expect(JSON.stringify(read), `seed ${seed} step ${step}:\n${text}`).toBe(JSON.stringify(whole));
          expect(read).toStrictEqual(whole);
          note = read;
        } else note = readWhole(text, step);
      }
    }
    // Most appends to a note that ended in an entry are read alone; the test must exercise them.
    expect(incremental).toBeGreaterThan(steps / 5);
    expect(joined).toBeGreaterThan(steps / 10);
  });

  it('reads the whole note after a hand edit before the end, whatever the size', () => {
    const text = '- 09:00 **Rain:** tea ^e1\n- 09:05 **小满:** 好的 [[Mia]] ^e2\n';
    const note = readWhole(text, 0);
    expect(isAppendable(note)).toBe(true);
    const entry = '- 10:00 **Rain:** more tea #trip ^e3\n';
    // The control: the same append to the note as it was is read alone.
    expect(readAppend(note, `${text}${entry}`, 1)).toStrictEqual(
      parseNote(PATH, `${text}${entry}`, stat(`${text}${entry}`, 1), hashText(`${text}${entry}`)),
    );
    // (An append read alone moves what the next one needs on to its note: each read starts anew.)
    const longer = `${text.replace('tea', 'green tea')}${entry}`;
    expect(readAppend(readWhole(text, 0), longer, 1)).toBeUndefined();
    // The same length, another text: only the hash tells.
    const same = `${text.replace('tea', 'pie')}${entry}`;
    expect(readAppend(readWhole(text, 0), same, 1)).toBeUndefined();
  });

  it('reads the whole note when an earlier line ends in the new block id', () => {
    const text = '- 09:00 cites\n  the next ^e2\n  more ^e1\n';
    const note = readWhole(text, 0);
    expect(isAppendable(note)).toBe(true);
    const entry = '- 10:00 **Rain:** new ^e2\n';
    const next = `${text}${entry}`;
    expect(readAppend(note, next, 1)).toBeUndefined();
    // Found in the bytes too, past text that is more bytes than characters: the mention is at
    // byte 57, past the 39 characters of the text before.
    const wide = '- 09:00 引用引用引用引用引用引用\n  下一个 ^e2\n  m ^e1\n';
    const bytes = (text: string) => Buffer.from(text);
    expect(readAppend(readWhole(wide, 0), grownText(wide, entry), 1, bytes(wide + entry))).toBeUndefined();
    // The controls: the entry's own id, and a mention of it in the entry, are no earlier mention,
    // however many bytes the entry's characters take.
    const plain = '- 09:00 引用 ^e1\n';
    for (const own of [entry, '- 10:00 ^e2 好好好好好好好好 ^e2\n']) {
      const read = readAppend(readWhole(plain, 0), grownText(plain, own), 1, bytes(plain + own));
      expect(read, own).toStrictEqual(
        parseNote(PATH, plain + own, stat(plain + own, 1), hashText(plain + own)),
      );
    }
  });

  it('keeps nothing for a note left inside an open code fence or comment', () => {
    for (const text of [
      '- 09:00 a ^e1\n```\ncode\n',
      '- 09:00 a ^e1\n%% open\n',
      '- 09:00 a ^e1\n<div>\n',
      '- 09:00 a ^e1',
      '---\ntitle: x\n- 09:00 a ^e1\n',
      '---\n: : bad %%\n---\n- 09:00 a ^e1\n',
    ])
      expect(isAppendable(readWhole(text, 0)), text).toBe(false);
  });
});
