// mem serve's schedule of one vault's syncs (live/sync-scheduler.ts): `sync.intervalSeconds` counts
// from the last sync, whatever started it (a sync after a commit also takes in what other copies
// pushed), and a sync that left nothing unpushed sets ahead and behind to 0 without counting.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SyncScheduler } from '../../src/live/sync-scheduler.js';
import { PUSHED as RESULT } from '../helpers/sync-result.js';

afterEach(() => {
  vi.useRealTimers();
});

/** A scheduler whose syncs end at once; `runs` counts them, `counted` the counts() calls. */
function counting(
  settings = { remote: 'origin', intervalSeconds: 60, afterCommit: true, ackAfterPush: false },
) {
  const made = { runs: 0, counted: 0, duringSync: undefined as (() => void) | undefined };
  const scheduler = new SyncScheduler(settings, {
    sync: async (covered) => {
      covered();
      made.runs++;
      made.duringSync?.();
      return RESULT;
    },
    counts: async () => {
      made.counted++;
      return { ahead: 1, behind: 0 };
    },
  });
  return { scheduler, made };
}

describe('SyncScheduler interval', () => {
  it('syncs intervalSeconds after the last sync, not on a clock of its own', async () => {
    vi.useFakeTimers({ now: new Date('2026-12-05T10:00:00Z') });
    const { scheduler, made } = counting();
    await vi.advanceTimersByTimeAsync(50_000);
    expect(made.runs).toBe(0);
    // A group commit at 50 s syncs at once.
    scheduler.afterCommit();
    await vi.advanceTimersByTimeAsync(0);
    expect(made.runs).toBe(1);
    // 60 s after the start: a timer of its own would sync again here; the schedule waits for 110 s.
    await vi.advanceTimersByTimeAsync(59_000);
    expect(made.runs).toBe(1);
    await vi.advanceTimersByTimeAsync(1_500);
    expect(made.runs).toBe(2);
    // And every 60 s from then on while nothing else syncs.
    await vi.advanceTimersByTimeAsync(60_000);
    expect(made.runs).toBe(3);
    await scheduler.stop();
    await vi.advanceTimersByTimeAsync(120_000);
    expect(made.runs).toBe(3);
  });
});

describe('SyncScheduler afterCommitGapSeconds', () => {
  const settings = {
    remote: 'origin',
    intervalSeconds: 0,
    afterCommit: true,
    ackAfterPush: false,
    afterCommitGapSeconds: 5,
  };

  it('syncs a burst of group commits once the gap since the last sync has passed, all in one sync', async () => {
    vi.useFakeTimers({ now: new Date('2026-12-05T10:00:00Z') });
    const { scheduler, made } = counting(settings);
    scheduler.afterCommit();
    await vi.advanceTimersByTimeAsync(0);
    expect(made.runs).toBe(1);
    await vi.advanceTimersByTimeAsync(1_000);
    scheduler.afterCommit();
    await vi.advanceTimersByTimeAsync(1_000);
    scheduler.afterCommit();
    await vi.advanceTimersByTimeAsync(2_900);
    expect(made.runs).toBe(1);
    await vi.advanceTimersByTimeAsync(200);
    expect(made.runs).toBe(2);
    expect(scheduler.snapshot()).toMatchObject({ ahead: 0 });
    // Long after the last sync, a commit syncs at once.
    await vi.advanceTimersByTimeAsync(10_000);
    scheduler.afterCommit();
    await vi.advanceTimersByTimeAsync(0);
    expect(made.runs).toBe(3);
    await scheduler.stop();
  });

  it('does not hold an add waiting for its push (sync.ackAfterPush) to the gap', async () => {
    vi.useFakeTimers({ now: new Date('2026-12-05T10:00:00Z') });
    const { scheduler, made } = counting({ ...settings, ackAfterPush: true });
    scheduler.afterCommit();
    await vi.advanceTimersByTimeAsync(0);
    await vi.advanceTimersByTimeAsync(1_000);
    scheduler.afterCommit();
    const pushed = scheduler.pushed();
    await vi.advanceTimersByTimeAsync(0);
    await pushed;
    expect(made.runs).toBe(2);
    await scheduler.stop();
  });
});

describe('SyncScheduler counts', () => {
  it('sets ahead and behind to 0 after a sync with no commit since its merge, and counts otherwise', async () => {
    const { scheduler, made } = counting({
      remote: 'origin',
      intervalSeconds: 0,
      afterCommit: true,
      ackAfterPush: false,
    });
    scheduler.committed();
    await scheduler.request();
    expect(made).toMatchObject({ runs: 1, counted: 0 });
    expect(scheduler.snapshot()).toMatchObject({ ahead: 0, behind: 0, lastResult: 'pushed' });
    // A commit made after the sync's merge is not in what it pushed: counted.
    made.duringSync = () => scheduler.committed();
    await scheduler.request();
    expect(made.counted).toBe(1);
    expect(scheduler.snapshot()).toMatchObject({ ahead: 1 });
    await scheduler.stop();
  });
});
