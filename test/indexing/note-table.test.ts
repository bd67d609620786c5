import { afterEach, describe, expect, it } from 'vitest';
import { openVault, type Vault } from '../../src/api/open-vault.js';
import type { NoteTable } from '../../src/indexing/note-table.js';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';

afterEach(cleanupVaults);

const FILES = Object.fromEntries(
  Array.from({ length: 20 }, (_, i) => [
    `insights/n${i}.md`,
    `# Note ${i}\n\nAbout topic ${i}, see [[n${(i + 1) % 20}]].\n`,
  ]),
);

function notesOf(vault: Vault): NoteTable {
  return (vault as unknown as { live: { index: { notes: NoteTable } } }).live.index.notes;
}

describe('the notes opened from the cache', () => {
  it('are held as saved slots until read, and kept decoded only up to limits.decodedNotesMiB', async () => {
    const root = await makeVault(FILES, { config: { timezone: 'UTC', limits: { decodedNotesMiB: 1 } } });
    const built = await openVault({ path: root });
    const expected = built.paths().map((path) => built.note(path));
    await built.close();

    const vault = await openVault({ path: root });
    const notes = notesOf(vault);
    expect(notes.decodedBytes).toBe(1024 * 1024);
    // Nothing decoded at open: every path is its slot in the saved table.
    expect(vault.paths().every((path) => typeof notes.entry(path) === 'number')).toBe(true);
    expect(vault.paths().map((path) => vault.note(path))).toEqual(expected);
    // Within the bound a note read twice is the same object …
    expect(notes.get('insights/n3.md')).toBe(notes.get('insights/n3.md'));
    // … past it (here one byte: no note fits beside another) each read decodes it again, alike.
    notes.decodedBytes = 1;
    const first = notes.get('insights/n3.md');
    notes.get('insights/n4.md');
    const again = notes.get('insights/n3.md');
    expect(again).not.toBe(first);
    expect(again).toEqual(first);
    expect([...notes.values()]).toEqual(expected);
    await vault.close();
  });
});
