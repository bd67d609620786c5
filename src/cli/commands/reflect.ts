import type { Command } from 'commander';
import type { ReflectResult } from '../../index.js';
import { openFromCli, printJson } from '../context.js';
import type { CliIO } from '../io.js';
import { parseNow, parsePositiveInt } from '../parse-options.js';

interface ReflectCliOptions {
  dryRun?: boolean;
  maxEpisodes?: string;
  model?: string;
  baseUrl?: string;
  now?: string;
  json?: boolean;
  commitments?: boolean;
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

export function reflectCommand(program: Command, io: CliIO): void {
  program
    .command('reflect')
    .description('have an LLM turn new episodes into insights and profile facts, validated and committed')
    .option('--dry-run', 'show what would change; write nothing')
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
    .action(async (options: ReflectCliOptions, command: Command) => {
      const maxEpisodes =
        options.maxEpisodes === undefined
          ? undefined
          : parsePositiveInt(options.maxEpisodes, '--max-episodes');
      const now = parseNow(options.now);
      const vault = await openFromCli(command, io);
      const result = await vault.reflect({
        dryRun: options.dryRun,
        maxEpisodes,
        now,
        commitments: options.commitments,
        env: io.env,
        llmOptions: { model: options.model, baseURL: options.baseUrl },
      });
      if (options.json) {
        printJson(io, result);
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
      if (result.preview) {
        // jsdiff loads only for a dry run, not with every command the program knows.
        const { lineDiff } = await import('../line-diff.js');
        for (const file of result.preview)
          io.stdout(`\n--- ${file.path}\n${lineDiff(file.before ?? '', file.after)}\n`);
        io.stdout('\ndry run: nothing was written\n');
        return;
      }
      io.stdout(
        `wrote ${result.files.length} file(s)${result.committed ? `, committed ${result.sha?.slice(0, 8)}` : result.reason ? ` (not committed: ${result.reason})` : ''}\n`,
      );
    });
}
