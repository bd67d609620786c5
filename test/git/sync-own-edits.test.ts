// `mem sync` with the person's uncommitted edits to notes the merge changes: it commits them first
// as the person's own commit (the repository's identity, `sync: your edits to …`), says so, then
// merges; a new note they wrote where the other side added one goes in too. It used to refuse.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openVault } from '../../src/index.js';
import { git } from '../helpers/git.js';
import { cleanupVaults } from '../helpers/make-vault.js';
import { mem } from '../helpers/run-cli.js';
import { countLine, DAY, DAY_PATH, expectHealthy, twoClones } from './sync-helpers.js';

afterEach(cleanupVaults);

describe('mem sync and the person’s uncommitted edits', () => {
  it('commits them as the person’s commit, merges, and says so', async () => {
    const c = await twoClones();
    for (const root of [c.a, c.b]) {
      const vault = await openVault({ path: root, cache: false });
      await vault.remember({ text: `${root === c.a ? 'a' : 'b'} wrote`, at: new Date(`${DAY}T10:00:00Z`) });
      await vault.close();
    }
    await writeFile(join(c.a, 'insights/walks.md'), '# Walks\n\nAlong the river.\n');
    await git(c.a, 'add', 'insights/walks.md');
    await git(c.a, 'commit', '-q', '-m', 'walks');
    expect((await mem(['--vault', c.a, 'sync'])).code).toBe(0);
    // On b: a hand edit of the day both changed, left uncommitted, and an untracked note of their own.
    const dayB = join(c.b, DAY_PATH);
    await writeFile(dayB, `${await readFile(dayB, 'utf8')}\nA quiet day, written by hand.\n`);
    await writeFile(join(c.b, 'insights/walks.md'), '# Walks\n\nUp the hill.\n');
    await git(c.b, 'config', 'user.name', 'Rain');
    const synced = await mem(['--vault', c.b, 'sync']);
    expect(synced.code, synced.stderr).toBe(0);
    expect(synced.stdout).toMatch(
      /committed your uncommitted edits to .*episodes\/daily\/2026-11-29\.md.* as your own commit [0-9a-f]{7} \(new notes: insights\/walks\.md\), then merged/,
    );
    const log = await git(c.b, 'log', '--format=%s|%an', '-3');
    expect(log).toMatch(
      /^sync: your edits to (episodes\/daily\/2026-11-29\.md, insights\/walks\.md|insights\/walks\.md, episodes\/daily\/2026-11-29\.md) before merging\|Rain$/m,
    );
    const json = await mem(['--vault', c.b, 'sync', '--json']);
    expect(JSON.parse(json.stdout).yourEdits).toBeUndefined();
    const notes = await expectHealthy(c.b);
    expect(countLine(notes, 'A quiet day, written by hand.')).toBe(1);
    expect(countLine(notes, 'a wrote')).toBe(1);
    expect(countLine(notes, 'b wrote')).toBe(1);
    // Both walks notes kept: theirs beside ours as a conflict note.
    expect(countLine(notes, 'Up the hill.')).toBe(1);
    expect(countLine(notes, 'Along the river.')).toBe(1);
    // Only the notes the merge touches went into the person's commit.
    const files = await git(c.b, 'show', '--name-only', '--format=', ':/^sync: your edits');
    expect(files.trim().split('\n').sort()).toEqual([DAY_PATH, 'insights/walks.md']);
  });
});
