import { mkdtemp, readdir, readFile, readlink, rename, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AddJournal } from '../../src/write/add-journal.js';
import { seeded } from '../helpers/seeded.js';

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function journalFile(lines: object[]): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'mem-journal-'));
  dirs.push(dir);
  const file = join(dir, 'adds.jsonl');
  await writeFile(file, lines.map((line) => `${JSON.stringify(line)}\n`).join(''));
  return file;
}

const record = (id: string) => ({ id, at: '2026-11-30T01:00:00Z', entries: [{ text: `kiwi ${id}` }] });

describe('AddJournal.open', () => {
  it('empties a journal whose every add was committed (a kill before it was emptied)', async () => {
    const file = await journalFile([
      { add: record('a') },
      { written: 'a', paths: ['episodes/daily/2026-11-30.md'] },
      { committed: ['a'] },
    ]);
    const journal = await AddJournal.open(file);
    expect(journal.uncommitted().size).toBe(0);
    expect(journal.unwritten()).toEqual([]);
    expect(await readFile(file, 'utf8')).toBe('');
  });

  it('keeps a journal that still holds an add, as it was', async () => {
    const lines = [{ add: record('a') }, { add: record('b') }, { committed: ['a'] }];
    const file = await journalFile(lines);
    const before = await readFile(file, 'utf8');
    const journal = await AddJournal.open(file);
    expect(journal.unwritten().map((r) => r.id)).toEqual(['b']);
    expect(await readFile(file, 'utf8')).toBe(before);
  });
});

describe('AddJournal: one file descriptor across adds', () => {
  const lines = async (file: string) =>
    (await readFile(file, 'utf8'))
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as Record<string, unknown>);

  it('every line of a run of adds is in the file on disk, through compactions, replacements and a close', async () => {
    const file = await journalFile([]);
    const random = seeded(33);
    let journal = await AddJournal.open(file);
    const pending: string[] = [];
    for (let i = 0; i < 60; i++) {
      const id = `r${i}`;
      pending.push(id);
      await journal.add(record(id));
      await journal.markPlanned(id, 'episodes/daily/2026-11-30.md', [`- kiwi ${id} ^e${i}`]);
      await journal.markWritten(id, ['episodes/daily/2026-11-30.md']);
      const step = random();
      if (step < 0.25) {
        // Committed: the file is emptied by a rename over it, and the next line must land in the new one.
        await journal.markCommitted(pending.splice(0));
        expect(await readFile(file, 'utf8')).toBe('');
      } else if (step < 0.4) {
        // Another process put a copy of the file in its place (a rename over it): lines go to the copy.
        await writeFile(`${file}.other`, await readFile(file, 'utf8'));
        await rename(`${file}.other`, file);
      } else if (step < 0.5) {
        // Removed: the next line makes the file again, rather than writing into the unlinked one.
        await unlink(file);
      } else if (step < 0.6) {
        // A process that stops and the next that starts: the journal is read again from the file.
        await journal.close();
        journal = await AddJournal.open(file);
      }
      const next = `n${i}`;
      await journal.add(record(next));
      await journal.sync();
      // What a process started now would read: the add just accepted is there.
      const again = await AddJournal.open(file);
      expect(again.unwritten().map((r) => r.id)).toContain(next);
      expect((await lines(file)).at(-1)).toEqual({ add: record(next) });
      await journal.markWritten(next, ['episodes/daily/2026-11-30.md']);
      await journal.markCommitted([next]);
    }
    await journal.close();
  });

  it('opens the file once for many adds, and closes it on close', async () => {
    const file = await journalFile([]);
    const journal = await AddJournal.open(file);
    const fds = async () => (await readdir('/proc/self/fd')).length;
    await journal.add(record('first'));
    const open = await fds();
    for (let i = 0; i < 20; i++) {
      await journal.add(record(`a${i}`));
      await journal.markPlanned(`a${i}`, 'episodes/daily/2026-11-30.md', [`- kiwi ^e${i}`]);
      await journal.markWritten(`a${i}`, ['episodes/daily/2026-11-30.md']);
    }
    expect(await fds()).toBe(open);
    expect(await readlinkAll()).toContain(file);
    await journal.close();
    expect(await readlinkAll()).not.toContain(file);
    // A line after close still lands, and leaves nothing open.
    await journal.markCommitted(['first']);
    expect(await readlinkAll()).not.toContain(file);
    expect((await lines(file)).at(-1)).toEqual({ committed: ['first'] });
  });
});

async function readlinkAll(): Promise<string[]> {
  const names = await readdir('/proc/self/fd');
  return Promise.all(names.map((n) => readlink(join('/proc/self/fd', n)).catch(() => '')));
}
