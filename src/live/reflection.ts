// Reflection for a Vault: a model (or, with none, the offline rules) turning new episodes into
// insights and profile facts, rollups of finished periods, and the background scheduler that runs
// reflect by itself (`reflect.auto`). Model calls run off the write queue; their writes check each
// file on disk before replacing it, and are indexed before a run resolves.
import type { MemConfig } from '../core/config/config.js';
import { expectOptions, MemError } from '../core/errors.js';
import { createLlm, hasModel, type Llm, type LlmOptions } from '../models/llm.js';
import type { ReflectOptions, ReflectResult } from '../reflect/reflect.js';
import type { RollupOptions, RollupResult } from '../reflect/rollup/rollup.js';
import type { LiveIndex } from './live-index.js';
import { autoReflectEnabled, ReflectScheduler, type ReflectStatus } from './reflect-scheduler.js';
import { notAVault } from './write-queue.js';

/** The options of Vault.reflect, with its moments read and `now` given (api/call-moments.ts) */
export type ReflectRunOptions = ReflectOptions & {
  now: Date;
  llm?: Llm;
  llmOptions?: LlmOptions;
  env?: NodeJS.ProcessEnv;
  /** Only the offline commitment rule (extraction and expiry), model or not (default: false) */
  commitments?: boolean;
};

/** The options of Vault.rollup, with its moments read and `now` given (api/call-moments.ts) */
export type RollupRunOptions = RollupOptions & {
  now: Date;
  llm?: Llm;
  llmOptions?: LlmOptions;
  env?: NodeJS.ProcessEnv;
  offline?: boolean;
};

export interface ReflectionOptions {
  root: string;
  config: MemConfig;
  initialized: boolean;
  live: LiveIndex;
  /** Read for the model's key by background runs */
  env: NodeJS.ProcessEnv;
  /** Receives a run's warnings (see ReflectOptions.onNotice) */
  onNotice?: (message: string) => void;
}

/** How long a reflect run waits for the watcher to apply what it has seen before reading the index */
const REFLECT_WAIT_MS = 5000;

export class Reflection {
  private readonly root: string;
  private readonly config: MemConfig;
  private readonly initialized: boolean;
  private readonly live: LiveIndex;
  private readonly env: NodeJS.ProcessEnv;
  private readonly onNotice: ((message: string) => void) | undefined;
  /** Background reflection (`reflect.auto`), once a server starts it */
  private autoReflect: ReflectScheduler | undefined;

  constructor(options: ReflectionOptions) {
    this.root = options.root;
    this.config = options.config;
    this.initialized = options.initialized;
    this.live = options.live;
    this.env = options.env;
    this.onNotice = options.onNotice;
  }

  /** See Vault.reflect */
  async reflect(options: ReflectRunOptions): Promise<ReflectResult> {
    if (!options.dryRun && !this.initialized) throw notAVault(this.root);
    // A watched vault's index is kept in step by its watcher, so waiting for that costs the write
    // queue nothing; a full re-scan holds up every add queued behind it (0.7-1.6 s at 10,000 notes).
    if (this.live.watched) await this.live.whenIdle(REFLECT_WAIT_MS);
    else await this.live.refresh();
    // With no model configured, reflect still does what rules can: commitments and duplicates.
    if (
      options.commitments ||
      (!options.llm && !hasModel(this.config, options.env ?? process.env, options.llmOptions))
    ) {
      if (options.review)
        throw new MemError(
          'INVALID_ARGUMENT',
          'a review branch holds a model run; with no model configured the offline rules commit on your branch (run without --review)',
        );
      // Reflection's modules (its operation schemas, prompts, rollups) load when a run starts,
      // not with every recall: building their schemas cost each command about 15 ms.
      const { reflectOffline } = await import('../reflect/reflect-offline.js');
      const result = await reflectOffline(this.root, this.config, this.live.index, {
        ...options,
        commitmentsOnly: options.commitments,
      });
      if (!options.dryRun) await this.live.refreshPaths(result.files);
      return result;
    }
    const llm = options.llm ?? createLlm(this.config, options.env ?? process.env, options.llmOptions);
    const { reflect } = await import('../reflect/reflect.js');
    const result = await reflect(this.root, this.config, this.live.index, llm, {
      onNotice: this.onNotice,
      ...options,
    });
    if (!options.dryRun) await this.live.refreshPaths(result.files);
    return result;
  }

  /** See Vault.rollup */
  async rollup(options: RollupRunOptions): Promise<RollupResult> {
    if (!options.dryRun && !this.initialized) throw notAVault(this.root);
    await this.live.refresh();
    let llm = options.offline ? undefined : options.llm;
    if (!llm && !options.offline) {
      try {
        llm = createLlm(this.config, options.env ?? process.env, options.llmOptions);
      } catch (error) {
        // No model configured: the extractive rollup needs none.
        if (!(error instanceof MemError && error.code === 'LLM')) throw error;
      }
    }
    const { rollup } = await import('../reflect/rollup/rollup.js');
    return rollup(this.root, this.config, this.live.index, llm, options, async (paths) => {
      await this.live.refreshPaths(paths);
    });
  }

  /** See Vault.startAutoReflect */
  startAutoReflect(
    options: { llm?: Llm; llmOptions?: LlmOptions; onError?: (error: unknown) => void } = {},
  ): ReflectStatus {
    expectOptions(options, 'startAutoReflect options');
    const settings = this.config.reflect.auto;
    if (!this.autoReflect && this.initialized && autoReflectEnabled(settings)) {
      this.autoReflect = new ReflectScheduler({
        settings,
        timeZone: this.config.timezone,
        run: (signal, now) => this.reflect({ ...options, env: this.env, signal, now }),
        onError: options.onError,
      });
      this.autoReflect.start();
    }
    return this.reflectStatus();
  }

  /** See Vault.reflectStatus */
  reflectStatus(): ReflectStatus {
    return this.autoReflect?.status() ?? { enabled: false, running: false, newEntries: 0, failures: 0 };
  }

  /** Counts entries a write added toward background reflection's `afterEntries` trigger. */
  noteEntries(count: number): void {
    this.autoReflect?.noteEntries(count);
  }

  /** Stops background reflection: a model call in flight is abandoned rather than waited for. */
  async stop(): Promise<void> {
    const scheduler = this.autoReflect;
    this.autoReflect = undefined;
    if (scheduler) await scheduler.stop();
  }
}
