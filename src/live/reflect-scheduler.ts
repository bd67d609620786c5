// Reflection in the background: when a vault's server runs reflect by itself, one run at a time.
import type { MemConfig } from '../core/config/config.js';
import type { LlmUsage } from '../models/llm.js';
import type { ReflectResult } from '../reflect/reflect.js';
import type { BudgetState } from '../reflect/token-budget.js';
import { endOfDay, fromWallClock, isoWithOffset, zonedDate } from '../time/zoned-date.js';

export type AutoReflectSettings = MemConfig['reflect']['auto'];

export interface ReflectRunSummary {
  /** What started it: `12 new entries`, `idle 30 minutes`, `daily at 03:30`, `retry` */
  trigger: string;
  startedAt: string;
  finishedAt: string;
  /** Episode notes the model read */
  episodes: number;
  /** Operations written (or, on --review, committed to the branch) */
  applied: number;
  /** Operations refused by validation or by a hand edit met at write time */
  refused: number;
  committed: boolean;
  sha?: string;
  usage?: LlmUsage;
  /** Why the run wrote nothing although it ran (no new episodes, nothing to write) */
  reason?: string;
  /** Why the run did not call the model (the daily token budget) */
  skipped?: string;
  /** The run failed (the model failed, hung past its timeout, or answered garbage): nothing was written */
  error?: string;
}

export interface ReflectStatus {
  /** A trigger is set in `reflect.auto` and the server started the scheduler */
  enabled: boolean;
  /** A run is in flight now */
  running: boolean;
  runningSince?: string;
  /** Entries added since the last run started */
  newEntries: number;
  /** Failed runs in a row; the wait before the next try doubles with each */
  failures: number;
  lastRun?: ReflectRunSummary;
  /** When the next run is due and why (absent when nothing is due: no new entries and no schedule) */
  nextRun?: { at: string; trigger: string };
  /** The day's token count as of the last run, when `reflect.maxTokensPerDay` caps it */
  budget?: BudgetState;
}

export interface ReflectSchedulerOptions {
  settings: AutoReflectSettings;
  timeZone: string;
  /** One reflect run; must give up when `signal` aborts before it writes */
  run: (signal: AbortSignal, now: Date) => Promise<ReflectResult>;
  /** Receives a failed run's error (the status keeps it too) */
  onError?: (error: unknown) => void;
}

/** The longest wait after failures: a model that is down for a day is asked once an hour. */
const MAX_BACKOFF_MS = 60 * 60_000;
/** Timers are re-armed at least this often, so a clock that jumps (sleep, NTP) is caught up with. */
const MAX_TIMER_MS = 10 * 60_000;

/** The next instant after `now` when a clock in `timeZone` shows `hhmm` (today's, else tomorrow's). */
export function nextDailyAt(now: Date, hhmm: string, timeZone: string): Date {
  const [hour = 0, minute = 0] = hhmm.split(':').map(Number);
  let day = zonedDate(now, timeZone);
  for (let i = 0; i < 3; i++, day = day.add({ days: 1 })) {
    const at = fromWallClock({ year: day.year, month: day.month, day: day.day, hour, minute }, timeZone);
    if (at && at.getTime() > now.getTime()) return at;
  }
  // Unreachable for a valid HH:MM: one of three days always has it.
  return new Date(now.getTime() + 24 * 60 * 60_000);
}

/** Whether `reflect.auto` asks for any background run at all (off by default). */
export function autoReflectEnabled(settings: AutoReflectSettings): boolean {
  return (
    settings.afterEntries !== undefined ||
    settings.idleMinutes !== undefined ||
    settings.dailyAt !== undefined
  );
}

/**
 * Decides when a vault reflects by itself: after `afterEntries` new entries, after `idleMinutes`
 * without one, or daily at `dailyAt`. Runs on timers, never inside a request; at most one run (and
 * so one model call) at a time. A failed run is retried after `retrySeconds`, doubling per failure
 * up to an hour; a run over the daily token budget waits for the next day.
 */
export class ReflectScheduler {
  private readonly options: ReflectSchedulerOptions;
  private timer: NodeJS.Timeout | undefined;
  private controller: AbortController | undefined;
  private running: Promise<void> | undefined;
  private runningSince: Date | undefined;
  private entries = 0;
  private lastEntryAt: number | undefined;
  private failures = 0;
  /** Nothing runs before this (epoch ms): a failure's backoff, or the budget's next day */
  private waitUntil: { at: number; trigger: string } | undefined;
  private lastRun: ReflectRunSummary | undefined;
  private budget: BudgetState | undefined;
  private stopped = false;
  private next: { at: number; trigger: string } | undefined;

  constructor(options: ReflectSchedulerOptions) {
    this.options = options;
  }

  start(): void {
    this.arm();
  }

  /** Counts entries just added; may start a run (never awaited by the caller). */
  noteEntries(count = 1): void {
    if (count <= 0 || this.stopped) return;
    this.entries += count;
    this.lastEntryAt = Date.now();
    this.arm();
  }

  status(): ReflectStatus {
    const at = (ms: number | Date) => isoWithOffset(new Date(ms), this.options.timeZone);
    return {
      enabled: !this.stopped,
      running: this.running !== undefined,
      ...(this.runningSince ? { runningSince: at(this.runningSince) } : {}),
      newEntries: this.entries,
      failures: this.failures,
      ...(this.lastRun ? { lastRun: this.lastRun } : {}),
      ...(this.next ? { nextRun: { at: at(this.next.at), trigger: this.next.trigger } } : {}),
      ...(this.budget ? { budget: this.budget } : {}),
    };
  }

  /**
   * Stops scheduling and abandons a run in flight: a model call is cut off at once and nothing is
   * written; a run already writing finishes (its writes and its one commit take milliseconds), so
   * no run is ever left half-applied. Resolves once no run is in flight.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    this.next = undefined;
    clearTimeout(this.timer);
    this.controller?.abort();
    await this.running;
  }

  /** The next run due: a wait (backoff, budget) holds back every trigger until it is over. */
  private due(now: number): { at: number; trigger: string } | undefined {
    if (this.waitUntil) return this.waitUntil;
    const { afterEntries, idleMinutes, dailyAt } = this.options.settings;
    const candidates: Array<{ at: number; trigger: string }> = [];
    if (afterEntries !== undefined && this.entries >= afterEntries)
      candidates.push({ at: now, trigger: `${this.entries} new entries` });
    if (idleMinutes !== undefined && this.entries > 0 && this.lastEntryAt !== undefined)
      candidates.push({
        at: this.lastEntryAt + idleMinutes * 60_000,
        trigger: `idle ${idleMinutes} minutes`,
      });
    if (dailyAt !== undefined)
      candidates.push({
        at: nextDailyAt(new Date(now), dailyAt, this.options.timeZone).getTime(),
        trigger: `daily at ${dailyAt}`,
      });
    return candidates.sort((a, b) => a.at - b.at)[0];
  }

  private arm(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.stopped) return;
    const now = Date.now();
    this.next = this.due(now);
    // A run in flight re-arms when it ends; the status still shows what is due next.
    if (!this.next || this.running) return;
    const due = this.next;
    const delay = Math.max(0, due.at - now);
    this.timer = setTimeout(
      () => {
        if (Date.now() >= due.at) this.fire(due.trigger);
        else this.arm();
      },
      Math.min(delay, MAX_TIMER_MS),
    );
    // A pending run never keeps the process alive: stopping the server is not held up by a timer.
    this.timer.unref();
  }

  private fire(trigger: string): void {
    if (this.running || this.stopped) return;
    const taken = this.entries;
    this.entries = 0;
    this.waitUntil = undefined;
    const controller = new AbortController();
    this.controller = controller;
    const started = new Date();
    this.runningSince = started;
    this.next = undefined;
    const at = (date: Date) => isoWithOffset(date, this.options.timeZone);
    this.running = (async () => {
      let summary: ReflectRunSummary;
      try {
        const result = await this.options.run(controller.signal, started);
        this.failures = 0;
        if (result.budget) this.budget = result.budget;
        if (result.skipped) {
          // Over budget: the count starts again at midnight in the vault's zone.
          this.entries += taken;
          this.waitUntil = {
            at: endOfDay(zonedDate(started, this.options.timeZone), this.options.timeZone).getTime(),
            trigger: 'the daily token budget resets',
          };
        }
        summary = {
          trigger,
          startedAt: at(started),
          finishedAt: at(new Date()),
          episodes: result.episodes.length,
          applied: result.applied,
          refused: result.rejected.length,
          committed: result.committed,
          ...(result.sha ? { sha: result.sha } : {}),
          ...(result.usage ? { usage: result.usage } : {}),
          ...(result.skipped ? { skipped: result.skipped } : result.reason ? { reason: result.reason } : {}),
        };
      } catch (error) {
        // What came in meanwhile and what this run did not consume are still to be reflected.
        this.entries += taken;
        summary = {
          trigger,
          startedAt: at(started),
          finishedAt: at(new Date()),
          episodes: 0,
          applied: 0,
          refused: 0,
          committed: false,
          error: (error as Error).message ?? String(error),
        };
        if (!controller.signal.aborted) {
          this.failures++;
          const wait = Math.min(
            this.options.settings.retrySeconds * 1000 * 2 ** (this.failures - 1),
            MAX_BACKOFF_MS,
          );
          this.waitUntil = { at: Date.now() + wait, trigger: `retry ${this.failures} after a failure` };
          this.options.onError?.(error);
        }
      }
      this.lastRun = summary;
      this.running = undefined;
      this.runningSince = undefined;
      this.controller = undefined;
      this.arm();
    })();
  }
}
