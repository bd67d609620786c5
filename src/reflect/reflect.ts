import { countTokens } from '../compile/count-tokens.js';
import type { MemConfig } from '../core/config/config.js';
import { MemError } from '../core/errors.js';
import type { Note } from '../core/types.js';
import type { WriteCommit } from '../git/commit-write.js';
import { commitReviewBranch, committedText, type ReviewCommit } from '../git/review-branch.js';
import type { VaultIndex } from '../indexing/vault-index.js';
import { checkContextWindow } from '../models/context-window.js';
import type { Llm, LlmUsage } from '../models/llm.js';
import { citation } from '../recall/recall.js';
import { parseIsoDay } from '../time/calendar-day.js';
import { parseInstant } from '../time/parse-instant.js';
import { dayOf, isDayOver } from '../time/zoned-date.js';
import { dayOfPath } from '../vault/layout.js';
import { isDayEntry } from '../vault/section-facts.js';
import { runWritePlan } from '../write/write-plan.js';
import {
  applyChanges,
  type FileChange,
  type PlannedFile,
  planChanges,
  planExpiry,
  previewWrites,
} from './apply-operations.js';
import { buildPrompt, episodeSources, touchedNotes } from './build-prompt.js';
import { commitmentRole, commitmentSpeakers } from './extract-commitments.js';
import type { Operation } from './operations.js';
import { planOutcome } from './plan-outcome.js';
import { type BudgetState, readUsage, recordUsage, totalTokens } from './token-budget.js';
import { type Rejected, validateOperations } from './validate-operations.js';

export interface ReflectOptions {
  /** Print what would change; write nothing (default: false) */
  dryRun?: boolean;
  /** Episode notes per run, oldest first (default: 7) */
  maxEpisodes?: number;
  /** The run's moment (default: now) */
  now?: Date;
  /**
   * Commit the run on a new branch `mem/reflect-<day>` for a person to review and merge, leaving
   * the checked-out branch, HEAD and the files on disk as they are (default: false)
   */
  review?: boolean;
  /** Abandons the run: before the model answers, or after but before anything is written */
  signal?: AbortSignal;
  /** Receives warnings (a prompt larger than reflect.contextWindow) */
  onNotice?: (message: string) => void;
}

export interface ReflectResult extends WriteCommit {
  /** `offline`: the extractive rules ran (no model configured, or only commitments were asked for) */
  mode?: 'llm' | 'offline';
  /** Pending commitments whose due day had passed, now written as expired */
  expired?: number;
  episodes: string[];
  accepted: Operation[];
  /** Accepted operations that were (or, in a dry run, would be) written */
  applied: number;
  rejected: Rejected[];
  /** Files written (or, in a dry run, that would be) */
  files: string[];
  /** Dry run only: each file before and after */
  preview?: PlannedFile[];
  /** Tokens the model call used, when the API reported them */
  usage?: LlmUsage;
  /** The day's token count after this run, when `reflect.maxTokensPerDay` caps it */
  budget?: BudgetState;
  /** Set when the run was skipped before calling the model (the daily budget would be passed) */
  skipped?: string;
  /** --review: the branch the run was committed on */
  review?: ReviewCommit;
}

/** The cost line of a run: printed by `mem reflect`, and the body of its commit message. */
export function costLine(model: string, usage: LlmUsage | undefined): string {
  return usage
    ? `model ${model}: ${usage.promptTokens} prompt + ${usage.completionTokens} completion tokens`
    : `model ${model}: token usage not reported`;
}

/**
 * Daily notes that have entries reflect has not seen: never reflected, or reflected before the
 * day was over in the vault's time zone (entries may have come after). The person's own journal
 * of a day is its entries as much as mem's (isDayEntry).
 */
export function pendingEpisodes(index: VaultIndex, max: number, timeZone: string): Note[] {
  return [...index.notes.values()]
    .filter((note) => note.layer === 'episodes' && dayOfPath(note.path, index.layout) !== undefined)
    .filter((note) => note.sections.some((s) => isDayEntry(note, s)))
    .filter((note) => {
      const reflected = note.frontmatter['reflected'];
      const date = note.sections.find((s) => s.date)?.date;
      if (typeof reflected !== 'string' || !date || !parseIsoDay(date))
        return reflected === undefined || reflected === null;
      const at = parseInstant(reflected, timeZone);
      return at !== undefined && !isDayOver(date, at, timeZone);
    })
    .sort((a, b) => (a.path < b.path ? -1 : 1))
    .slice(0, max);
}

/**
 * For each entry shown to the model, by its citation: its speaker when they may state a
 * commitment (the user, the companion), else undefined.
 */
function commitmentSpeakerOf(index: VaultIndex, config: MemConfig, episodes: Note[]) {
  const speakers = commitmentSpeakers(index, config);
  const names = new Map<string, string>();
  for (const note of episodes)
    for (const section of note.sections)
      if (section.kind === 'block' && section.speaker && commitmentRole(section.speaker, speakers))
        names.set(citation(index, note.path, section.anchor), section.speaker);
  return (source: string) => names.get(source);
}

/** The key of a reflect run's plan (see write-plan.ts): a re-run after a kill joins it. */
const REFLECT_PLAN = 'reflect';

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
  const run = await runWritePlan(root, config, {
    key: REFLECT_PLAN,
    dryRun,
    preview: async () => undefined,
    paths: [...plan.keys()],
    message: `mem: reflect: ${expired} commitment${expired === 1 ? '' : 's'} expired`,
    apply: () => applyChanges(root, plan),
    nothing: reason,
  });
  if (run.dryRun) return { ...empty, mode: 'llm', expired, reason };
  return { ...empty, mode: 'llm', expired, files: run.applied.written, ...run.commit };
}

/**
 * The skip of a run whose prompt alone would pass `reflect.maxTokensPerDay` on `day`, or undefined
 * when there is no cap or the prompt fits in what is left.
 */
async function overBudget(
  root: string,
  config: MemConfig,
  day: string,
  estimate: number,
  empty: ReflectResult,
): Promise<ReflectResult | undefined> {
  const max = config.reflect.maxTokensPerDay;
  if (max > 0) {
    const used = totalTokens(await readUsage(root, day));
    if (used + estimate > max) {
      return {
        ...empty,
        budget: { day, used, max },
        skipped: `the daily budget would be passed: ${used} of reflect.maxTokensPerDay ${max} tokens used on ${day} (${config.timezone}), and this run's prompt alone is about ${estimate}; it resets at midnight, or raise reflect.maxTokensPerDay in mem.config.json`,
        reason: 'skipped: over the daily token budget',
      };
    }
  }
  return undefined;
}

/** The model's answer, with the tokens it reported recorded against `day` whatever the answer. */
async function askModel(
  root: string,
  llm: Llm,
  prompt: string,
  question: string,
  day: string,
  signal: AbortSignal | undefined,
): Promise<{ answer: unknown; usage: LlmUsage | undefined }> {
  let usage: LlmUsage | undefined;
  let answer: unknown;
  try {
    answer = await llm.completeJson(prompt, question, {
      signal,
      onUsage: (reported) => {
        usage = reported;
      },
    });
  } finally {
    // Counted even when the answer is unusable: the tokens were spent.
    if (usage) await recordUsage(root, day, usage);
  }
  return { answer, usage };
}

/** What every result of a run that asked the model says: its episodes, operations and cost. */
type RunBase = Pick<ReflectResult, 'mode' | 'episodes' | 'accepted' | 'expired' | 'usage' | 'budget'>;

/**
 * A --review run: the plan applied to the notes as the last commit has them, committed on a branch
 * `mem/reflect-<day>`; the checked-out branch and the files on disk stay as they are.
 */
async function commitForReview(
  root: string,
  plan: Map<string, FileChange>,
  base: RunBase,
  rejected: Rejected[],
  message: (applied: number) => string,
  day: string,
): Promise<ReflectResult> {
  const { accepted } = base;
  const { files: changed, skipped } = await previewWrites(root, plan, (path) => committedText(root, path));
  const rejectedAll = [...rejected, ...skipped];
  if (changed.length === 0)
    return {
      ...base,
      applied: 0,
      rejected: rejectedAll,
      files: [],
      committed: false,
      reason: 'nothing to write',
    };
  const review = await commitReviewBranch(
    root,
    changed.map((f) => ({ path: f.path, text: f.after })),
    message(accepted.length - skipped.length),
    `mem/reflect-${day}`,
  );
  return {
    ...base,
    applied: accepted.length - skipped.length,
    rejected: rejectedAll,
    files: changed.map((f) => f.path),
    committed: true,
    sha: review.sha,
    review,
  };
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
  options: ReflectOptions & { now: Date },
): Promise<ReflectResult> {
  const { now } = options;
  const episodes = pendingEpisodes(index, options.maxEpisodes ?? 7, config.timezone);
  const empty: ReflectResult = {
    episodes: [],
    accepted: [],
    applied: 0,
    rejected: [],
    files: [],
    committed: false,
  };
  // A review run writes nothing to the current branch, expiry included.
  if (episodes.length === 0)
    return expireOnly(root, config, index, now, options.dryRun || options.review, empty);

  const input = { episodes, notes: touchedNotes(index, episodes), sources: episodeSources(index, episodes) };
  const prompt = await buildPrompt(root, index, input);
  const question = 'Return the operations JSON object now.';
  const day = dayOf(now, config.timezone);
  const max = config.reflect.maxTokensPerDay;
  // The prompt's size is known before the call; the answer's is not, so only the prompt counts here.
  const estimate = countTokens(prompt + question);
  const tooLong = checkContextWindow(estimate, config, llm);
  if (tooLong) options.onNotice?.(tooLong);
  const skip = await overBudget(root, config, day, estimate, empty);
  if (skip) return skip;
  const { answer, usage } = await askModel(root, llm, prompt, question, day, options.signal);
  const budget = max > 0 ? { day, used: totalTokens(await readUsage(root, day)), max } : undefined;
  const spent = { ...(usage ? { usage } : {}), ...(budget ? { budget } : {}) };
  const { accepted, rejected } = await validateOperations(answer, {
    root,
    index,
    sources: input.sources,
    episodes: new Set(episodes.map((e) => e.path)),
    allowPersonaEdits: config.allowPersonaEdits,
    today: day,
    commitmentSpeaker: commitmentSpeakerOf(index, config, episodes),
  });
  const plan = planChanges(accepted, index, now, config.timezone);
  const expired = planExpiry(plan, index, day);
  const base = { mode: 'llm' as const, episodes: episodes.map((e) => e.path), accepted, expired, ...spent };
  if (options.signal?.aborted)
    throw new MemError('LLM', 'the run was stopped before it wrote anything; nothing was written');

  const message = (applied: number) =>
    `mem: reflect ${episodes.length} episode${episodes.length === 1 ? '' : 's'}, ${applied} operations\n\n${costLine(llm.model, usage)}\n`;
  if (options.review && !options.dryRun) return commitForReview(root, plan, base, rejected, message, day);
  const run = await runWritePlan(root, config, {
    key: REFLECT_PLAN,
    dryRun: options.dryRun,
    preview: () => previewWrites(root, plan),
    paths: [...plan.keys()],
    message: message(accepted.length),
    apply: () => applyChanges(root, plan),
    commitMessage: ({ skipped }) => message(accepted.length - skipped.length),
    nothing: 'nothing to write',
  });
  return { ...base, ...planOutcome(run, accepted.length, rejected) };
}
