// The vault's index kept in step with its files: refreshes (a walk, or the paths a change tracker or
// the watcher names), the index cache in `.mem/` saved when enough is stale, listeners told what each
// change touched, and the watcher's lifecycle. Every change runs on the vault's write queue.

import type { MemConfig } from '../core/config/config.js';
import { expectOptions, refused } from '../core/errors.js';
import { COLD_SPILL_MIN } from '../indexing/cold-build.js';
import { loadIndexCache, saveIndexCache } from '../indexing/index-cache.js';
import {
  type RefreshProgress,
  type RefreshStats,
  refreshIndex,
  refreshPaths,
} from '../indexing/refresh-index.js';
import { VaultIndex } from '../indexing/vault-index.js';
import { layoutOf } from '../vault/layout.js';
import {
  readTemplatePlaces,
  readTemplateTexts,
  TemplateSections,
  templatePathTest,
} from '../vault/template-notes.js';
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
import type { WriteQueue } from './write-queue.js';

const noop = () => undefined;

/** What a live index needs of its vault */
export interface LiveIndexOptions {
  root: string;
  config: MemConfig;
  /** The folder holds `mem.config.json` (a folder that is no vault gets no change tracker) */
  initialized: boolean;
  index: VaultIndex;
  /** Save the index cache (the vault is initialized, and the cache is on and not read-only) */
  saveCache: boolean;
  queue: WriteQueue;
  onNotice: (message: string) => void;
}

/**
 * The index a vault opens with: the cache in `.mem/` when `useCache` and it loads (`loaded`), else
 * an empty one that the first walk fills. A cache that cannot be used is reported and rebuilt.
 */
export async function loadIndex(
  root: string,
  config: MemConfig,
  useCache: boolean,
  onNotice?: (message: string) => void,
): Promise<{ index: VaultIndex; loaded: boolean }> {
  let index = new VaultIndex();
  let loaded = false;
  if (useCache) {
    const cached = await loadIndexCache(root, layoutOf(config));
    if (cached.status === 'loaded') {
      index = cached.index;
      loaded = true;
      index.notes.onDamaged = (path) =>
        onNotice?.(`mem: the index cache's copy of ${path} is damaged; it was read from the note instead`);
      index.text.onRebuilt = (reason) =>
        onNotice?.(`mem: ${reason}; the text index was rebuilt from the notes`);
    } else if (cached.status !== 'missing') onNotice?.(`mem: ${cached.reason}; rebuilding it`);
  }
  index.limits = config.limits;
  index.notes.decodedBytes = config.limits.decodedNotesMiB * 1024 * 1024;
  index.layout = layoutOf(config);
  index.followSymlinks = config.followOutsideSymlinks;
  await readTemplates(root, index);
  return { index, loaded };
}

/**
 * Templates are not memories: the vault's template folders and daily template are left out of the
 * index (a cache built before loses them here), and their text is kept to tell which sections of
 * other notes are still only a template's (see vault/template-notes.ts). Read at each open.
 */
async function readTemplates(root: string, index: VaultIndex): Promise<void> {
  const { folders, daily } = index.layout;
  const places = await readTemplatePlaces(root, {
    ...(daily.template ? { dailyTemplate: daily.template } : {}),
    keep: [daily.folder, ...Object.values(folders)],
  });
  index.skipPath = templatePathTest(places);
  if (!index.skipPath) return;
  for (const path of [...index.notes.keys()]) if (index.skipPath(path)) index.remove(path);
  const templates = new TemplateSections(await readTemplateTexts(root, places));
  index.templates = templates.size > 0 ? templates : undefined;
}

export class LiveIndex {
  readonly index: VaultIndex;
  /** What the last refresh changed */
  lastRefresh: RefreshStats = { added: 0, changed: 0, removed: 0, unchanged: 0, touched: 0 };
  /**
   * How the last refresh found what changed: `walk` looked at every note, `tracked` re-read the
   * notes the change tracker named (see the `track` option).
   */
  lastRefreshScope: 'walk' | 'tracked' = 'walk';
  private readonly root: string;
  private readonly config: MemConfig;
  private readonly initialized: boolean;
  private readonly saveCache: boolean;
  private readonly queue: WriteQueue;
  private readonly onNotice: (message: string) => void;
  /** Told the paths whose indexed state each refresh or write changed (see onIndexChange) */
  private readonly indexListeners = new Set<(paths: string[]) => void>();
  /** Vault paths whose indexed state differs from the saved cache */
  private readonly stale = new Set<string>();
  /** A cache that cannot be saved is reported once, not on every save */
  private saveFailed = false;
  private watcher: Promise<VaultWatcher> | undefined;
  /** Opened with `scan: 'background'` and a loaded cache */
  private background = false;
  /** Walks and watcher start-up that reads wait for before they count as whole (see whenIdle) */
  private scanning: Promise<void> | undefined;
  /** What changed since the last refresh (`track`), when the platform and file system can say */
  private tracker: ChangeTracker | undefined;
  /** Why `track` was asked for and is not done */
  private untracked: string | undefined;

  constructor(options: LiveIndexOptions) {
    this.root = options.root;
    this.config = options.config;
    this.initialized = options.initialized;
    this.index = options.index;
    this.saveCache = options.saveCache;
    // A cold index is saved at its end: its notes can be written to the cache as they are read.
    if (options.saveCache) this.index.spillFrom ??= COLD_SPILL_MIN;
    this.queue = options.queue;
    this.onNotice = options.onNotice;
  }

  /** The first walk of the vault, queued. */
  scan(onProgress?: RefreshProgress): Promise<RefreshStats> {
    return this.queue.exclusive(() => this.refreshNow(onProgress));
  }

  /**
   * Lets the first walk run on after `open` resolves (`scan: 'background'` with a loaded cache):
   * reads meanwhile answer from the cache, and `whenIdle` says they may be partial.
   */
  scanInBackground(scan: Promise<unknown>): void {
    this.background = true;
    this.settle(scan);
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

  /** A watcher keeps the index in step (so a reader may wait for it rather than walk) */
  get watched(): boolean {
    return this.watcher !== undefined;
  }

  /** Re-reads what changed on disk; saves the cache when enough did (see saveIfStale). */
  refresh(): Promise<RefreshStats> {
    return this.queue.exclusive(() => this.refreshNow());
  }

  /** refresh(), for a caller already on the queue */
  async refreshNow(onProgress?: RefreshProgress): Promise<RefreshStats> {
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

  /** Re-reads just these vault-relative paths (added, changed or deleted); does not save the cache. */
  refreshPaths(paths: Iterable<string>): Promise<RefreshStats> {
    // One string is iterable too, letter by letter: refused, as is any path that is no string.
    const list = typeof paths === 'string' || !isIterable(paths) ? undefined : [...paths];
    if (!list?.every((path) => typeof path === 'string'))
      return Promise.reject(refused('refreshPaths paths', 'an iterable of vault paths', paths));
    return this.queue.exclusive(() => this.refreshPathsNow(list));
  }

  /** refreshPaths(), for a caller already on the queue (a write indexing what it wrote) */
  refreshPathsNow(paths: Iterable<string>): Promise<RefreshStats> {
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

  /** See Vault.onIndexChange */
  onIndexChange(listener: (paths: string[]) => void): () => void {
    if (typeof listener !== 'function') throw refused('the listener', 'a function', listener);
    this.indexListeners.add(listener);
    return () => this.indexListeners.delete(listener);
  }

  /** Files the saved cache does not know about yet (the next open re-reads them) */
  get unsavedChanges(): number {
    return this.stale.size;
  }

  /** See Vault.save */
  save(): Promise<void> {
    return this.queue.exclusive(() => this.saveNow());
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

  /** See Vault.saveIfStale */
  saveIfStale(): Promise<void> {
    return this.queue.exclusive(() => this.saveIfStaleNow());
  }

  private async saveIfStaleNow(): Promise<void> {
    const stale = this.stale.size;
    // A text index rebuilt from the notes: the cache on disk is damaged, and every process that
    // opens it would rebuild it again.
    if (
      this.index.text.recovered ||
      (stale > 0 && stale >= Math.max(1, Math.floor(this.index.notes.size / 100)))
    )
      await this.saveNow();
  }

  /** See Vault.watch */
  async watch(options: WatchVaultOptions = {}): Promise<VaultWatcher> {
    expectOptions(options, 'watch options');
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
            .then(() => (this.watcher ? this.queue.exclusive(() => this.refreshNow()) : undefined)),
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
        exclusive: (fn) => this.queue.exclusive(fn),
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
    // What each path holds (a note or its saved slot), not the notes: nothing is decoded for it.
    const before = new Map(this.index.notes.entriesRaw());
    let seen: string[] = [];
    this.lastRefresh = await this.indexing(async (changed) => {
      const stats = await refreshIndex(this.root, this.index, changed, undefined, onFolder);
      seen = [...changed];
      return stats;
    });
    this.lastRefreshScope = 'walk';
    return { changes: this.changesSince(before, seen), touched: this.lastRefresh.touched > 0 };
  }

  /** Makes the change tracker, or notes why there is none (a folder that is no vault gets no barrier files). */
  startTracking(options: TrackOptions): void {
    const tracker = this.initialized
      ? trackChanges(this.root, this.config.followOutsideSymlinks, options)
      : `${this.root} is not a vault`;
    if (typeof tracker === 'string') this.untracked = tracker;
    else this.tracker = tracker;
  }

  /** See Vault.changeTracking */
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
    const before = new Map(paths.map((path) => [path, this.index.notes.entry(path)]));
    const stats = await this.refreshPathsNow(paths);
    return { changes: this.changesSince(before, paths), touched: stats.touched > 0 };
  }

  /** Which of `paths` appeared, changed or went since `before` (each path's index entry then). */
  private changesSince(before: Map<string, unknown>, paths: Iterable<string>): VaultChange[] {
    const changes: VaultChange[] = [];
    for (const path of paths) {
      const was = before.get(path);
      const now = this.index.notes.entry(path);
      // An unchanged note keeps its object or its saved slot (only its mtime is updated), so
      // identity tells an edit.
      const kind =
        was === undefined && now !== undefined
          ? 'added'
          : was !== undefined && now === undefined
            ? 'removed'
            : was !== now
              ? 'changed'
              : undefined;
      if (kind) changes.push({ path, kind });
    }
    return changes;
  }

  /** See Vault.whenIdle */
  async whenIdle(timeoutMs: number): Promise<boolean> {
    if (typeof timeoutMs !== 'number' || Number.isNaN(timeoutMs))
      throw refused('timeoutMs', 'a number of milliseconds', timeoutMs);
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

  /** Stops the watcher and the change tracker, then saves the cache on the queue when anything is unsaved. */
  async close(): Promise<void> {
    const watcher = this.watcher;
    this.watcher = undefined;
    if (watcher) await (await watcher).close();
    this.tracker?.close();
    this.tracker = undefined;
    await this.queue.exclusive(async () => {
      if (this.stale.size > 0 || this.index.text.recovered) await this.saveNow();
    });
    // The saved notes' files; a note read after this is read from the vault instead.
    this.index.close();
  }
}

function isIterable(value: unknown): value is Iterable<unknown> {
  return (
    typeof (value as { [Symbol.iterator]?: unknown } | null | undefined)?.[Symbol.iterator] === 'function'
  );
}
