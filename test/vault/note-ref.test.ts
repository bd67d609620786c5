import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openVault } from '../../src/index.js';
import { cleanNoteRef, noteRefLink, noteRefPath } from '../../src/vault/links/note-ref.js';
import { git, gitVault } from '../helpers/git.js';
import { cleanupVaults } from '../helpers/make-vault.js';

afterEach(cleanupVaults);

describe('a note reference', () => {
  it('is read one way: NFC, without the ./ and / in front', () => {
    const cafe = 'café'.normalize('NFD');
    for (const ref of [
      'profile/user.md',
      './profile/user.md',
      '/profile/user.md',
      './/profile/user.md',
      '/./profile/user.md',
    ])
      expect([ref, cleanNoteRef(ref)]).toEqual([ref, 'profile/user.md']);
    expect(cleanNoteRef(`./${cafe}`)).toBe('café'.normalize('NFC'));
    expect(noteRefPath('/profile/user')).toBe('profile/user.md');
    expect(noteRefPath('./Dr. Smith')).toBe('Dr. Smith.md');
    expect(noteRefPath('files/scan.pdf')).toBe('files/scan.pdf');
    expect(noteRefLink('/profile/User.MD')).toBe('profile/User');
  });

  it('every verb finds the same note by each form of it', async () => {
    const root = await gitVault({
      'profile/user.md': '# User\n',
      'insights/tea.md': 'Told [[user]] about tea.\n',
    });
    const vault = await openVault({ path: root, cache: false });
    try {
      for (const ref of [
        'profile/user',
        'profile/user.md',
        './profile/user',
        '/profile/user.md',
        './/profile/user',
        'user',
      ]) {
        expect([ref, vault.note(ref).path]).toEqual([ref, 'profile/user.md']);
        expect([ref, vault.noteToWrite(ref).path]).toEqual([ref, 'profile/user.md']);
        expect([ref, vault.backlinks(ref).map((edge) => edge.from)]).toEqual([ref, ['insights/tea.md']]);
        expect([ref, (await vault.history(ref)).map((entry) => entry.path)]).toEqual([
          ref,
          ['profile/user.md'],
        ]);
      }
    } finally {
      await vault.close();
    }
  });

  it("a deleted note's history is found by its path with a leading /", async () => {
    // Once read as `/insights/old.md`, a path no commit has.
    const root = await gitVault({ 'insights/old.md': '# Old\n' });
    await rm(join(root, 'insights/old.md'));
    await git(root, 'commit', '-qam', 'drop old');
    const vault = await openVault({ path: root, cache: false });
    try {
      expect((await vault.history('/insights/old')).map((entry) => entry.subject)).toEqual([
        'drop old',
        'init',
      ]);
    } finally {
      await vault.close();
    }
  });
});
