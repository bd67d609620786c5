// Every write a Vault makes, each run alone on the write queue and indexed before it resolves (so a
// recall right after sees it), and the chat write path (the exchange writer) that commits off it.

import { join } from 'node:path';
import { ensureCacheDir } from '../core/cache-dir.js';
import type { MemConfig } from '../core/config/config.js';
import { expectOptions, expectString, isOptions, MemError, refused } from '../core/errors.js';
import type { DeriveContent } from '../git/commit-paths.js';
import { commitWrite } from '../git/commit-write.js';
import { subpathOf } from '../indexing/links/link-places.js';
import type { Graph } from '../indexing/links/saved-links.js';
import type { VaultIndex } from '../indexing/vault-index.js';
import { basenameOf, foldPath } from '../vault/links/resolve-link.js';
import { withVaultLock } from '../vault/lock.js';
import { type EditNoteOptions, editNote, type NoteEdit } from '../write/edit-note.js';
import { blockIdNumber } from '../write/episode-entry.js';
import { type ForgetOptions, type ForgetResult, forgetNote } from '../write/forget-note.js';
import { type ForgetStaleOptions, type ForgetStaleResult, forgetStale } from '../write/forget-stale.js';
import { type ImportOptions, type ImportResult, importHistory } from '../write/import/import-history.js';
import { type IngestOptions, type IngestResult, ingest } from '../write/import/ingest.js';
import { type MoveOptions, type MoveResult, moveNote } from '../write/move-note.js';
import {
  deriveDailyNote,
  holdsLines,
  type OnPlanned,
  type RememberInput,
  type RememberResult,
  remember,
  rememberAll,
} from '../write/remember.js';
// Sync (and the line diff its merges use) loads on the first sync, not with every command.
import type { SyncOptions, SyncResult } from '../write/sync/sync-vault.js';
import { type UndoOptions, type UndoResult, undoLastMemCommit } from '../write/undo-commit.js';
import {
  type CreateNoteInput,
  createNote,
  type NoteWriteResult,
  type UpdateNoteInput,
  updateNote,
} from '../write/update-note.js';
import {
  ExchangeWriter,
  type ExchangeWriterOptions,
  NotPushedError,
  type WriterHealth,
} from './exchange-writer.js';
import { findNoteToWrite, pathToWrite } from './find-note.js';
import type { LiveIndex } from './live-index.js';
import { SyncScheduler, type SyncState } from './sync-scheduler.js';
import { notAVault, type WriteQueue } from './write-queue.js';

export interface NoteWritesOptions {
  root: string;
  config: MemConfig;
  initialized: boolean;
  live: LiveIndex;
  queue: WriteQueue;
  /** Told how many episode entries each write added (background reflection counts them) */
  onEntries: (count: number) => void;
}

export class NoteWrites {
  private readonly root: string;
  private readonly config: MemConfig;
  private readonly initialized: boolean;
  private readonly live: LiveIndex;
  private readonly queue: WriteQueue;
  private readonly onEntries: (count: number) => void;
  /** Day notes by vault path: whether an append of this process made them (for the exchange commit) */
  private readonly made = new Map<string, boolean>();
  private writer: Promise<ExchangeWriter> | undefined;
  private syncer: SyncScheduler | undefined;
  /** Syncs for `sync.ackAfterPush` where no schedule runs (`startSync` was not called) */
  private pushOnly: SyncScheduler | undefined;

  constructor(options: NoteWritesOptions) {
    this.root = options.root;
    this.config = options.config;
    this.initialized = options.initialized;
    this.live = options.live;
    this.queue = options.queue;
    this.onEntries = options.onEntries;
  }

  async remember(input: RememberInput): Promise<RememberResult> {
    expectString(input.text, 'remember input "text"');
    const result = await this.queue.writing(async () => {
      const result = await remember(this.root, this.config, input, (path) =>
        highestCitedId(this.live.index, path),
      );
      await this.live.refreshPathsNow([result.path]);
      this.onEntries(1);
      return this.cited(result);
    });
    if (this.config.sync.ackAfterPush) await this.rememberPushed(result);
    return result;
  }

  /** `sync.ackAfterPush` for a remembered entry: answered once a push holds its commit. */
  private async rememberPushed(result: RememberResult): Promise<void> {
    if (!result.committed)
      throw new NotPushedError('written', [result.link], 1, result.reason ?? 'it was not committed');
    this.countCommit();
    await this.pushed().catch((error: unknown) => {
      throw new NotPushedError('committed', [result.link], 1, (error as Error).message ?? String(error));
    });
  }

  /** The exchange writer's write: one exchange's entries in one append per day, indexed at once. */
  private rememberEntries(inputs: RememberInput[], onPlanned?: OnPlanned): Promise<RememberResult[]> {
    return this.queue.writing(async () => {
      const results = await rememberAll(this.root, this.config, inputs, onPlanned, (path) =>
        highestCitedId(this.live.index, path),
      );
      await this.live.refreshPathsNow(new Set(results.map((r) => r.path)));
      this.onEntries(results.length);
      for (const r of results) this.made.set(r.path, (this.made.get(r.path) ?? false) || r.created);
      return results.map((r) => this.cited(r));
    });
  }

  /**
   * The entry's link as Obsidian resolves it: the day note's name alone when no other note has it,
   * else its path (`[[Journal/2026/12/02#^e1]]`: the name `02` is every month's second day).
   */
  private cited(result: RememberResult): RememberResult {
    return { ...result, link: `[[${this.live.index.linkText(result.path)}#^${result.blockId}]]` };
  }

  async createNote(input: CreateNoteInput & { now: Date }): Promise<NoteWriteResult> {
    expectString(input.path, 'createNote input "path"');
    return this.queue.writing(async () => {
      const result = await createNote(this.root, this.config, input);
      await this.live.refreshPathsNow([result.path]);
      return result;
    });
  }

  async updateNote(ref: string, input: UpdateNoteInput): Promise<NoteWriteResult> {
    expectString(ref, 'a note reference');
    expectOptions(input, 'updateNote input');
    return this.queue.writing(async () => {
      const path = findNoteToWrite(this.live.index, ref).path;
      const result = await updateNote(this.root, this.config, path, input);
      await this.live.refreshPathsNow([result.path]);
      return result;
    });
  }

  async editNote(ref: string, edit: NoteEdit, options: EditNoteOptions): Promise<NoteWriteResult> {
    expectString(ref, 'a note reference');
    expectOptions(edit, 'the edit');
    expectOptions(options, 'editNote options');
    return this.queue.writing(async () => {
      const path = findNoteToWrite(this.live.index, ref).path;
      const result = await editNote(this.root, this.config, path, edit, options);
      await this.live.refreshPathsNow([result.path]);
      return result;
    });
  }

  /**
   * Syncs on `sync.*`'s schedule and after group commits (`mem serve`); idempotent. Nothing
   * starts when neither is set.
   */
  startSync(onError?: (error: unknown) => void): void {
    if (onError !== undefined && typeof onError !== 'function')
      throw refused('onError', 'a function', onError);
    const settings = this.config.sync;
    if (this.syncer || (settings.intervalSeconds === 0 && !settings.afterCommit)) return;
    this.syncer = new SyncScheduler(settings, this.syncParts(onError));
  }

  private syncParts(onError?: (error: unknown) => void) {
    return {
      // Group commits wait while the sync moves HEAD; what the writer holds is committed first.
      sync: async (covered: () => void) =>
        (await this.startExchanges()).withCommitsHeld(() => {
          covered();
          return this.sync({});
        }),
      counts: async () =>
        (await import('../write/sync/sync-vault.js')).syncCounts(this.root, this.config.sync.remote),
      onError,
    };
  }

  /**
   * `sync.ackAfterPush`: resolves once a push holds every commit made so far (the schedule's
   * syncs, or syncs made for these waits alone where no schedule runs).
   */
  private pushed(): Promise<void> {
    if (!this.config.git.autoCommit)
      return Promise.reject(
        new MemError(
          'INVALID_CONFIG',
          'sync.ackAfterPush needs git.autoCommit: an add not committed is never pushed',
        ),
      );
    if (!this.syncer && !this.pushOnly)
      this.pushOnly = new SyncScheduler(
        { ...this.config.sync, intervalSeconds: 0, afterCommit: false },
        this.syncParts(),
      );
    return (this.syncer ?? this.pushOnly!).pushed();
  }

  /** Counts a commit a write made itself, for `pushed()` */
  private countCommit(): void {
    this.syncer?.committed();
    this.pushOnly?.committed();
  }

  /** The schedule's state, when `startSync` started one */
  syncState(): SyncState | undefined {
    return this.syncer?.snapshot();
  }

  async sync(options: SyncOptions): Promise<SyncResult> {
    expectOptions(options, 'sync options');
    const { syncVault } = await import('../write/sync/sync-vault.js');
    // Only the merge waits for the queue (and holds it): adds go on while the fetch and the push
    // travel, which on a slow remote take seconds.
    const result = await syncVault(this.root, this.config, {
      ...options,
      hold: (step) => this.queue.writing(step),
    });
    return this.queue.writing(async () => {
      // A day another clone union-merged (a phone without mem) may have come in: repaired here, and
      // the repair goes out with the next sync.
      const { repairAfterSync } = await import('../write/sync/repair-union.js');
      const repaired = await repairAfterSync(this.root, this.config);
      await this.live.refreshPathsNow([...result.paths, ...repaired]);
      return result;
    });
  }

  async move(ref: string, to: string, options: Pick<MoveOptions, 'author'>): Promise<MoveResult> {
    expectString(ref, 'a note reference');
    expectString(to, 'the new path "to"');
    expectOptions(options, 'move options');
    return this.queue.writing(async () => {
      const { index } = this.live;
      const result = await moveNote(
        this.root,
        this.config,
        index,
        await pathToWrite(this.root, index, ref),
        to,
        options,
      );
      await this.live.refreshPathsNow(result.paths);
      return result;
    });
  }

  async forget(ref: string, options: ForgetOptions & { now: Date }): Promise<ForgetResult> {
    expectString(ref, 'a note reference');
    return this.queue.writing(async () => {
      const { index } = this.live;
      const path = await pathToWrite(this.root, index, ref);
      const result = await forgetNote(this.root, this.config, index, path, options);
      await this.live.refreshPathsNow(result.paths);
      return result;
    });
  }

  forgetStale(options: ForgetStaleOptions & { now: Date }): Promise<ForgetStaleResult> {
    return this.queue.writing(async () => {
      await this.live.refreshNow();
      const result = await forgetStale(this.root, this.config, this.live.index, options);
      if (!result.dryRun) await this.live.refreshPathsNow(result.paths);
      return result;
    });
  }

  async undo(options: UndoOptions): Promise<UndoResult> {
    expectOptions(options, 'undo options');
    return this.queue.writing(async () => {
      const result = await undoLastMemCommit(this.root, {
        runHooks: this.config.git.runHooks,
        ...options,
      });
      if (!result.dryRun) await this.live.refreshPathsNow(result.paths);
      return result;
    });
  }

  async ingest(text: string, options: IngestOptions): Promise<IngestResult> {
    expectString(text, 'the transcript text');
    return this.queue.writing(async () => {
      const result = await ingest(this.root, this.config, text, options);
      await this.live.refreshPathsNow(result.paths);
      this.onEntries(result.added);
      return result;
    });
  }

  async importHistory(source: string, options: ImportOptions & { now: Date }): Promise<ImportResult> {
    expectString(source, 'the import source (a file or folder path)');
    return this.queue.writing(async () => {
      const notes = this.live.index.notes.keys();
      const result = await importHistory(this.root, this.config, source, { notes, ...options });
      await this.live.refreshPathsNow(result.paths);
      // A memory graph writes profile notes, not episode entries.
      this.onEntries(result.days.length > 0 ? result.added : 0);
      return result;
    });
  }

  /** See Vault.startExchanges */
  startExchanges(options: ExchangeWriterOptions = {}): Promise<ExchangeWriter> {
    if (!isOptions(options)) return Promise.reject(refused('startExchanges options', 'an object', options));
    if (!this.initialized) return Promise.reject(notAVault(this.root));
    const target = {
      remember: (inputs: RememberInput[], onPlanned?: OnPlanned) => this.rememberEntries(inputs, onPlanned),
      holds: (path: string, lines: string[]) => holdsLines(this.root, path, lines),
      // Off the write queue: a commit takes a git process or three (tenths of a second), and the
      // next turn's add waits at most for the lock, not for the queue. Appends replace the note by
      // rename, so git reads either the note before an entry or after it, never half of one.
      commit: async (paths: string[], message: string, lines: Map<string, string[]>) => {
        // Only mem's lines on top of each note's committed version: a person's edit stays theirs.
        const derived = new Map<string, DeriveContent>();
        for (const [path, added] of lines) {
          // Whether mem made the note is known for appends of this process (not after a restart).
          const derive = await deriveDailyNote(this.root, this.config, path, added, this.made.get(path));
          if (derive) derived.set(path, derive);
        }
        // Under the write lock, as every commit: a plan another command runs in steps is never
        // finished by this commit in its gaps (git/pending-plan.ts).
        const commit = await withVaultLock(this.root, (lock) =>
          commitWrite(lock, this.root, this.config, paths, message, derived),
        );
        for (const path of paths) this.made.delete(path);
        return commit;
      },
    };
    // ensureCacheDir: `.mem/` gets its own .gitignore, so the journal never lands in git.
    this.writer ??= ensureCacheDir(this.root).then((dir) =>
      ExchangeWriter.start(target, join(dir, 'adds.jsonl'), {
        ...options,
        onCommitted: () => {
          options.onCommitted?.();
          this.syncer?.afterCommit();
          this.pushOnly?.committed();
        },
        ...(this.config.sync.ackAfterPush ? { pushed: () => this.pushed() } : {}),
      }),
    );
    return this.writer;
  }

  /** See Vault.writerHealth */
  writerHealth(): Promise<WriterHealth> {
    return this.writer
      ? this.writer.then((writer) => writer.health())
      : Promise.resolve({ queued: 0, uncommitted: 0 });
  }

  /** Closes the exchange writer, when one was started: what it accepted is written and committed first. */
  async close(): Promise<void> {
    await this.syncer?.stop();
    this.syncer = undefined;
    await this.pushOnly?.stop();
    this.pushOnly = undefined;
    const writer = this.writer;
    this.writer = undefined;
    if (writer) await (await writer).close();
  }
}

/**
 * Per index: the highest id cited in each note asked about, and the graph and link changes they
 * were found at (a save's rebase gives the index a new graph; the old one is not held here)
 */
const citedIds = new WeakMap<VaultIndex, { graph: Graph; linkChanges: number; tops: Map<string, number> }>();

/**
 * The highest id number (`^eN`, `^eN-tag`) any note's link cites in the note at `path`: an id still
 * cited is never reused. Found again only after a change that may move a link: every chat add asked
 * it of its day, and at 100,000 notes a day that hundreds of notes link to had each of them decoded
 * for it, a fifth of an add's CPU.
 */
function highestCitedId(index: VaultIndex, path: string): number {
  let known = citedIds.get(index);
  if (!known || known.graph !== index.graph || known.linkChanges !== index.linkChanges) {
    known = { graph: index.graph, linkChanges: index.linkChanges, tops: new Map() };
    citedIds.set(index, known);
  }
  let top = known.tops.get(path);
  if (top === undefined) {
    top = citedIn(index, path);
    known.tops.set(path, top);
  }
  return top;
}

function citedIn(index: VaultIndex, path: string): number {
  let top = 0;
  // `^e7`, or another device's `^e7-k7q2` (7): one number for every device.
  const cite = (subpath: string | undefined) => {
    const n = blockIdNumber(/^\^(.*)$/.exec(subpath ?? '')?.[1] ?? '');
    if (n > top) top = n;
  };
  if (index.notes.has(path)) {
    // Where the links to it are written, from the saved link rows: no linking note is decoded.
    for (const { place } of index.graph.linksTo(path)) cite(place.subpath);
    return top;
  }
  // A deleted note's citations no longer resolve: they are matched by the name they give it. The
  // graph knows which names unresolved links give (at 100,000 notes, finding them decoded every
  // note holding one, on the first add of each new day). Its names are folded (NFC, lower case)
  // and those below only lower-cased, which agree for an ASCII name alone: lower case depends on
  // the letters around (a Greek final sigma), and NFC and lower case do not commute.
  const folded = foldPath(basenameOf(path));
  const named = (name: string) => index.graph.mayBeNamedUnresolved(name);
  if (/^[\x00-\x7f]*$/.test(folded) && !named(folded) && !named(folded.slice(0, -3))) return top;
  const name = path.slice(0, -3).toLowerCase();
  const base = name.slice(name.lastIndexOf('/') + 1);
  for (const edge of index.graph.unresolved()) {
    const target = edge.link.target.toLowerCase().replace(/\.md$/, '');
    if (target === base || target === name) cite(subpathOf(edge.link));
  }
  return top;
}
