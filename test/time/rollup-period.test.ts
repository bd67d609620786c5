import { describe, expect, it } from 'vitest';
import {
  levelBelow,
  periodOf,
  periodsBetween,
  rollupLevel,
  rollupPath,
  rollupPeriod,
} from '../../src/time/rollup-period.js';

describe('rollupPeriod', () => {
  it('reads ISO weeks, including the ones that cross a year', () => {
    expect(rollupPeriod('2026-W47')).toEqual({ from: '2026-11-16', to: '2026-11-22' });
    expect(rollupPeriod('2026-W01')).toEqual({ from: '2025-12-29', to: '2026-01-04' });
    expect(rollupPeriod('2025-W53')).toBeUndefined();
    expect(rollupPeriod('2026-W53')).toEqual({ from: '2026-12-28', to: '2027-01-03' });
    expect(rollupPeriod('2020-W53')).toEqual({ from: '2020-12-28', to: '2021-01-03' });
  });

  it('reads months, February in a leap year too', () => {
    expect(rollupPeriod('2026-11')).toEqual({ from: '2026-11-01', to: '2026-11-30' });
    expect(rollupPeriod('2024-02')).toEqual({ from: '2024-02-01', to: '2024-02-29' });
    expect(rollupPeriod('2026-12')).toEqual({ from: '2026-12-01', to: '2026-12-31' });
  });

  it('ignores anything else', () => {
    expect([
      rollupPeriod('2026-13'),
      rollupPeriod('week 3'),
      rollupPeriod(47),
      rollupPeriod(undefined),
    ]).toEqual([undefined, undefined, undefined, undefined]);
  });
});

describe('rollup levels', () => {
  it('reads quarters and years, a year written as a YAML number too', () => {
    expect(rollupPeriod('2026-Q4')).toEqual({ from: '2026-10-01', to: '2026-12-31' });
    expect(rollupPeriod(2026)).toEqual({ from: '2026-01-01', to: '2026-12-31' });
    expect([
      rollupLevel('2026-W47'),
      rollupLevel('2026-11'),
      rollupLevel('2026-Q4'),
      rollupLevel('2026'),
    ]).toEqual(['week', 'month', 'quarter', 'year']);
    expect(rollupLevel('2026-Q5')).toBeUndefined();
  });

  it('puts each level in its own folder', () => {
    expect(['2026-W47', '2026-11', '2026-Q4', '2026', '2025-W53'].map((p) => rollupPath(p))).toEqual([
      'episodes/weekly/2026-W47.md',
      'episodes/monthly/2026-11.md',
      'episodes/quarterly/2026-Q4.md',
      'episodes/yearly/2026.md',
      undefined,
    ]);
  });

  it('lists the periods that hold a span of days, oldest first, weeks across a year end too', () => {
    expect(periodsBetween('2025-12-20', '2026-01-06', 'week')).toEqual([
      '2025-W51',
      '2025-W52',
      '2026-W01',
      '2026-W02',
    ]);
    expect(periodsBetween('2026-02-15', '2026-04-01', 'month')).toEqual(['2026-02', '2026-03', '2026-04']);
    expect(periodsBetween('2025-11-01', '2026-01-01', 'quarter')).toEqual(['2025-Q4', '2026-Q1']);
    expect(periodsBetween('2025-11-01', '2026-01-01', 'year')).toEqual(['2025', '2026']);
    expect(periodOf('2026-01-01', 'week')).toBe('2026-W01');
    expect(levelBelow('year')).toBe('quarter');
    expect(levelBelow('week')).toBeUndefined();
  });
});
