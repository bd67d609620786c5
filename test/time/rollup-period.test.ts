import { describe, expect, it } from 'vitest';
import { rollupPeriod } from '../../src/time/rollup-period.js';

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
