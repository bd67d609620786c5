// Every option of `mem forget` given to a mode it does not apply to is refused before anything is
// done: `forget --hard <note> --dry-run` deleted the note, --dry-run being silently ignored.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { git, gitVault } from '../helpers/git.js';
import { ignoreEnvVault } from '../helpers/ignore-env-vault.js';
import { cleanupVaults } from '../helpers/make-vault.js';
import { mem } from '../helpers/run-cli.js';

ignoreEnvVault();
afterEach(async () => {
  await cleanupVaults();
});

/** Each option with the modes that take it. */
const OPTIONS: Array<{ args: string[]; modes: string[] }> = [
  { args: ['--reason', 'old'], modes: ['archive'] },
  { args: ['--dry-run'], modes: ['stale'] },
  { args: ['--now', '2026-11-30T10:00:00Z'], modes: ['stale'] },
  { args: ['--json'], modes: ['archive', 'hard', 'stale'] },
];
const MODES: Record<string, string[]> = {
  archive: ['insights/tea.md'],
  hard: ['insights/tea.md', '--hard'],
  stale: ['--stale'],
};

describe('mem forget refuses an option its mode does not take', () => {
  it('every mode with every option it does not take: exit 2, the note and git untouched', async () => {
    const root = await gitVault(
      { 'insights/tea.md': '# Tea\n' },
      { config: { timezone: 'UTC', forget: { staleAfterDays: 30 } } },
    );
    const head = await git(root, 'rev-parse', 'HEAD');
    let refused = 0;
    for (const [mode, modeArgs] of Object.entries(MODES)) {
      for (const option of OPTIONS.filter((o) => !o.modes.includes(mode))) {
        const out = await mem(['--vault', root, 'forget', ...modeArgs, ...option.args]);
        expect(out.code, `${mode} ${option.args[0]}`).toBe(2);
        // One rule names the option and the mode's flag it clashes with (or the --stale it needs).
        expect(out.stderr).toMatch(/^mem: --[a-z-]+ (cannot be used with --[a-z-]+|needs --stale) \(.+\)\n$/);
        expect(out.stderr).toContain(option.args[0]);
        refused++;
      }
    }
    expect(refused).toBe(6);
    expect(await readFile(join(root, 'insights/tea.md'), 'utf8')).toBe('# Tea\n');
    expect(await git(root, 'rev-parse', 'HEAD')).toBe(head);
    expect(await git(root, 'status', '--porcelain')).toBe('');
  });

  it('forget --hard <note> --dry-run deletes nothing', async () => {
    const root = await gitVault({ 'insights/tea.md': '# Tea\n' }, { config: { timezone: 'UTC' } });
    const out = await mem(['--vault', root, 'forget', '--hard', 'insights/tea.md', '--dry-run']);
    expect(out).toMatchObject({
      code: 2,
      stderr:
        'mem: --dry-run needs --stale (only --stale can list what it would do; forget <note> and --hard would act at once)\n',
    });
    expect(await readFile(join(root, 'insights/tea.md'), 'utf8')).toBe('# Tea\n');
  });
});
