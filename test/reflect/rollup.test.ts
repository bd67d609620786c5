import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openVault } from '../../src/index.js';
import { git, gitVault } from '../helpers/git.js';
import { cleanupVaults, copyExampleVault, makeVault } from '../helpers/make-vault.js';
import { mem } from '../helpers/run-cli.js';

afterAll(cleanupVaults);

/** Monday 30 November 2026, morning in Shanghai: week 48 (23 to 29 November) has ended, November has not. */
const NOW = '2026-11-30T09:00:00+08:00';

describe('extractive rollups (no model)', () => {
  it('rolls up the last finished week of vault-example offline, citing its entries', async () => {
    const root = await copyExampleVault();
    const run = await mem(['reflect', '--rollup', 'week', '--now', NOW, '--json'], { cwd: root });
    expect(run.stderr).toBe('');
    const result = JSON.parse(run.stdout);
    expect(result.written.map((w: { path: string }) => w.path)).toEqual(['episodes/weekly/2026-W48.md']);
    expect(result.written[0].generator).toBe('extractive');
    const text = await readFile(join(root, 'episodes/weekly/2026-W48.md'), 'utf8');
    expect(text).toMatch(/^---\ntype: rollup\nperiod: 2026-W48\n[\s\S]*\nmem_hash: [0-9a-f]{16}\n---\n/);
    expect(text).toContain('sources:\n  - "[[2026-11-23]]"');
    expect(text).toContain('# Week 48, 2026\n');
    // Highlights quote entries with their citations as wiki links to the blocks.
    const highlights = text.split('## Highlights\n\n')[1]?.split('\n\n')[0]?.split('\n') ?? [];
    expect(highlights.length).toBeGreaterThanOrEqual(4);
    expect(highlights.length).toBeLessThanOrEqual(8);
    for (const line of highlights) expect(line).toMatch(/ \[\[2026-11-(2[3-9])#\^[\w-]+\]\]$/);
    expect(text).toMatch(/## Capsule\n\n2026-W48 \(2026-11-23 to 2026-11-29\): \d+ entries over \d+ days/);
  });
});

const day = (date: string, ...texts: string[]) =>
  `---\ndate: ${date}\n---\n# ${date}\n\n${texts.map((t, i) => `- ${String(9 + i).padStart(2, '0')}:00 **Rain:** ${t} ^e${i + 1}`).join('\n')}\n`;

/** Days from Monday 2 November to Sunday 29 November 2026 and one in October, so weeks and a month can fold. */
function november(): Record<string, string> {
  const files: Record<string, string> = {
    'episodes/daily/2026-10-28.md': day('2026-10-28', 'Told [[Sophie]] I accept the offer from Lumen.'),
  };
  for (let d = 2; d <= 29; d += 3) {
    const date = `2026-11-${String(d).padStart(2, '0')}`;
    files[`episodes/daily/${date}.md`] = day(date, `Packed box ${d} for the move to [[Shanghai]].`, 'ok');
  }
  return files;
}

describe('which periods roll up', () => {
  it('rolls up a week only once it has ended in the vault time zone', async () => {
    const root = await makeVault(november());
    // 23:30 on Sunday 29 November in Shanghai: week 48 is not over yet, week 47 is the last one done.
    const sunday = await mem(
      ['reflect', '--rollup', 'week', '--now', '2026-11-29T23:30:00+08:00', '--json'],
      {
        cwd: root,
      },
    );
    expect(JSON.parse(sunday.stdout).written.map((w: { period: string }) => w.period)).toEqual(['2026-W47']);
    // 16:30 UTC on the 29th is 00:30 on Monday in Shanghai: week 48 has ended there.
    const monday = await mem(['reflect', '--rollup', 'week', '--now', '2026-11-29T16:30:00Z', '--json'], {
      cwd: root,
    });
    expect(JSON.parse(monday.stdout).written.map((w: { period: string }) => w.period)).toEqual(['2026-W48']);
    const again = await mem(['reflect', '--rollup', 'week', '--now', '2026-11-29T16:30:00Z'], { cwd: root });
    expect(again.stdout).toContain(
      'episodes/weekly/2026-W48.md: episodes/weekly/2026-W48.md exists; --force regenerates it',
    );
  });

  it('--missing writes every finished period oldest first, level by level, each from the level below, in one commit', async () => {
    const root = await gitVault(november());
    const run = await mem(['reflect', '--missing', '--now', '2026-12-01T09:00:00+08:00', '--json'], {
      cwd: root,
    });
    const result = JSON.parse(run.stdout);
    expect(result.written.map((w: { period: string }) => w.period)).toEqual([
      '2026-W44',
      '2026-W45',
      '2026-W46',
      '2026-W47',
      '2026-W48',
      '2026-10',
      '2026-11',
    ]);
    expect(result.committed).toBe(true);
    expect(await git(root, 'log', '--format=%s', '-1')).toBe(
      'mem: rollup 2026-W44 … 2026-11 (7) (extractive)\n',
    );
    const month = await readFile(join(root, 'episodes/monthly/2026-11.md'), 'utf8');
    // November reads its weeks (their capsules first) and the day no week inside it covers:
    // 29 Nov is in week 48 (23 to 29), 2 Nov starts week 45; week 44 straddles October.
    expect(month).toContain(
      'sources:\n  - "[[2026-W45]]"\n  - "[[2026-W46]]"\n  - "[[2026-W47]]"\n  - "[[2026-W48]]"\n',
    );
    expect(month).toMatch(
      /## Weeks and days\n\n- \[\[2026-W45\]\] — 2026-W45 \(2026-11-02 to 2026-11-08\): 6 entries/,
    );
    const october = await readFile(join(root, 'episodes/monthly/2026-10.md'), 'utf8');
    expect(october).toContain('sources:\n  - "[[2026-10-28]]"\n');
    // Nothing below a week has ended for December, and a second run finds nothing missing.
    const again = JSON.parse(
      (await mem(['reflect', '--missing', '--now', '2026-12-01T09:00:00+08:00', '--json'], { cwd: root }))
        .stdout,
    );
    expect(again.written).toEqual([]);
  });
});

describe('hand edits', () => {
  it('regenerates with --force only what mem wrote and nobody edited since', async () => {
    const root = await gitVault(november());
    const at = ['--now', '2026-11-30T09:00:00+08:00'];
    await mem(['reflect', '--rollup', 'week', ...at], { cwd: root });
    const path = join(root, 'episodes/weekly/2026-W48.md');
    const first = await readFile(path, 'utf8');
    const forced = await mem(
      ['reflect', '--rollup', 'week', '--force', '--json', '--now', '2026-11-30T10:00:00+08:00'],
      {
        cwd: root,
      },
    );
    expect(JSON.parse(forced.stdout).written.map((w: { path: string }) => w.path)).toEqual([
      'episodes/weekly/2026-W48.md',
    ]);
    expect(await readFile(path, 'utf8')).not.toBe(first);

    const edited = (await readFile(path, 'utf8')).replace(
      '## Highlights',
      '## Highlights\n\n- The week I finally unpacked.',
    );
    await writeFile(path, edited);
    const refused = await mem(['reflect', '--rollup', 'week', '--force', ...at], { cwd: root });
    expect(refused.stdout).toContain(
      'episodes/weekly/2026-W48.md: episodes/weekly/2026-W48.md was edited (or written by hand) since mem wrote it; it is not regenerated over',
    );
    expect(await readFile(path, 'utf8')).toBe(edited);
  });

  it('never regenerates a rollup written by hand (vault-example week 47)', async () => {
    const root = await copyExampleVault();
    const path = join(root, 'episodes/weekly/2026-W47.md');
    const before = await readFile(path, 'utf8');
    const vault = await openVault({ path: root, cache: false });
    const result = await vault.rollup({
      level: 'week',
      force: true,
      offline: true,
      now: new Date('2026-11-24T09:00:00+08:00'),
    });
    expect(result.written).toEqual([]);
    expect(result.skipped.map((s) => s.reason)).toEqual([
      'episodes/weekly/2026-W47.md was edited (or written by hand) since mem wrote it; it is not regenerated over',
    ]);
    expect(await readFile(path, 'utf8')).toBe(before);
  });
});
