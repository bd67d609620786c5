import { commitmentKey, parseCommitments } from '../compile/commitments.js';
import type { MemConfig } from '../core/config/config.js';
import type { VaultIndex } from '../indexing/vault-index.js';
import { parseIsoDay } from '../time/calendar-day.js';
import { dayOf } from '../time/zoned-date.js';
import { commitmentsPath } from '../vault/layout.js';
import { setFrontmatterKeys } from '../vault/markdown/edit-frontmatter.js';
import { runWritePlan } from '../write/write-plan.js';
import { applyChanges, ENGINE_STEP, planChanges, planExpiry, previewWrites } from './apply-operations.js';
import { commitmentSpeakers, extractCommitments } from './extract-commitments.js';
import { nearDuplicateInsights } from './near-duplicate-insights.js';
import { MAX_OPERATIONS, type Operation } from './operations.js';
import { planOutcome } from './plan-outcome.js';
import type { ReflectOptions, ReflectResult } from './reflect.js';
import { type Rejected, validateOperations } from './validate-operations.js';

/** The key of an offline reflect run's plan (see write-plan.ts): a re-run after a kill joins it. */
const OFFLINE_PLAN = 'reflect offline';

export interface OfflineReflectOptions extends Pick<ReflectOptions, 'dryRun' | 'now'> {
  /** Only commitments (extraction and expiry), no consolidation (default: false) */
  commitmentsOnly?: boolean;
}

/**
 * Reflection without a model: the extractive rules. Explicit commitments in the entries since the
 * last scan go to `profile/commitments.md`, passed ones expire, and (unless `commitmentsOnly`)
 * near-identical insights are merged. The rules propose operations that go through the same
 * validation and compare-and-swap writes as a model's, and one commit.
 */
export async function reflectOffline(
  root: string,
  config: MemConfig,
  index: VaultIndex,
  options: OfflineReflectOptions & { now: Date },
): Promise<ReflectResult> {
  const { now } = options;
  const today = dayOf(now, config.timezone);
  const commitmentsNote = commitmentsPath(index.layout);
  const note = index.notes.get(commitmentsNote);
  // Entries from the day of the last scan on: a commitment a person deleted by hand from the file
  // does not come back, while entries added later on that day are still read.
  const scanned = String(note?.frontmatter['scanned'] ?? '');
  const from = parseIsoDay(scanned) ? scanned : '';
  // Already on file (any status), or already said for that day: re-runs propose nothing for them.
  const onFile = (note?.sections ?? []).flatMap((section) => parseCommitments(section.text));
  const known = new Set([...onFile.map((c) => c.source), ...onFile.map(commitmentKey)]);
  // One whose day has passed is a memory, not something to keep: the entry still holds it, and a
  // first run over a year of entries would otherwise fill the file with expired lines.
  const found = extractCommitments(index, from, today, commitmentSpeakers(index, config)).filter((c) => {
    if (c.due < today || known.has(c.source) || known.has(commitmentKey(c))) return false;
    known.add(commitmentKey(c));
    return true;
  });
  const operations: unknown[] = found.map((c) => ({
    op: 'add_commitment',
    due: c.due,
    who: c.who,
    what: c.what,
    sources: [c.source],
  }));
  if (!options.commitmentsOnly) {
    for (const pair of nearDuplicateInsights(index))
      operations.push({ op: 'merge_insights', keep: pair.keep, duplicate: pair.duplicate });
  }
  const context = {
    root,
    index,
    sources: new Set(found.map((c) => c.source)),
    episodes: new Set<string>(),
    allowPersonaEdits: false,
    today,
  };
  // In batches: the cap on one answer is for a model, and a first run over a year of entries
  // finds more; a commitment left out now would never be read again (the scan moves on).
  const accepted: Operation[] = [];
  const rejected: Rejected[] = [];
  for (let at = 0; at < operations.length; at += MAX_OPERATIONS) {
    const batch = await validateOperations(
      { operations: operations.slice(at, at + MAX_OPERATIONS) },
      context,
    );
    accepted.push(...batch.accepted);
    rejected.push(...batch.rejected.map((r) => ({ ...r, index: r.index + at })));
  }
  const plan = planChanges(accepted, index, now, config.timezone);
  const expired = planExpiry(plan, index, today);
  const commitments = plan.get(commitmentsNote);
  // The scan day is written only along with a change to the file, so a run that finds nothing
  // writes nothing.
  if (commitments)
    commitments.steps.push({
      index: ENGINE_STEP,
      apply: (text) => setFrontmatterKeys(text, { scanned: today }, { label: commitmentsNote }),
    });
  const base = {
    mode: 'offline' as const,
    episodes: [...new Set(found.map((c) => c.note.path))],
    accepted,
    expired,
  };
  const added = accepted.filter((op) => op.op === 'add_commitment').length;
  const merged = accepted.length - added;
  const run = await runWritePlan(root, config, {
    key: OFFLINE_PLAN,
    dryRun: options.dryRun,
    preview: () => previewWrites(root, plan),
    paths: [...plan.keys()],
    message: `mem: reflect offline: ${added} commitment${added === 1 ? '' : 's'}, ${expired} expired, ${merged} merged`,
    apply: () => applyChanges(root, plan),
    nothing: 'nothing new: no commitment, expiry or duplicate found',
  });
  return { ...base, ...planOutcome(run, accepted.length, rejected) };
}
