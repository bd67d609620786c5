// Which notes changed since the last look, without looking at every note: one inotify watch per
// folder (Linux, local file systems), and a barrier file that proves every change made before a
// read has been heard before the read answers. Where that proof cannot be had, it says so, and the
// caller walks the whole vault as before.
import {
  type Dirent,
  type FSWatcher,
  readdirSync,
  readFileSync,
  statfsSync,
  statSync,
  unlinkSync,
  watch,
  writeFileSync,
} from 'node:fs';
import { resolve, sep } from 'node:path';
import { CACHE_DIR, ensureCacheDir } from '../core/cache-dir.js';
import { isIgnoredName } from '../core/ignored-path.js';
import { statOrUndefined } from '../core/regular-file.js';

/** What a caller does next: re-read these vault paths, or walk the whole vault (calling `onFolder` for each folder) */
export type TrackedChanges = { paths: string[] } | { walk: FolderHook };

/** Called by a walk for each folder, before the folder is listed */
export type FolderHook = (abs: string, rel: string) => void;

export interface ChangeTracker {
  /**
   * Every change made to the vault before this call is in the answer: the note paths to re-read
   * (added, changed or removed; a folder that came or went brings every note below it), or, when
   * that cannot be vouched for (events were lost, a watch failed), a walk to do instead, which
   * also mends the watches. `pathsBelow` names the indexed notes below a folder.
   */
  take(pathsBelow: (dir: string) => string[]): Promise<TrackedChanges>;
  /** A walk of the whole vault is starting: its folders get watches, and what was pending is covered by it */
  walking(): FolderHook;
  /** Why changes are not tracked, once tracking gave up for good; undefined while it works */
  readonly disabled: string | undefined;
  /**
   * Called whenever there is something for the next `take`: a change heard, or a reason to walk
   * (a watcher schedules its refresh on it). One listener; a second call replaces the first.
   */
  onPending(listener: () => void): void;
  /** Whether the watches keep the process alive, as a watcher's should (default: false) */
  keepAlive(on: boolean): void;
  close(): void;
}

export interface TrackOptions {
  /**
   * Events heard in one turn of the event loop from which the kernel's queue is taken to have
   * overflowed (its events then are lost, and Node does not say so): half the queue's length,
   * `/proc/sys/fs/inotify/max_queued_events`, by default.
   */
  overflowAt?: number;
  /** How long a barrier may take before the tracker stops trusting its watches (default: 2000 ms) */
  barrierMs?: number;
}

/**
 * File systems whose changes the kernel itself reports to inotify. On a network or FUSE file
 * system another machine's writes are never heard, so those are not tracked: every read walks.
 */
const LOCAL_FILE_SYSTEMS = new Set([
  0xef53, // ext2, ext3, ext4
  0x58465342, // xfs
  0x9123683e, // btrfs
  0x01021994, // tmpfs
  0x794c7630, // overlayfs (containers)
  0x2fc12fc1, // zfs
  0xf2f52010, // f2fs
]);

/**
 * A tracker for `root`, or why there is none: only on Linux (inotify is the one backend whose
 * queue keeps the order of writes, which the barrier needs), on a local file system, and not when
 * the vault follows symlinks (a linked folder's changes reach no watch of the vault's).
 */
export function trackChanges(
  root: string,
  followSymlinks: boolean,
  options: TrackOptions = {},
): ChangeTracker | string {
  if (process.platform !== 'linux') return `changes are tracked on Linux only (this is ${process.platform})`;
  if (followSymlinks) return 'the vault follows symlinks (followOutsideSymlinks)';
  const local = localFileSystem(root);
  if (local !== true) return local;
  const top = resolve(root);
  return new InotifyTracker(top, statSync(top).dev, options);
}

function localFileSystem(path: string): true | string {
  try {
    const type = statfsSync(path).type;
    return LOCAL_FILE_SYSTEMS.has(type)
      ? true
      : `${path} is on a file system (0x${type.toString(16)}) whose changes may not be reported`;
  } catch (error) {
    return `the file system of ${path} could not be read (${(error as Error).message})`;
  }
}

function queueLength(): number {
  try {
    const value = Number.parseInt(readFileSync('/proc/sys/fs/inotify/max_queued_events', 'utf8'), 10);
    return Number.isFinite(value) && value > 0 ? value : 16384;
  } catch {
    return 16384;
  }
}

interface Watched {
  watcher: FSWatcher;
  ino: number;
}

class InotifyTracker implements ChangeTracker {
  private readonly folders = new Map<string, Watched>();
  /** Names an event was heard for, vault-relative: a file or a folder, changed or created or gone */
  private changed = new Set<string>();
  /** Of them, names whose entry came, went or was replaced (a folder among them is read again) */
  private renamed = new Set<string>();
  private trusted = false;
  private why: string | undefined;
  private burst = 0;
  private burstReset = false;
  private readonly overflowAt: number;
  private readonly barrierMs: number;
  private cacheWatch: FSWatcher | undefined;
  private barriers = 0;
  private readonly waiting = new Map<string, () => void>();

  constructor(
    private readonly root: string,
    private readonly dev: number,
    options: TrackOptions,
  ) {
    this.overflowAt = options.overflowAt ?? Math.floor(queueLength() / 2);
    this.barrierMs = options.barrierMs ?? 2000;
  }

  private pending: () => void = () => undefined;
  private persistent = false;

  get disabled(): string | undefined {
    return this.why;
  }

  onPending(listener: () => void): void {
    this.pending = listener;
  }

  keepAlive(on: boolean): void {
    this.persistent = on;
    for (const { watcher } of this.folders.values()) {
      if (on) watcher.ref();
      else watcher.unref();
    }
  }

  walking(): FolderHook {
    // Every watch is made again as the walk reaches its folder: one may have died unheard (its
    // folder removed while events were lost), and a folder made anew may have the old inode.
    this.unwatchBelow('');
    this.changed = new Set();
    this.renamed = new Set();
    this.trusted = this.why === undefined;
    return (abs, rel) => {
      if (this.why === undefined) this.watchFolder(abs, rel.normalize('NFC'));
    };
  }

  async take(pathsBelow: (dir: string) => string[]): Promise<TrackedChanges> {
    if (this.trusted) await this.barrier();
    if (!this.trusted || this.why !== undefined) return { walk: this.walking() };
    const changed = this.changed;
    const renamed = this.renamed;
    this.changed = new Set();
    this.renamed = new Set();
    const paths = new Set<string>();
    for (const rel of changed) this.resolve(rel, renamed.has(rel), paths, pathsBelow);
    // A folder that could not be watched leaves changes unheard: the walk that follows mends it.
    if (!this.trusted || this.why !== undefined) return { walk: this.walking() };
    return { paths: [...paths] };
  }

  close(): void {
    for (const { watcher } of this.folders.values()) watcher.close();
    this.folders.clear();
    this.cacheWatch?.close();
    this.cacheWatch = undefined;
    for (const wake of this.waiting.values()) wake();
    this.waiting.clear();
    this.why ??= 'closed';
  }

  /** What one heard name means now: a note to re-read, a folder to watch and list, or one that went. */
  private resolve(
    raw: string,
    replaced: boolean,
    paths: Set<string>,
    pathsBelow: (dir: string) => string[],
  ): void {
    const abs = this.abs(raw);
    const rel = raw.normalize('NFC');
    const info = statOrUndefined(abs, true);
    const known = this.folders.get(rel);
    if (info?.isDirectory()) {
      if (known && known.ino === info.ino && !replaced) return;
      // A folder that came, or was replaced: what was indexed below it goes, what is there now comes.
      if (known) {
        this.unwatchBelow(rel);
        for (const path of pathsBelow(rel)) paths.add(path);
      }
      this.scanFolder(abs, rel, paths);
      return;
    }
    // A folder that went takes what was indexed below it. Every folder is watched, so one that was
    // not holds no indexed note: a note's path is not looked for below (that costs the whole index).
    if (known) {
      this.unwatchBelow(rel);
      for (const path of pathsBelow(rel)) paths.add(path);
    }
    if (rel.toLowerCase().endsWith('.md')) paths.add(rel);
  }

  /** Watches a new folder and everything below it, then lists it: a note written meanwhile is in one or the other. */
  private scanFolder(abs: string, rel: string, paths: Set<string>): void {
    const folders = [{ abs, rel }];
    for (let folder = folders.pop(); folder !== undefined; folder = folders.pop()) {
      if (!this.watchFolder(folder.abs, folder.rel)) return;
      let entries: Dirent[];
      try {
        entries = readdirSync(folder.abs, { withFileTypes: true });
      } catch {
        continue; // gone again: its parent's event says so
      }
      for (const entry of entries) {
        const name = entry.name.normalize('NFC');
        if (isIgnoredName(name)) continue;
        const path = `${folder.rel}/${name}`;
        if (entry.isDirectory()) folders.push({ abs: `${folder.abs}${sep}${entry.name}`, rel: path });
        else if (entry.isFile() && name.toLowerCase().endsWith('.md')) paths.add(path);
      }
    }
  }

  /** One watch per folder; false (and the tracker distrusted) when the folder cannot be watched. */
  private watchFolder(abs: string, rel: string): boolean {
    const info = statOrUndefined(abs);
    if (!info) return true; // gone: nothing below it to hear
    const known = this.folders.get(rel);
    if (known && known.ino === info.ino) return true;
    if (known) this.unwatchBelow(rel);
    if (info.dev !== this.dev) {
      // A file system mounted inside the vault: tracked only when it, too, reports its changes.
      const local = localFileSystem(abs);
      if (local !== true) return this.disable(local);
    }
    try {
      // Linux only: the separator is `/`, so the path below the root is already a vault path.
      const raw = abs === this.root ? '' : abs.slice(this.root.length + 1);
      const watcher = watch(abs, { persistent: this.persistent }, (event, name) =>
        this.heard(raw, event, name),
      );
      watcher.on('error', () => this.distrust());
      this.folders.set(rel, { watcher, ino: info.ino });
      return true;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') return true;
      // ENOSPC: the user's inotify watches are used up (fs.inotify.max_user_watches).
      return this.disable(`a folder could not be watched (${(error as Error).message})`);
    }
  }

  private unwatchBelow(rel: string): void {
    for (const [path, { watcher }] of this.folders) {
      if (path === rel || rel === '' || path.startsWith(`${rel}/`)) {
        watcher.close();
        this.folders.delete(path);
      }
    }
  }

  private heard(raw: string, event: string, name: string | Buffer | null): void {
    this.count();
    if (typeof name !== 'string' || name === '') {
      this.distrust();
      return;
    }
    // A watched folder's own removal comes named by the folder's name, as a child of that name
    // would: looked at, such a child is not there, and the folder's parent hears the removal.
    if (isIgnoredName(name.normalize('NFC'))) return;
    const rel = raw === '' ? name : `${raw}/${name}`;
    this.changed.add(rel);
    if (event === 'rename') this.renamed.add(rel);
    this.pending();
  }

  /**
   * Counts events per turn of the event loop: libuv drains the whole inotify queue in one turn and
   * drops the kernel's overflow event without a word, so a turn that heard about as many events as
   * the queue holds may have lost some.
   */
  private count(): void {
    if (++this.burst >= this.overflowAt) this.distrust();
    if (!this.burstReset) {
      this.burstReset = true;
      setImmediate(() => {
        this.burst = 0;
        this.burstReset = false;
      });
    }
  }

  private distrust(): void {
    if (!this.trusted) return;
    this.trusted = false;
    this.pending();
  }

  private disable(reason: string): false {
    if (this.why === undefined) {
      this.why = reason;
      this.pending();
    }
    this.trusted = false;
    for (const { watcher } of this.folders.values()) watcher.close();
    this.folders.clear();
    return false;
  }

  /**
   * Creates a file in `.mem/` and waits for its event. The kernel queues a watch's events in the
   * order the writes happened, and one queue holds every watch of this process: once the barrier
   * is heard, so is every write that ended before it was made.
   */
  private async barrier(): Promise<void> {
    const dir = `${this.root}${sep}${CACHE_DIR}`;
    if (!this.cacheWatch) {
      try {
        await ensureCacheDir(this.root);
        this.cacheWatch = watch(dir, { persistent: false }, (_event, name) => {
          this.count();
          if (typeof name === 'string') this.waiting.get(name)?.();
        });
        this.cacheWatch.on('error', () => this.distrust());
      } catch {
        this.distrust();
        return;
      }
    }
    const name = `.barrier-${process.pid}-${++this.barriers}`;
    const path = `${dir}${sep}${name}`;
    let timer: NodeJS.Timeout | undefined;
    const heard = await new Promise<boolean>((resolve) => {
      this.waiting.set(name, () => resolve(true));
      timer = setTimeout(() => resolve(false), this.barrierMs);
      try {
        writeFileSync(path, '', { flag: 'wx' });
      } catch {
        resolve(false);
      }
    });
    clearTimeout(timer);
    this.waiting.delete(name);
    try {
      unlinkSync(path);
    } catch {
      // never made, or already gone
    }
    if (!heard) {
      this.distrust();
      // `.mem/` may have been removed (its watch died with it): the next barrier makes both again.
      this.cacheWatch?.close();
      this.cacheWatch = undefined;
    }
  }

  private abs(rel: string): string {
    return rel === '' ? this.root : `${this.root}${sep}${rel.split('/').join(sep)}`;
  }
}
