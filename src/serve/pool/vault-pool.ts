import { mkdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import {
  CONFIG_FILE,
  initVault,
  openVault,
  type Vault,
  type WatchVaultOptions,
  type WriterHealth,
} from '../../internal.js';
import { leastRecentlyUsed, reflectsSoon } from './vault-cap.js';
import { idsOfKey, inBatches, releaseAll, VaultAway, type VaultMoves } from './vault-moves.js';
import {
  fetchVault,
  hasCommits,
  pushFirst,
  type RemoteOptions,
  remoteHasHistory,
  vaultsWithWork,
} from './vault-remote.js';
import {
  parseVaultId,
  type SyncHealth,
  sumHealth,
  type UseOptions,
  type VaultIds,
  type VaultSource,
} from './vault-source.js';
import { checkSettings, readTemplate, type VaultSettings, withSettings } from './vault-template.js';

export { defaultMaxVaults, MIB_PER_VAULT } from './vault-cap.js';

export interface VaultPoolOptions {
  /** The folder holding `<agent_id>/<user_id>/` vaults */
  dir: string;
  /** Unload a vault after this long without requests (default: 10 minutes) */
  idleMs?: number;
  /**
   * Most vaults loaded at once: a vault that must load when this many are loaded first unloads the
   * one used least recently among those idle (no request in flight, no reflection due), as an
   * idle unload does (committed and, with a remote, pushed). When every loaded vault is busy the
   * new one loads anyway, and the next load tries again. Default: no limit (`mem serve --vaults`
   * sets one from the memory it may use, see defaultMaxVaults).
   */
  maxVaults?: number;
  /** Options for each vault's watcher */
  watch?: WatchVaultOptions;
  /**
   * A vault new users' vaults start from: its `mem.config.json` and `persona/` notes (regular
   * files only). Read at each creation, so an edit applies to the next new user.
   */
  template?: string;
  /** Requests that name no user_id or agent_id go to `default/default` instead of being refused */
  defaultIds?: boolean;
  /** Receives one-line notices (vault created, loaded, unloaded) */
  onNotice?: (message: string) => void;
  /**
   * Vaults live in git remotes: a vault not on disk is cloned from its own repository (created
   * there for a new user), synced before it serves and pushed when released (`--remote`)
   */
  remote?: RemoteOptions;
}

/** Sync settings a vault created with `--remote` starts with: push after each group commit. */
const REMOTE_SYNC = { remote: 'origin', afterCommit: true, intervalSeconds: 60 };

interface Entry {
  vault: Vault;
  active: number;
  lastUsed: number;
  /** The pool's count of uses when it was last used: the order makeRoom unloads in (two uses in one millisecond keep theirs) */
  useTurn: number;
}

const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  );

/**
 * One vault per agent and user under `dir`, each with its own index and watcher, opened on first
 * use and unloaded when idle. A request only ever reaches the vault its ids name.
 */
export class VaultPool implements VaultSource {
  readonly mode = 'per-user';
  readonly root: string;
  readonly defaultIds: boolean;
  readonly moves?: VaultMoves;
  private readonly dir: string;
  private readonly idleMs: number;
  private readonly maxVaults: number;
  private readonly options: VaultPoolOptions;
  private readonly entries = new Map<string, Promise<Entry>>();
  /** Each entry once loaded (health reads these without waiting for a vault still loading) */
  private readonly ready = new WeakMap<Promise<Entry>, Entry>();
  private readonly unloading = new Map<string, Promise<void>>();
  /** Uses so far (see Entry.useTurn) */
  private turns = 0;
  /** Requests per vault between finding its entry and using it (see use()) */
  private readonly waiting = new Map<string, number>();
  private readonly releasing = new Map<string, Promise<unknown>>();
  private readonly away = new Set<string>();
  private draining = false;
  /** Set by close(): from then on no vault is loaded, and close() runs until none is left */
  private closing: Promise<void> | undefined;
  /** recover() running, which close() waits for */
  private recovering: Promise<unknown> | undefined;
  private readonly sweeper: NodeJS.Timeout;

  constructor(options: VaultPoolOptions) {
    this.options = options;
    this.dir = options.dir;
    this.root = options.dir;
    this.defaultIds = options.defaultIds === true;
    this.idleMs = options.idleMs ?? 10 * 60_000;
    this.maxVaults = options.maxVaults ?? Number.POSITIVE_INFINITY;
    this.sweeper = setInterval(() => void this.sweep(), Math.max(10, Math.min(this.idleMs / 2, 60_000)));
    this.sweeper.unref();
    if (options.remote) this.moves = this.makeMoves();
  }

  /** Most vaults loaded at once (see VaultPoolOptions.maxVaults) */
  get limit(): number {
    return this.maxVaults;
  }

  /** Keys (`agent/user`) of the vaults loaded now */
  loaded(): string[] {
    return [...this.entries.keys()].sort();
  }

  async use<T>(
    ids: VaultIds,
    create: boolean,
    fn: (vault: Vault | undefined) => Promise<T> | T,
    how: UseOptions = {},
  ): Promise<T> {
    const agentId = parseVaultId(ids.agentId, 'agent_id');
    const userId = parseVaultId(ids.userId, 'user_id');
    const key = `${agentId}/${userId}`;
    // A request that came while the vault was being released waits for its push: the next
    // server then clones what this one wrote last.
    const releasing = this.releasing.get(key);
    if (releasing) await releasing.catch(() => undefined);
    if (this.closing || this.away.has(key) || (this.draining && !this.entries.has(key))) {
      if (how.local) return fn(undefined);
      throw this.awayError(key);
    }
    await this.unloading.get(key);
    let loading = this.entries.get(key);
    if (!loading) {
      const root = join(this.dir, agentId, userId);
      if (!(await exists(join(root, CONFIG_FILE)))) {
        if (how.local || (!create && !this.options.remote)) return fn(undefined);
        // A read of a vault not here: the user's vault may be in its remote (it moved here). A new
        // user's (an empty remote) answers at once: nothing is cloned for a read of nothing.
        how.onLoad?.();
        if (!create && !(await this.inRemote(root, agentId, userId))) return fn(undefined);
      }
      // Checked again: another request may have started loading it, or the pool begun to close,
      // while we looked (a vault loaded after the close began was never closed: issue 35).
      if (this.closing) throw this.awayError(key);
      loading = this.entries.get(key) ?? this.load(key, root, ids.settings, agentId, userId);
    }
    // Counted from here until it is active: a vault a request waits for is not the one unloaded
    // to make room for another (makeRoom), nor swept as idle.
    this.waiting.set(key, (this.waiting.get(key) ?? 0) + 1);
    let entry: Entry;
    try {
      if (!this.ready.has(loading)) how.onLoad?.();
      entry = await loading;
      // Released or closing while it loaded: nothing may reach a vault once its release has begun.
      if (this.closing || this.away.has(key)) throw this.awayError(key);
      // Also when this request created it: another one may have created it first with other settings.
      checkSettings(entry.vault, ids.settings);
      entry.active++;
    } finally {
      const left = (this.waiting.get(key) ?? 1) - 1;
      if (left > 0) this.waiting.set(key, left);
      else this.waiting.delete(key);
    }
    // The index stays readable until the request ends, also when the pool unloads the vault meanwhile.
    let release: () => void = () => undefined;
    try {
      release = entry.vault.holdIndex();
      return await fn(entry.vault);
    } finally {
      release();
      entry.active--;
      entry.lastUsed = Date.now();
      entry.useTurn = ++this.turns;
    }
  }

  /** The 503 of a request for a vault this pool does not serve now (moved, draining, or stopping). */
  private awayError(key: string): VaultAway {
    return new VaultAway(key, this.closing ? 'stopping' : this.draining ? 'draining' : 'moved');
  }

  private readonly fetching = new Map<string, Promise<'cloned' | 'empty' | 'present'>>();
  /** Copies cloned or created, not loaded yet: the remote's branch, no journal, nothing to catch up */
  private readonly fresh = new Set<string>();

  /** Whether the vault of a read is here with history, or in its remote (then it is cloned). */
  private async inRemote(root: string, agentId: string, userId: string): Promise<boolean> {
    if (this.fetching.has(root) || (await hasCommits(root))) return true;
    return remoteHasHistory(this.options.remote!, agentId, userId);
  }

  /** One clone at a time per vault: two requests of a new user's first turn arrive together. */
  private fetch(root: string, agentId: string, userId: string) {
    const remote = this.options.remote!;
    let running = this.fetching.get(root);
    if (!running) {
      running = fetchVault(root, remote, agentId, userId).finally(() => this.fetching.delete(root));
      void running.then((how) => how === 'cloned' && this.fresh.add(root)).catch(() => undefined);
      this.fetching.set(root, running);
    }
    return running;
  }

  /** A new vault: from the template, with the request's settings (and, with a remote, syncing on). */
  private async seed(settings: VaultSettings | undefined) {
    const template = this.options.template;
    const seed = withSettings(
      template ? await readTemplate(template, this.options.onNotice) : { files: new Map() },
      settings,
    );
    // The template's sync settings on top of these, key by key: a template that sets only
    // `sync.ackAfterPush` keeps the push after each group commit and every 60 s.
    if (this.options.remote)
      seed.config = {
        ...(seed.config ?? {}),
        sync: { ...REMOTE_SYNC, ...((seed.config?.['sync'] as object | undefined) ?? {}) },
      };
    return seed;
  }

  /** Makes the vault's working copy at `root`: cloned, or created (and pushed) for a new user. */
  private async prepare(key: string, root: string, settings: VaultSettings | undefined, ids: string[]) {
    const [agentId, userId] = ids as [string, string];
    const how = this.options.remote ? await this.fetch(root, agentId, userId) : 'empty';
    if (how === 'cloned') this.options.onNotice?.(`mem: cloned vault ${key} from its remote`);
    if (how !== 'empty' || (await exists(join(root, CONFIG_FILE)))) return;
    const seed = await this.seed(settings);
    await mkdir(root, { recursive: true });
    await initVault(root, { git: true, config: seed.config, files: seed.files });
    if (this.options.remote && !(await pushFirst(root))) {
      // Another server made this user's vault first; this copy holds nothing yet.
      await rm(root, { recursive: true, force: true });
      await this.fetch(root, agentId, userId);
      this.options.onNotice?.(`mem: cloned vault ${key}, which another server created meanwhile`);
      return;
    }
    if (this.options.remote) this.fresh.add(root);
    const template = this.options.template;
    this.options.onNotice?.(`mem: created vault ${key}${template ? ' from the template' : ''}`);
  }

  private load(
    key: string,
    root: string,
    settings: VaultSettings | undefined,
    agentId: string,
    userId: string,
  ): Promise<Entry> {
    this.makeRoom();
    const loading = (async () => {
      if (!(await exists(join(root, CONFIG_FILE))))
        await this.prepare(key, root, settings, [agentId, userId]);
      // A copy cloned or created just now is the remote's branch: nothing to catch up with.
      const fresh = this.fresh.delete(root);
      // Tracked from the first walk: the watcher's start then needs no second one.
      const vault = await openVault({
        path: root,
        onNotice: this.options.onNotice,
        track: true,
        embedSections: 'background',
      });
      await vault.watch(this.options.watch);
      // What a killed server accepted but did not write or commit is finished before any request.
      await vault.startExchanges({ onError: this.options.watch?.onError });
      if (this.options.remote && !fresh) await this.catchUp(key, vault);
      vault.startSync(this.options.watch?.onError);
      // Each user's vault reflects on its own schedule, one model call at a time (when reflect.auto asks).
      vault.startAutoReflect({ onError: this.options.watch?.onError });
      return { vault, active: 0, lastUsed: Date.now(), useTurn: ++this.turns };
    })();
    this.entries.set(key, loading);
    loading.then(
      (entry) => this.ready.set(loading, entry),
      () => this.entries.delete(key),
    );
    return loading;
  }

  /**
   * A copy that was here before (the vault moved away and back, or this server died and came
   * back) takes in what other servers pushed meanwhile, entry by entry, and pushes what it holds.
   * A remote that cannot be reached does not stop the vault: it serves, and the next sync merges.
   * The sync refreshes the index for the notes it changed; the open has just read the rest (a
   * second walk of the whole vault here made every returning vault's first request wait for it).
   */
  private async catchUp(key: string, vault: Vault): Promise<void> {
    try {
      await vault.sync({});
    } catch (error) {
      this.options.onNotice?.(
        `mem: vault ${key} serves without its remote's latest: ${(error as Error).message}`,
      );
    }
  }

  /**
   * Loads, in the background, the vaults a killed server left work in (adds in the journal,
   * commits not pushed): each replays its journal and syncs at once. They unload when idle. A
   * close that comes meanwhile waits for the rest, each unloaded (pushed) once recovered: what the
   * killed server accepted reaches the remote, where the servers that now serve its users read it.
   */
  recover(): Promise<number> {
    if (!this.options.remote || this.closing) return Promise.resolve(0);
    const recovering = this.recoverAll();
    this.recovering = recovering.catch(() => undefined);
    return recovering;
  }

  private async recoverAll(): Promise<number> {
    const found = await vaultsWithWork(this.dir);
    // A few at a time (an open, a journal replay and a sync each): one by one, a stop during the
    // recovery of many vaults outlasted a supervisor's kill timeout.
    await inBatches(found, ({ agentId, userId }) =>
      this.recoverOne(`${agentId}/${userId}`, agentId, userId).catch((error: unknown) =>
        this.options.watch?.onError?.(error),
      ),
    );
    return found.length;
  }

  /** One vault of recover(): loaded as a request would load it, also while the pool closes. */
  private async recoverOne(key: string, agentId: string, userId: string): Promise<void> {
    await this.releasing.get(key)?.catch(() => undefined);
    // Released (its release pushed it), or draining (it is for the server that takes it next).
    if (this.away.has(key) || (this.draining && !this.closing && !this.entries.has(key)))
      throw this.awayError(key);
    await this.unloading.get(key);
    const root = join(this.dir, agentId, userId);
    // As a read: a folder that is no vault yet is loaded only when its remote holds one.
    if (!(await exists(join(root, CONFIG_FILE))) && !(await this.inRemote(root, agentId, userId))) return;
    const loading = this.entries.get(key) ?? this.load(key, root, undefined, agentId, userId);
    const entry = await loading;
    if (this.closing && this.entries.get(key) === loading) await this.unload(key, entry, 'closing');
  }

  private makeMoves(): VaultMoves {
    const keyOf = (ids: VaultIds) =>
      `${parseVaultId(ids.agentId, 'agent_id')}/${parseVaultId(ids.userId, 'user_id')}`;
    return {
      release: (ids) => {
        const key = keyOf(ids);
        // Stopping: close() commits and pushes every vault; a release now would race it.
        if (this.closing) return Promise.reject(this.awayError(key));
        const running = this.releasing.get(key) ?? this.release(key);
        this.releasing.set(key, running);
        void running.finally(() => this.releasing.delete(key)).catch(() => undefined);
        return running as ReturnType<VaultMoves['release']>;
      },
      accept: (ids) => {
        const key = keyOf(ids);
        this.away.delete(key);
        return key;
      },
      drain: async () => {
        this.draining = true;
        return releaseAll(
          [...this.entries.keys()],
          (key) => this.moves!.release(idsOfKey(key)),
          (error) => this.options.watch?.onError?.(error),
        );
      },
      undrain: () => {
        this.draining = false;
      },
      state: () => ({ draining: this.draining, away: [...this.away].sort() }),
    };
  }

  /**
   * Stops serving one vault: new requests wait, then are told it is away; the requests in flight
   * end; what its journal holds is written and committed; the commits are pushed; the vault is
   * closed. A push that fails keeps the vault here, served as before.
   */
  private async release(key: string): Promise<{ released: string; wasLoaded: boolean; head?: string }> {
    this.away.add(key);
    const loading = this.entries.get(key);
    const entry = await loading?.catch(() => undefined);
    if (!entry) return { released: key, wasLoaded: false };
    while (entry.active > 0 && !this.closing) await new Promise((resolve) => setTimeout(resolve, 5));
    try {
      // The pool began to close meanwhile: its close commits and pushes this vault.
      if (this.closing) throw this.awayError(key);
      await (await entry.vault.startExchanges()).commitNow();
      const result = await entry.vault.sync({});
      if (this.entries.get(key) === loading) await this.unload(key, entry, 'released', false);
      return { released: key, wasLoaded: true, ...(result.head ? { head: result.head } : {}) };
    } catch (error) {
      this.away.delete(key);
      throw error;
    }
  }

  /**
   * Before a load with maxVaults loaded (or loading): unloads the idle vault used least recently.
   * Synchronous, so two loads starting together cannot both pick the same one or both skip.
   */
  private makeRoom(): void {
    if (this.entries.size < this.maxVaults) return;
    const now = Date.now();
    const idle: Array<{ key: string; entry: Entry; turn: number }> = [];
    for (const [key, loading] of this.entries) {
      const entry = this.ready.get(loading);
      if (!entry || entry.active > 0 || this.waiting.has(key) || reflectsSoon(entry.vault, now, this.idleMs))
        continue;
      idle.push({ key, entry, turn: entry.useTurn });
    }
    for (const { key, entry } of leastRecentlyUsed(idle, this.entries.size - this.maxVaults + 1))
      void this.unload(key, entry, 'least recently used');
  }

  private async sweep(): Promise<void> {
    const now = Date.now();
    for (const [key, loading] of this.entries) {
      const entry = await loading.catch(() => undefined);
      if (!entry || entry.active > 0 || this.waiting.has(key) || now - entry.lastUsed < this.idleMs) continue;
      if (reflectsSoon(entry.vault, now, this.idleMs)) continue;
      if (this.entries.get(key) !== loading) continue;
      void this.unload(key, entry);
    }
  }

  private unload(key: string, entry: Entry, why = 'idle', push = true): Promise<void> {
    this.entries.delete(key);
    // With a remote, what the last group commit made goes out before the vault closes.
    const pushed =
      this.options.remote && push
        ? entry.vault
            .startExchanges()
            .then((writer) => writer.commitNow())
            .then(() => entry.vault.sync({}))
            .catch((error: unknown) => this.options.watch?.onError?.(error))
        : Promise.resolve();
    const closing = pushed.then(() => entry.vault.close()).finally(() => this.unloading.delete(key));
    this.unloading.set(key, closing);
    this.options.onNotice?.(`mem: unloaded ${why} vault ${key}`);
    return closing;
  }

  /**
   * The vaults loaded now; one still loading (a clone, its catch-up sync) is not waited for: the
   * router's health check must not wait on a slow remote, or it takes a busy server for a dead one
   * and sends all its users to the others, which then clone their vaults too.
   */
  async health(): Promise<WriterHealth & { vaults: number; sync?: SyncHealth }> {
    return sumHealth([...this.entries.values()].flatMap((loading) => this.ready.get(loading)?.vault ?? []));
  }

  /**
   * Closes every vault, its last commits pushed (with a remote). From the call on no request loads
   * a vault (it is answered "stopping"); releases in flight and a recovery end first; a vault still
   * loading is closed once loaded. A vault that loaded after the close had looked was never
   * closed, and its watchers kept a stopped server running (issue 35).
   */
  close(): Promise<void> {
    this.closing ??= this.closeAll();
    return this.closing;
  }

  private async closeAll(): Promise<void> {
    clearInterval(this.sweeper);
    await Promise.allSettled(this.releasing.values());
    await this.recovering;
    while (this.entries.size > 0) {
      const entries = await Promise.all(
        [...this.entries].map(
          async ([key, loading]) => [key, loading, await loading.catch(() => undefined)] as const,
        ),
      );
      await Promise.all(
        entries.map(([key, loading, entry]) => {
          if (this.entries.get(key) !== loading) return undefined;
          if (entry) return this.unload(key, entry, 'closing');
          this.entries.delete(key);
          return undefined;
        }),
      );
    }
    await Promise.all(this.unloading.values());
  }
}
