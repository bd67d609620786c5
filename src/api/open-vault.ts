import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { type CompileOptions, type CompileResult, compile } from '../compile/compile.js';
import { ensureCacheDir } from '../core/cache-dir.js';
import { CONFIG_FILE, loadConfig, type MemConfig } from '../core/config.js';
import { MemError } from '../core/errors.js';
import { findVault } from '../core/find-vault.js';
import type { Edge, Note } from '../core/types.js';
import type { DeriveContent } from '../git/commit-paths.js';
import { commitWrite } from '../git/commit-write.js';
import type { HistoryEntry } from '../git/git-history.js';
import { readPendingPlan } from '../git/pending-plan.js';
import {
  noteHistory,
  type UndoOptions,
  type UndoResult,
  undoLastMemCommit,
  vaultDiff,
} from '../git/vault-git.js';
import { type DoctorReport, diagnose, findUnreadableNotes, type UnreadableNote } from '../indexing/doctor.js';
import { loadIndexCache, saveIndexCache } from '../indexing/index-cache.js';
import {
  type RefreshProgress,
  type RefreshStats,
  refreshIndex,
  refreshPaths,
} from '../indexing/refresh-index.js';
import { VaultIndex } from '../indexing/vault-index.js';
import { type EmbedProgress, type EmbedTexts, VectorCache } from '../indexing/vector-cache.js';
import { type AppliedRange, chooseRange } from '../recall/choose-range.js';
import { type RecallHit, type RecallOptions, recall } from '../recall/recall.js';
import { createEmbedder } from '../reflect/embedder.js';
import { createLlm, hasModel, type Llm, type LlmOptions } from '../reflect/llm.js';
import type { ReflectOptions, ReflectResult } from '../reflect/reflect.js';
import type { RollupOptions, RollupResult } from '../reflect/rollup.js';
import { type Moment, toInstant } from '../time/parse-instant.js';
import { notePath } from '../vault/paths.js';
import {
  type ChangeTracker,
  type FolderHook,
  type TrackOptions,
  trackChanges,
} from '../vault/track-changes.js';
import {
  type VaultChange,
  type VaultWatcher,
  type WatchVaultOptions,
  watchVault,
} from '../vault/watch-vault.js';
import { type ForgetOptions, type ForgetResult, forgetNote } from '../write/forget-note.js';
import { type ForgetStaleOptions, type ForgetStaleResult, forgetStale } from '../write/forget-stale.js';
import { type IngestOptions, type IngestResult, ingest } from '../write/ingest.js';
import { type MoveResult, moveNote } from '../write/move-note.js';
import {
  deriveDailyNote,
  holdsLines,
  type OnPlanned,
  type RememberInput,
  type RememberResult,
  remember,
  rememberAll,
} from '../write/remember.js';
import {
  type CreateNoteInput,
  createNote,
  type NoteWriteResult,
  type UpdateNoteInput,
  updateNote,
} from '../write/update-note.js';
import {
  type ExchangeInput,
  type ExchangeResult,
  ExchangeWriter,
  type ExchangeWriterOptions,
  type WriterHealth,
} from './exchange-writer.js';
import { autoReflectEnabled, ReflectScheduler, type ReflectStatus } from './reflect-scheduler.js';

export interface OpenVaultOptions {
  /** The vault folder; else `MEM_VAULT`, else the nearest folder upward from `cwd` with `mem.config.json` */
  path?: string;
  /** Where discovery starts (default: process.cwd()) */
  cwd?: string;
  /** Environment read for `MEM_VAULT` (default: process.env) */
  env?: NodeJS.ProcessEnv;
  /** Read and write the index cache in `.mem/` (default: true) */
  cache?: boolean;
  /**
   * Write the index cache back to `.mem/` (default: true); false for a second reader of a vault
   * another process keeps (a server's read workers): it loads the cache and never replaces it.
   */
  saveCache?: boolean;
  /** Ignore the cache and index every note again (default: false) */
  rebuild?: boolean;
  /** Receives one-line notices such as "rebuilding the index cache" */
  onNotice?: (message: string) => void;
  /** Refuse a folder without `mem.config.json` instead of reading it as it is (default: false) */
  requireConfig?: boolean;
  /**
   * Called while opening, as the notes the cache lacks are read: how many so far of how many
   * (once per batch of 64, and once at the end). Not called when the cache has them all.
   */
  onProgress?: RefreshProgress;
  /**
   * When the index cache loaded: `now` (default) walks the vault and re-reads what changed before
   * `open` resolves; `background` resolves at once and does that walk on the vault's queue, so a
   * server can listen while it runs (a 100,000-note walk takes seconds). Until it ends,
   * `whenIdle` says `false`, so a read made meanwhile can say it answered from the cache alone.
   * Writes queue behind the walk. Without a usable cache, the walk is always done before `open`
   * resolves: answering from an empty index is not an answer.
   */
  scan?: 'now' | 'background';
  /**
   * Keep track of which notes change (Linux, on a local file system: one inotify watch per
   * folder), so that `refresh()` re-reads only those instead of looking at every note; where that
   * cannot be vouched for it walks the vault as usual (default: false). For a long-lived process
   * that refreshes before each read, like the command line's daemon. Options tune when it gives up
   * trusting its watches (tests).
   */
  track?: boolean | TrackOptions;
  /**
   * Embeds texts for semantic recall instead of the config's `embeddings` endpoint (tests, other
   * clients); used only when `embeddings.enabled` is true
   */
  embed?: EmbedTexts;
}

export interface EmbedStats {
  /** Sections with text */
  sections: number;
  /** Of them, embedded now (the others were cached) */
  embedded: number;
}

export interface RecallResult {
  query: string;
  /** The episode date range applied, when the query named a time or one was given */
  range?: AppliedRange;
  hits: RecallHit[];
}

const noop = () => undefined;

/** How long a reflect run waits for the watcher to apply what it has seen before reading the index */
const REFLECT_WAIT_MS = 5000;

/** How long recall stays lexical after the embeddings endpoint failed */
const EMBED_RETRY_MS = 60_000;

/**
 * One vault: its config, and an index kept in step with the files. The library's entry point.
 *
 * The Vault owns one serial queue: every write, every refresh and every cache save runs alone on
 * it, whether it came from a caller, from its watcher or from a server, so no caller ever has to
 * order them itself. Reads (`recall`, `compile`, `note`) are synchronous and see whatever the
 * index holds between two queued steps: never a half-applied change.
 */
/**
 * Options as the Vault takes them: `now` and `at` may also be ISO 8601 text, read in the vault's
 * time zone when it names no offset (a host in a UTC container passing its user's local clock).
 */
export type WithMoments<T> = { [K in keyof T]: K extends 'now' | 'at' ? Moment | undefined : T[K] };

export class Vault {
  /** `now` and `at` of `options` as Dates: text is read in the vault's time zone. */
  private instants<T extends { now?: unknown; at?: unknown }>(options: T): T & { now?: Date; at?: Date } {
    const zone = this.config.timezone;
    const out = { ...options } as T & { now?: Date; at?: Date };
    if ('now' in options) out.now = toInstant(options.now as Moment | undefined, zone, 'now');
    if ('at' in options) out.at = toInstant(options.at as Moment | undefined, zone, 'at');
    return out;
  }

  readonly root: string;
  readonly config: MemConfig;
  /**
   * The folder holds `mem.config.json` (made by `mem init`). A folder without it can be read, with
   * no cache left behind in it, but not written: a mistyped `--vault` must not turn a home folder
   * or a temp folder into a vault.
   */
  readonly initialized: boolean;
  /** What the last refresh changed */
  lastRefresh: RefreshStats = { added: 0, changed: 0, removed: 0, unchanged: 0, touched: 0 };
  private index: VaultIndex;
  /** Saves the index cache (the vault is initialized, and the cache is on and not read-only) */
  private readonly saveCache: boolean;
  /** Told the paths whose indexed state each refresh or write changed (see onIndexChange) */
  private readonly indexListeners = new Set<(paths: string[]) => void>();
  /** Vault paths whose indexed state differs from the saved cache */
  private readonly stale = new Set<string>();
  /** The end of the write queue */
  private tail: Promise<void> = Promise.resolve();
  private watcher: Promise<VaultWatcher> | undefined;
  private writer: Promise<ExchangeWriter> | undefined;
  private readonly onNotice: (message: string) => void;
  /** A cache that cannot be saved is reported once, not on every save */
  private saveFailed = false;
  private readonly env: NodeJS.ProcessEnv;
  private embedTexts: EmbedTexts | undefined;
  private vectors: Promise<VectorCache> | undefined;
  /** A failing embeddings endpoint is reported once; recall falls back to lexical */
  private embedFailed = false;
  /** After a failure, recalls stay lexical until then (epoch ms), not waiting on a dead endpoint */
  private embedRetryAt = 0;
  /** Background reflection (`reflect.auto`), once a server starts it */
  private autoReflect: ReflectScheduler | undefined;
  /** Opened with `scan: 'background'` and a loaded cache */
  private background = false;
  /** Walks and watcher start-up that reads wait for before they count as whole (see whenIdle) */
  private scanning: Promise<void> | undefined;
  /** What changed since the last refresh (`track`), when the platform and file system can say */
  private tracker: ChangeTracker | undefined;
  /** Why `track` was asked for and is not done */
  private untracked: string | undefined;
  /**
   * How the last refresh found what changed: `walk` looked at every note, `tracked` re-read the
   * notes the change tracker named (see the `track` option).
   */
  lastRefreshScope: 'walk' | 'tracked' = 'walk';

  private constructor(
    root: string,
    config: MemConfig,
    initialized: boolean,
    index: VaultIndex,
    saveCache: boolean,
    onNotice: (message: string) => void,
    env: NodeJS.ProcessEnv = process.env,
    embed?: EmbedTexts,
  ) {
    this.env = env;
    this.embedTexts = embed;
    this.root = root;
    this.config = config;
    this.initialized = initialized;
    this.index = index;
    this.saveCache = saveCache;
    this.onNotice = onNotice;
  }

  static async open(options: OpenVaultOptions = {}): Promise<Vault> {
    const root = await findVault(options.path, options.cwd, options.env);
    const config = await loadConfig(root, options.onNotice);
    const initialized = await stat(join(root, CONFIG_FILE)).then(
      () => true,
      () => false,
    );
    if (!initialized && options.requireConfig) throw notAVault(root);
    // Said before the walk: in a big folder (`--vault /usr`) reading every note takes a while, and
    // nothing else would tell the user why, or that the folder is not the vault they meant.
    if (!initialized) options.onNotice?.(readingNotAVault(root));
    const useCache = (options.cache ?? true) && initialized;
    const saveCache = useCache && options.saveCache !== false;
    let index = new VaultIndex();
    let loaded = false;
    if (useCache && !options.rebuild) {
      const cached = await loadIndexCache(root);
      if (cached.status === 'loaded') {
        index = cached.index;
        loaded = true;
      } else if (cached.status !== 'missing') options.onNotice?.(`mem: ${cached.reason}; rebuilding it`);
    }
    index.limits = config.limits;
    index.followSymlinks = config.followOutsideSymlinks;
    const vault = new Vault(
      root,
      config,
      initialized,
      index,
      saveCache,
      options.onNotice ?? noop,
      options.env ?? process.env,
      options.embed,
    );
    if (options.track) vault.startTracking(options.track === true ? {} : options.track);
    const scan = vault.exclusive(() => vault.refreshNow(options.onProgress));
    if (options.scan === 'background' && loaded) {
      vault.background = true;
      vault.settle(scan);
    } else await scan;
    return vault;
  }

  /**
   * Counts `task` in what `whenIdle` waits for. A walk that fails leaves the index as it was;
   * the failure is reported, and the next refresh or watcher event tries again.
   */
  private settle(task: Promise<unknown>): void {
    const quiet = task.then(noop, (error: unknown) =>
      this.onNotice(`mem: a scan of the vault failed (${(error as Error)?.message ?? String(error)})`),
    );
    const all = this.scanning ? Promise.all([this.scanning, quiet]).then(noop) : quiet;
    this.scanning = all;
    void all.then(() => {
      if (this.scanning === all) this.scanning = undefined;
    });
  }

  /** A walk of the vault opened with `scan: 'background'`, or its watcher's start, is still running */
  get scanPending(): boolean {
    return this.scanning !== undefined;
  }

  /** Runs `fn` on the vault's one queue: after every step queued before it, before any queued after. */
  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.tail.then(fn);
    this.tail = run.then(noop, noop);
    return run;
  }

  /** Runs a write on the queue, once the folder is known to be a vault. */
  private writing<T>(fn: () => Promise<T>): Promise<T> {
    if (!this.initialized) return Promise.reject(notAVault(this.root));
    return this.exclusive(fn);
  }

  /** Notes indexed now */
  get noteCount(): number {
    return this.index.notes.size;
  }

  /** The vault path of every indexed note, sorted */
  paths(): string[] {
    return [...this.index.notes.keys()].sort();
  }

  /** Re-reads what changed on disk; saves the cache when enough did (see saveIfStale). */
  refresh(): Promise<RefreshStats> {
    return this.exclusive(() => this.refreshNow());
  }

  private async refreshNow(onProgress?: RefreshProgress): Promise<RefreshStats> {
    const tracked = await this.tracker?.take((dir) => this.pathsBelow(dir));
    this.lastRefreshScope = tracked && 'paths' in tracked ? 'tracked' : 'walk';
    this.lastRefresh =
      tracked && 'paths' in tracked
        ? await this.refreshPathsNow(tracked.paths)
        : await this.indexing((changed) =>
            refreshIndex(this.root, this.index, changed, onProgress, tracked?.walk),
          );
    await this.saveIfStaleNow();
    return this.lastRefresh;
  }

  /**
   * Re-reads just these vault-relative paths (added, changed or deleted), as a watcher reports
   * them. Does not save the cache: a watcher saves after a quiet period.
   */
  refreshPaths(paths: Iterable<string>): Promise<RefreshStats> {
    return this.exclusive(() => this.refreshPathsNow(paths));
  }

  private refreshPathsNow(paths: Iterable<string>): Promise<RefreshStats> {
    return this.indexing((changed) => refreshPaths(this.root, this.index, paths, changed));
  }

  /**
   * Runs one change to the index: the paths it changed become unsaved, and every onIndexChange
   * listener is told them before the change's promise resolves.
   */
  private async indexing<T>(change: (changed: Set<string>) => Promise<T>): Promise<T> {
    const changed = new Set<string>();
    try {
      return await change(changed);
    } finally {
      for (const path of changed) this.stale.add(path);
      if (changed.size > 0) for (const listener of this.indexListeners) listener([...changed]);
    }
  }

  /**
   * Calls `listener` with the vault paths each refresh or write changed in the index (added,
   * changed, removed, or only touched), in order, as it happens; a server's read workers re-read
   * them. Returns the function that stops it.
   */
  onIndexChange(listener: (paths: string[]) => void): () => void {
    this.indexListeners.add(listener);
    return () => this.indexListeners.delete(listener);
  }

  /** Files the saved cache does not know about yet (the next open re-reads them) */
  get unsavedChanges(): number {
    return this.stale.size;
  }

  /**
   * Writes the index cache to `.mem/` now, whatever is stale. A cache that cannot be written
   * (a full disk, a read-only folder) is reported once through `onNotice`, never thrown: the
   * index in memory is whole, and the next open reads what the cache lacks.
   */
  save(): Promise<void> {
    return this.exclusive(() => this.saveNow());
  }

  private async saveNow(): Promise<void> {
    if (!this.saveCache) return;
    const result = await saveIndexCache(this.root, this.index);
    if (result.saved) {
      this.stale.clear();
      this.saveFailed = false;
    } else if (!this.saveFailed) {
      this.saveFailed = true;
      this.onNotice(`mem: ${result.reason}; the next run indexes what it lacks again`);
    }
  }

  /**
   * Saves the cache once re-reading what it lacks would cost more than a small share of writing
   * it: writing is proportional to the vault (about 1 s at 10,000 notes, and it blocks), re-reading
   * to the changed files (about 1 ms each). So one note in a hundred may be stale before a save.
   * A file counts once however often it changes: a daily note written every chat turn is one
   * file to re-read.
   */
  saveIfStale(): Promise<void> {
    return this.exclusive(() => this.saveIfStaleNow());
  }

  private async saveIfStaleNow(): Promise<void> {
    const stale = this.stale.size;
    if (stale > 0 && stale >= Math.max(1, Math.floor(this.index.notes.size / 100))) await this.saveNow();
  }

  /**
   * Starts keeping the index in step with hand edits, `git checkout` and other processes' writes
   * (one watcher per vault; a second call returns the first). Resolves once changes are seen.
   */
  async watch(options: WatchVaultOptions = {}): Promise<VaultWatcher> {
    if (!this.watcher) {
      // On Linux one inotify watch per folder, not chokidar's watch per file (0.9 GiB at 100,000 notes).
      const tracked = options.tracked !== false;
      if (tracked && !this.tracker && this.untracked === undefined) this.startTracking({});
      this.watcher = this.startWatcher(options, tracked ? this.tracker : undefined);
      if (tracked && this.tracker) this.settle(this.watcher.then((watcher) => watcher.ready));
      else if (this.background) {
        // A file changed after the first walk read it but before the watcher saw its folder is
        // reported by neither: one more walk once the watcher is ready closes that gap. Reads
        // meanwhile say they may be partial (whenIdle).
        this.settle(
          this.watcher
            .then((watcher) => watcher.ready)
            .then(() => (this.watcher ? this.exclusive(() => this.refreshNow()) : undefined)),
        );
      }
    }
    const watcher = await this.watcher;
    await watcher.ready;
    return watcher;
  }

  private startWatcher(
    options: WatchVaultOptions,
    tracker: ChangeTracker | undefined,
  ): Promise<VaultWatcher> {
    return watchVault(
      {
        root: this.root,
        followSymlinks: this.config.followOutsideSymlinks,
        exclusive: (fn) => this.exclusive(fn),
        apply: (paths) => this.applyChanges(paths),
        walk: (onFolder) => this.walkChanges(onFolder),
        pathsBelow: (dir) => this.pathsBelow(dir),
        save: async (final) => {
          if (final) await this.saveNow();
          else await this.saveIfStaleNow();
          return this.stale.size > 0;
        },
      },
      options,
      tracker,
    );
  }

  /** Walks the whole vault for a watcher (its tracker lost events, or has no watches yet) and says what changed. */
  private async walkChanges(onFolder: FolderHook): Promise<{ changes: VaultChange[]; touched: boolean }> {
    const before = new Map(this.index.notes);
    let seen: string[] = [];
    this.lastRefresh = await this.indexing(async (changed) => {
      const stats = await refreshIndex(this.root, this.index, changed, undefined, onFolder);
      seen = [...changed];
      return stats;
    });
    this.lastRefreshScope = 'walk';
    const changes: VaultChange[] = [];
    for (const path of seen) {
      const was = before.get(path);
      const now = this.index.notes.get(path);
      const kind = !was && now ? 'added' : was && !now ? 'removed' : was !== now ? 'changed' : undefined;
      if (kind) changes.push({ path, kind });
    }
    return { changes, touched: this.lastRefresh.touched > 0 };
  }

  /** Makes the change tracker, or notes why there is none (a folder that is no vault gets no barrier files). */
  private startTracking(options: TrackOptions): void {
    const tracker = this.initialized
      ? trackChanges(this.root, this.config.followOutsideSymlinks, options)
      : `${this.root} is not a vault`;
    if (typeof tracker === 'string') this.untracked = tracker;
    else this.tracker = tracker;
  }

  /**
   * Whether `refresh()` re-reads only what changed (`track`), or why not: another platform, a
   * network file system, symlinks followed, or the inotify watches used up.
   */
  get changeTracking(): { tracked: boolean; reason?: string } {
    const reason = this.tracker ? this.tracker.disabled : (this.untracked ?? 'not asked for');
    return reason === undefined ? { tracked: true } : { tracked: false, reason };
  }

  /** Indexed note paths below a folder */
  private pathsBelow(dir: string): string[] {
    const prefix = dir === '' ? '' : `${dir}/`;
    return [...this.index.notes.keys()].filter((path) => path.startsWith(prefix));
  }

  /** Re-reads paths a watcher reported and says which notes appeared, changed or went. */
  private async applyChanges(paths: string[]): Promise<{ changes: VaultChange[]; touched: boolean }> {
    const before = new Map(paths.map((path) => [path, this.index.notes.get(path)]));
    const stats = await this.refreshPathsNow(paths);
    const changes: VaultChange[] = [];
    for (const path of paths) {
      const was = before.get(path);
      const now = this.index.notes.get(path);
      // An unchanged note keeps its object (only its mtime is updated), so identity tells an edit.
      const kind = !was && now ? 'added' : was && !now ? 'removed' : was !== now ? 'changed' : undefined;
      if (kind) changes.push({ path, kind });
    }
    return { changes, touched: stats.touched > 0 };
  }

  /**
   * Resolves `true` once the first walk of the vault has ended (see `scan`) and no change the
   * watcher has seen is still being applied, or `false` when one still runs after `timeoutMs` (a
   * read may then answer from a partly updated index).
   */
  async whenIdle(timeoutMs: number): Promise<boolean> {
    const started = Date.now();
    const scanning = this.scanning;
    if (scanning) {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(false), timeoutMs);
      });
      const done = await Promise.race([scanning.then(() => true), late]);
      clearTimeout(timer);
      if (!done) return false;
    }
    if (!this.watcher) return true;
    const left = Math.max(0, timeoutMs - (Date.now() - started));
    return (await this.watcher).whenIdle(left);
  }

  /**
   * Starts the chat write path (see `addExchange`): opens the add journal in `.mem/` and writes
   * and commits what an earlier process accepted but did not finish. One per vault; a second
   * call returns the first.
   */
  startExchanges(options: ExchangeWriterOptions = {}): Promise<ExchangeWriter> {
    if (!this.initialized) return Promise.reject(notAVault(this.root));
    const target = {
      remember: (inputs: RememberInput[], onPlanned?: OnPlanned) => this.rememberEntries(inputs, onPlanned),
      holds: (path: string, lines: string[]) => holdsLines(this.root, path, lines),
      // Off the write queue: a commit takes a git process or three (tenths of a second), and the
      // next turn's add must not wait for it. Appends replace the note by rename, so git reads
      // either the note before an entry or after it, never half of one.
      commit: async (paths: string[], message: string, lines: Map<string, string[]>) => {
        // Only mem's lines on top of each note's committed version: a person's edit stays theirs.
        const derived = new Map<string, DeriveContent>();
        for (const [path, added] of lines) {
          const derive = await deriveDailyNote(path, added);
          if (derive) derived.set(path, derive);
        }
        return commitWrite(this.root, this.config, paths, message, derived);
      },
    };
    // ensureCacheDir: `.mem/` gets its own .gitignore, so the journal never lands in git.
    this.writer ??= ensureCacheDir(this.root).then((dir) =>
      ExchangeWriter.start(target, join(dir, 'adds.jsonl'), options),
    );
    return this.writer;
  }

  /**
   * Keeps one chat exchange: journaled before this resolves (so it survives a kill), written and
   * searchable at once, and committed to git in the background with whatever else was written in
   * the same burst. `commit` chooses the sides kept: `exchange`, `user` or `none`.
   */
  async addExchange(given: WithMoments<ExchangeInput>): Promise<ExchangeResult> {
    const writer = await this.startExchanges();
    return writer.add(this.instants(given), this.config.companion.commit);
  }

  /** The chat write path's state: adds waiting for a write or a commit, and the last failure */
  writerHealth(): Promise<WriterHealth> {
    return this.writer
      ? this.writer.then((writer) => writer.health())
      : Promise.resolve({ queued: 0, uncommitted: 0 });
  }

  /**
   * Starts reflecting in the background as `reflect.auto` asks (after N new entries, after M idle
   * minutes, daily at HH:MM); nothing when no trigger is set. Runs never block a read or a write:
   * the model call is off the write queue, one at a time. `close()` abandons a run in flight.
   */
  startAutoReflect(
    options: { llm?: Llm; llmOptions?: LlmOptions; onError?: (error: unknown) => void } = {},
  ): ReflectStatus {
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

  /** Background reflection's state: running or not, the last run, the next one, the day's tokens */
  reflectStatus(): ReflectStatus {
    return this.autoReflect?.status() ?? { enabled: false, running: false, newEntries: 0, failures: 0 };
  }

  /** Stops the watcher, lets queued writes finish, and saves the cache when anything is unsaved. */
  async close(): Promise<void> {
    // First: a model call in flight is abandoned rather than waited for (it may take minutes).
    const scheduler = this.autoReflect;
    this.autoReflect = undefined;
    if (scheduler) await scheduler.stop();
    const writer = this.writer;
    this.writer = undefined;
    if (writer) await (await writer).close();
    const watcher = this.watcher;
    this.watcher = undefined;
    if (watcher) await (await watcher).close();
    this.tracker?.close();
    this.tracker = undefined;
    await this.exclusive(async () => {
      if (this.stale.size > 0) await this.saveNow();
    });
  }

  /** The embeddings client, made on first use (and `openai` loaded on its first call) */
  private embedder(): EmbedTexts {
    if (!this.embedTexts) {
      const embedder = createEmbedder(this.config, this.env);
      this.embedTexts = (texts) => embedder.embed(texts);
    }
    return this.embedTexts;
  }

  private vectorCache(): Promise<VectorCache> {
    this.vectors ??= VectorCache.load(this.root, this.config.embeddings.model);
    return this.vectors;
  }

  /**
   * Embeds every section whose text the vector cache (`.mem/embeddings-<model>.json`) lacks, in
   * batches of `embeddings.batchSize`, and saves the cache; unchanged sections cost nothing.
   * Runs on the write queue. Throws when embeddings are off or the endpoint fails.
   */
  embed(onProgress?: EmbedProgress): Promise<EmbedStats> {
    if (!this.config.embeddings.enabled)
      return Promise.reject(
        new MemError('USAGE', `embeddings are off; set "embeddings": {"enabled": true} in ${CONFIG_FILE}`),
      );
    return this.exclusive(async () => {
      const cache = await this.vectorCache();
      const texts: string[] = [];
      for (const note of this.index.notes.values())
        for (const section of note.sections) if (section.text.trim() !== '') texts.push(section.text);
      try {
        const embedded = await cache.fill(
          texts,
          this.embedder(),
          this.config.embeddings.batchSize,
          onProgress,
        );
        return { sections: texts.length, embedded };
      } finally {
        if (this.saveCache) await cache.save(this.root).catch(noop);
      }
    });
  }

  /**
   * recall() with semantic similarity fused in when `embeddings.enabled`: sections the vector
   * cache lacks are embedded first, then the query. Off, it is exactly recall(), with no network
   * call. A failing endpoint never fails a recall: it is reported once through `onNotice`, and the
   * ranking stays lexical, without asking the endpoint again for a minute.
   */
  async recallAsync(query: string, given: WithMoments<RecallOptions> = {}): Promise<RecallResult> {
    const options = this.instants(given);
    if (!this.config.embeddings.enabled || options.semantic) return this.recall(query, options);
    const now = options.now ?? new Date();
    const range = chooseRange(this.index, query, now, this.config.timezone, options.range);
    const words = range?.onlyTime ? (range.words ?? '') : query;
    let semantic: RecallOptions['semantic'];
    if (words.trim() !== '' && Date.now() >= this.embedRetryAt) {
      try {
        await this.embed();
        const cache = await this.vectorCache();
        const [vector] = await this.embedder()([words]);
        if (vector)
          semantic = {
            query: vector,
            vectorOf: (section) => cache.get(section.text),
            weight: this.config.embeddings.weight,
          };
      } catch (error) {
        this.embedRetryAt = Date.now() + EMBED_RETRY_MS;
        if (!this.embedFailed) {
          this.embedFailed = true;
          this.onNotice(`mem: ${(error as Error).message}; recall is lexical only`);
        }
      }
    }
    return this.recall(query, { ...options, now, ...(semantic ? { semantic } : {}) });
  }

  /**
   * Ranked memories for a query. Time words in the query (昨天, last weekend) narrow episode
   * entries to that range unless `range` is given; the result says which range applied and why.
   */
  recall(query: string, given: WithMoments<RecallOptions> = {}): RecallResult {
    const options = this.instants(given);
    const now = options.now ?? new Date();
    const range = chooseRange(this.index, query, now, this.config.timezone, options.range);
    const hits = recall(this.index, this.config, range?.onlyTime ? (range.words ?? '') : query, {
      ...options,
      now,
      range: range ? { from: range.from, to: range.to } : undefined,
      rangeMode: range?.mode,
    });
    return { query, ...(range ? { range } : {}), hits };
  }

  /** Appends one entry to today's (or `at`'s) episode note, commits it, and indexes it at once. */
  remember(given: WithMoments<RememberInput>): Promise<RememberResult> {
    const input = this.instants(given);
    return this.writing(async () => {
      const result = await remember(this.root, this.config, input);
      await this.refreshPathsNow([result.path]);
      this.autoReflect?.noteEntries(1);
      return result;
    });
  }

  /** The exchange writer's write: one exchange's entries in one append per day, indexed at once. */
  private rememberEntries(inputs: RememberInput[], onPlanned?: OnPlanned): Promise<RememberResult[]> {
    return this.writing(async () => {
      const results = await rememberAll(this.root, this.config, inputs, onPlanned);
      await this.refreshPathsNow(new Set(results.map((r) => r.path)));
      this.autoReflect?.noteEntries(results.length);
      return results;
    });
  }

  /** Creates a note with `id`, `title`, `created`, `updated` and the given keys; refuses an existing one. */
  createNote(input: CreateNoteInput): Promise<NoteWriteResult> {
    return this.writing(async () => {
      const result = await createNote(this.root, this.config, input);
      await this.refreshPathsNow([result.path]);
      return result;
    });
  }

  /** Sets or deletes frontmatter keys of a note, keeping every other byte; CONFLICT on a hand edit. */
  updateNote(ref: string, input: UpdateNoteInput): Promise<NoteWriteResult> {
    return this.writing(async () => {
      const result = await updateNote(this.root, this.config, this.noteToWrite(ref).path, input);
      await this.refreshPathsNow([result.path]);
      return result;
    });
  }

  /** Renames a note and rewrites every link to it, keeping each link's style; one commit. */
  move(ref: string, to: string): Promise<MoveResult> {
    return this.writing(async () => {
      const result = await moveNote(this.root, this.config, this.index, await this.pathToWrite(ref), to);
      await this.refreshPathsNow(result.paths);
      return result;
    });
  }

  /** Moves a note to `archive/` with `status: archived`, or with `hard` deletes it (git only). */
  forget(ref: string, options: ForgetOptions = {}): Promise<ForgetResult> {
    return this.writing(async () => {
      const result = await forgetNote(
        this.root,
        this.config,
        this.index,
        await this.pathToWrite(ref),
        options,
      );
      await this.refreshPathsNow(result.paths);
      return result;
    });
  }

  /**
   * Archives old daily episodes that a rollup covers and nothing links to, and lowers the
   * importance of insights whose sources were all archived; one commit (`mem forget --stale`).
   * Off unless `forget.staleAfterDays` is set.
   */
  forgetStale(given: WithMoments<ForgetStaleOptions> = {}): Promise<ForgetStaleResult> {
    const options = this.instants(given);
    return this.writing(async () => {
      await this.refreshNow();
      const result = await forgetStale(this.root, this.config, this.index, options);
      if (!result.dryRun) await this.refreshPathsNow(result.paths);
      return result;
    });
  }

  /** Commits that touched a note (also one deleted since), newest first, following renames. */
  history(ref: string): Promise<HistoryEntry[]> {
    let path = notePath(ref);
    try {
      path = this.note(ref).path;
    } catch {
      // A deleted note is no longer indexed; its history is still found by its path.
    }
    return noteHistory(this.root, path);
  }

  /** Reverts mem's last commit when its files are unchanged since, and re-indexes them. */
  undo(options: UndoOptions = {}): Promise<UndoResult> {
    return this.writing(async () => {
      const result = await undoLastMemCommit(this.root, {
        runHooks: this.config.git.runHooks,
        ...options,
      });
      if (!result.dryRun) await this.refreshPathsNow(result.paths);
      return result;
    });
  }

  /** `git diff` of the vault: working tree against HEAD, a range `a..b`, or one commit. */
  diff(rev?: string): Promise<string> {
    return vaultDiff(this.root, rev);
  }

  /** Imports a chat transcript (JSON messages, JSONL or `Speaker: text` lines) into daily episodes. */
  ingest(text: string, given: WithMoments<IngestOptions>): Promise<IngestResult> {
    const options = this.instants(given);
    return this.writing(async () => {
      const result = await ingest(this.root, this.config, text, options);
      await this.refreshPathsNow(result.paths);
      this.autoReflect?.noteEntries(result.added);
      return result;
    });
  }

  /**
   * Has a model turn new episodes into insights and profile facts (see `mem reflect`). Pass an
   * `llm` to use another client; by default the config's OpenAI-compatible endpoint. The model
   * call runs off the write queue, so adds and searches go on meanwhile; reflect's own writes
   * check each file on disk before replacing it.
   */
  async reflect(
    given: WithMoments<ReflectOptions> & {
      llm?: Llm;
      llmOptions?: LlmOptions;
      env?: NodeJS.ProcessEnv;
      /** Only the offline commitment rule (extraction and expiry), model or not (default: false) */
      commitments?: boolean;
    } = {},
  ): Promise<ReflectResult> {
    const options = this.instants(given);
    if (!options.dryRun && !this.initialized) throw notAVault(this.root);
    // A watched vault's index is kept in step by its watcher, so waiting for that costs the write
    // queue nothing; a full re-scan holds up every add queued behind it (0.7-1.6 s at 10,000 notes).
    if (this.watcher) await this.whenIdle(REFLECT_WAIT_MS);
    else await this.refresh();
    // With no model configured, reflect still does what rules can: commitments and duplicates.
    if (
      options.commitments ||
      (!options.llm && !hasModel(this.config, options.env ?? process.env, options.llmOptions))
    ) {
      if (options.review)
        throw new MemError(
          'USAGE',
          'a review branch holds a model run; with no model configured the offline rules commit on your branch (run without --review)',
        );
      // Reflection's modules (its operation schemas, prompts, rollups) load when a run starts,
      // not with every recall: building their schemas cost each command about 15 ms.
      const { reflectOffline } = await import('../reflect/reflect-offline.js');
      const result = await reflectOffline(this.root, this.config, this.index, {
        ...options,
        commitmentsOnly: options.commitments,
      });
      if (!options.dryRun) await this.refreshPaths(result.files);
      return result;
    }
    const llm = options.llm ?? createLlm(this.config, options.env ?? process.env, options.llmOptions);
    const { reflect } = await import('../reflect/reflect.js');
    const result = await reflect(this.root, this.config, this.index, llm, options);
    if (!options.dryRun) await this.refreshPaths(result.files);
    return result;
  }

  /**
   * Writes rollups of finished periods (see `mem reflect --rollup`): with the config's model when
   * one is configured, else extractive (no network at all). `offline` forces the extractive one.
   */
  async rollup(
    given: WithMoments<RollupOptions> & {
      llm?: Llm;
      llmOptions?: LlmOptions;
      env?: NodeJS.ProcessEnv;
      offline?: boolean;
    } = {},
  ): Promise<RollupResult> {
    const options = this.instants(given);
    if (!options.dryRun && !this.initialized) throw notAVault(this.root);
    await this.refresh();
    let llm = options.offline ? undefined : options.llm;
    if (!llm && !options.offline) {
      try {
        llm = createLlm(this.config, options.env ?? process.env, options.llmOptions);
      } catch (error) {
        // No model configured: the extractive rollup needs none.
        if (!(error instanceof MemError && error.code === 'LLM')) throw error;
      }
    }
    const { rollup } = await import('../reflect/rollup.js');
    return rollup(this.root, this.config, this.index, llm, options, async (paths) => {
      await this.refreshPaths(paths);
    });
  }

  /** The context document for one conversation turn, within a token budget. */
  compile(options: WithMoments<CompileOptions>): CompileResult {
    return compile(this.index, this.config, this.instants(options));
  }

  /**
   * Finds a note by vault path (with or without `.md`) or by link text resolved from the vault root,
   * the way Obsidian would resolve `[[ref]]`.
   */
  note(ref: string): Note {
    const clean = ref.normalize('NFC').replace(/^\.\//, '').replace(/^\//, '');
    const direct = this.index.notes.get(clean) ?? this.index.notes.get(`${clean}.md`);
    if (direct) return direct;
    const resolved = this.index.graph.resolve(clean.replace(/\.md$/i, ''), '');
    const note = resolved ? this.index.notes.get(resolved) : undefined;
    if (!note) throw new MemError('NOT_FOUND', `note not found: ${ref}`);
    return note;
  }

  /**
   * The path a verb that moves or removes a note acts on: the note `ref` names (see noteToWrite),
   * or, when none does but a killed run left a plan uncommitted, `ref` as a path, so the verb run
   * again can find its own plan done but for the commit, and commit it.
   */
  private async pathToWrite(ref: string): Promise<string> {
    // A path the plan moved or deleted, not a link that now resolves elsewhere (into archive/).
    const path = notePath(ref.replace(/^\.?\//, ''));
    if (!this.index.notes.has(path) && (await readPendingPlan(this.root))?.paths.includes(path)) return path;
    return this.noteToWrite(ref).path;
  }

  /**
   * Like note(), for verbs that change or remove a note: a name that more than one note answers to
   * (`Mei` for `people/Mei.md` and `work/Mei.md`) is refused with the candidates, never guessed.
   */
  noteToWrite(ref: string): Note {
    const note = this.note(ref);
    const clean = ref.normalize('NFC').replace(/^\.\//, '').replace(/^\//, '').replace(/\.md$/i, '');
    if (this.index.notes.has(clean) || this.index.notes.has(`${clean}.md`)) return note;
    const wanted = `/${clean}.md`.toLowerCase();
    const candidates = [...this.index.notes.keys()].filter((path) =>
      `/${path}`.toLowerCase().endsWith(wanted),
    );
    if (candidates.length > 1) {
      throw new MemError(
        'INVALID_INPUT',
        `${ref} is ambiguous: ${candidates.sort().join(', ')}; give the note's path`,
      );
    }
    return note;
  }

  links(ref: string): Edge[] {
    return this.index.graph.outEdges(this.note(ref).path);
  }

  backlinks(ref: string): Edge[] {
    return this.index.graph.backlinks(this.note(ref).path);
  }

  doctor(): DoctorReport {
    return diagnose(this.index);
  }

  /** Notes on disk that are not readable UTF-8 text (reads every note: `mem doctor` adds these to its report). */
  checkNoteFiles(): Promise<UnreadableNote[]> {
    return findUnreadableNotes(this.root, { followSymlinks: this.config.followOutsideSymlinks });
  }
}

function readingNotAVault(root: string): string {
  return `mem: ${root} is not a vault (no ${CONFIG_FILE}); reading every note in it as it is, with no index saved. Run \`mem init ${root}\` to make it one`;
}

function notAVault(root: string): MemError {
  return new MemError(
    'NO_VAULT',
    `${root} is not a vault (no ${CONFIG_FILE}); run \`mem init ${root}\` to make it one. Reading works without it, writing and indexing do not`,
  );
}

export function openVault(options: OpenVaultOptions = {}): Promise<Vault> {
  return Vault.open(options);
}
