import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AddJournal } from '../../src/write/add-journal.js';

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
