import type { MemConfig } from '../core/config/config.js';
import { MemError } from '../core/errors.js';
import type { Note } from '../core/types.js';
import type { WriteCommit } from '../git/commit-write.js';
import type { VaultIndex } from '../indexing/vault-index.js';
import { addDays, parseIsoDay, periodDays } from '../time/calendar-day.js';
import { parseInstant } from '../time/parse-instant.js';
import { dayOf, isoWithOffset } from '../time/zoned-date.js';
import { archivePath, dayOfPath, type VaultLayout } from '../vault/layout.js';
import { PlannedNames } from '../vault/links/name-rules.js';
import { setFrontmatterKeys } from '../vault/markdown/edit-frontmatter.js';
import { findOnDisk } from '../vault/paths.js';
import { importanceOf, isRetired } from '../vault/section-facts.js';
import { updateFile } from '../vault/write-note.js';
import { checkNewNotePath, checkNoTwin, moveNote } from './move-note.js';
import { underPlan, withPlan } from './write-plan.js';

export interface ForgetStaleOptions {
  /** List what would move and lose importance; write nothing (default: false) */
  dryRun?: boolean;
  /** The run's moment (default: now) */
  now?: Date;
}

export interface ForgetStaleResult extends WriteCommit {
  dryRun: boolean;
  /** Episodes moved (or, in a dry run, that would move) to `archive/`, with the rollup that covers each */
  archived: Array<{ path: string; to: string; coveredBy: string }>;
  /** Insights whose importance was lowered */
  lowered: Array<{ path: string; from: number; to: number }>;
  /** Every vault path written or deleted */
  paths: string[];
}

const isRollup = (note: Note | undefined) => note?.frontmatter['type'] === 'rollup';

/** The key of a `forget --stale` run's plan (see write-plan.ts): a re-run after a kill joins it. */
const STALE_PLAN = 'forget --stale';

/** The day a daily note is about: its `date`, else its name under the layout. */
function dayOfNote(note: Note, layout: VaultLayout): string | undefined {
  const date = String(note.frontmatter['date'] ?? '');
  if (parseIsoDay(date)) return date;
  return dayOfPath(note.path, layout);
}

/**
 * Links that keep an episode in place: any but a rollup's (a rollup links every day it covers)
 * and an insight's `sources` (provenance, which still resolves once the day is archived).
 */
function isLinked(index: VaultIndex, path: string): boolean {
  return index.graph
    .backlinks(path)
    .some(
      (edge) =>
        edge.from !== path && !isRollup(index.notes.get(edge.from)) && edge.link.property !== 'sources',
    );
}

/** Stale daily episodes: older than the configured age, covered by a rollup, linked by nothing else. */
function staleEpisodes(index: VaultIndex, cutoff: string): ForgetStaleResult['archived'] {
  const rollups = [...index.notes.values()]
    .filter((n) => n.layer === 'episodes' && isRollup(n) && !isRetired(n))
    .flatMap((note) => {
      const period = periodDays(String(note.frontmatter['period'] ?? ''));
      return period ? [{ path: note.path, ...period }] : [];
    });
  // A daily note a person also writes in (the layout names mem's heading in it) is the person's
  // journal: it stays where their calendar finds it, whatever mem's entries in it are worth.
  if (index.layout.daily.heading) return [];
  return [...index.notes.values()]
    .filter((n) => dayOfPath(n.path, index.layout) !== undefined && !isRetired(n) && !isRollup(n))
    .flatMap((note) => {
      const day = dayOfNote(note, index.layout);
      if (!day || day >= cutoff || isLinked(index, note.path)) return [];
      const cover = rollups.find((r) => r.from <= day && day <= r.to);
      return cover
        ? [{ path: note.path, to: archivePath(note.path, index.layout), coveredBy: cover.path }]
        : [];
    })
    .sort((a, b) => (a.path < b.path ? -1 : 1));
}

/** The latest of the moments an insight was written, recalled or last lowered, as epoch ms. */
function lastTouched(note: Note, timeZone: string): number | undefined {
  const times = ['recalled', 'decayed', 'updated', 'created'].flatMap((key) => {
    const at = parseInstant(String(note.frontmatter[key] ?? ''), timeZone);
    return at ? [at.getTime()] : [];
  });
  return times.length > 0 ? Math.max(...times) : undefined;
}

/** Insights every cited source of which is archived, untouched for `unrecalledDays`. */
function fadingInsights(
  index: VaultIndex,
  config: MemConfig,
  archived: Set<string>,
  now: Date,
): ForgetStaleResult['lowered'] {
  const { unrecalledDays, importanceFactor } = config.forget;
  const before = now.getTime() - unrecalledDays * 86_400_000;
  return [...index.notes.values()]
    .filter((n) => n.layer === 'insights' && !isRetired(n))
    .flatMap((note) => {
      const sources = index.graph.outEdges(note.path).filter((e) => e.link.property === 'sources');
      if (sources.length === 0) return [];
      const gone = sources.every(
        (e) => e.to !== undefined && (archived.has(e.to) || index.notes.get(e.to)?.layer === 'archive'),
      );
      const touched = lastTouched(note, config.timezone);
      if (!gone || (touched !== undefined && touched > before)) return [];
      const from = importanceOf(note);
      const to = Math.round(from * importanceFactor * 100) / 100;
      return to < from ? [{ path: note.path, from, to }] : [];
    })
    .sort((a, b) => (a.path < b.path ? -1 : 1));
}

/**
 * `mem forget --stale`: old daily episodes that a rollup covers and nothing else links to move
 * to `archive/` (links that remain still resolve there), and insights whose sources were all
 * archived and that have not been touched for a while lose importance. Nothing is deleted, and the
 * whole run is one commit, so `mem undo` takes it back.
 */
export function forgetStale(
  root: string,
  config: MemConfig,
  index: VaultIndex,
  options: ForgetStaleOptions & { now: Date },
): Promise<ForgetStaleResult> {
  // One plan in three steps (record, the moves, the rest with the commit): see withPlan.
  return withPlan(root, STALE_PLAN, () => forgetStaleSteps(root, config, index, options));
}

async function forgetStaleSteps(
  root: string,
  config: MemConfig,
  index: VaultIndex,
  options: ForgetStaleOptions & { now: Date },
): Promise<ForgetStaleResult> {
  const days = config.forget.staleAfterDays;
  if (days === undefined) {
    throw new MemError(
      'INVALID_ARGUMENT',
      'mem forget --stale is off: set forget.staleAfterDays in mem.config.json (e.g. 180) to archive old episodes that a rollup covers',
    );
  }
  const { now } = options;
  const cutoff = addDays(dayOf(now, config.timezone), -days);
  const archived = staleEpisodes(index, cutoff);
  const lowered = fadingInsights(index, config, new Set(archived.map((a) => a.path)), now);
  if (options.dryRun) {
    return {
      dryRun: true,
      archived,
      lowered,
      paths: [],
      committed: false,
      code: 'dry-run',
      reason: 'dry run',
    };
  }
  // The whole plan is checked before its first write: a name refused half-way would leave part
  // of the run done.
  const names = new PlannedNames();
  for (const item of archived) {
    await checkNoTwin(root, item.path);
    await checkNewNotePath(root, item.to, item.path);
    const problem = names.claim(item.to);
    if (problem) throw new MemError('INVALID_PATH', `${item.to}: ${problem}; nothing was written`);
  }
  const stamp = isoWithOffset(now, config.timezone);
  const paths: string[] = [];
  const message = (episodes: number, insights: number) =>
    `mem: forget --stale: ${episodes} episode${episodes === 1 ? '' : 's'} archived, ${insights} insight${insights === 1 ? '' : 's'} lowered`;
  // Recorded before the first write, and grown by each move with the links it rewrites: a kill
  // anywhere leaves a record, and the next run commits the whole plan as one change.
  const whole = message(archived.length, lowered.length);
  // Each move takes the lock itself (moveNote), so the plan's steps are three: record, moves, the
  // lowered insights with the one commit.
  await underPlan(root, config, STALE_PLAN, (plan) =>
    plan.record(
      [...archived.flatMap((item) => [item.path, item.to]), ...lowered.map((item) => item.path)],
      whole,
    ),
  );
  let moves = 0;
  try {
    for (const item of archived) {
      paths.push(...(await archiveOne(item)));
      moves++;
    }
  } catch (error) {
    // What moved before the failure is committed, so one `mem undo` still takes the run back.
    await underPlan(root, config, STALE_PLAN, (plan) => plan.commit(paths, message(moves, 0)));
    throw error;
  }
  async function archiveOne(item: ForgetStaleResult['archived'][number]): Promise<string[]> {
    const moved = await moveNote(root, config, index, item.path, item.to, {
      commit: false,
      plan: STALE_PLAN,
      message: whole,
      transform: (text) =>
        setFrontmatterKeys(
          text,
          {
            status: 'archived',
            archived: stamp,
            archived_reason: `stale: older than ${days} days, covered by ${item.coveredBy}`,
          },
          { label: item.path },
        ),
    });
    return moved.paths;
  }
  const made = await underPlan(root, config, STALE_PLAN, async (plan) => {
    for (const item of lowered) {
      const result = await updateFile(
        await findOnDisk(root, item.path),
        (text) =>
          // A note gone since it was indexed is left alone (undefined: no change).
          text === undefined
            ? undefined
            : setFrontmatterKeys(text, { importance: item.to, decayed: stamp }, { label: item.path }),
        { label: item.path },
      );
      if (result.changed) paths.push(item.path);
    }
    // Made even when this run wrote nothing: a killed run's plan may be waiting for its commit.
    return plan.commit(paths, whole);
  });
  const commit: WriteCommit =
    made.committed || paths.length > 0
      ? made
      : { committed: false, code: 'nothing-to-write', reason: 'nothing stale' };
  return { dryRun: false, archived, lowered, paths: [...new Set(paths)], ...commit };
}
