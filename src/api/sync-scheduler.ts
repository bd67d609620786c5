// `mem serve`'s syncing of one vault: after its group commits (`sync.afterCommit`) and every
// `sync.intervalSeconds`, off the request path, one sync at a time (a request made while one runs
// starts one more after it), with its state for `/memory/health`.
import type { MemConfig } from '../core/config.js';
import type { SyncResult } from '../write/sync-vault.js';

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
  sync: () => Promise<SyncResult>;
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

  constructor(
    private readonly settings: MemConfig['sync'],
    private readonly parts: SyncSchedulerParts,
  ) {
    this.state = { remote: settings.remote, running: false };
    if (settings.intervalSeconds > 0) {
      this.timer = setInterval(() => void this.request(), settings.intervalSeconds * 1000);
      this.timer.unref();
    }
  }

  /** A group commit was made. */
  afterCommit(): void {
    if (this.settings.afterCommit) void this.request();
  }

  /** Starts a sync now, or one more after the running one; resolves when it ran. */
  request(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = this.loop().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async loop(): Promise<void> {
    do {
      this.again = false;
      this.state.running = true;
      try {
        const result = await this.parts.sync();
        this.state.lastSync = new Date().toISOString();
        this.state.lastResult = result.code;
        delete this.state.lastError;
      } catch (error) {
        this.state.lastError = (error as Error).message ?? String(error);
        this.parts.onError?.(error);
      } finally {
        this.state.running = false;
      }
      const counts = await this.parts.counts().catch(() => undefined);
      if (counts) Object.assign(this.state, counts);
    } while (this.again && !this.stopped);
  }

  snapshot(): SyncState {
    return { ...this.state };
  }

  /** Stops the schedule and waits for a running sync. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.running;
  }
}
