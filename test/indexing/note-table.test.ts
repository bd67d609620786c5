import { afterEach, describe, expect, it } from 'vitest';
import { openVault, type Vault } from '../../src/api/open-vault.js';
import type { NoteTable } from '../../src/indexing/note-table.js';
import type { VaultIndex } from '../../src/indexing/vault-index.js';
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

describe('a large note opened from the cache', () => {
  const DAY = 'episodes/daily/2026-11-20.md';
  const entries = Array.from(
    { length: 60 },
    (_, i) =>
      `- 10:${String(i).padStart(2, '0')} **Rain:** walk ${i} by the [[harbor]] ${'and the quay '.repeat(90)}^w${i}\n`,
  );
  const TEXT = `# 2026-11-20\n\n${entries.join('')}`;

  it('decodes only the entry a hit names, which is the very entry its sections list holds', async () => {
    const root = await makeVault({ [DAY]: TEXT, 'insights/harbor.md': '# Harbor\n\nBoats.\n' });
    const built = await openVault({ path: root });
    const expected = built.note(DAY);
    await built.close();
    const vault = await openVault({ path: root });
    const index = (vault as unknown as { live: { index: VaultIndex } }).live.index;
    const found = index.section(`${DAY}#^w37`);
    expect(found?.section.text).toContain('walk 37');
    // The note's sections are not decoded yet: the list is still an accessor of the saved note.
    expect(typeof Object.getOwnPropertyDescriptor(found?.note, 'sections')?.get).toBe('function');
    expect(index.sectionByAnchor(DAY, '^w12')?.section.text).toContain('walk 12');
    // Asked for whole, the list holds the entries decoded before, and the note is what was saved.
    expect(found?.note.sections.find((s) => s.anchor === '^w37')).toBe(found?.section);
    expect(found?.note).toEqual(expected);
    await vault.close();
  });
});
