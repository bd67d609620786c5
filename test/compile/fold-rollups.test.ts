import { afterAll, describe, expect, it } from 'vitest';
import { openVault } from '../../src/index.js';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';
import { mem } from '../helpers/run-cli.js';

afterAll(cleanupVaults);

const rollup = (period: string, text: string, capsule?: string) =>
  `---\ntype: rollup\nperiod: "${period}"\ntitle: "${period}"\n---\n# ${period}\n\n${text}\n${capsule ? `\n## Capsule\n${capsule}\n` : ''}`;
const day = (date: string, text: string) =>
  `---\ndate: ${date}\n---\n# ${date}\n\n- 10:00 **Rain:** ${text} ^e1\n`;

describe('cascade folding', () => {
  it('lets each rollup stand in for the days no higher one covers, and says what it folded', async () => {
    const vault = await openVault({
      path: await makeVault({
        'episodes/yearly/2025.md': rollup('2025', 'The year in Hangzhou.', 'A quiet year in Hangzhou.'),
        'episodes/quarterly/2025-Q4.md': rollup('2025-Q4', 'Autumn.'),
        'episodes/monthly/2025-12.md': rollup('2025-12', 'December.'),
        'episodes/monthly/2026-01.md': rollup('2026-01', 'January: the new job.', 'Started at Lumen.'),
        // Monday 29 December 2025 to Sunday 4 January 2026: years and months above cover all but
        // 1 to 4 January, which January covers too, so this week is folded.
        'episodes/weekly/2026-W01.md': rollup('2026-W01', 'New year week.'),
        // 26 January to 1 February: January covers five days, the week still speaks for 1 February.
        'episodes/weekly/2026-W05.md': rollup('2026-W05', 'Bouldering week.', 'First climb.'),
        'episodes/weekly/2026-W06.md': rollup('2026-W06', 'A week of rain.'),
        'episodes/daily/2026-02-05.md': day('2026-02-05', 'Inside the newest week: folded.'),
        'episodes/daily/2026-02-09.md': day('2026-02-09', 'After every rollup: raw.'),
      }),
      cache: false,
    });
    const result = vault.compile({
      message: 'hi',
      history: ['hello'],
      budget: 4000,
      now: new Date('2026-02-10T09:00:00+08:00'),
    });
    expect(result.folded).toEqual([
      {
        path: 'episodes/weekly/2026-W06.md',
        period: '2026-W06',
        standsFor: [{ from: '2026-02-02', to: '2026-02-08' }],
        hides: [],
      },
      {
        path: 'episodes/weekly/2026-W05.md',
        period: '2026-W05',
        standsFor: [{ from: '2026-02-01', to: '2026-02-01' }],
        hides: [],
      },
      {
        path: 'episodes/monthly/2026-01.md',
        period: '2026-01',
        standsFor: [{ from: '2026-01-01', to: '2026-01-31' }],
        hides: ['episodes/weekly/2026-W01.md'],
      },
      {
        path: 'episodes/yearly/2025.md',
        period: '2025',
        standsFor: [{ from: '2025-01-01', to: '2025-12-31' }],
        hides: [
          'episodes/quarterly/2025-Q4.md',
          'episodes/monthly/2025-12.md',
          'episodes/weekly/2026-W01.md',
        ],
      },
    ]);
    // The folding is kept between turns: what a caller does to its answer leaves the next one alone.
    const expected = structuredClone(result.folded);
    const given = result.folded ?? [];
    given.splice(0, 1);
    given[0]?.hides.push('changed by the caller');
    const again = vault.compile({
      message: 'hi again',
      history: ['hello'],
      budget: 4000,
      now: new Date('2026-02-10T09:05:00+08:00'),
    });
    expect(again.folded).toEqual(expected);
    const recent = result.sections.find((s) => s.name === 'recent');
    // Oldest first as a conversation reads; older rollups by their capsule line, the newest whole.
    expect(recent?.items.map((i) => [i.path, i.text])).toEqual([
      ['episodes/yearly/2025.md', 'A quiet year in Hangzhou.'],
      ['episodes/monthly/2026-01.md', 'Started at Lumen.'],
      ['episodes/weekly/2026-W05.md', 'First climb.'],
      ['episodes/weekly/2026-W06.md', 'A week of rain.'],
      ['episodes/daily/2026-02-09.md', 'After every rollup: raw.'],
    ]);
  });

  it('compile --json says which rollup stood in for which days', async () => {
    const root = await makeVault({
      'episodes/monthly/2026-01.md': rollup('2026-01', 'January.'),
      'episodes/weekly/2026-W03.md': rollup('2026-W03', 'A week in January.'),
      'episodes/daily/2026-02-09.md': day('2026-02-09', 'Raw.'),
    });
    const run = await mem(['compile', 'hi', '--now', '2026-02-10T09:00:00+08:00', '--json'], { cwd: root });
    expect(JSON.parse(run.stdout).folded).toEqual([
      {
        path: 'episodes/monthly/2026-01.md',
        period: '2026-01',
        standsFor: [{ from: '2026-01-01', to: '2026-01-31' }],
        hides: ['episodes/weekly/2026-W03.md'],
      },
    ]);
  });

  it('shows no rollup whose period has not ended, and reports nothing without rollups', async () => {
    const vault = await openVault({
      path: await makeVault({
        'episodes/monthly/2026-02.md': rollup('2026-02', 'February so far.'),
        'episodes/daily/2026-02-09.md': day('2026-02-09', 'Still February.'),
      }),
      cache: false,
    });
    const result = vault.compile({ message: 'hi', now: new Date('2026-02-10T09:00:00+08:00') });
    expect(result.folded).toBeUndefined();
    expect(result.sections[3]?.items.map((i) => i.path)).toEqual(['episodes/daily/2026-02-09.md']);
  });
});
