import { isAbsolute, join, relative, sep } from 'node:path';
import { isIgnoredPath, isNotePath, readVault } from './read-vault.js';
import type { ChangeTracker, FolderHook } from './track-changes.js';

/** One change the index has taken in. */
export interface VaultChange {
  /** Vault-relative POSIX path */
  path: string;
  kind: 'added' | 'changed' | 'removed';
}

export interface WatchVaultOptions {
  /** Called once per applied change, after the index holds it */
  onChange?: (change: VaultChange) => void;
  /** Called when a refresh, a cache save or the file watcher fails; watching goes on (default: ignored) */
  onError?: (error: unknown) => void;
  /** How long events are gathered into one refresh after the last one arrived (default: 100 ms) */
  debounceMs?: number;
  /** Longest a batch waits while events keep arriving, so a long burst still shows up (default: 1000 ms) */
  maxWaitMs?: number;
  /** Save the index cache after this long without changes (default: 2000 ms) */
  quietMs?: number;
  /** A written file counts as finished once its size has held for this long (chokidar only; default: 150 ms) */
  stableMs?: number;
  /**
   * Where the vault's folders can be tracked (Linux, a local file system, symlinks not followed),
   * watch one inotify watch per folder; `false` watches every file with chokidar instead, as on
   * other platforms (default: true).
   */
  tracked?: boolean;
}

export interface VaultWatcher {
  /** Resolves once the initial scan of the folders is done and changes are being seen */
  ready: Promise<void>;
  /**
   * Resolves `true` when no refresh is running or queued, or when the ones there end within
   * `timeoutMs`; `false` when they are still running then (the index is partly updated).
   */
  whenIdle(timeoutMs: number): Promise<boolean>;
  /** Stops watching, applies the events already seen, and saves the cache when anything changed */
  close(): Promise<void>;
}

/**
 * What a watcher keeps in step: an index behind one serial queue. The Vault implements it; the
 * watcher knows nothing else of it, so vault/ needs nothing from the layers above.
 */
export interface WatchTarget {
  readonly root: string;
  /** Watch and list through symlinks (config `followOutsideSymlinks`; default false) */
  readonly followSymlinks?: boolean;
  /** Runs `fn` with no write, refresh or save of the target interleaved */
  exclusive<T>(fn: () => Promise<T>): Promise<T>;
  /** Re-reads these paths; says which notes appeared, changed or went, and whether any file was touched */
  apply(paths: string[]): Promise<{ changes: VaultChange[]; touched: boolean }>;
  /** Walks the whole vault (a tracker's walk: `onFolder` for each folder) and says what changed */
  walk(onFolder: FolderHook): Promise<{ changes: VaultChange[]; touched: boolean }>;
  /** Indexed note paths below a folder (a folder moved away takes them all) */
  pathsBelow(dir: string): string[];
  /** Saves the cache: all that is stale when `final`, else only when enough is; true when some stays unsaved */
  save(final: boolean): Promise<boolean>;
}

const noop = () => undefined;

function toVaultPath(root: string, path: string): string {
  const rel = isAbsolute(path) ? relative(root, path) : path;
  return rel.split(sep).join('/').normalize('NFC');
}

/**
 * chokidar lists a new folder before it starts watching it, so a file written in between is
 * never reported (a `git checkout` that creates folders does exactly that). Listing the folder
 * again once the batch is due catches those.
 */
async function notesBelow(vault: WatchTarget, dirs: string[]): Promise<string[]> {
  const found = await Promise.all(
    dirs.map((dir) =>
      readVault(join(vault.root, dir), { followSymlinks: vault.followSymlinks }).then(
        (files) => files.map((file) => `${dir}/${file.path}`),
        () => [],
      ),
    ),
  );
  return found.flat();
}

/** What changed since the last batch, read into the index: the tracker says what, else the batch's paths. */
async function readChanges(
  vault: WatchTarget,
  tracker: ChangeTracker | undefined,
  paths: string[],
  dirs: string[],
): Promise<{ changes: VaultChange[]; touched: boolean }> {
  if (!tracker) return vault.apply([...new Set([...paths, ...(await notesBelow(vault, dirs))])]);
  const taken = await tracker.take((dir) => vault.pathsBelow(dir));
  return 'paths' in taken ? vault.apply(taken.paths) : vault.walk(taken.walk);
}

/** Where changes are seen: the tracker's watches or chokidar's. */
interface ChangeSource {
  /** Resolves once changes are being seen */
  ready: Promise<void>;
  /** Stops seeing changes */
  stop: () => Promise<void>;
}

/** What a change source tells the watcher's batch. */
interface BatchInput {
  /** True once the watcher was closed: later events are dropped */
  closed: () => boolean;
  /** A note path to re-read */
  note: (path: string) => void;
  /** A new folder to list once the batch is due */
  folder: (path: string) => void;
  /** The tracker has something for the next take */
  signal: () => void;
  onError: (error: unknown) => void;
}

/**
 * The tracker's watches (Linux: one inotify watch per folder). `firstTake` walks the vault when
 * the tracker has no watches yet (and makes them), or reads what changed since the vault's own
 * walk made them.
 */
function trackerSource(
  tracker: ChangeTracker,
  batch: BatchInput,
  firstTake: () => Promise<void>,
): ChangeSource {
  let told = false;
  tracker.onPending(() => {
    if (batch.closed()) return;
    batch.signal();
    if (tracker.disabled !== undefined && !told) {
      told = true;
      batch.onError(
        new Error(`changes are no longer watched: ${tracker.disabled}; a refresh walks the vault`),
      );
    }
  });
  // Like chokidar's, the watches keep the process alive while the watcher runs (`mem watch`).
  tracker.keepAlive(true);
  return {
    ready: firstTake(),
    stop: async () => {
      tracker.onPending(noop);
      tracker.keepAlive(false);
    },
  };
}

/** chokidar, watching every file: a rename arrives as unlink + add. */
async function chokidarSource(
  vault: WatchTarget,
  stableMs: number | undefined,
  batch: BatchInput,
): Promise<ChangeSource> {
  // Loaded here, not at the top: a command that only reads never starts a watcher.
  const { watch } = await import('chokidar');
  const watcher = watch(vault.root, {
    ignoreInitial: true,
    followSymlinks: vault.followSymlinks ?? false,
    // Editors write in several steps; wait until the size holds before reading.
    awaitWriteFinish: { stabilityThreshold: stableMs ?? 150, pollInterval: 50 },
    ignored: (path, stats) => {
      const rel = toVaultPath(vault.root, path);
      if (rel === '' || rel.startsWith('..')) return false;
      if (isIgnoredPath(rel)) return true;
      return Boolean(stats?.isFile()) && !isNotePath(rel);
    },
  });
  watcher.on('all', (event, path) => {
    if (batch.closed()) return;
    const rel = toVaultPath(vault.root, path);
    if (event === 'add' || event === 'change' || event === 'unlink') {
      if (isNotePath(rel)) batch.note(rel);
    } else if (event === 'addDir') {
      if (rel !== '' && !isIgnoredPath(rel)) batch.folder(rel);
    } else if (event === 'unlinkDir') {
      // A folder moved away: every note held below it is gone, whatever events follow.
      for (const known of vault.pathsBelow(rel)) batch.note(known);
    }
  });
  watcher.on('error', batch.onError);
  return {
    ready: new Promise<void>((resolve) => watcher.once('ready', () => resolve())),
    stop: () => watcher.close(),
  };
}

/** True when `running` (if any) settles within `timeoutMs`, false when it is still running then. */
async function settlesWithin(running: Promise<void> | undefined, timeoutMs: number): Promise<boolean> {
  if (!running) return true;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  const idle = await Promise.race([running.then(() => true), late]);
  clearTimeout(timer);
  return idle;
}

/**
 * Keeps `vault`'s index in step with its folder. Events are gathered for a short window and
 * applied in one step, so a `git checkout` of hundreds of files is a few refreshes rather than
 * hundreds. With a `tracker` (Linux: one inotify watch per folder) the tracker says what changed;
 * without one, chokidar watches every file, and a rename arrives as unlink + add.
 */
export async function watchVault(
  vault: WatchTarget,
  options: WatchVaultOptions = {},
  tracker?: ChangeTracker,
): Promise<VaultWatcher> {
  const debounceMs = options.debounceMs ?? 100;
  const maxWaitMs = options.maxWaitMs ?? 1000;
  const quietMs = options.quietMs ?? 2000;
  const onError = options.onError ?? noop;
  const pending = new Set<string>();
  const newDirs = new Set<string>();
  /** The tracker has something for the next take */
  let signalled = false;
  let batchStarted = 0;
  let flushTimer: NodeJS.Timeout | undefined;
  let saveTimer: NodeJS.Timeout | undefined;
  let dirty = false;
  let closed = false;
  let refreshing: Promise<void> | undefined;
  // The target's one queue: refreshes, saves and writes never run beside each other.
  const exclusive = <T>(fn: () => Promise<T>): Promise<T> => vault.exclusive(fn);
  const waiting = () => pending.size > 0 || newDirs.size > 0 || signalled;

  async function apply(paths: string[], dirs: string[]): Promise<void> {
    const { changes, touched } = await readChanges(vault, tracker, paths, dirs);
    // A file saved unchanged moved its mtime: the cache should learn it, or the next start re-reads it.
    if (touched || changes.length > 0) dirty = true;
    for (const change of changes) options.onChange?.(change);
    if (dirty && !closed) scheduleSave();
  }

  function run(task: Promise<void>): Promise<void> {
    refreshing = task;
    void task.then(() => {
      if (refreshing === task) refreshing = undefined;
    });
    return task;
  }

  function flush(): void {
    clearTimeout(flushTimer);
    flushTimer = undefined;
    if (!waiting()) return;
    const paths = [...pending];
    const dirs = [...newDirs];
    pending.clear();
    newDirs.clear();
    signalled = false;
    void run(exclusive(() => apply(paths, dirs)).catch(onError));
  }

  function enqueue(path?: string, set = pending): void {
    if (!waiting()) batchStarted = Date.now();
    if (path === undefined) signalled = true;
    else set.add(path);
    clearTimeout(flushTimer);
    const left = maxWaitMs - (Date.now() - batchStarted);
    flushTimer = setTimeout(flush, Math.max(0, Math.min(debounceMs, left)));
  }

  /**
   * After a quiet period the cache is saved only once enough is stale (saving blocks the process
   * for a moment on a large vault, and a chat turn must not wait); on close, whatever is stale.
   */
  function save(final = false): Promise<void> {
    clearTimeout(saveTimer);
    saveTimer = undefined;
    return exclusive(async () => {
      if (!dirty) return;
      dirty = await vault.save(final);
    }).catch(onError);
  }

  function scheduleSave(): void {
    clearTimeout(saveTimer);
    saveTimer = setTimeout(() => void save(), quietMs);
  }

  const batch: BatchInput = {
    closed: () => closed,
    note: (path) => enqueue(path),
    folder: (path) => enqueue(path, newDirs),
    signal: () => enqueue(),
    onError,
  };
  const source = tracker
    ? trackerSource(tracker, batch, () => run(exclusive(() => apply([], [])).catch(onError)))
    : await chokidarSource(vault, options.stableMs, batch);

  return {
    ready: source.ready,
    whenIdle: (timeoutMs) => settlesWithin(refreshing, timeoutMs),
    async close() {
      if (closed) return;
      closed = true;
      await source.stop();
      flush();
      await save(true);
    },
  };
}
