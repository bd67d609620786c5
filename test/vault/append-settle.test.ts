import { mkdtemp, open, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';

/** Set by a test: runs just before mem opens the note to append, as a save landing in that moment would. */
const race: { beforeAppend?: () => Promise<void> } = {};

vi.mock('node:fs/promises', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs/promises')>();
  return {
    ...real,
    open: async (path: string, flags?: string, mode?: number) => {
      const hook = race.beforeAppend;
      if (hook && flags === 'a') {
        race.beforeAppend = undefined;
        await hook();
      }
      return real.open(path, flags, mode);
    },
  };
});

const { appendVerified } = await import('../../src/vault/write-note.js');

describe('an append beside an editor that saves in place', () => {
  it('waits out a save stalled between its truncate and its write, and adds nothing twice', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mem-settle-'));
    const file = join(dir, 'note.md');
    const line = '- 12:00 **A:** mem entry ^e1\n';
    await writeFile(file, `# day\n${line}`);
    // The editor read the note with mem's entry in it, truncated the file to save, and stalls
    // before writing: mem's look finds the entry missing.
    const saved = `# day\n${line}hand edit\n`;
    const editor = await open(file, 'w');
    let done = false;
    const finish = async () => {
      if (done) return;
      done = true;
      await editor.writeFile(saved);
      await editor.close();
    };
    // Before the fix, mem gave up waiting after ~100 ms and appended on the empty read; the save
    // then landed just before the append, and the entry was in the note twice.
    race.beforeAppend = finish;
    const timer = setTimeout(() => void finish(), 300);

    await appendVerified(
      file,
      (current) => (current?.includes(line) ? undefined : line),
      (text) => text.includes(line),
    );
    clearTimeout(timer);
    race.beforeAppend = undefined;

    expect(await readFile(file, 'utf8')).toBe(saved);
  });
});
