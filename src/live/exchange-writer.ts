import { randomUUID } from 'node:crypto';
import { expectString, MemError } from '../core/errors.js';
import type { NotCommitted, WriteCommit } from '../git/commit-write.js';
import { entryText, sanitizeText } from '../vault/markdown/entry-text.js';
import { AddJournal, type JournalRecord } from '../write/add-journal.js';
import type { OnPlanned, RememberInput, RememberResult } from '../write/remember.js';

/** Which sides of an exchange are kept: both (default), only the user's words, or nothing. */
export type CommitMode = 'exchange' | 'user' | 'none';

export interface ExchangeInput {
  /** What the user said */
  user?: string;
  /** What the assistant answered */
  assistant?: string;
  /** Which sides to keep (default: config `companion.commit`, `exchange`) */
  commit?: CommitMode;
  /** The user cut the reply off: it is kept as far as it was heard, tagged `#interrupted` */
  interrupted?: boolean;
  /** When it was said (default: now) */
  at?: Date;
}

export interface ExchangeResult {
  /** Entries kept (0 for `commit: "none"`) */
  kept: number;
  /** True when they are in the notes and searchable now; false when a retry will write them */
  written: boolean;
  /** Citations of the written entries */
  links: string[];
}

export interface WriterHealth {
  /** Accepted adds not yet in the notes (being retried) */
  queued: number;
  /** Written adds waiting for their git commit */
  uncommitted: number;
  /** The last write or commit failure, until a later one succeeds */
  lastError?: string;
}

/** What the writer needs from its vault; the Vault runs each step on its write queue. */
export interface ExchangeTarget {
  /**
   * Writes one exchange's entries (one append per day); `onPlanned` is told each day's lines,
   * under the write lock, before they are appended
   */
  remember(inputs: RememberInput[], onPlanned?: OnPlanned): Promise<RememberResult[]>;
  /** Whether the note at `path` holds these lines (an entry written before a crash) */
  holds(path: string, lines: string[]): Promise<boolean>;
  /** Commits these notes; for a note in `lines`, only those lines on top of its committed version */
  commit(paths: string[], message: string, lines: Map<string, string[]>): Promise<WriteCommit>;
}

export interface ExchangeWriterOptions {
  /** Commit after this long without a new write, so a burst is one commit (default: 300 ms) */
  commitDelayMs?: number;
  /** Longest a written entry waits for its commit while writes keep coming (default: 3000 ms) */
  commitMaxWaitMs?: number;
  /** First wait before a failed write is tried again; it doubles up to 30 s (default: 500 ms) */
  retryMs?: number;
  /** Receives failures: they are retried, and shown in health until one succeeds */
  onError?: (error: unknown) => void;
  /** Told after each group commit (`mem serve` syncs then, with `sync.afterCommit`) */
  onCommitted?: () => void;
}

/** What the vault gives its writer besides a caller's options (not part of the public API). */
export interface ExchangeWriterSettings extends ExchangeWriterOptions {
  /**
   * `sync.ackAfterPush`: resolves once a push holds every commit made so far, rejects with why it
   * did not. Given, an add is committed at once (with every add waiting then) and answered only
   * after that push; else it is answered once journaled and written.
   */
  pushed?: () => Promise<void>;
}

/** How far an add got when it was not pushed: kept in the journal, written to its note, or committed. */
export type NotPushedStage = 'journaled' | 'written' | 'committed';

/**
 * An add under `sync.ackAfterPush` that is kept on this machine but not pushed: it is not lost
 * (the journal or the commit holds it, and a later commit and sync send it), and sending it again
 * would write it twice. `links` are its entries' citations, when written.
 */
export class NotPushedError extends MemError {
  readonly notPushed: { stage: NotPushedStage; links: string[]; kept: number };

  constructor(stage: NotPushedStage, links: string[], kept: number, why: string) {
    const where =
      stage === 'journaled'
        ? 'kept in the add journal here, not yet written, committed or pushed'
        : stage === 'written'
          ? `written here${links.length > 0 ? ` (${links.join(' ')})` : ''}, not yet committed or pushed`
          : `written and committed here${links.length > 0 ? ` (${links.join(' ')})` : ''}, not pushed`;
    super(
      'GIT',
      `the add is ${where}: ${why}. It is not lost: a later commit and sync push it; sending it again would keep it twice`,
    );
    this.notPushed = { stage, links, kept };
  }
}

const MAX_RETRY_MS = 30_000;

/** Commit outcomes that will not change by trying again: the entries are kept, uncommitted. */
const SETTLED: ReadonlySet<NotCommitted | undefined> = new Set([
  'auto-commit-off',
  'no-repository',
  'unchanged',
]);

/**
 * What `Vault.startExchanges()` gives a caller: the chat write path's operations, not how the
 * writer is made (its static `start` takes the vault's internal write steps), so the public
 * signature names only exported types.
 */
export interface ExchangeSession {
  /** Journals, writes and indexes one exchange; committed with the rest of its burst */
  add(input: ExchangeInput, defaultMode: CommitMode): Promise<ExchangeResult>;
  /** Runs `fn` while no group commit starts */
  withCommitsHeld<T>(fn: () => Promise<T>): Promise<T>;
  /** Commits what was written and is not committed yet */
  commitNow(): Promise<void>;
  health(): WriterHealth;
  /** Finishes queued writes and the last commit */
  close(): Promise<void>;
}

/**
 * The per-turn write path of a chat host. An exchange is journaled (fsync) before it is
 * answered, written to the day's note and indexed at once (read-your-writes, milliseconds),
 * and committed to git in the background: one commit for whatever was written in a burst
 * (group commit). A write that fails (another process holds the lock, a full disk) stays in
 * the journal and is retried; nothing accepted is dropped, also across a crash.
 */
export class ExchangeWriter implements ExchangeSession {
  private readonly target: ExchangeTarget;
  private readonly journal: AddJournal;
  private readonly options: ExchangeWriterSettings;
  private commitTimer: NodeJS.Timeout | undefined;
  private firstUncommitted = 0;
  private retryTimer: NodeJS.Timeout | undefined;
  private retryMs: number;
  private commitRetryMs = 0;
  private committing: Promise<void> | undefined;
  private lastError: string | undefined;
  private closed = false;
  /** Writes in order: a retry never overtakes a newer add */
  private tail: Promise<void> = Promise.resolve();

  private constructor(target: ExchangeTarget, journal: AddJournal, options: ExchangeWriterSettings) {
    this.target = target;
    this.journal = journal;
    this.options = options;
    this.retryMs = options.retryMs ?? 500;
  }

  /** Opens the journal and writes and commits what an earlier process left in it. */
  static async start(
    target: ExchangeTarget,
    journalFile: string,
    options: ExchangeWriterSettings = {},
  ): Promise<ExchangeWriter> {
    const writer = new ExchangeWriter(target, await AddJournal.open(journalFile), options);
    await writer.serial(() => writer.writeUnwritten());
    if (writer.journal.uncommitted().size > 0) await writer.commitNow();
    return writer;
  }

  private serial(fn: () => Promise<void>): Promise<void> {
    const run = this.tail.then(fn);
    this.tail = run.catch(() => undefined);
    return run;
  }

  /** Keeps an exchange: journaled before this resolves, and written at once when the vault lets it. */
  async add(input: ExchangeInput, defaultMode: CommitMode): Promise<ExchangeResult> {
    if (this.closed) throw new Error('the writer is closed');
    if (input.user !== undefined) expectString(input.user, 'addExchange input "user"');
    if (input.assistant !== undefined) expectString(input.assistant, 'addExchange input "assistant"');
    const mode = input.commit ?? defaultMode;
    // Journaled as it will be written: a lone surrogate kept in the journal could never be found
    // in the note (UTF-8 stores it as U+FFFD), and the add was appended again at every start.
    const user = input.user === undefined ? '' : sanitizeText(input.user);
    const assistant = input.assistant === undefined ? '' : sanitizeText(input.assistant);
    const entries = [];
    if (mode !== 'none' && entryText(user) !== '') entries.push({ text: user, speaker: 'user' });
    if (mode === 'exchange' && entryText(assistant) !== '')
      entries.push({
        text: assistant,
        speaker: 'assistant',
        ...(input.interrupted ? { tags: ['interrupted'] } : {}),
      });
    if (entries.length === 0) return { kept: 0, written: false, links: [] };
    const record: JournalRecord = { id: randomUUID(), at: (input.at ?? new Date()).toISOString(), entries };
    await this.journal.add(record);
    let links: string[] = [];
    let written = false;
    await this.serial(async () => {
      const unwritten = this.journal.unwritten();
      // An earlier step may have written this add already, catching up on a retry.
      if (!unwritten.some((r) => r.id === record.id)) return;
      // Older adds still waiting for a retry go first, so the note keeps the order they came in.
      if (unwritten.length > 1) await this.writeUnwritten();
      else
        try {
          links = await this.write(record);
          written = true;
        } catch (error) {
          this.fail(error);
        }
    });
    if (!written) written = !this.journal.unwritten().some((r) => r.id === record.id);
    // Journaled on disk before it is answered: the write's mark synced it, else (a write that
    // failed or waits for older adds) this does.
    await this.journal.sync();
    if (this.options.pushed) await this.untilPushed(record.id, written, links, entries.length);
    return { kept: entries.length, written, links };
  }

  /**
   * `sync.ackAfterPush`: commits now (with every add written meanwhile: one commit runs at a time,
   * and the next takes all that waited for it), then waits for a push that holds the commit.
   */
  private async untilPushed(id: string, written: boolean, links: string[], kept: number): Promise<void> {
    const why = () => this.lastError ?? 'the vault did not let it be written yet';
    if (!written) throw new NotPushedError('journaled', links, kept, why());
    await this.commitNow();
    if (this.journal.uncommitted().has(id)) throw new NotPushedError('written', links, kept, why());
    try {
      await this.options.pushed!();
    } catch (error) {
      throw new NotPushedError('committed', links, kept, (error as Error).message ?? String(error));
    }
  }

  private async write(record: JournalRecord): Promise<string[]> {
    const at = new Date(record.at);
    // A crash between the append and the journal's mark: the lines planned for this add (each
    // ending in its own block id) say whether it landed. Idempotency belongs to this request's
    // id, never to the text: the same words said twice are two entries.
    const planned = this.journal.plannedOf(record.id);
    if (planned && planned.size > 0) {
      const landed = await Promise.all([...planned].map(([path, lines]) => this.target.holds(path, lines)));
      if (landed.every(Boolean)) {
        const lines = [...planned].flatMap(([path, held]) =>
          held.map((line): [string, string] => [path, line]),
        );
        await this.journal.markWritten(record.id, [...planned.keys()], lines);
        this.succeeded();
        this.scheduleCommit();
        return [];
      }
    }
    const inputs = record.entries.map((entry): RememberInput => ({ ...entry, at, commit: false }));
    const results = await this.target.remember(inputs, (path, lines) =>
      this.journal.markPlanned(record.id, path, lines),
    );
    const paths = [...new Set(results.map((r) => r.path))];
    const lines = results.flatMap((r) => r.lines.map((line): [string, string] => [r.path, line]));
    await this.journal.markWritten(record.id, paths, lines);
    this.succeeded();
    this.scheduleCommit();
    return results.map((r) => r.link);
  }

  /** Writes every accepted add that is not in the notes yet, oldest first; stops at the first failure. */
  private async writeUnwritten(): Promise<void> {
    for (const record of this.journal.unwritten()) {
      try {
        await this.write(record);
      } catch (error) {
        this.fail(error);
        return;
      }
    }
  }

  private succeeded(): void {
    this.lastError = undefined;
    this.retryMs = this.options.retryMs ?? 500;
  }

  private fail(error: unknown): void {
    this.lastError = (error as Error).message ?? String(error);
    this.options.onError?.(error);
    if (this.closed || this.retryTimer) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      void this.serial(() => this.writeUnwritten());
    }, this.retryMs);
    this.retryMs = Math.min(this.retryMs * 2, MAX_RETRY_MS);
  }

  private scheduleCommit(): void {
    if (this.closed) return;
    const now = Date.now();
    if (!this.commitTimer) this.firstUncommitted = now;
    clearTimeout(this.commitTimer);
    const maxWait = this.options.commitMaxWaitMs ?? 3000;
    const delay = Math.max(
      this.commitRetryMs,
      Math.min(this.options.commitDelayMs ?? 300, Math.max(0, this.firstUncommitted + maxWait - now)),
    );
    this.commitTimer = setTimeout(() => {
      this.commitTimer = undefined;
      void this.commitNow().catch(() => undefined);
    }, delay);
  }

  /**
   * Commits what is written, then runs `fn` with no group commit starting until it ends (a sync
   * moves HEAD, and a commit made meanwhile would race it).
   */
  async withCommitsHeld<T>(fn: () => Promise<T>): Promise<T> {
    await this.commitNow();
    while (this.committing) await this.committing;
    const run = fn();
    this.committing = run.then(
      () => undefined,
      () => undefined,
    );
    void this.committing.finally(() => {
      this.committing = undefined;
    });
    return run;
  }

  /** Commits every written, uncommitted entry in one commit (one commit runs at a time). */
  async commitNow(): Promise<void> {
    clearTimeout(this.commitTimer);
    this.commitTimer = undefined;
    while (this.committing) await this.committing;
    this.committing = this.commitPending().finally(() => {
      this.committing = undefined;
    });
    return this.committing;
  }

  private async commitPending(): Promise<void> {
    const pending = this.journal.uncommitted();
    if (pending.size === 0) return;
    const paths = [...new Set([...pending.values()].flat())].sort();
    const entries = pending.size;
    let failure: string | undefined;
    try {
      const result = await this.target.commit(
        paths,
        `mem: remember ${entries} exchange${entries === 1 ? '' : 's'} (${paths.join(', ')})`,
        this.journal.uncommittedLines(),
      );
      // No git, auto-commit off, nothing left to commit: the entries are in the notes, and that
      // will not change, so the journal lets them go. Anything else (another git process, a
      // merge in progress, a detached HEAD) is tried again later, less and less often.
      if (result.committed || SETTLED.has(result.code)) {
        await this.journal.markCommitted([...pending.keys()]);
        this.commitRetryMs = 0;
        if (result.committed) this.options.onCommitted?.();
        return;
      }
      failure = `not committed yet: ${result.reason}`;
    } catch (error) {
      failure = (error as Error).message ?? String(error);
      this.options.onError?.(error);
    }
    this.lastError = failure;
    this.commitRetryMs = Math.min(Math.max(1000, this.commitRetryMs * 2), 60_000);
    if (!this.closed) this.scheduleCommit();
  }

  health(): WriterHealth {
    return {
      queued: this.journal.unwritten().length,
      uncommitted: this.journal.uncommitted().size,
      ...(this.lastError ? { lastError: this.lastError } : {}),
    };
  }

  /**
   * Stops: one last try at what waits for a write, then one commit. What still cannot be
   * written stays in the journal for the next start.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    await this.serial(() => this.writeUnwritten());
    await this.commitNow();
    // The journal keeps its file open across adds; closed last, once nothing more is written to it.
    await this.journal.close();
  }
}
