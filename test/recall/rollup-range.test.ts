import { afterAll, describe, expect, it } from 'vitest';
import { openVault } from '../../src/index.js';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';

afterAll(cleanupVaults);

describe('rollups and date ranges', () => {
  it('answers a question about a day with its entries, and one about a month with the rollups inside it', async () => {
    const rollup = (period: string) =>
      `---\ntype: rollup\nperiod: ${period}\n---\n# ${period}\n\nThe umbrella went missing again.\n`;
    const vault = await openVault({
      path: await makeVault({
        'episodes/monthly/2026-01.md': rollup('2026-01'),
        'episodes/weekly/2026-W06.md': rollup('2026-W06'),
        'episodes/daily/2026-02-03.md':
          '---\ndate: 2026-02-03\n---\n# 2026-02-03\n\n- 18:40 **Rain:** Lost my umbrella at the library. ^e1\n',
      }),
      cache: false,
    });
    const ask = (from: string, to: string) =>
      vault
        .recall('umbrella', { range: { from, to }, now: new Date('2026-12-01T09:00:00+08:00') })
        .hits.map((h) => h.path)
        .sort();
    expect(ask('2026-02-03', '2026-02-03')).toEqual(['episodes/daily/2026-02-03.md']);
    expect(ask('2026-02-01', '2026-02-28')).toEqual([
      'episodes/daily/2026-02-03.md',
      'episodes/weekly/2026-W06.md',
    ]);
  });
});
