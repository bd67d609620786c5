import { describe, expect, it, vi } from 'vitest';
import type { ReflectResult } from '../../src/index.js';
import { nextDailyAt, ReflectScheduler } from '../../src/live/reflect-scheduler.js';
import { WAIT } from '../helpers/wait.js';

const DONE: ReflectResult = {
  episodes: ['episodes/daily/2026-11-29.md'],
  accepted: [],
  applied: 2,
  rejected: [{ index: 3, op: undefined, reason: 'no' }],
  files: ['profile/user.md'],
  committed: true,
  sha: 'abc123',
  usage: { promptTokens: 100, completionTokens: 10 },
};

/** A run that waits until the test lets it finish (or until it is abandoned). */
function controlledRuns() {
  const calls: Array<{
    signal: AbortSignal;
    finish: (result: ReflectResult) => void;
    fail: (e: Error) => void;
  }> = [];
  const run = (signal: AbortSignal) =>
    new Promise<ReflectResult>((resolve, reject) => {
      calls.push({ signal, finish: resolve, fail: reject });
      signal.addEventListener('abort', () => reject(new Error('abandoned')));
    });
  return { calls, run };
}

describe('nextDailyAt', () => {
  it("gives today's time when it is still ahead in the vault's zone, else tomorrow's", () => {
    // 02:00 UTC is 10:00 in Shanghai: 03:30 has passed there today, 23:00 has not.
    const now = new Date('2026-11-30T02:00:00Z');
    expect(nextDailyAt(now, '03:30', 'Asia/Shanghai').toISOString()).toBe('2026-11-30T19:30:00.000Z');
    expect(nextDailyAt(now, '23:00', 'Asia/Shanghai').toISOString()).toBe('2026-11-30T15:00:00.000Z');
    expect(nextDailyAt(now, '10:00', 'Asia/Shanghai').toISOString()).toBe('2026-12-01T02:00:00.000Z');
  });

  it('reads a time skipped by a DST change as the time after it', () => {
    const now = new Date('2026-03-08T05:00:00Z'); // 00:00 in New York, the night clocks go forward
    expect(nextDailyAt(now, '02:30', 'America/New_York').toISOString()).toBe('2026-03-08T07:30:00.000Z');
  });
});

describe('ReflectScheduler', () => {
  const settings = { afterEntries: 3, retrySeconds: 0.05 };

  it('runs after N new entries, one run at a time, and reports the run in its status', async () => {
    const { calls, run } = controlledRuns();
    const scheduler = new ReflectScheduler({ settings, timeZone: 'Asia/Shanghai', run });
    scheduler.start();
    scheduler.noteEntries(2);
    expect(scheduler.status()).toMatchObject({ enabled: true, running: false, newEntries: 2 });
    expect(scheduler.status().nextRun).toBeUndefined();
    scheduler.noteEntries(1);
    await vi.waitFor(() => expect(calls).toHaveLength(1), WAIT);
    expect(scheduler.status()).toMatchObject({ running: true, newEntries: 0 });

    // Enough entries for another run arrive while one is in flight: it waits for the first.
    scheduler.noteEntries(5);
    expect(scheduler.status().nextRun?.trigger).toBe('5 new entries');
    calls[0]?.finish(DONE);
    await vi.waitFor(() => expect(calls).toHaveLength(2), WAIT);
    expect(scheduler.status().lastRun).toMatchObject({
      trigger: '3 new entries',
      episodes: 1,
      applied: 2,
      refused: 1,
      committed: true,
      sha: 'abc123',
      usage: { promptTokens: 100, completionTokens: 10 },
    });
    calls[1]?.finish({
      ...DONE,
      episodes: [],
      applied: 0,
      rejected: [],
      reason: 'no new episodes to reflect on',
    });
    await vi.waitFor(() => expect(scheduler.status().running).toBe(false), WAIT);
    expect(scheduler.status().lastRun?.reason).toBe('no new episodes to reflect on');
    await scheduler.stop();
  });

  it('retries a failed run with a doubling wait, keeping its entries, and shows the error', async () => {
    const { calls, run } = controlledRuns();
    const errors: unknown[] = [];
    // The status the moment each failure is recorded: polled later, the 50 ms retry may have begun.
    const afterFailure: ReturnType<ReflectScheduler['status']>[] = [];
    const scheduler: ReflectScheduler = new ReflectScheduler({
      settings,
      timeZone: 'UTC',
      run,
      onError: (e) => {
        errors.push(e);
        queueMicrotask(() => afterFailure.push(scheduler.status()));
      },
    });
    scheduler.start();
    scheduler.noteEntries(3);
    await vi.waitFor(() => expect(calls).toHaveLength(1), WAIT);
    calls[0]?.fail(new Error('the model call failed (500 boom); nothing was written'));
    await vi.waitFor(() => expect(afterFailure).toHaveLength(1), WAIT);
    const status = afterFailure[0];
    expect(status?.failures).toBe(1);
    expect(status?.lastRun).toMatchObject({
      error: 'the model call failed (500 boom); nothing was written',
      applied: 0,
      committed: false,
    });
    expect(status?.newEntries).toBe(3);
    expect(status?.nextRun?.trigger).toBe('retry 1 after a failure');
    expect(errors).toHaveLength(1);

    await vi.waitFor(() => expect(calls).toHaveLength(2), WAIT);
    calls[1]?.fail(new Error('garbage'));
    await vi.waitFor(() => expect(afterFailure).toHaveLength(2), WAIT);
    expect(afterFailure[1]).toMatchObject({ failures: 2, nextRun: { trigger: 'retry 2 after a failure' } });
    await vi.waitFor(() => expect(calls).toHaveLength(3), WAIT);
    calls[2]?.finish(DONE);
    await vi.waitFor(() => expect(scheduler.status().failures).toBe(0), WAIT);
    expect(scheduler.status()).toMatchObject({ newEntries: 0, lastRun: { committed: true } });
    expect(scheduler.status().nextRun).toBeUndefined();
    await scheduler.stop();
  });

  it('runs after a quiet spell with new entries, and not when nothing new came', async () => {
    const { calls, run } = controlledRuns();
    // 0.002 minutes: 120 ms without a new entry.
    const scheduler = new ReflectScheduler({
      settings: { idleMinutes: 0.002, retrySeconds: 60 },
      timeZone: 'UTC',
      run,
    });
    scheduler.start();
    expect(scheduler.status().nextRun).toBeUndefined();
    scheduler.noteEntries(1);
    expect(scheduler.status().nextRun?.trigger).toBe('idle 0.002 minutes');
    await vi.waitFor(() => expect(calls).toHaveLength(1), WAIT);
    calls[0]?.finish(DONE);
    await vi.waitFor(() => expect(scheduler.status().running).toBe(false), WAIT);
    expect(scheduler.status().nextRun).toBeUndefined();
    await scheduler.stop();
  });

  it('waits for the next day in the zone after a run skipped for the budget', async () => {
    const { calls, run } = controlledRuns();
    const scheduler = new ReflectScheduler({ settings, timeZone: 'Asia/Shanghai', run });
    scheduler.start();
    scheduler.noteEntries(3);
    await vi.waitFor(() => expect(calls).toHaveLength(1), WAIT);
    calls[0]?.finish({
      episodes: [],
      accepted: [],
      applied: 0,
      rejected: [],
      files: [],
      committed: false,
      skipped: 'the daily budget would be passed',
      budget: { day: '2026-11-30', used: 990, max: 1000 },
    });
    await vi.waitFor(() => expect(scheduler.status().running).toBe(false), WAIT);
    const status = scheduler.status();
    expect(status.lastRun?.skipped).toBe('the daily budget would be passed');
    expect(status.budget).toEqual({ day: '2026-11-30', used: 990, max: 1000 });
    expect(status.failures).toBe(0);
    expect(status.nextRun?.trigger).toBe('the daily token budget resets');
    expect(status.nextRun?.at).toMatch(/T00:00:00\+08:00$/);
    await scheduler.stop();
  });

  it('abandons a run in flight when stopped, and runs nothing after', async () => {
    const { calls, run } = controlledRuns();
    const scheduler = new ReflectScheduler({ settings, timeZone: 'UTC', run });
    scheduler.start();
    scheduler.noteEntries(3);
    await vi.waitFor(() => expect(calls).toHaveLength(1), WAIT);
    await scheduler.stop();
    expect(calls[0]?.signal.aborted).toBe(true);
    expect(scheduler.status()).toMatchObject({ enabled: false, running: false, failures: 0 });
    scheduler.noteEntries(10);
    expect(calls).toHaveLength(1);
  });
});
