// A chat add takes the day note's text from its own last append (not read, decoded and hashed
// again) only while the file's stat is still what that append left: a hand edit between adds, in
// place or by rename, of another size or the same, is read, kept, and indexed.

import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFile, rename, stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openVault } from '../../src/api/open-vault.js';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';
import { seeded } from '../helpers/seeded.js';

afterEach(cleanupVaults);

const DAY = 'episodes/daily/2026-11-30.md';
const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');

describe('the text of an own append', () => {
  it('is taken only while the file is as the append left it, over seeds of adds and hand edits', async () => {
    let edits = 0;
    let restored = 0;
    for (let seed = 1; seed <= 6; seed++) {
      const r = seeded(seed);
      const root = await makeVault({}, { config: { timezone: 'UTC', git: { autoCommit: false } } });
      const vault = await openVault({ path: root });
      const abs = join(root, DAY);
      const hand: string[] = [];
      const said: string[] = [];
      const at0 = Date.parse('2026-11-30T09:00:00Z');
      for (let i = 0; i < 16; i++) {
        if (i > 0 && r() < 0.4) {
          const text = await readFile(abs, 'utf8');
          const word = `handword${seed}x${i}`;
          const kind = Math.floor(r() * 4);
          edits++;
          if (kind === 0) {
            // In place, longer: a line of the person's own.
            hand.push(word);
            await writeFile(abs, `${text}${word}\n\n`);
          } else if (kind === 1) {
            // By rename, as editors save: a new inode.
            hand.push(word);
            await writeFile(`${abs}.tmp`, `${text}${word}\n\n`);
            await rename(`${abs}.tmp`, abs);
          } else if (kind === 3) {
            // In place, the same size, its mtime set back to the nanosecond (`touch -d`, `cp -p`,
            // `rsync -t`): only the ctime, which no tool sets back, tells.
            const before = await stat(abs, { bigint: true });
            const changed = text.replace('e', 'E');
            await writeFile(abs, changed, { flag: 'r+' });
            const ns = before.mtimeNs;
            const at = `@${ns / 1_000_000_000n}.${(ns % 1_000_000_000n).toString().padStart(9, '0')}`;
            execFileSync('touch', ['-m', '-d', at, abs]);
            expect((await stat(abs, { bigint: true })).mtimeNs).toBe(ns);
            restored++;
            hand.push(changed === text ? '' : 'E');
          } else {
            // In place, the same size, its mtime moved on: only the stat's time tells.
            const before = await stat(abs);
            const changed = text.replace('e', 'E');
            await writeFile(abs, changed);
            await utimes(abs, before.atime, new Date(before.mtimeMs + 5000));
            hand.push(changed === text ? '' : 'E');
          }
          // A watcher's refresh of the note edited: read, not taken from the append before.
          await vault.refreshPaths([DAY]);
          const edited = await readFile(abs);
          expect(vault.note(DAY).hash, `seed ${seed}, edit ${i}`).toBe(sha256(edited));
        }
        const words = `quokka${seed}y${i} said hello`;
        said.push(words);
        await vault.addExchange({ user: words, at: new Date(at0 + i * 60_000) });
        const text = await readFile(abs, 'utf8');
        for (const w of [...hand, ...said]) expect(text, `seed ${seed}, step ${i}: ${w}`).toContain(w);
        // The index holds the file as it is: its hash, and the person's words are found.
        expect(vault.note(DAY).hash).toBe(sha256(text));
        const last = hand.filter((w) => w.startsWith('handword')).at(-1);
        if (last) expect(vault.recall(last).hits.length, `seed ${seed}, step ${i}`).toBeGreaterThan(0);
      }
      await vault.close();
    }
    expect(edits).toBeGreaterThan(15);
    expect(restored).toBeGreaterThan(3);
  });

  it('is not taken after a same-size rewrite in place that set the mtime back, and a replace still lands', async () => {
    for (let seed = 1; seed <= 4; seed++) {
      const root = await makeVault({}, { config: { timezone: 'UTC', git: { autoCommit: false } } });
      const vault = await openVault({ path: root });
      const abs = join(root, DAY);
      const at0 = Date.parse('2026-11-30T09:00:00Z');
      await vault.addExchange({ user: `first words ${seed}`, at: new Date(at0) });
      // Nobody wrote it for a while: the next add takes the quiet path and keeps what it read back.
      const old = new Date(Date.now() - 60_000);
      await utimes(abs, old, old);
      await vault.addExchange({ user: `second words ${seed}`, at: new Date(at0 + 60_000) });
      const before = await stat(abs, { bigint: true });
      const text = await readFile(abs, 'utf8');
      const changed = text.replace('second', 'SECOND');
      expect(changed.length).toBe(text.length);
      await writeFile(abs, changed, { flag: 'r+' });
      const ns = before.mtimeNs;
      execFileSync('touch', [
        '-m',
        '-d',
        `@${ns / 1_000_000_000n}.${(ns % 1_000_000_000n).toString().padStart(9, '0')}`,
        abs,
      ]);
      const after = await stat(abs, { bigint: true });
      expect([after.mtimeNs, after.size, after.ino]).toEqual([before.mtimeNs, before.size, before.ino]);
      await vault.refreshPaths([DAY]);
      expect(vault.note(DAY).hash, `seed ${seed}`).toBe(sha256(changed));
      expect(vault.recall('SECOND').hits.length, `seed ${seed}`).toBeGreaterThan(0);
      await vault.addExchange({ user: `third words ${seed}`, at: new Date(at0 + 120_000) });
      const last = await readFile(abs, 'utf8');
      expect(last).toContain('SECOND');
      expect(last).toContain(`third words ${seed}`);
      expect(vault.note(DAY).hash).toBe(sha256(last));
      await vault.close();
    }
  });
});
