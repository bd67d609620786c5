import { closeSync, fstatSync, mkdirSync } from 'node:fs';
import { rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { fsyncDescriptor, openRegularFileSync, readRegularText, writeAllSync } from '../core/regular-file.js';
import { crashPoint } from '../vault/crash-point.js';

/** One entry of an exchange, as it will be remembered. */
export interface JournalEntry {
  text: string;
  speaker?: string;
  tags?: string[];
}

/** One accepted add: kept here before it is answered, until its entries are committed. */
export interface JournalRecord {
  id: string;
  /** When the exchange happened (ISO 8601); decides the daily note and the entry times */
  at: string;
  entries: JournalEntry[];
}

type Line =
  | { add: JournalRecord }
  | { planned: string; path: string; lines: string[] }
  | { written: string; paths: string[]; lines?: Array<[path: string, line: string]> }
  | { committed: string[] };

interface State {
  record: JournalRecord;
  /** Per note, the lines its entries were about to be written as: after a crash, they say if they landed */
  planned?: Map<string, string[]>;
  /** The daily notes its entries went to, once written */
  paths?: string[];
  /** Each entry's note and line as written, so a commit can take just them */
  lines?: Array<[path: string, line: string]>;
}

/**
 * An append-only file of adds (`.mem/adds.jsonl`), so that "accepted" means kept: an add is
 * written here and fsynced before it is answered, then marked written and, after the git commit,
 * committed. Whatever a crash or a kill leaves unmarked is written again at the next start; an entry
 * whose planned lines (marked before its append) are in the note is not written twice. Once every record is
 * committed the file is emptied, so it stays as small as the work in flight.
 */
export class AddJournal {
  readonly file: string;
  private readonly records = new Map<string, State>();
  /** Appends in order: a mark never lands before the add it marks */
  private tail: Promise<void> = Promise.resolve();
  /** An add's line was written and no fsync has kept it yet */
  private unsynced = false;
  private closed = false;

  private constructor(file: string) {
    this.file = file;
  }

  /**
   * Reads what an earlier process left; a torn last line (a kill mid-append) is skipped. A file
   * whose every add was committed (a kill after the last `committed` line, before the file was
   * emptied) is emptied now: a server counts a journal with anything in it as work a killed
   * predecessor left, and nothing else would ever empty it.
   */
  static async open(file: string): Promise<AddJournal> {
    const journal = new AddJournal(file);
    const text = await readRegularText(file).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return '';
      throw error;
    });
    journal.replay(text);
    if (text !== '' && journal.records.size === 0) await journal.compact();
    return journal;
  }

  private replay(text: string): void {
    for (const raw of text.split('\n')) {
      if (raw.trim() === '') continue;
      let line: Line;
      try {
        line = JSON.parse(raw) as Line;
      } catch {
        continue;
      }
      this.apply(line);
    }
  }

  private apply(line: Line): void {
    if ('add' in line) this.records.set(line.add.id, { record: line.add });
    else if ('planned' in line) {
      const state = this.records.get(line.planned);
      if (state) {
        state.planned ??= new Map();
        state.planned.set(line.path, line.lines);
      }
    } else if ('written' in line) {
      const state = this.records.get(line.written);
      if (state) {
        state.paths = line.paths;
        state.lines = line.lines;
      }
    } else if ('committed' in line) for (const id of line.committed) this.records.delete(id);
  }

  /**
   * The journal's file, opened once and kept open across adds (three opens, fstats and closes per
   * add, each a round trip through the thread pool, were most of the journal's cost). Checked
   * before each line: a file renamed over or unlinked since it was opened (our own compaction,
   * another process's) has no links left, and is opened again by name, as every line once was.
   */
  private fd: number | undefined;

  private openFd(): number {
    if (this.fd !== undefined) {
      let links = 0;
      try {
        links = fstatSync(this.fd).nlink;
      } catch {
        // Closed under us: opened again below.
      }
      if (links > 0) return this.fd;
      this.closeFd();
    }
    let fd: number;
    try {
      fd = openRegularFileSync(this.file, 'append');
    } catch (error) {
      // The folder is made when the file cannot be opened for want of it, not looked for each line.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      mkdirSync(dirname(this.file), { recursive: true });
      fd = openRegularFileSync(this.file, 'append');
    }
    this.fd = fd;
    return fd;
  }

  private closeFd(): void {
    if (this.fd === undefined) return;
    const fd = this.fd;
    this.fd = undefined;
    try {
      closeSync(fd);
    } catch {
      // Already closed: nothing held.
    }
  }

  private write(line: Line, sync: boolean | 'later'): Promise<void> {
    const run = this.tail.then(async () => {
      const fd = this.openFd();
      try {
        // A line of a few hundred bytes into the page cache: written here, not on the thread pool.
        writeAllSync(fd, `${JSON.stringify(line)}\n`);
        // An fsync keeps every line written before it too (see add).
        if (sync === true) await fsyncDescriptor(fd);
      } catch (error) {
        // Whatever failed (a full disk, a closed descriptor), the next line opens the file again.
        this.closeFd();
        throw error;
      }
      // A line after close (a commit that was in flight) still lands; the file is not kept open.
      if (this.closed) this.closeFd();
      if (sync === true) this.unsynced = false;
      else if (sync === 'later') this.unsynced = true;
      // For the crash tests: each line kept, and what it says not acted on yet.
      crashPoint();
      this.apply(line);
    });
    this.tail = run.catch(() => undefined);
    return run;
  }

  /**
   * Closes the journal's file once every line asked for so far is written; a later line opens it
   * again for itself (nothing accepted is refused for want of a descriptor).
   */
  close(): Promise<void> {
    const run = this.tail.then(() => {
      this.closed = true;
      this.closeFd();
    });
    this.tail = run.catch(() => undefined);
    return run;
  }

  /**
   * Keeps `record` in the journal; on disk (fsync) once `sync` resolves, which the caller awaits
   * before anyone is told it was accepted. Not synced here: the add's write syncs the journal
   * anyway before it appends (markPlanned), and that one fsync keeps both lines.
   */
  add(record: JournalRecord): Promise<void> {
    return this.write({ add: record }, 'later');
  }

  /** Every line written so far is on disk (an fsync, when an add's line is not yet). */
  sync(): Promise<void> {
    const run = this.tail.then(async () => {
      if (!this.unsynced) return;
      // The descriptor the lines went through (or, replaced since, the file as it is now).
      const fd = this.openFd();
      try {
        await fsyncDescriptor(fd);
      } catch (error) {
        this.closeFd();
        throw error;
      }
      this.unsynced = false;
    });
    this.tail = run.catch(() => undefined);
    return run;
  }

  /**
   * The entries of add `id` are about to be appended as `lines` to `path` (fsync, before the
   * append): idempotency belongs to the request, so a replay looks for these lines, with their
   * own block ids, never for an entry of the same text.
   */
  markPlanned(id: string, path: string, lines: string[]): Promise<void> {
    return this.write({ planned: id, path, lines }, true);
  }

  /** What add `id` was about to be written as (note → lines), when a mark says */
  plannedOf(id: string): ReadonlyMap<string, string[]> | undefined {
    return this.records.get(id)?.planned;
  }

  /** Its entries are in the vault's notes (not yet committed). */
  markWritten(id: string, paths: string[], lines?: Array<[path: string, line: string]>): Promise<void> {
    return this.write({ written: id, paths, ...(lines ? { lines } : {}) }, false);
  }

  /** Their entries are committed: they leave the journal, which is emptied once nothing is left. */
  async markCommitted(ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.write({ committed: ids }, false);
    if (this.records.size === 0) await this.compact();
  }

  private compact(): Promise<void> {
    const run = this.tail.then(async () => {
      if (this.records.size > 0) return;
      const temp = `${this.file}.tmp`;
      await writeFile(temp, '');
      crashPoint();
      await rename(temp, this.file);
      // The descriptor held names the file renamed over: the next line opens the empty one.
      this.closeFd();
    });
    this.tail = run.catch(() => undefined);
    return run;
  }

  /** Accepted adds whose entries are not in the notes yet, oldest first */
  unwritten(): JournalRecord[] {
    return [...this.records.values()].filter((s) => !s.paths).map((s) => s.record);
  }

  /** Written adds waiting for their commit: id → the notes they went to */
  uncommitted(): Map<string, string[]> {
    return new Map(
      [...this.records].flatMap(([id, s]) => (s.paths ? [[id, s.paths] as [string, string[]]] : [])),
    );
  }

  /**
   * The lines the uncommitted adds wrote, per note, oldest first; a note is left out when an add
   * that went to it does not know its lines (journaled by an older version): commit it whole.
   */
  uncommittedLines(): Map<string, string[]> {
    const byPath = new Map<string, string[]>();
    const unknown = new Set<string>();
    for (const state of this.records.values()) {
      if (!state.paths) continue;
      if (!state.lines) for (const path of state.paths) unknown.add(path);
      for (const [path, line] of state.lines ?? []) {
        const lines = byPath.get(path);
        if (lines) lines.push(line);
        else byPath.set(path, [line]);
      }
    }
    for (const path of unknown) byPath.delete(path);
    return byPath;
  }
}
