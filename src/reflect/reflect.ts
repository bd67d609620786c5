import type { MemConfig } from '../core/config.js';
import type { Note } from '../core/types.js';
import { commitWrite, type WriteCommit } from '../git/commit-write.js';
import type { VaultIndex } from '../indexing/vault-index.js';
import { parseDay } from '../time/calendar-day.js';
import { parseInstant } from '../time/parse-instant.js';
import { dayOf, isDayOver } from '../time/zoned-date.js';
import { withVaultLock } from '../vault/lock.js';
import {
  applyChanges,
  type PlannedFile,
  planChanges,
  planExpiry,
  previewChanges,
} from './apply-operations.js';
import { buildPrompt, episodeSources, touchedNotes } from './build-prompt.js';
import type { Llm } from './llm.js';
import type { Operation } from './operations.js';
import { type Rejected, validateOperations } from './validate-operations.js';

export interface ReflectOptions {
  /** Print what would change; write nothing (default: false) */
  dryRun?: boolean;
  /** Episode notes per run, oldest first (default: 7) */
  maxEpisodes?: number;
  /** The run's moment (default: now) */
  now?: Date;
}

export interface ReflectResult extends WriteCommit {
  /** `offline`: the extractive rules ran (no model configured, or only commitments were asked for) */
  mode?: 'llm' | 'offline';
  /** Pending commitments whose due day had passed, now written as expired */
  expired?: number;
  episodes: string[];
  accepted: Operation[];
  rejected: Rejected[];
  /** Files written (or, in a dry run, that would be) */
  files: string[];
  /** Dry run only: each file before and after */
  preview?: PlannedFile[];
}

/**
 * Daily notes that have entries reflect has not seen: never reflected, or reflected before the
 * day was over in the vault's time zone (entries may have come after).
 */
export function pendingEpisodes(index: VaultIndex, max: number, timeZone: string): Note[] {
  return [...index.notes.values()]
    .filter((note) => note.layer === 'episodes' && note.path.startsWith('episodes/daily/'))
    .filter((note) => note.sections.some((s) => s.kind === 'block'))
    .filter((note) => {
      const reflected = note.frontmatter['reflected'];
      const date = note.sections.find((s) => s.date)?.date;
      if (typeof reflected !== 'string' || !date || !parseDay(date))
        return reflected === undefined || reflected === null;
      const at = parseInstant(reflected, timeZone);
      return at !== undefined && !isDayOver(date, at, timeZone);
    })
    .sort((a, b) => (a.path < b.path ? -1 : 1))
    .slice(0, max);
}

/** A run with no new episodes still writes the expiry of passed commitments (no model call). */
async function expireOnly(
  root: string,
  config: MemConfig,
  index: VaultIndex,
  now: Date,
  dryRun: boolean | undefined,
  empty: ReflectResult,
): Promise<ReflectResult> {
  const reason = 'no new episodes to reflect on';
  const plan = new Map();
  const expired = planExpiry(plan, index, dayOf(now, config.timezone));
  if (expired === 0 || dryRun) return { ...empty, mode: 'llm', expired, reason };
  const { written } = await withVaultLock(root, () => applyChanges(root, plan));
  const commit =
    written.length > 0
      ? await commitWrite(
          root,
          config,
          written,
          `mem: reflect: ${expired} commitment${expired === 1 ? '' : 's'} expired`,
        )
      : { committed: false, reason };
  return { ...empty, mode: 'llm', expired, files: written, ...commit };
}

/**
 * One reflection run: the model reads new episodes and the notes they touch and proposes
 * operations; each is validated, then all are applied with atomic, conflict-checked writes and
 * committed once. A model failure writes nothing.
 */
export async function reflect(
  root: string,
  config: MemConfig,
  index: VaultIndex,
  llm: Llm,
  options: ReflectOptions = {},
): Promise<ReflectResult> {
  const now = options.now ?? new Date();
  const episodes = pendingEpisodes(index, options.maxEpisodes ?? 7, config.timezone);
  const empty: ReflectResult = { episodes: [], accepted: [], rejected: [], files: [], committed: false };
  if (episodes.length === 0) return expireOnly(root, config, index, now, options.dryRun, empty);

  const input = { episodes, notes: touchedNotes(index, episodes), sources: episodeSources(index, episodes) };
  const prompt = await buildPrompt(root, index, input);
  const answer = await llm.completeJson(prompt, 'Return the operations JSON object now.');
  const { accepted, rejected } = await validateOperations(answer, {
    root,
    index,
    sources: input.sources,
    episodes: new Set(episodes.map((e) => e.path)),
    allowPersonaEdits: config.allowPersonaEdits,
    today: dayOf(now, config.timezone),
  });
  const plan = planChanges(accepted, index, now, config.timezone);
  const expired = planExpiry(plan, index, dayOf(now, config.timezone));
  const base = { mode: 'llm' as const, episodes: episodes.map((e) => e.path), accepted, expired };

  if (options.dryRun) {
    const { files, skipped } = await previewChanges(root, plan);
    return {
      ...base,
      rejected: [...rejected, ...skipped],
      files: files.map((f) => f.path),
      preview: files,
      committed: false,
      reason: 'dry run',
    };
  }
  const { written, skipped } = await withVaultLock(root, () => applyChanges(root, plan));
  const commit =
    written.length > 0
      ? await commitWrite(
          root,
          config,
          written,
          `mem: reflect ${episodes.length} episode${episodes.length === 1 ? '' : 's'}, ${accepted.length - skipped.length} operations`,
        )
      : { committed: false, reason: 'nothing to write' };
  return { ...base, rejected: [...rejected, ...skipped], files: written, ...commit };
}
