import { resolve } from 'node:path';
import type { Command } from 'commander';
import { MemError } from '../../core/errors.js';
import { readRegularText } from '../../core/regular-file.js';
import { LAYERS, type Layer } from '../../core/types.js';
import type { RecallOptions, RecallResult, WithMoments } from '../../internal.js';
import { askServer } from '../ask-server.js';
import { openFromCli, printJson } from '../context.js';
import { embeddingsLine, formatHits } from '../format.js';
import type { CliIO } from '../io.js';
import { library } from '../library.js';
import { FIRST_DAY, LAST_DAY, numberFlag, refuseConflicts } from '../parse-options.js';

interface RecallCliOptions {
  k?: string;
  layer?: string[];
  now?: string;
  from?: string;
  to?: string;
  all?: boolean;
  json?: boolean;
  explain?: boolean;
  batch?: string;
}

/**
 * The flags as recall's input, unchecked: recall's schema (api/inputs/recall.ts) checks them, in
 * the server asked or here before the vault opens, so a bad value has the same words either way.
 * An open end of `--from`/`--to` reaches the first or last day.
 */
export function toRecallOptions(options: RecallCliOptions, now?: string): WithMoments<RecallOptions> {
  const layers = (options.layer ?? []).flatMap((l) => l.split(','));
  const range =
    options.from === undefined && options.to === undefined
      ? undefined
      : { from: options.from ?? FIRST_DAY, to: options.to ?? LAST_DAY };
  return {
    k: numberFlag(options.k),
    layers: layers.length ? (layers as Layer[]) : undefined,
    now: now ?? options.now,
    all: options.all,
    range,
  };
}

/** Recall's input checked by its schema (loaded only now: a read a server answers never loads zod). */
async function checkedRecall(query: string, options: WithMoments<RecallOptions>): Promise<void> {
  const { checkInput, recallInput } = await import('../../api/inputs/index.js');
  checkInput(recallInput, { query, ...options, now: options.now as string | undefined });
}

export function recallCommand(program: Command, io: CliIO): void {
  const command = program
    .command('recall')
    // `mem search` is what a newcomer types first (it was answered "did you mean serve?").
    .alias('search')
    .description('rank memories for a query and say why')
    .argument('[query]', 'what to look for')
    .option('-k <n>', 'how many results (default: 8)')
    .option('--layer <layer...>', `only these layers (${LAYERS.join(', ')})`)
    .option('--now <iso>', 'the moment recency is measured from (default: now)')
    .option('--from <date>', 'only episode entries on or after YYYY-MM-DD')
    .option('--to <date>', 'only episode entries on or before YYYY-MM-DD')
    .option('--all', 'include superseded and archived notes')
    .option('--explain', 'show every part of each score')
    .option('--batch <file>', 'JSONL of {"id","query","now"?}; one JSON result per line')
    .option('--json', 'machine-readable output')
    .action(async (query: string | undefined, options: RecallCliOptions, command: Command) => {
      const base = toRecallOptions(options);
      if (!options.batch && query === undefined)
        throw new MemError('USAGE', 'recall needs a query (or --batch FILE)');
      if (!options.batch) {
        // A running `mem serve` for this vault already holds the index: ask it, the same question.
        // It checks the question with recall's schema; on a 400 the command checks it here, in the
        // same words, and exits 2.
        const asked = await askServer<RecallResult & { warning?: string }>(command, io, '/recall', {
          query,
          ...base,
        });
        if (asked) {
          const { warning, ...result } = asked;
          if (warning) io.stderr(`mem: ${warning}\n`);
          return printRecall(io, result, options);
        }
      }
      await checkedRecall(query ?? '', base);
      // Regular files only: a FIFO given as the batch is refused, naming it, not waited on; and
      // before the (slower) vault opens.
      const batch = options.batch ? await readRegularText(resolve(io.cwd, options.batch)) : undefined;
      const vault = await openFromCli(command, io);
      if (batch !== undefined) {
        for (const [i, line] of batch.split('\n').entries()) {
          if (line.trim() === '') continue;
          let item: { id?: unknown; query?: unknown; now?: unknown };
          try {
            item = JSON.parse(line);
          } catch {
            throw new MemError('INVALID_ARGUMENT', `${options.batch}:${i + 1}: not valid JSON`);
          }
          const lineOptions = toRecallOptions(options, typeof item.now === 'string' ? item.now : undefined);
          await checkedRecall(item.query as string, lineOptions).catch((error: Error) => {
            throw new MemError('INVALID_ARGUMENT', `${options.batch}:${i + 1}: ${error.message}`);
          });
          const result = await vault.recallAsync(item.query as string, lineOptions);
          io.stdout(`${JSON.stringify({ id: item.id ?? i + 1, ...result })}\n`);
        }
        return;
      }
      const { QUERY_LIMITS, queryProblem } = await library();
      const problem = queryProblem(query ?? '');
      if (problem) io.stderr(`mem: ${problem}; only the first ${QUERY_LIMITS.maxChars} were searched\n`);
      // recallAsync: with embeddings on (mem.config.json) semantic similarity is fused in.
      printRecall(io, await vault.recallAsync(query ?? '', base), options);
    });
  refuseConflicts(command, [
    { flag: '--batch', conflicts: ['[query]'], because: 'a batch reads each query from its file' },
  ]);
}

function printRecall(io: CliIO, result: RecallResult, options: RecallCliOptions): void {
  if (options.json) printJson(io, result);
  else {
    if (result.range) io.stdout(`range: ${result.range.reason}\n\n`);
    if (options.explain && result.embeddings) io.stdout(`${embeddingsLine(result.embeddings)}\n`);
    io.stdout(formatHits(result.hits, Boolean(options.explain)));
  }
}
