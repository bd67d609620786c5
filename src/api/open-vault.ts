// The library's entry point: one vault, its config, and an index kept in step with the files. Vault
// is a facade: each subsystem is a module of its own, and every public method here is a line or
// two that delegates to one of them; the members are grouped by concern under section comments:
//   open-parts.ts      opening: finds the vault, loads its config and index, wires the parts below
//   write-queue.ts     the one serial queue every write, refresh and cache save runs on
//   live-index.ts      the index: refreshes, the cache in .mem/, the watcher, change tracking
//   note-writes.ts     every write (and the chat write path), indexed before it resolves
//   semantic-recall.ts recall, lexical or with embeddings fused in
//   reflection.ts      reflect, rollups, and background reflection
//   find-note.ts       which note a reference names
// Sync is write/sync/'s; history and health call git/vault-git.ts and indexing/doctor.ts.

import { type CompileOptions, type CompileResult, compile } from '../compile/compile.js';
import type { MemConfig } from '../core/config/config.js';
import type { Edge, Note } from '../core/types.js';
import type { HistoryEntry } from '../git/git-history.js';
import { noteHistory, vaultDiff } from '../git/vault-git.js';
import { type DoctorReport, diagnose, findUnreadableNotes, type UnreadableNote } from '../indexing/doctor.js';
import type { RefreshStats } from '../indexing/refresh-index.js';
import type { EmbedProgress } from '../indexing/vectors/vector-cache.js';
import type {
  ExchangeInput,
  ExchangeResult,
  ExchangeSession,
  ExchangeWriterOptions,
  WriterHealth,
} from '../live/exchange-writer.js';
import { findNote, findNoteToWrite } from '../live/find-note.js';
import type { LiveIndex } from '../live/live-index.js';
import type { NoteWrites } from '../live/note-writes.js';
import type { ReflectStatus } from '../live/reflect-scheduler.js';
import type { Reflection } from '../live/reflection.js';
import type { EmbeddingsHealth, EmbedStats, RecallResult, SemanticRecall } from '../live/semantic-recall.js';
import type { SyncState } from '../live/sync-scheduler.js';
import type { Llm, LlmOptions } from '../models/llm.js';
import type { RecallOptions } from '../recall/recall.js';
import type { ReflectOptions, ReflectResult } from '../reflect/reflect.js';
import type { RollupOptions, RollupResult } from '../reflect/rollup/rollup.js';
import type { Moment } from '../time/parse-instant.js';
import { inLayout } from '../vault/layout.js';
import { noteRefPath } from '../vault/links/note-ref.js';
import type { VaultWatcher, WatchVaultOptions } from '../vault/watch-vault.js';
import type { EditNoteOptions, NoteEdit } from '../write/edit-note.js';
import type { ForgetOptions, ForgetResult } from '../write/forget-note.js';
import type { ForgetStaleOptions, ForgetStaleResult } from '../write/forget-stale.js';
import type { ImportOptions, ImportResult } from '../write/import/import-history.js';
import type { IngestOptions, IngestResult } from '../write/import/ingest.js';
import type { MoveOptions, MoveResult } from '../write/move-note.js';
import type { RememberInput, RememberResult } from '../write/remember.js';
import type { SyncOptions, SyncResult } from '../write/sync/sync-vault.js';
import type { UndoOptions, UndoResult } from '../write/undo-commit.js';
import type { CreateNoteInput, NoteWriteResult, UpdateNoteInput } from '../write/update-note.js';
import { instants, withNow } from './call-moments.js';
import type { OpenVaultOptions } from './open-options.js';
import { openParts, type VaultParts } from './open-parts.js';

export type { EmbeddingsHealth, EmbedSections, EmbedStats, RecallResult } from '../live/semantic-recall.js';
export type { OpenVaultOptions } from './open-options.js';

/**
 * Options as the Vault takes them: `now` and `at` may also be ISO 8601 text, read in the vault's
 * time zone when it names no offset (a host in a UTC container passing its user's local clock).
 */
export type WithMoments<T> = { [K in keyof T]: K extends 'now' | 'at' ? Moment | undefined : T[K] };

/**
 * One vault: its config, and an index kept in step with the files. The library's entry point.
 *
 * The Vault owns one serial queue: every write, every refresh and every cache save runs alone on
 * it, whether it came from a caller, from its watcher or from a server, so no caller ever has to
 * order them itself. Reads (`recall`, `compile`, `note`) are synchronous and see whatever the
 * index holds between two queued steps: never a half-applied change.
 */
export class Vault {
  readonly root: string;
  readonly config: MemConfig;
  /**
   * The folder holds `mem.config.json` (made by `mem init`). A folder without it can be read, with
   * no cache left behind in it, but not written: a mistyped `--vault` must not turn a home folder
   * or a temp folder into a vault.
   */
  readonly initialized: boolean;
  private readonly live: LiveIndex;
  private readonly writes: NoteWrites;
  private readonly recaller: SemanticRecall;
  private readonly reflection: Reflection;

  private constructor(parts: VaultParts) {
    this.root = parts.root;
    this.config = parts.config;
    this.initialized = parts.initialized;
    this.live = parts.live;
    this.writes = parts.writes;
    this.recaller = parts.recaller;
    this.reflection = parts.reflection;
  }

  // --- Opening and closing ---

  /** Opens a vault (see OpenVaultOptions): finds it, loads its config and index, and walks it. */
  static async open(options: OpenVaultOptions = {}): Promise<Vault> {
    const parts = await openParts(options);
    const vault = new Vault(parts);
    const scan = parts.live.scan(options.onProgress);
    // In the background, nothing is awaited between queueing the walk and resolving, so the caller
    // has the vault before the walk has changed the index (an extra await let a three-note walk win).
    if (options.scan === 'background' && parts.loaded) parts.live.scanInBackground(scan);
    else await scan;
    return vault;
  }

  /** Stops the watcher, lets queued writes finish, and saves the cache when anything is unsaved. */
  async close(): Promise<void> {
    // First: a model call in flight is abandoned rather than waited for (it may take minutes).
    await this.reflection.stop();
    await this.recaller.close();
    await this.writes.close();
    await this.live.close();
  }

  /** Keeps the index readable until the function returned is called, even across close() (throws `CLOSED` after). */
  readonly holdIndex = (): (() => void) => this.live.index.hold();

  /** A verb's moments read in the vault's zone (call-moments.ts) */
  private instants<T extends { now?: unknown; at?: unknown }>(options: T, name: string) {
    return instants(this.config.timezone, options, name);
  }

  /** ...and its `now` defaulted to this moment: the library's one `now` default */
  private withNow<T extends { now?: unknown; at?: unknown }>(options: T, name: string) {
    return withNow(this.config.timezone, options, name);
  }

  // --- The live index (live-index.ts) ---

  /** What the last refresh changed */
  get lastRefresh(): RefreshStats {
    return this.live.lastRefresh;
  }

  /**
   * How the last refresh found what changed: `walk` looked at every note, `tracked` re-read the
   * notes the change tracker named (see the `track` option).
   */
  get lastRefreshScope(): 'walk' | 'tracked' {
    return this.live.lastRefreshScope;
  }

  /** A walk of the vault opened with `scan: 'background'`, or its watcher's start, is still running */
  get scanPending(): boolean {
    return this.live.scanPending;
  }

  /** Notes indexed now */
  get noteCount(): number {
    return this.live.index.notes.size;
  }

  /** The vault path of every indexed note, sorted */
  paths(): string[] {
    return [...this.live.index.notes.keys()].sort();
  }

  /** Re-reads what changed on disk; saves the cache when enough did (see saveIfStale). */
  refresh(): Promise<RefreshStats> {
    return this.live.refresh();
  }

  /**
   * Re-reads just these vault-relative paths (added, changed or deleted), as a watcher reports
   * them. Does not save the cache: a watcher saves after a quiet period.
   */
  refreshPaths(paths: Iterable<string>): Promise<RefreshStats> {
    return this.live.refreshPaths(paths);
  }

  /**
   * Calls `listener` with the vault paths each refresh or write changed in the index (added,
   * changed, removed, or only touched), in order, as it happens; a server's read workers re-read
   * them. Returns the function that stops it.
   */
  onIndexChange(listener: (paths: string[]) => void): () => void {
    return this.live.onIndexChange(listener);
  }

  /** Files the saved cache does not know about yet (the next open re-reads them) */
  get unsavedChanges(): number {
    return this.live.unsavedChanges;
  }

  /**
   * Writes the index cache to `.mem/` now, whatever is stale. A cache that cannot be written
   * (a full disk, a read-only folder) is reported once through `onNotice`, never thrown: the
   * index in memory is whole, and the next open reads what the cache lacks.
   */
  save(): Promise<void> {
    return this.live.save();
  }

  /**
   * Saves the cache once re-reading what it lacks would cost more than a small share of writing
   * it: writing is proportional to the vault (about 1 s at 10,000 notes, and it blocks), re-reading
   * to the changed files (about 1 ms each). So one note in a hundred may be stale before a save.
   * A file counts once however often it changes: a daily note written every chat turn is one
   * file to re-read.
   */
  saveIfStale(): Promise<void> {
    return this.live.saveIfStale();
  }

  /**
   * Starts keeping the index in step with hand edits, `git checkout` and other processes' writes
   * (one watcher per vault; a second call returns the first). Resolves once changes are seen.
   */
  watch(options: WatchVaultOptions = {}): Promise<VaultWatcher> {
    return this.live.watch(options);
  }

  /**
   * Whether `refresh()` re-reads only what changed (`track`), or why not: another platform, a
   * network file system, symlinks followed, or the inotify watches used up.
   */
  get changeTracking(): { tracked: boolean; reason?: string } {
    return this.live.changeTracking;
  }

  /**
   * Resolves `true` once the first walk of the vault has ended (see `scan`) and no change the
   * watcher has seen is still being applied, or `false` when one still runs after `timeoutMs` (a
   * read may then answer from a partly updated index).
   */
  whenIdle(timeoutMs: number): Promise<boolean> {
    return this.live.whenIdle(timeoutMs);
  }

  // --- Reads: notes and links (find-note.ts, the index's link graph) ---

  /**
   * Finds a note by vault path (with or without `.md`) or by link text resolved from the vault root,
   * the way Obsidian would resolve `[[ref]]`.
   */
  note(ref: string): Note {
    return findNote(this.live.index, ref);
  }

  /**
   * Like note(), for verbs that change or remove a note: a name that more than one note answers to
   * (`Mei` for `people/Mei.md` and `work/Mei.md`) is refused with the candidates, never guessed.
   */
  noteToWrite(ref: string): Note {
    return findNoteToWrite(this.live.index, ref);
  }

  /** Text written for the default layout with this vault's folders (`memory/profile/user.md`…). */
  inLayout(text: string): string {
    return inLayout(text, this.live.index.layout);
  }

  /** The text of a wiki link to the note at vault path `path`: its name, or its path when another note has that name. */
  linkText(path: string): string {
    return this.live.index.linkText(path);
  }

  /** The links a note makes, each with the note it resolves to (`to`) when it resolves. */
  links(ref: string): Edge[] {
    return this.live.index.graph.outEdges(this.note(ref).path);
  }

  /** The links other notes make to this one. */
  backlinks(ref: string): Edge[] {
    return this.live.index.graph.backlinks(this.note(ref).path);
  }

  // --- Reads: recall and compile, by words or with embeddings (semantic-recall.ts) ---

  /**
   * Ranked memories for a query. Time words in the query (昨天, last weekend) narrow episode
   * entries to that range unless `range` is given; the result says which range applied and why.
   */
  recall(query: string, given: WithMoments<RecallOptions> = {}): RecallResult {
    return this.recaller.recall(query, this.withNow(given, 'recall options'));
  }

  /**
   * recall() with semantic similarity fused in when `embeddings.enabled`: sections the vector
   * cache lacks are embedded first, then the query. Off, it is exactly recall(), with no network
   * call. A failing endpoint never fails a recall: it is reported once through `onNotice`, and the
   * ranking stays lexical, without asking the endpoint again for a minute.
   */
  async recallAsync(query: string, given: WithMoments<RecallOptions> = {}): Promise<RecallResult> {
    return this.recaller.recallAsync(query, this.withNow(given, 'recallAsync options'));
  }

  /**
   * Embeds every section whose text the vector cache (`.mem/embeddings-<model>.vec`) lacks, in
   * batches of `embeddings.batchSize`, and saves the cache; unchanged sections cost nothing.
   * Runs on the write queue. Throws when embeddings are off or the endpoint fails.
   */
  embed(onProgress?: EmbedProgress): Promise<EmbedStats> {
    return this.recaller.embed(onProgress);
  }

  /** The context document for one conversation turn, within a token budget; by words only. */
  compile(options: WithMoments<CompileOptions>): CompileResult {
    return compile(this.live.index, this.config, this.withNow(options, 'compile options'));
  }

  /** compile() with the meaning ranking fused in when `embeddings.enabled` (one query embedding); else compile(). */
  compileAsync(options: WithMoments<CompileOptions>): Promise<CompileResult> {
    return this.recaller.compileAsync(this.withNow(options, 'compileAsync options'));
  }

  /** Embeddings as /health shows them: model, ok or down (and why), sections not embedded yet. */
  embeddingsHealth(): EmbeddingsHealth | undefined {
    return this.recaller.health();
  }

  // --- Writes, on the write queue (note-writes.ts) ---

  /** Appends one entry to today's (or `at`'s) episode note, commits it, and indexes it at once. */
  remember(given: WithMoments<RememberInput>): Promise<RememberResult> {
    return this.writes.remember(this.instants(given, 'remember input'));
  }

  /** Creates a note with `id`, `title`, `created`, `updated` and the given keys; refuses an existing one. */
  createNote(input: CreateNoteInput): Promise<NoteWriteResult> {
    return this.writes.createNote(this.withNow(input, 'createNote input'));
  }

  /** Sets or deletes frontmatter keys of a note, keeping every other byte; CONFLICT on a hand edit. */
  updateNote(ref: string, input: UpdateNoteInput): Promise<NoteWriteResult> {
    return this.writes.updateNote(ref, input);
  }

  /** Appends, prepends, replaces a section or inserts under a heading, keeping every other byte; CONFLICT on a hand edit. */
  editNote(ref: string, edit: NoteEdit, options: EditNoteOptions = {}): Promise<NoteWriteResult> {
    return this.writes.editNote(ref, edit, options);
  }

  /** Renames a note and rewrites every link to it, keeping each link's style; one commit. */
  move(ref: string, to: string, options: Pick<MoveOptions, 'author'> = {}): Promise<MoveResult> {
    return this.writes.move(ref, to, options);
  }

  /** Moves a note to the archive folder with `status: archived`, or with `hard` deletes it (git only). */
  forget(ref: string, options: ForgetOptions = {}): Promise<ForgetResult> {
    return this.writes.forget(ref, this.withNow(options, 'forget options'));
  }

  /**
   * Archives old daily episodes that a rollup covers and nothing links to, and lowers the
   * importance of insights whose sources were all archived; one commit (`mem forget --stale`).
   * Off unless `forget.staleAfterDays` is set.
   */
  forgetStale(given: WithMoments<ForgetStaleOptions> = {}): Promise<ForgetStaleResult> {
    return this.writes.forgetStale(this.withNow(given, 'forgetStale options'));
  }

  /** Imports a chat transcript (JSON messages, JSONL or `Speaker: text` lines) into daily episodes. */
  ingest(text: string, given: WithMoments<IngestOptions>): Promise<IngestResult> {
    return this.writes.ingest(text, this.instants(given, 'ingest options'));
  }

  /** Imports a ChatGPT or Claude export, an MCP memory graph, VTuber chat history or journals (`mem import`). */
  importHistory(source: string, given: WithMoments<ImportOptions>): Promise<ImportResult> {
    return this.writes.importHistory(source, this.withNow(given, 'importHistory options'));
  }

  // --- The chat write path (exchange-writer.ts, through note-writes.ts) ---

  /**
   * Starts the chat write path (see `addExchange`): opens the add journal in `.mem/` and writes
   * and commits what an earlier process accepted but did not finish. One per vault; a second
   * call returns the first.
   */
  startExchanges(options: ExchangeWriterOptions = {}): Promise<ExchangeSession> {
    return this.writes.startExchanges(options);
  }

  /**
   * Keeps one chat exchange: journaled before this resolves (so it survives a kill), written and
   * searchable at once, and committed to git in the background with whatever else was written in
   * the same burst. `commit` chooses the sides kept: `exchange`, `user` or `none`.
   */
  async addExchange(given: WithMoments<ExchangeInput>): Promise<ExchangeResult> {
    const writer = await this.startExchanges();
    return writer.add(this.instants(given, 'addExchange input'), this.config.companion.commit);
  }

  /** The chat write path's state: adds waiting for a write or a commit, and the last failure */
  writerHealth(): Promise<WriterHealth> {
    return this.writes.writerHealth();
  }

  // --- Reflection (reflection.ts) ---

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
    return this.reflection.reflect(this.withNow(given, 'reflect options'));
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
    return this.reflection.rollup(this.withNow(given, 'rollup options'));
  }

  /**
   * Starts reflecting in the background as `reflect.auto` asks (after N new entries, after M idle
   * minutes, daily at HH:MM); nothing when no trigger is set. Runs never block a read or a write:
   * the model call is off the write queue, one at a time. `close()` abandons a run in flight.
   */
  startAutoReflect(
    options: { llm?: Llm; llmOptions?: LlmOptions; onError?: (error: unknown) => void } = {},
  ): ReflectStatus {
    return this.reflection.startAutoReflect(options);
  }

  /** Background reflection's state: running or not, the last run, the next one, the day's tokens */
  reflectStatus(): ReflectStatus {
    return this.reflection.reflectStatus();
  }

  // --- Git: sync, history, undo, diff (write/sync/, git/vault-git.ts) ---

  /** `mem sync`: commit what mem left, fetch, merge (days entry by entry, clashes kept beside), push. */
  sync(options: SyncOptions = {}): Promise<SyncResult> {
    return this.writes.sync(options);
  }

  /** Syncs after group commits and on `sync.intervalSeconds` (`mem serve`), when the config asks */
  startSync(onError?: (error: unknown) => void): void {
    this.writes.startSync(onError);
  }

  /** The sync schedule's state (last sync, last error, ahead/behind), when one runs */
  syncState(): SyncState | undefined {
    return this.writes.syncState();
  }

  /** Commits that touched a note (also one deleted since), newest first, following renames. */
  history(ref: string): Promise<HistoryEntry[]> {
    let path = noteRefPath(ref);
    try {
      path = this.note(ref).path;
    } catch {
      // A deleted note is no longer indexed; its history is still found by its path.
    }
    return noteHistory(this.root, path);
  }

  /** Reverts mem's last commit when its files are unchanged since, and re-indexes them. */
  undo(options: UndoOptions = {}): Promise<UndoResult> {
    return this.writes.undo(options);
  }

  /** `git diff` of the vault: working tree against HEAD, a range `a..b`, or one commit. */
  diff(rev?: string): Promise<string> {
    return vaultDiff(this.root, rev);
  }

  // --- Health (indexing/doctor.ts) ---

  /** Unresolved links, names more than one note answers to, bad frontmatter: from the index (`mem doctor`). */
  doctor(): DoctorReport {
    return diagnose(this.live.index);
  }

  /** Notes on disk that are not readable UTF-8 text (reads every note: `mem doctor` adds these to its report). */
  checkNoteFiles(): Promise<UnreadableNote[]> {
    return findUnreadableNotes(this.root, { followSymlinks: this.config.followOutsideSymlinks });
  }
}

export function openVault(options: OpenVaultOptions = {}): Promise<Vault> {
  return Vault.open(options);
}
