import { type MemConfig, speakerName } from '../../core/config/config.js';
import { MemError } from '../../core/errors.js';
import type { DeriveContent } from '../../git/commit-paths.js';
import type { WriteCommit } from '../../git/commit-write.js';
import { readPendingPlan } from '../../git/pending-plan.js';
import { dayOf, timeOfDay } from '../../time/zoned-date.js';
import { dailyNotePath, layoutOf } from '../../vault/layout.js';
import { entryText } from '../../vault/markdown/entry-text.js';
import { resolveInVault } from '../../vault/paths.js';
import { hashText, readForWrite } from '../../vault/write-note.js';
import { redactSecrets } from '../redact/redact.js';
import { appendToDay, type DayEntry } from '../remember.js';
import { underPlan, withPlan } from '../write-plan.js';
import { parseTranscript, type TranscriptTurn } from './parse-transcript.js';

export interface IngestOptions {
  /** Display name for the file in messages and the commit */
  name: string;
  /** When turns without a timestamp happened (default: now) */
  at?: Date;
  noRedact?: boolean;
  /** Called after each day is written: days done, days in all */
  onProgress?: (done: number, total: number) => void;
  /** The command named in the commit message and the write plan (default: `ingest`) */
  verb?: string;
}

/** A turn to write; `day` (YYYY-MM-DD) and `time` (HH:MM) place a turn that has only a date, as a journal's. */
export interface IngestTurn extends TranscriptTurn {
  day?: string;
  time?: string;
}

export interface IngestResult extends WriteCommit {
  added: number;
  /** Turns already in the vault from an earlier import */
  skipped: number;
  /** Daily notes that received entries */
  days: string[];
  paths: string[];
  redacted: number;
}

/**
 * A block id derived from the turn itself, so importing the same transcript twice finds the ids
 * already written and adds nothing. The occurrence number keeps repeated identical turns apart.
 */
function ingestId(speaker: string, text: string, at: string, occurrence: number): string {
  const hash = hashText(`${speaker}\0${text}\0${at}\0${occurrence}`);
  return `i${hash.slice(0, 10)}`;
}

/** Refuses (INVALID_ARGUMENT) a day note that is there but is no regular text file mem can append to. */
async function checkDayNote(root: string, path: string): Promise<void> {
  const { abs, rel } = await resolveInVault(root, path);
  await readForWrite(abs)
    .then((read) => read?.text)
    .catch((error: NodeJS.ErrnoException) => {
      throw new MemError(
        'INVALID_ARGUMENT',
        `${rel} cannot be appended to (${error.code ?? error.message}); nothing was written`,
      );
    });
}

/** Imports a transcript into daily episode notes, one entry per turn, grouped by local date. */
export async function ingest(
  root: string,
  config: MemConfig,
  text: string,
  options: IngestOptions,
): Promise<IngestResult> {
  return await ingestTurns(root, config, parseTranscript(text, options.name, config.timezone), options);
}

/**
 * Writes turns into daily episode notes, one entry per turn, grouped by local date, in one commit.
 * Each entry's block id is derived from the turn, so a second run over the same turns adds nothing.
 */
export function ingestTurns(
  root: string,
  config: MemConfig,
  turns: IngestTurn[],
  options: IngestOptions,
): Promise<IngestResult> {
  // One plan whose days each take the lock: see withPlan.
  return withPlan(root, `${options.verb ?? 'ingest'} ${options.name}`, () =>
    ingestSteps(root, config, turns, options),
  );
}

async function ingestSteps(
  root: string,
  config: MemConfig,
  turns: IngestTurn[],
  options: IngestOptions,
): Promise<IngestResult> {
  const fallback = options.at ?? new Date();
  const byDay = new Map<string, DayEntry[]>();
  const seen = new Map<string, number>();
  let redacted = 0;
  for (const turn of turns) {
    // A turn of only control characters (a stray ESC) keeps no text: no empty entry for it.
    if (entryText(turn.text) === '') continue;
    const at = turn.at ?? fallback;
    const day = turn.day ?? dayOf(at, config.timezone);
    // A dated turn without an instant is told apart by its day, as a timed one is by its instant.
    const when = turn.at?.toISOString() ?? (turn.day ? `${turn.day} ${turn.time ?? ''}` : '');
    const key = `${turn.speaker ?? ''}\0${turn.text}\0${when}`;
    const occurrence = (seen.get(key) ?? 0) + 1;
    seen.set(key, occurrence);
    const clean = options.noRedact ? { text: turn.text, redactions: [] } : redactSecrets(turn.text);
    redacted += clean.redactions.length;
    const entry: DayEntry = {
      text: clean.text,
      time: turn.at ? timeOfDay(at, config.timezone) : (turn.time ?? timeOfDay(at, config.timezone)),
      speaker: speakerName(config, turn.speaker),
      blockId: ingestId(turn.speaker ?? '', turn.text, when, occurrence),
    };
    // Pushed, not copied: a copy per turn made a day of 20,000 imported turns cost 4.4 s here.
    const list = byDay.get(day);
    if (list) list.push(entry);
    else byDay.set(day, [entry]);
  }
  const days = [...byDay.keys()].sort();
  let added = 0;
  const touched: string[] = [];
  const paths: string[] = [];
  const derived = new Map<string, DeriveContent>();
  // Recorded before the first append: a run killed part-way is committed whole by the next run.
  const verb = options.verb ?? 'ingest';
  const plan = `${verb} ${options.name}`;
  const message = (count: number) => `mem: ${verb} ${options.name} (${count} entries)`;
  // Each day's append takes the write lock itself (appendToDay): the record and the commit each
  // take it too (see write-plan.ts).
  // A plan of this name left by a killed run: then a re-run that adds nothing still commits it.
  const leftover = (await readPendingPlan(root, plan)) !== undefined;
  // Checked whole before the first write: a day whose note cannot be appended to (a folder or a
  // link in its place, a file that is not text) stops the run before any day is written, so a
  // late day never leaves the earlier ones behind for the next command to commit.
  for (const day of days) await checkDayNote(root, dailyNotePath(day, layoutOf(config)));
  if (days.length > 0)
    await underPlan(root, config, plan, (steps) =>
      steps.record(
        days.map((day) => dailyNotePath(day, layoutOf(config))),
        message(turns.length),
      ),
    );
  for (const [i, day] of days.entries()) {
    const { path, ids, derive } = await appendToDay(root, config, day, byDay.get(day) ?? []);
    if (ids.length > 0) {
      added += ids.length;
      touched.push(day);
      paths.push(path);
      derived.set(path, derive);
    }
    options.onProgress?.(i + 1, days.length);
  }
  // Made even when nothing is new: a run killed before its commit may have left its plan.
  const made = await underPlan(root, config, plan, (steps) => steps.commit(paths, message(added), derived));
  // This run's own record of days that gained nothing is no commit of its own: say nothing was new.
  const commit: WriteCommit =
    paths.length > 0 || (made.committed && leftover)
      ? made
      : { committed: false, code: 'nothing-to-write', reason: 'nothing new' };
  return { added, skipped: turns.length - added, days: touched, paths, redacted, ...commit };
}
