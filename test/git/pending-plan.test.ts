// A plan killed before its commit is committed by whatever mem command comes next: another command
// commits it first, on its own commit and message, then its own; nothing of the plan stays out of
// git. Needs `npm run build`.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { git, gitVault } from '../helpers/git.js';
import { cleanupVaults } from '../helpers/make-vault.js';
import { planRecords } from '../helpers/plan-records.js';
import { memProcess } from '../helpers/run-cli.js';

afterEach(cleanupVaults);

const FILES = {
  'profile/people/Mei.md': '# Mei\n',
  'insights/tea.md': '# Tea\n[[profile/people/Mei]] likes oolong.\n',
  'profile/user.md': 'Met [[profile/people/Mei|Mei]].\n',
};

describe('a plan a kill left uncommitted', () => {
  it('is committed on its own by the next other command, before that command commits', async () => {
    const root = await gitVault(FILES, { config: { timezone: 'UTC' } });
    const env = {
      MEM_TEST_CRASH_AFTER: '',
      GIT_AUTHOR_NAME: 'T',
      GIT_AUTHOR_EMAIL: 't@x',
      GIT_COMMITTER_NAME: 'T',
      GIT_COMMITTER_EMAIL: 't@x',
    };
    // Step 6: the plan's record, the new note and one linking note written; the rest not.
    const killed = await memProcess(['--vault', root, 'mv', 'profile/people/Mei.md', 'profile/Mei Lin.md'], {
      env: { ...env, MEM_TEST_CRASH_AFTER: '6' },
    });
    expect(killed.code).not.toBe(0);
    expect(await git(root, 'status', '--porcelain')).not.toBe('');
    expect(await planRecords(root)).toMatchObject([
      { key: 'mv profile/people/Mei.md -> profile/Mei Lin.md' },
    ]);

    const next = await memProcess(['--vault', root, 'remember', 'hello', '--at', '2026-11-30T10:00:00Z'], {
      env,
    });
    expect(next.stderr).toBe('');
    expect(await git(root, 'log', '--format=%s', '-2')).toBe(
      'mem: remember 2026-11-30#^e1\nmem: mv profile/people/Mei.md -> profile/Mei Lin.md\n',
    );
    expect(await git(root, 'status', '--porcelain')).toBe('');
    expect(await planRecords(root)).toEqual([]);
  });

  it('a kill in the middle of an undo: the undo run again finishes it, and does not undo one more', async () => {
    const root = await gitVault(FILES, { config: { timezone: 'UTC' } });
    const env = {
      GIT_AUTHOR_NAME: 'T',
      GIT_AUTHOR_EMAIL: 't@x',
      GIT_COMMITTER_NAME: 'T',
      GIT_COMMITTER_EMAIL: 't@x',
    };
    for (const at of ['2026-11-29T10:00:00Z', '2026-11-30T10:00:00Z']) {
      expect((await memProcess(['--vault', root, 'remember', 'x', '--at', at], { env })).code).toBe(0);
    }
    expect(
      (await memProcess(['--vault', root, 'mv', 'profile/people/Mei.md', 'profile/Mei Lin.md'], { env }))
        .code,
    ).toBe(0);
    const moved = await git(root, 'rev-parse', 'HEAD');
    // Step 5: the record and the first restored file written, the commit not made.
    const killed = await memProcess(['--vault', root, 'undo'], {
      env: { ...env, MEM_TEST_CRASH_AFTER: '5' },
    });
    expect(killed.code).not.toBe(0);
    expect(await git(root, 'rev-parse', 'HEAD')).toBe(moved);

    const again = await memProcess(['--vault', root, 'undo'], { env });
    expect(again.stderr).toBe('');
    expect(await git(root, 'log', '--format=%s', '-1')).toBe(
      'mem: undo mv profile/people/Mei.md -> profile/Mei Lin.md\n',
    );
    expect(await git(root, 'status', '--porcelain')).toBe('');
    expect(await readFile(join(root, 'insights/tea.md'), 'utf8')).toBe(FILES['insights/tea.md']);
    // Both remembers are still there: the re-run did not go on to undo the one before the move.
    expect(await readFile(join(root, 'episodes/daily/2026-11-30.md'), 'utf8')).toContain('x');
  });
});
