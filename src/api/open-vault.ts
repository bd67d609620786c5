import { type CompileOptions, type CompileResult, compile } from '../compile/compile.js';
import { loadConfig, type MemConfig } from '../core/config.js';
import { MemError } from '../core/errors.js';
import type { Edge, Note } from '../core/types.js';
import type { HistoryEntry } from '../git/git-history.js';
import {
  noteHistory,
  type UndoOptions,
  type UndoResult,
  undoLastMemCommit,
  vaultDiff,
} from '../git/vault-git.js';
import { type DoctorReport, diagnose } from '../indexing/doctor.js';
import { loadIndexCache, saveIndexCache } from '../indexing/index-cache.js';
import { type RefreshStats, refreshIndex, refreshPaths } from '../indexing/refresh-index.js';
import { VaultIndex } from '../indexing/vault-index.js';
import { type AppliedRange, chooseRange } from '../recall/choose-range.js';
import { type RecallHit, type RecallOptions, recall } from '../recall/recall.js';
import { createLlm, type Llm, type LlmOptions } from '../reflect/llm.js';
import { type ReflectOptions, type ReflectResult, reflect } from '../reflect/reflect.js';
import { findVault } from '../vault/find-vault.js';
import { notePath } from '../vault/paths.js';
import { type ForgetOptions, type ForgetResult, forgetNote } from '../write/forget-note.js';
import { type IngestOptions, type IngestResult, ingest } from '../write/ingest.js';
import { type MoveResult, moveNote } from '../write/move-note.js';
import { type RememberInput, type RememberResult, remember } from '../write/remember.js';
import {
  type CreateNoteInput,
  createNote,
  type NoteWriteResult,
  type UpdateNoteInput,
  updateNote,
} from '../write/update-note.js';

export interface OpenVaultOptions {
  /** The vault folder; else `MEM_VAULT`, else the nearest folder upward from `cwd` with `mem.config.json` */
  path?: string;
  /** Where discovery starts (default: process.cwd()) */
  cwd?: string;
  /** Environment read for `MEM_VAULT` (default: process.env) */
  env?: NodeJS.ProcessEnv;
  /** Read and write the index cache in `.mem/` (default: true) */
  cache?: boolean;
  /** Ignore the cache and index every note again (default: false) */
  rebuild?: boolean;
  /** Receives one-line notices such as "rebuilding the index cache" */
  onNotice?: (message: string) => void;
}

export interface RecallResult {
  query: string;
  /** The episode date range applied, when the query named a time or one was given */
  range?: AppliedRange;
  hits: RecallHit[];
}

/** One vault: its config, and an index kept in step with the files. The library's entry point. */
export class Vault {
  readonly root: string;
  readonly config: MemConfig;
  index: VaultIndex;
  /** What the last refresh changed */
  lastRefresh: RefreshStats = { added: 0, changed: 0, removed: 0, unchanged: 0, touched: 0 };
  private readonly useCache: boolean;
  /** Vault paths whose indexed state differs from the saved cache */
  private readonly stale = new Set<string>();

  private constructor(root: string, config: MemConfig, index: VaultIndex, useCache: boolean) {
    this.root = root;
    this.config = config;
    this.index = index;
    this.useCache = useCache;
  }

  static async open(options: OpenVaultOptions = {}): Promise<Vault> {
    const root = await findVault(options.path, options.cwd, options.env);
    const config = await loadConfig(root);
    const useCache = options.cache ?? true;
    let index = new VaultIndex();
    if (useCache && !options.rebuild) {
      const cached = await loadIndexCache(root);
      if (cached.status === 'loaded') index = cached.index;
      else if (cached.status !== 'missing') options.onNotice?.(`mem: ${cached.reason}; rebuilding it`);
    }
    index.limits = config.limits;
    const vault = new Vault(root, config, index, useCache);
    await vault.refresh();
    return vault;
  }

  /** Re-reads what changed on disk; saves the cache when enough did (see saveIfStale). */
  async refresh(): Promise<RefreshStats> {
    this.lastRefresh = await refreshIndex(this.root, this.index, this.stale);
    await this.saveIfStale();
    return this.lastRefresh;
  }

  /**
   * Re-reads just these vault-relative paths (added, changed or deleted), as a watcher reports
   * them. Does not save the cache: a watcher saves after a quiet period.
   */
  async refreshPaths(paths: Iterable<string>): Promise<RefreshStats> {
    return refreshPaths(this.root, this.index, paths, this.stale);
  }

  /** Files the saved cache does not know about yet (the next open re-reads them) */
  get unsavedChanges(): number {
    return this.stale.size;
  }

  async save(): Promise<void> {
    if (!this.useCache) return;
    await saveIndexCache(this.root, this.index);
    this.stale.clear();
  }

  /**
   * Saves the cache once re-reading what it lacks would cost more than a small share of writing
   * it: writing is proportional to the vault (about 1 s at 10,000 notes, and it blocks), re-reading
   * to the changed files (about 1 ms each). So one note in a hundred may be stale before a save.
   * A file counts once however often it changes: a daily note written every chat turn is one
   * file to re-read.
   */
  async saveIfStale(): Promise<void> {
    const stale = this.stale.size;
    if (stale > 0 && stale >= Math.max(1, Math.floor(this.index.notes.size / 100))) await this.save();
  }

  /**
   * Ranked memories for a query. Time words in the query (昨天, last weekend) narrow episode
   * entries to that range unless `range` is given; the result says which range applied and why.
   */
  recall(query: string, options: RecallOptions = {}): RecallResult {
    const now = options.now ?? new Date();
    const range = chooseRange(this.index, query, now, this.config.timezone, options.range);
    const hits = recall(this.index, this.config, range?.onlyTime ? '' : query, {
      ...options,
      now,
      range: range ? { from: range.from, to: range.to } : undefined,
      rangeMode: range?.mode,
    });
    return { query, ...(range ? { range } : {}), hits };
  }

  /** Appends one entry to today's (or `at`'s) episode note, commits it, and indexes it at once. */
  async remember(input: RememberInput): Promise<RememberResult> {
    const result = await remember(this.root, this.config, input);
    await this.refreshPaths([result.path]);
    return result;
  }

  /** Creates a note with `id`, `title`, `created`, `updated` and the given keys; refuses an existing one. */
  async createNote(input: CreateNoteInput): Promise<NoteWriteResult> {
    const result = await createNote(this.root, this.config, input);
    await this.refreshPaths([result.path]);
    return result;
  }

  /** Sets or deletes frontmatter keys of a note, keeping every other byte; CONFLICT on a hand edit. */
  async updateNote(ref: string, input: UpdateNoteInput): Promise<NoteWriteResult> {
    const result = await updateNote(this.root, this.config, this.noteToWrite(ref).path, input);
    await this.refreshPaths([result.path]);
    return result;
  }

  /** Renames a note and rewrites every link to it, keeping each link's style; one commit. */
  async move(ref: string, to: string): Promise<MoveResult> {
    const result = await moveNote(this.root, this.config, this.index, this.noteToWrite(ref).path, to);
    await this.refreshPaths(result.paths);
    return result;
  }

  /** Moves a note to `archive/` with `status: archived`, or with `hard` deletes it (git only). */
  async forget(ref: string, options: ForgetOptions = {}): Promise<ForgetResult> {
    const result = await forgetNote(this.root, this.config, this.index, this.noteToWrite(ref).path, options);
    await this.refreshPaths(result.paths);
    return result;
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
  async undo(options: UndoOptions = {}): Promise<UndoResult> {
    const result = await undoLastMemCommit(this.root, options);
    if (!result.dryRun) await this.refreshPaths(result.paths);
    return result;
  }

  /** `git diff` of the vault: working tree against HEAD, a range `a..b`, or one commit. */
  diff(rev?: string): Promise<string> {
    return vaultDiff(this.root, rev);
  }

  /** Imports a chat transcript (JSON messages, JSONL or `Speaker: text` lines) into daily episodes. */
  async ingest(text: string, options: IngestOptions): Promise<IngestResult> {
    const result = await ingest(this.root, this.config, text, options);
    await this.refreshPaths(result.paths);
    return result;
  }

  /**
   * Has a model turn new episodes into insights and profile facts (see `mem reflect`). Pass an
   * `llm` to use another client; by default the config's OpenAI-compatible endpoint.
   */
  async reflect(
    options: ReflectOptions & { llm?: Llm; llmOptions?: LlmOptions; env?: NodeJS.ProcessEnv } = {},
  ): Promise<ReflectResult> {
    await this.refresh();
    const llm = options.llm ?? createLlm(this.config, options.env ?? process.env, options.llmOptions);
    const result = await reflect(this.root, this.config, this.index, llm, options);
    if (!options.dryRun) await this.refreshPaths(result.files);
    return result;
  }

  /** The context document for one conversation turn, within a token budget. */
  compile(options: CompileOptions): CompileResult {
    return compile(this.index, this.config, options);
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
}

export function openVault(options: OpenVaultOptions = {}): Promise<Vault> {
  return Vault.open(options);
}
