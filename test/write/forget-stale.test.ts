import { access, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { git, gitVault } from '../helpers/git.js';
import { cleanupVaults, indexOf } from '../helpers/make-vault.js';
import { mem } from '../helpers/run-cli.js';

afterAll(cleanupVaults);

const NOW = '2026-11-30T10:00:00+08:00';
const CONFIG = { timezone: 'Asia/Shanghai', forget: { staleAfterDays: 90, unrecalledDays: 30 } };

const day = (date: string) =>
  `---\ndate: ${date}\n---\n# ${date}\n\n- 09:00 **Rain:** Something on ${date}. ^e1\n`;
const insight = (sources: string[], updated: string) =>
  `---\nimportance: 0.8\nupdated: ${updated}\nsources:\n${sources.map((s) => `  - "${s}"`).join('\n')}\n---\n# Fact\n\nA fact.\n`;

const FILES: Record<string, string> = {
  'profile/user.md': '# Rain\n\nThe day we met: [[2026-01-06]].\n',
  // Old, covered by the weekly rollup, linked only by it and by an insight's sources: archived.
  'episodes/daily/2026-01-05.md': day('2026-01-05'),
  // Old and covered, but the profile links to it: stays.
  'episodes/daily/2026-01-06.md': day('2026-01-06'),
  // Old but no rollup covers it: stays.
  'episodes/daily/2026-03-20.md': day('2026-03-20'),
  // Covered, but newer than 90 days: stays.
  'episodes/daily/2026-11-17.md': day('2026-11-17'),
  'episodes/weekly/2026-W02.md':
    '---\ntype: rollup\nperiod: 2026-W02\n---\n# Week 2\n\n- Quiet days [[2026-01-05]], [[2026-01-06]].\n',
  'episodes/weekly/2026-W47.md': '---\ntype: rollup\nperiod: 2026-W47\n---\n# Week 47\n\n- [[2026-11-17]]\n',
  // Every source archived, untouched since February: loses importance.
  'insights/facts/a.md': insight(['[[2026-01-05#^e1]]'], '2026-02-01T10:00:00+08:00'),
  // One source still in place: keeps it.
  'insights/facts/b.md': insight(['[[2026-01-05#^e1]]', '[[2026-11-17#^e1]]'], '2026-02-01T10:00:00+08:00'),
  // Touched a week ago: keeps it.
  'insights/facts/c.md': insight(['[[2026-01-05#^e1]]'], '2026-11-23T10:00:00+08:00'),
};

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

describe('mem forget --stale', () => {
  it('is off unless forget.staleAfterDays is configured', async () => {
    const root = await gitVault(FILES, { config: { timezone: 'Asia/Shanghai' } });
    const run = await mem(['forget', '--stale', '--now', NOW], { cwd: root });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('mem forget --stale is off: set forget.staleAfterDays in mem.config.json');
    expect(await git(root, 'status', '--porcelain')).toBe('');
  });

  it('needs a note or --stale, and --stale takes no note', async () => {
    const root = await gitVault(FILES, { config: CONFIG });
    const bare = await mem(['forget'], { cwd: root });
    expect(bare.code).not.toBe(0);
    expect(bare.stderr).toContain('name a note to forget, or use --stale');
    const both = await mem(['forget', 'insights/facts/a.md', '--stale'], { cwd: root });
    expect(both.stderr).toContain(
      '--stale cannot be used with [note] (--stale finds the notes itself; it takes no note)',
    );
    expect(await git(root, 'status', '--porcelain')).toBe('');
  });

  it('with --dry-run lists what would move and what would lose importance, and writes nothing', async () => {
    const root = await gitVault(FILES, { config: CONFIG });
    const run = await mem(['forget', '--stale', '--dry-run', '--now', NOW], { cwd: root });
    expect(run.stdout).toBe(
      'would move episodes/daily/2026-01-05.md -> archive/episodes/daily/2026-01-05.md (covered by episodes/weekly/2026-W02.md)\n' +
        'would lower insights/facts/a.md: importance 0.8 -> 0.4\n' +
        'dry run: nothing was written\n',
    );
    expect(await git(root, 'status', '--porcelain')).toBe('');
  });

  it('archives in one commit, keeps links resolving, deletes nothing, and mem undo reverts the run', async () => {
    const root = await gitVault(FILES, { config: CONFIG });
    const run = await mem(['forget', '--stale', '--now', NOW], { cwd: root });
    expect(run.code).toBe(0);
    expect(await exists(join(root, 'episodes/daily/2026-01-05.md'))).toBe(false);
    const archived = await readFile(join(root, 'archive/episodes/daily/2026-01-05.md'), 'utf8');
    expect(archived).toContain('status: archived\n');
    expect(archived).toContain('- 09:00 **Rain:** Something on 2026-01-05. ^e1');
    const a = await readFile(join(root, 'insights/facts/a.md'), 'utf8');
    expect(a).toContain('importance: 0.4\n');
    expect(await readFile(join(root, 'insights/facts/b.md'), 'utf8')).toContain('importance: 0.8\n');
    expect(await readFile(join(root, 'insights/facts/c.md'), 'utf8')).toContain('importance: 0.8\n');
    expect(await git(root, 'log', '--format=%s')).toBe(
      'mem: forget --stale: 1 episode archived, 1 insight lowered\ninit\n',
    );
    expect(await git(root, 'status', '--porcelain')).toBe('');

    // The rollup's link and the insight's citation still find the day in archive/.
    const index = await indexOf(root);
    const edges = index.graph.outEdges('episodes/weekly/2026-W02.md');
    expect(edges.map((e) => e.to)).toEqual([
      'archive/episodes/daily/2026-01-05.md',
      'episodes/daily/2026-01-06.md',
    ]);
    expect(index.graph.outEdges('insights/facts/a.md').map((e) => e.to)).toEqual([
      'archive/episodes/daily/2026-01-05.md',
    ]);

    // A second run finds nothing more: the insight was just lowered.
    const again = await mem(['forget', '--stale', '--now', NOW], { cwd: root });
    expect(again.stdout).toBe('nothing stale\n');

    const undo = await mem(['undo'], { cwd: root });
    expect(undo.code).toBe(0);
    expect(await readFile(join(root, 'episodes/daily/2026-01-05.md'), 'utf8')).toBe(day('2026-01-05'));
    expect(await exists(join(root, 'archive/episodes/daily/2026-01-05.md'))).toBe(false);
    expect(await readFile(join(root, 'insights/facts/a.md'), 'utf8')).toBe(FILES['insights/facts/a.md']);
    expect(await git(root, 'status', '--porcelain')).toBe('');
  });
});

describe('forget in a vault of another layout', () => {
  // An adopted Obsidian vault: the person's journal in Journal/ (as DD.MM.YYYY), mem's layers under
  // memory/, and a folder of the person's own named archive/.
  const layout = {
    persona: 'memory/persona',
    profile: 'memory/profile',
    episodes: 'memory/episodes',
    insights: 'memory/insights',
    archive: 'memory/archive',
    daily: { folder: 'Journal', format: 'DD.MM.YYYY', heading: 'Memory' },
  };
  const files = {
    'Journal/05.01.2026.md': '# My day\n\nPrivate journal.\n\n## Memory\n- 09:00 skiing ^e1\n',
    'memory/episodes/weekly/2026-W02.md':
      '---\ntype: rollup\nperiod: 2026-W02\n---\n# Week 2\n\n- [[05.01.2026]]\n',
    'memory/insights/tea.md': '# Tea\nLikes tea.\n',
    'archive/old-project.md': '# Old project\n',
  };

  it("archives into the layout's archive folder, and never moves the person's journal", async () => {
    const root = await gitVault(files, { config: { ...CONFIG, layout } });
    const stale = await mem(['--vault', root, 'forget', '--stale', '--now', NOW, '--json']);
    expect(stale.stderr).toBe('');
    expect(JSON.parse(stale.stdout).archived).toEqual([]);
    expect(await readFile(join(root, 'Journal/05.01.2026.md'), 'utf8')).toBe(files['Journal/05.01.2026.md']);
    const forget = await mem(['--vault', root, 'forget', 'memory/insights/tea', '--json']);
    expect(forget.stderr).toBe('');
    expect(JSON.parse(forget.stdout).archivedAt).toBe('memory/archive/insights/tea.md');
    expect(await exists(join(root, 'memory/archive/insights/tea.md'))).toBe(true);
    // The person's own archive/ is theirs: untouched, and not mem's archive layer.
    expect(await readFile(join(root, 'archive/old-project.md'), 'utf8')).toBe('# Old project\n');
    const again = await mem(['--vault', root, 'forget', 'memory/archive/insights/tea']);
    expect(again.stderr).toContain('is already in memory/archive/');
  });
});
