// The read back after an append takes the file for the text before with the appended lines after it
// only when its bytes are those, every one: an editor's save between the write and the read back
// that changes an earlier part and keeps the size (and even the appended lines) is read, kept and
// indexed, at every place in the day. And the text an append reports is the file's, also for lines
// that UTF-8 cannot hold as given (a lone surrogate is written as U+FFFD).
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openVault } from '../../src/api/open-vault.js';
import type { Note } from '../../src/core/types.js';
import { parseNote } from '../../src/vault/markdown/parse-note.js';
import { setRaceHook } from '../../src/vault/race-point.js';
import { appendVerified } from '../../src/vault/write-note.js';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';

afterEach(async () => {
  setRaceHook(undefined);
  await cleanupVaults();
});

const DAY = 'episodes/daily/2026-11-30.md';
const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');
const at0 = Date.parse('2026-11-30T09:00:00Z');

/** Sets the file's times a minute back, as a note nobody is editing. */
async function quiet(abs: string): Promise<void> {
  const old = new Date(Date.now() - 60_000);
  await utimes(abs, old, old);
}

/** Another character of as many UTF-8 bytes as `char` (a line break stays: lines are not moved). */
function sameSize(char: string): string {
  if (char === '\n') return char;
  if (/[a-z]/.test(char)) return char.toUpperCase();
  if (Buffer.byteLength(char) === 1) return char === 'Q' ? 'R' : 'Q';
  return char === '火' ? '水' : '火';
}

/** What an index reads of a note: its sections' ids and texts, its title, tags and links. */
const read = (note: Note) => ({
  title: note.title,
  tags: note.tags,
  links: note.links.map((l) => l.raw),
  sections: note.sections.map((s) => [s.id, s.text]),
});

/** The day with a person's lines among mem's entries: words to change, in one and three bytes. */
const START = '# 2026-11-30\n\nvwxyz 水果 by hand\n\n- 08:00 **Rain:** first tea ^e1\n';

describe('the read back after an append', () => {
  it('reads a same-size change saved after the write, at every place of the day', async () => {
    // Every place of the day as the append left it: each byte that starts a character, before the
    // appended entry and in it. The run past the last place changes nothing.
    let places = Number.POSITIVE_INFINITY;
    let place = 0;
    for (; place <= places; place++) {
      const root = await makeVault(
        { [DAY]: START },
        { config: { timezone: 'UTC', git: { autoCommit: false } } },
      );
      const abs = join(root, DAY);
      // Nobody has saved it for a while: the append takes the read back as final (no second look).
      await quiet(abs);
      const vault = await openVault({ path: root });
      let edited: string | undefined;
      setRaceHook((point, file) => {
        if (point !== 'after-write' || file !== abs || edited !== undefined) return;
        const bytes = readFileSync(abs);
        const text = bytes.toString('utf8');
        const starts = [...text].map((_, i) => Buffer.byteLength(text.slice(0, i)));
        places = starts.length;
        edited = text;
        if (place >= starts.length) return;
        // In place, the same size: one character for another of as many bytes.
        const at = starts[place]!;
        const char = [...bytes.subarray(at).toString('utf8')][0]!;
        const next = Buffer.concat([
          bytes.subarray(0, at),
          Buffer.from(sameSize(char)),
          bytes.subarray(at + Buffer.byteLength(char)),
        ]);
        expect(next.length).toBe(bytes.length);
        writeFileSync(abs, next, { flag: 'r+' });
        edited = next.toString('utf8');
      });
      await vault.addExchange({ user: 'quokka said hello', at: new Date(at0 + 3_600_000) });
      setRaceHook(undefined);
      const file = readFileSync(abs);
      const text = file.toString('utf8');
      // The person's save is kept; a change to the entry itself dropped it, and it is there again.
      if (place < [...START].length) expect(text, `place ${place}`).toBe(edited);
      else expect(text.startsWith(edited!), `place ${place}`).toBe(true);
      expect(
        text.split('\n').filter((l) => /^- 10:00 \*\*user:\*\* quokka said hello \^e\d+$/.test(l)),
        `place ${place}`,
      ).toHaveLength(1);
      // The index holds the file as the person left it: its hash, and what a parse of it reads.
      expect(vault.note(DAY).hash, `place ${place}`).toBe(sha256(file));
      expect(read(vault.note(DAY)), `place ${place}`).toEqual(read(parseNote(DAY, file.toString('utf8'))));
      // The next add starts from the file, not from the text the last one wrote.
      await vault.addExchange({ user: `wombat${place} said bye`, at: new Date(at0 + 7_200_000) });
      const last = readFileSync(abs);
      expect(last.toString('utf8').startsWith(edited!), `place ${place}`).toBe(true);
      expect(vault.note(DAY).hash).toBe(sha256(last));
      expect(read(vault.note(DAY)), `place ${place}`).toEqual(read(parseNote(DAY, last.toString('utf8'))));
      await vault.close();
    }
    // START's characters and the entry's.
    expect(place).toBeGreaterThan([...START].length + 20);
  });

  it('reports the text the file holds when the lines appended are not UTF-8 as given', async () => {
    const root = await makeVault({ [DAY]: START });
    const abs = join(root, DAY);
    await quiet(abs);
    for (const line of ['- a lone \ud800 surrogate\n', '- one \udc00 the other way\n', '- 好 and 😀\n']) {
      const { text, changed } = await appendVerified(
        abs,
        () => line,
        () => true,
      );
      expect(changed).toBe(true);
      expect(text).toBe(readFileSync(abs, 'utf8'));
    }
    expect(readFileSync(abs, 'utf8')).toContain('- a lone \ufffd surrogate\n');
  });
});
