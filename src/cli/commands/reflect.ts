import type { Command } from 'commander';
import { MemError } from '../../core/errors.js';
import type { ReflectResult, RollupOptions, RollupResult } from '../../internal.js';
import { openFromCli, printJson } from '../context.js';
import type { CliIO } from '../io.js';
import { type OptionRule, parseNow, parsePositiveInt, refuseConflicts } from '../parse-options.js';

interface ReflectCliOptions {
  dryRun?: boolean;
  review?: boolean;
  maxEpisodes?: string;
  model?: string;
  baseUrl?: string;
  now?: string;
  json?: boolean;
  commitments?: boolean;
  rollup?: string;
  missing?: boolean;
  force?: boolean;
  offline?: boolean;
}

const LEVELS = ['week', 'month', 'quarter', 'year'] as const;

function rollupLevel(value: string | undefined): RollupOptions['level'] {
  if (value === undefined) return undefined;
  const level = LEVELS.find((l) => l === value);
  if (!level)
    throw new MemError('USAGE', `--rollup must be one of ${LEVELS.join(', ')}, not ${JSON.stringify(value)}`);
  return level;
}

function printRollups(io: CliIO, result: RollupResult, dryRun: boolean): void {
  for (const w of result.written) {
    io.stdout(`  + ${w.path} (${w.generator}): ${w.capsule}\n`);
    for (const line of w.dropped) io.stdout(`    ! left out, cites what was not shown: ${line}\n`);
    if (w.text !== undefined) io.stdout(`\n${w.text}\n`);
  }
  for (const s of result.skipped) io.stdout(`  = ${s.path}: ${s.reason}\n`);
  if (dryRun) {
    io.stdout('dry run: nothing was written\n');
    return;
  }
  io.stdout(
    `wrote ${result.files.length} rollup(s)${result.committed ? `, committed ${result.sha?.slice(0, 8)}` : result.reason ? ` (not committed: ${result.reason})` : ''}\n`,
  );
}

function describe(op: ReflectResult['accepted'][number]): string {
  switch (op.op) {
    case 'create_insight':
      return `create ${op.path}: ${op.title}`;
    case 'update_profile_fact':
      return `${op.replaces ? 'replace a fact in' : 'add a fact to'} ${op.path}: ${op.fact}`;
    case 'supersede_fact':
      return `supersede ${op.old} with ${op.new.path}: ${op.new.title}`;
    case 'add_link':
      return `link ${op.from} -> ${op.to}`;
    case 'write_rollup':
      return `write the ${op.period} rollup: ${op.title}`;
    case 'mark_reflected':
      return `mark ${op.path} reflected`;
    case 'add_commitment':
      return `commitment due ${op.due}: ${op.who}: ${op.what} ${op.sources[0] ?? ''}`;
    case 'complete_commitment':
      return `commitment ${op.commitment} done (${op.sources.join(', ')})`;
    case 'merge_insights':
      return `merge ${op.duplicate} into ${op.keep} (superseded, not deleted)`;
  }
}

/** The run's cost: the tokens the API reported, and the day's total against the cap when one is set. */
function costText(result: ReflectResult): string {
  const used = result.usage
    ? `cost: ${result.usage.promptTokens} prompt + ${result.usage.completionTokens} completion tokens`
    : 'cost: the model reported no token usage';
  const budget = result.budget;
  return budget ? `${used} (${budget.used} of ${budget.max} today, ${budget.day})` : used;
}

/** Which flags go with which of reflect's three modes: a model run, `--commitments`, rollups. */
const REFLECT_RULES: OptionRule[] = [
  ...['--rollup', '--missing'].map((flag) => ({
    flag,
    conflicts: ['--review', '--max-episodes', '--commitments'],
    because: 'those go with a reflect run, not with rollups',
  })),
  ...['--force', '--offline'].map((flag) => ({
    flag,
    needs: ['--rollup', '--missing'],
    because: 'it changes how rollups are written',
  })),
  {
    flag: '--offline',
    conflicts: ['--model', '--base-url'],
    because: 'offline rollups call no model',
  },
  {
    flag: '--commitments',
    conflicts: ['--review', '--max-episodes', '--model', '--base-url'],
    because: 'the commitment rule runs offline over every new entry',
  },
  { flag: '--review', conflicts: ['--dry-run'], because: 'a dry run writes nothing' },
];

export function reflectCommand(program: Command, io: CliIO): void {
  const command = program
    .command('reflect')
    .description('have an LLM turn new episodes into insights and profile facts, validated and committed')
    .option('--dry-run', 'show what would change; write nothing')
    .option(
      '--review',
      'commit the run on a new branch mem/reflect-<date> to look at and merge, leaving your branch and files as they are',
    )
    .option('--max-episodes <n>', 'daily notes per run, oldest first (default: 7)')
    .option('--model <name>', 'model name (default: config llm.model or MEM_LLM_MODEL)')
    .option(
      '--base-url <url>',
      'OpenAI-compatible endpoint (default: config llm.baseURL or MEM_LLM_BASE_URL)',
    )
    .option(
      '--commitments',
      'only the offline commitment rule: explicit promises into profile/commitments.md, passed ones expired',
    )
    .option('--now <iso>', "the run's moment (default: now)")
    .option('--json', 'machine-readable output')
    .option(
      '--rollup <level>',
      'write the rollup of the last finished week, month, quarter or year (with --missing: every level up to it)',
    )
    .option('--missing', 'write every finished period that has no rollup, oldest first, level by level')
    .option('--force', 'regenerate a rollup that exists, unless it was edited since mem wrote it')
    .option('--offline', 'write extractive rollups even when a model is configured')
    .action(async (options: ReflectCliOptions, command: Command) => {
      if (options.rollup !== undefined || options.missing) await runRollups(options, command, io);
      else await runReflect(options, command, io);
    });
  refuseConflicts(command, REFLECT_RULES);
}

/** `mem reflect --rollup <level>` or `--missing`: write rollups (extractive offline, else by the model). */
async function runRollups(options: ReflectCliOptions, command: Command, io: CliIO): Promise<void> {
  const level = rollupLevel(options.rollup);
  const now = parseNow(options.now);
  const vault = await openFromCli(command, io);
  const result = await vault.rollup({
    level,
    missing: options.missing,
    force: options.force,
    dryRun: options.dryRun,
    offline: options.offline,
    now,
    env: io.env,
    llmOptions: { model: options.model, baseURL: options.baseUrl },
  });
  if (options.json) printJson(io, result);
  else printRollups(io, result, options.dryRun === true);
}

/** `mem reflect` (or `--commitments`): one reflect run over the new episodes. */
async function runReflect(options: ReflectCliOptions, command: Command, io: CliIO): Promise<void> {
  const maxEpisodes =
    options.maxEpisodes === undefined ? undefined : parsePositiveInt(options.maxEpisodes, '--max-episodes');
  const now = parseNow(options.now);
  const vault = await openFromCli(command, io);
  const result = await vault.reflect({
    dryRun: options.dryRun,
    review: options.review,
    maxEpisodes,
    now,
    commitments: options.commitments,
    env: io.env,
    llmOptions: { model: options.model, baseURL: options.baseUrl },
  });
  if (options.json) printJson(io, result);
  else await printReflect(io, result, options);
}

/**
 * A reflect run as a person reads it: what it read (or why it had nothing to read), each accepted
 * and rejected operation, its cost, then the dry run's diffs, the review branch, or what was written.
 */
async function printReflect(io: CliIO, result: ReflectResult, options: ReflectCliOptions): Promise<void> {
  if (result.skipped) {
    io.stdout(`skipped: ${result.skipped}\n`);
    return;
  }
  if (result.mode === 'offline') {
    io.stdout(
      options.commitments
        ? 'offline commitment rule\n'
        : 'no model configured (set OPENAI_API_KEY, or llm.baseURL in mem.config.json): ran the offline rules (commitments, near-duplicate insights)\n',
    );
  } else if (result.episodes.length === 0) {
    io.stdout(`${result.reason ?? 'no new episodes to reflect on'}\n`);
    if (result.expired)
      io.stdout(
        `  ~ ${result.expired} commitment(s) expired${result.committed ? `, committed ${result.sha?.slice(0, 8)}` : ''}\n`,
      );
    return;
  } else io.stdout(`read ${result.episodes.length} episode(s): ${result.episodes.join(', ')}\n`);
  if (result.expired) io.stdout(`  ~ ${result.expired} commitment(s) expired\n`);
  for (const op of result.accepted) io.stdout(`  + ${describe(op)}\n`);
  for (const r of result.rejected)
    io.stdout(`  ! rejected${r.index >= 0 ? ` operation ${r.index + 1}` : ''}: ${r.reason}\n`);
  io.stdout(`${costText(result)}\n`);
  await printOutcome(io, result, options);
}

/** How the run ended: a dry run's diffs, the review branch, or the files written and committed. */
async function printOutcome(io: CliIO, result: ReflectResult, options: ReflectCliOptions): Promise<void> {
  if (result.preview) {
    // jsdiff loads only for a dry run, not with every command the program knows.
    const { lineDiff } = await import('../line-diff.js');
    for (const file of result.preview)
      io.stdout(`\n--- ${file.path}\n${lineDiff(file.before ?? '', file.after)}\n`);
    io.stdout('\ndry run: nothing was written\n');
    return;
  }
  if (result.review) {
    const { branch, sha } = result.review;
    io.stdout(
      `committed ${sha.slice(0, 8)} on branch ${branch} (${result.files.length} file(s)); your branch and files are unchanged.\n` +
        `  look:  git log -p -1 ${branch}\n` +
        `  merge: git merge ${branch}\n` +
        `  drop:  git branch -D ${branch}\n`,
    );
    return;
  }
  if (options.review) {
    io.stdout(`no review branch: ${result.reason ?? 'nothing to write'}\n`);
    return;
  }
  io.stdout(
    `wrote ${result.files.length} file(s)${result.committed ? `, committed ${result.sha?.slice(0, 8)}` : result.reason ? ` (not committed: ${result.reason})` : ''}\n`,
  );
}
