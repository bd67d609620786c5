// `mem reflect --rollup`: writes the rollup of each finished period asked for, weeks from days,
// months from weeks, quarters from months, years from quarters. With a model the rollup is
// written by it; without one it is extractive. A rollup that exists is left alone unless forced,
// and one that was edited by hand is never regenerated over.

import { rollupNotes } from '../../compile/fold-rollups.js';
import type { MemConfig } from '../../core/config/config.js';
import { MemError } from '../../core/errors.js';
import type { WriteCommit } from '../../git/commit-write.js';
import type { VaultIndex } from '../../indexing/vault-index.js';
import type { Llm } from '../../models/llm.js';
import { oldestEntryDate } from '../../recall/episode-entries.js';
import { addDays, periodDays } from '../../time/calendar-day.js';
import {
  periodOf,
  periodsBetween,
  ROLLUP_LEVELS,
  type RollupLevel,
  rollupPath,
} from '../../time/rollup-period.js';
import { dayOf, isoWithOffset } from '../../time/zoned-date.js';
import { newNameProblem } from '../../vault/links/name-rules.js';
import { findOnDisk } from '../../vault/paths.js';
import { readForWrite, writeAtomic } from '../../vault/write-note.js';
import { underPlan, withPlan } from '../../write/write-plan.js';
import { extractiveRollup } from './extractive-rollup.js';
import { llmRollup } from './llm-rollup.js';
import { rollupInput } from './rollup-input.js';
import { isUntouched, rollupNote } from './rollup-note.js';

export interface RollupOptions {
  /** The level to roll up; with `missing`, every level up to this one (default: year with `missing`) */
  level?: RollupLevel;
  /** Every finished period that has no rollup yet, oldest first, level by level (default: false) */
  missing?: boolean;
  /** Regenerate a rollup that exists, if mem wrote it and nobody edited it since (default: false) */
  force?: boolean;
  /** Write nothing; return the notes that would be written (default: false) */
  dryRun?: boolean;
  /** The run's moment: only periods that ended before its day, in the vault's time zone (default: now) */
  now?: Date;
}

export interface RollupWritten {
  period: string;
  path: string;
  generator: string;
  capsule: string;
  /** Model lines left out for citing what was not shown */
  dropped: string[];
  /** Dry run only: the note's text */
  text?: string;
}

export interface RollupResult extends WriteCommit {
  written: RollupWritten[];
  skipped: Array<{ period: string; path: string; reason: string }>;
  /** Files written (none in a dry run) */
  files: string[];
}

/** The key of a rollup run's plan (see write-plan.ts): a re-run after a kill joins it. */
const ROLLUP_PLAN = 'rollup';

/** Called after each level, so the next level reads the rollups just written. */
export type AfterLevel = (paths: string[]) => Promise<void>;

/** The periods to roll up at `level`: the one that ended last, or with `missing` every finished one. */
function periodsAt(index: VaultIndex, level: RollupLevel, today: string, missing: boolean): string[] {
  const current = periodOf(today, level);
  const currentDays = current ? periodDays(current) : undefined;
  if (!currentDays) return [];
  const lastDone = addDays(currentDays.from, -1);
  if (!missing) {
    const latest = periodOf(lastDone, level);
    return latest ? [latest] : [];
  }
  const first = oldestEntryDate(index);
  return first && first <= lastDone ? periodsBetween(first, lastDone, level) : [];
}

/**
 * Writes rollups for `options` (see RollupOptions). `llm` undefined means extractive. A model
 * failure stops the run: what was written before it is committed, then the error is thrown.
 */
export function rollup(
  root: string,
  config: MemConfig,
  index: VaultIndex,
  llm: Llm | undefined,
  options: RollupOptions & { now: Date },
  afterLevel: AfterLevel = async () => undefined,
): Promise<RollupResult> {
  // One plan whose steps wait on the model between writes: see withPlan.
  return withPlan(root, ROLLUP_PLAN, () => rollupSteps(root, config, index, llm, options, afterLevel));
}

async function rollupSteps(
  root: string,
  config: MemConfig,
  index: VaultIndex,
  llm: Llm | undefined,
  options: RollupOptions & { now: Date },
  afterLevel: AfterLevel,
): Promise<RollupResult> {
  const { now } = options;
  const today = dayOf(now, config.timezone);
  const top = options.level ?? (options.missing ? 'year' : undefined);
  if (!top)
    throw new MemError(
      'INVALID_ARGUMENT',
      'say which level to roll up (week, month, quarter or year) or ask for --missing',
    );
  const levels = options.missing ? ROLLUP_LEVELS.slice(0, ROLLUP_LEVELS.indexOf(top) + 1) : [top];
  const result: RollupResult = { written: [], skipped: [], files: [], committed: false };
  const generator = llm ? `llm:${llm.model}` : 'extractive';
  let failure: unknown;

  for (const level of levels) {
    const wroteHere: string[] = [];
    for (const period of periodsAt(index, level, today, options.missing === true)) {
      const path = rollupPath(period, index.layout.folders.episodes);
      if (!path) continue;
      const skip = (reason: string) => result.skipped.push({ period, path, reason });
      // A rollup of this period anywhere (hand-written ones may live elsewhere) counts as existing.
      const existing = rollupNotes(index).find((r) => r.name === period);
      const abs = await findOnDisk(root, path);
      const onDisk = await readForWrite(abs);
      if ((existing || onDisk) && !options.force) {
        if (!options.missing) skip(`${existing?.note.path ?? path} exists; --force regenerates it`);
        continue;
      }
      if (existing && existing.note.path !== path) {
        skip(`${existing.note.path} is the rollup of ${period}, written by hand; it is not regenerated`);
        continue;
      }
      if (onDisk && !isUntouched(onDisk.text)) {
        skip(`${path} was edited (or written by hand) since mem wrote it; it is not regenerated over`);
        continue;
      }
      // A twin on disk (`2026-w48.md` beside the `2026-W48.md` to write) would be one file on macOS.
      const nameIssue = onDisk ? undefined : await newNameProblem(root, path);
      if (nameIssue) {
        skip(`${path}: ${nameIssue}`);
        continue;
      }
      const input = rollupInput(index, period);
      if (!input || input.entries.length === 0) {
        if (!options.missing) skip(`no entries in ${period}`);
        continue;
      }
      let text: Awaited<ReturnType<typeof llmRollup>>;
      try {
        text = llm ? await llmRollup(root, input, llm) : { ...extractiveRollup(input), dropped: [] };
      } catch (error) {
        failure = error;
        break;
      }
      const note = rollupNote(
        {
          period,
          sources: input.parts.map((p) => p.cite),
          created: isoWithOffset(now, config.timezone),
          generator,
        },
        text,
      );
      const written = { period, path, generator, capsule: text.capsule, dropped: text.dropped };
      if (options.dryRun) {
        result.written.push({ ...written, text: note });
        continue;
      }
      try {
        // One write at a time under the lock: the model writes the next rollup without holding it.
        // Compare-and-swap: the file must still be the one checked above (or still not exist).
        await underPlan(root, config, ROLLUP_PLAN, async (plan) => {
          // Recorded first: a kill after this write leaves it to the next run's commit.
          await plan.record([path], `mem: rollup ${period} (${generator})`);
          await writeAtomic(abs, note, { expectedHash: onDisk?.hash ?? null, label: path });
        });
      } catch (error) {
        if (!(error instanceof MemError)) throw error;
        skip(error.message);
        continue;
      }
      result.written.push(written);
      wroteHere.push(path);
    }
    result.files.push(...wroteHere);
    if (wroteHere.length > 0) await afterLevel(wroteHere);
    if (failure !== undefined) break;
  }

  if (options.dryRun) {
    result.code = 'dry-run';
    result.reason = 'dry run';
  } else {
    const periods = result.written.map((w) => w.period);
    // Made even when this run wrote nothing: a killed run's rollups may be waiting for their commit.
    const message = `mem: rollup ${periods.length <= 4 ? periods.join(', ') : `${periods[0]} … ${periods[periods.length - 1]} (${periods.length})`} (${generator})`;
    const commit = await underPlan(root, config, ROLLUP_PLAN, (plan) => plan.commit(result.files, message));
    if (commit.committed || result.files.length > 0) Object.assign(result, commit);
    else {
      result.code = 'nothing-to-write';
      result.reason = 'nothing to write';
    }
  }
  if (failure !== undefined) throw failure;
  return result;
}
