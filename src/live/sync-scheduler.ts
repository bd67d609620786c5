// `mem serve`'s syncing of one vault: after its group commits (`sync.afterCommit`) and when
// `sync.intervalSeconds` passed since the last sync (a sync after a commit also brings in what
// other copies pushed, so the timer starts again after every sync), off the request path, one sync at a time (a request made while one runs
// starts one more after it), with its state for `/memory/health`. With `sync.ackAfterPush` an add
// waits for `pushed()`: the first sync that holds every commit made before it, shared by all
// adds waiting meanwhile (one push for a burst).
import type { MemConfig } from '../core/config/config.js';
import type { SyncResult } from '../write/sync/sync-vault.js';

export interface SyncState {
  remote: string;
  /** A sync is running now */
  running: boolean;
  /** When the last sync succeeded (ISO 8601) and what it did */
  lastSync?: string;
  lastResult?: SyncResult['code'];
  /** The last sync's failure, until one succeeds */
  lastError?: string;
  /** Commits here not on the remote, and there not here (as of the last fetch) */
  ahead?: number;
  behind?: number;
}

export interface SyncSchedulerParts {
  /**
   * Runs one sync. `covered()` is called once nothing more can be committed before the merge
   * (group commits held): every commit counted by then is in what the sync pushes. Not called:
   * the commits counted when the sync started.
   */
  sync: (covered: () => void) => Promise<SyncResult>;
  /** Ahead and behind the remote's branch as last fetched */
  counts: () => Promise<{ ahead: number; behind: number } | undefined>;
  onError?: (error: unknown) => void;
}

export class SyncScheduler {
  private readonly state: SyncState;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = false;
  /** A sync after commits, waiting for `sync.afterCommitGapSeconds` to pass since the last began */
  private deferred: NodeJS.Timeout | undefined;
  /** When the last sync began (ms since the epoch) */
  private lastStart = Number.NEGATIVE_INFINITY;
  /** Commits made so far (`committed()`), and adds waiting for a push that holds a given count */
  private commits = 0;
  private waiters: Array<{ need: number; resolve: () => void; reject: (error: unknown) => void }> = [];

  constructor(
    private readonly settings: Omit<MemConfig['sync'], 'afterCommitGapSeconds' | 'ackTimeoutSeconds'> & {
      afterCommitGapSeconds?: number;
      ackTimeoutSeconds?: number;
    },
    private readonly parts: SyncSchedulerParts,
  ) {
    this.state = { remote: settings.remote, running: false };
    this.arm();
  }

  /** The next sync of the schedule: `sync.intervalSeconds` after the last one ended. */
  private arm(): void {
    clearTimeout(this.timer);
    if (this.settings.intervalSeconds <= 0 || this.stopped) return;
    this.timer = setTimeout(() => void this.request(), this.settings.intervalSeconds * 1000);
    this.timer.unref();
  }

  /**
   * A group commit was made: synced at once, or, within `sync.afterCommitGapSeconds` of the last
   * sync's start, once that much has passed, with every commit made meanwhile (one sync for a
   * burst). An add waiting for its push (`pushed()`) does not wait for the gap.
   */
  afterCommit(): void {
    this.committed();
    if (!this.settings.afterCommit || this.deferred || this.stopped) return;
    const wait = this.lastStart + (this.settings.afterCommitGapSeconds ?? 0) * 1000 - Date.now();
    // Past the gap: now, or, while a sync runs, once more right after it (request() notes it).
    // Not by a timer of 0 ms: one that fired while the next sync already ran asked for yet another.
    if (wait <= 0) {
      void this.request();
      return;
    }
    this.deferred = setTimeout(
      () => {
        this.deferred = undefined;
        void this.request();
      },
      Math.max(0, wait),
    );
    this.deferred.unref();
  }

  /** A commit was made (a group commit, or a write that commits itself): counted for `pushed()`. */
  committed(): void {
    this.commits++;
  }

  /**
   * Resolves once a sync holds every commit counted so far (pushed, or already on the remote);
   * rejects with the error of the sync that should have pushed them. Starts one when none runs.
   */
  pushed(): Promise<void> {
    if (this.stopped)
      return Promise.reject(new Error('the vault is closing; its last sync pushes what it holds'));
    const waiting = new Promise<void>((resolve, reject) => {
      // Answered in time, whatever the syncs do: past the bound the add is answered as not pushed
      // (the sync that covers it still pushes it) rather than left to a router's timeout, after
      // which a host would send it again.
      const seconds = this.settings.ackTimeoutSeconds ?? 30;
      const bound = setTimeout(() => {
        if (!this.waiters.includes(waiter)) return;
        this.waiters = this.waiters.filter((w) => w !== waiter);
        reject(new Error(`no push held it within ${seconds} s (sync.ackTimeoutSeconds)`));
      }, seconds * 1000);
      bound.unref();
      const waiter = {
        need: this.commits,
        resolve: () => {
          clearTimeout(bound);
          resolve();
        },
        reject: (error: unknown) => {
          clearTimeout(bound);
          reject(error);
        },
      };
      this.waiters.push(waiter);
    });
    // A running sync may cover it (its commits are counted when it merges); if not, the loop runs
    // again while any waiter is left. Asking for one more here would add a sync to every add.
    if (!this.running) void this.request();
    return waiting;
  }

  /** Settles the waiters a sync covering `covered` commits answers: all with a failure, or resolved. */
  private settle(covered: number, error?: unknown): void {
    const done = this.waiters.filter((w) => w.need <= covered);
    if (done.length === 0) return;
    this.waiters = this.waiters.filter((w) => w.need > covered);
    for (const w of done) error === undefined ? w.resolve() : w.reject(error);
  }

  /** Starts a sync now, or one more after the running one; resolves when it ran. */
  request(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    if (this.running) {
      this.again = true;
      return this.running;
    }
    clearTimeout(this.timer);
    this.running = this.loop().finally(() => {
      this.running = undefined;
      this.arm();
      // A waiter that came after the loop's last look (pushed() saw it still running).
      if (this.waiters.length > 0 && !this.stopped) void this.request();
    });
    return this.running;
  }

  private async loop(): Promise<void> {
    do {
      this.again = false;
      this.state.running = true;
      this.lastStart = Date.now();
      let covered = this.commits;
      let synced = false;
      try {
        const result = await this.parts.sync(() => {
          covered = this.commits;
        });
        this.state.lastSync = new Date().toISOString();
        this.state.lastResult = result.code;
        delete this.state.lastError;
        this.settle(covered);
        synced = true;
      } catch (error) {
        this.state.lastError = (error as Error).message ?? String(error);
        this.parts.onError?.(error);
        this.settle(covered, error);
      } finally {
        this.state.running = false;
      }
      // A sync that succeeded with no commit made since its merge left this copy and the remote's
      // branch equal: nothing to count (three git processes saved per sync). Otherwise counted;
      // not awaited before the waiters are answered: an add waits for its push, not for a count.
      const counts =
        synced && this.commits === covered
          ? { ahead: 0, behind: 0 }
          : await this.parts.counts().catch(() => undefined);
      if (counts) Object.assign(this.state, counts);
    } while ((this.again || this.waiters.length > 0) && !this.stopped);
  }

  snapshot(): SyncState {
    return { ...this.state };
  }

  /** Stops the schedule and waits for a running sync. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    clearTimeout(this.deferred);
    await this.running;
    this.settle(
      Number.POSITIVE_INFINITY,
      new Error('the vault closed before a push held this; its last sync pushes it'),
    );
  }
}
