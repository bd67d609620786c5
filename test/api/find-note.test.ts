import { afterEach, describe, expect, it } from 'vitest';
import { findNote, findNoteToWrite, pathToWrite } from '../../src/live/find-note.js';
import { cleanupVaults, indexOf, makeVault } from '../helpers/make-vault.js';

afterEach(cleanupVaults);

const NOTES = {
  'people/Mei.md': '# Mei\n',
  'work/Mei.md': '# Mei at work\n',
  'insights/Tokyo.md': '# Tokyo\n',
};

describe('which note a reference names', () => {
  it('finds a note by path, with or without .md and a leading ./ or /, or by its link text', async () => {
    const root = await makeVault(NOTES);
    const index = await indexOf(root);
    for (const ref of [
      'insights/Tokyo.md',
      'insights/Tokyo',
      './insights/Tokyo',
      '/insights/Tokyo.md',
      'Tokyo',
    ])
      expect(findNote(index, ref).path).toBe('insights/Tokyo.md');
    expect(() => findNote(index, 'Osaka')).toThrow('note not found: Osaka');
  });

  it('refuses a name two notes answer to for a write, naming both, and takes a path', async () => {
    const root = await makeVault(NOTES);
    const index = await indexOf(root);
    expect(() => findNoteToWrite(index, 'Mei')).toThrow(
      'Mei is ambiguous: people/Mei.md, work/Mei.md; give the note',
    );
    expect(findNoteToWrite(index, 'work/Mei').path).toBe('work/Mei.md');
    expect(await pathToWrite(root, index, 'people/Mei')).toBe('people/Mei.md');
  });

  it('without a pending plan, a path no note has is not found for a write either', async () => {
    const root = await makeVault(NOTES);
    const index = await indexOf(root);
    await expect(pathToWrite(root, index, 'gone/Note')).rejects.toThrow('note not found: gone/Note');
  });
});
