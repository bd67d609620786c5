import { describe, expect, it } from 'vitest';
import { SyncScheduler } from '../../src/live/sync-scheduler.js';
import type { SyncResult } from '../../src/write/sync/sync-vault.js';
import { PUSHED as RESULT } from '../helpers/sync-result.js';

/** A scheduler whose syncs wait for `release()`; `runs` counts them and what each covered. */
function gated(
  settings: ConstructorParameters<typeof SyncScheduler>[0] = {
    remote: 'origin',
    intervalSeconds: 0,
    afterCommit: true,
    ackAfterPush: true,
  },
) {
  const runs: number[] = [];
  const gates: Array<(error?: Error) => void> = [];
  let scheduler: SyncScheduler | undefined;
  let commits = 0;
  scheduler = new SyncScheduler(settings, {
    sync: (covered) => {
      covered();
      runs.push(commits);
      return new Promise<SyncResult>((resolve, reject) =>
        gates.push((error) => (error ? reject(error) : resolve(RESULT))),
      );
    },
    counts: async () => ({ ahead: 0, behind: 0 }),
  });
  const commit = () => {
    commits++;
    scheduler?.afterCommit();
  };
  /** Lets the oldest waiting sync end, once it has started. */
  const release = async (error?: Error) => {
    for (let i = 0; i < 1000 && gates.length === 0; i++) await new Promise((r) => setImmediate(r));
    gates.shift()?.(error);
  };
  return { scheduler, runs, commit, release };
}

describe('SyncScheduler.pushed (sync.ackAfterPush)', () => {
  it('answers an add as not pushed once sync.ackTimeoutSeconds pass without a push, and the late push still covers it', async () => {
    const settings = {
      remote: 'origin',
      intervalSeconds: 0,
      afterCommit: true,
      ackAfterPush: true,
      ackTimeoutSeconds: 0.05,
    };
    const { scheduler, runs, commit, release } = gated(settings);
    commit();
    const started = Date.now();
    // The sync that would push it hangs (a slow git server): the add is answered anyway.
    await expect(scheduler.pushed()).rejects.toThrow(
      /no push held it within 0.05 s \(sync.ackTimeoutSeconds\)/,
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(40);
    await release();
    // The hung sync ends; a later add is answered by the next push as usual.
    commit();
    const later = scheduler.pushed();
    await release();
    await later;
    expect(runs).toEqual([1, 2]);
    await scheduler.stop();
  });

  it('syncs once more for a commit made while a sync runs, and only once', async () => {
    const { scheduler, runs, commit, release } = gated();
    commit();
    // A second commit while the first sync hangs: one more sync after it covers it.
    commit();
    const later = scheduler.pushed();
    await release();
    await release();
    await later;
    // Whatever was due by now has run (a timer of 0 ms asked for a third sync here).
    await new Promise((resolve) => setTimeout(resolve, 0));
    await new Promise((resolve) => setImmediate(resolve));
    expect(runs).toEqual([1, 2]);
    expect(scheduler.snapshot().running).toBe(false);
    await scheduler.stop();
  });

  it('answers the adds of a commit with the one sync that commit started, not a second', async () => {
    const { scheduler, runs, commit, release } = gated();
    commit();
    const a = scheduler.pushed();
    const b = scheduler.pushed();
    await release();
    await Promise.all([a, b]);
    expect(runs).toEqual([1]);
    await scheduler.stop();
    expect(runs).toEqual([1]);
  });

  it('a commit made while a sync runs waits for the next sync, and a failed push rejects only the adds it covered', async () => {
    const { scheduler, runs, commit, release } = gated();
    commit();
    const first = scheduler.pushed();
    // The first sync has counted its commits; this commit is not in what it pushes.
    for (let i = 0; i < 1000 && runs.length === 0; i++) await new Promise((r) => setImmediate(r));
    commit();
    const second = scheduler.pushed();
    let secondDone = false;
    void second.then(() => {
      secondDone = true;
    });
    await release(new Error('push refused'));
    await expect(first).rejects.toThrow('push refused');
    expect(secondDone).toBe(false);
    await release();
    await second;
    expect(runs).toEqual([1, 2]);
    await scheduler.stop();
  });
});
