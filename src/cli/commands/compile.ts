import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { MemError } from '../../core/errors.js';
import { readRegularText } from '../../core/regular-file.js';
import type { CompileOptions, CompileResult, WithMoments } from '../../internal.js';
import { askServer } from '../ask-server.js';
import { openFromCli, printJson } from '../context.js';
import { formatCompileExplain } from '../format.js';
import type { CliIO } from '../io.js';
import { FIRST_DAY, LAST_DAY, numberFlag, refuseConflicts } from '../parse-options.js';

interface CompileCliOptions {
  budget?: string;
  now?: string;
  from?: string;
  to?: string;
  history?: string;
  tokenizer?: string;
  json?: boolean;
  out?: string;
  batch?: string;
  explain?: boolean;
}

function turnText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (value && typeof value === 'object') {
    const turn = value as Record<string, unknown>;
    const text = turn['content'] ?? turn['text'];
    const who = turn['role'] ?? turn['speaker'];
    if (typeof text === 'string') return typeof who === 'string' ? `${who}: ${text}` : text;
  }
  return undefined;
}

/** History as a JSON array (strings or {role, content}), JSONL of turns, or plain text, one turn per line. */
export function parseHistory(text: string, file: string): string[] {
  const trimmed = text.trim();
  if (trimmed === '') return [];
  if (trimmed.startsWith('[')) {
    let data: unknown;
    try {
      data = JSON.parse(trimmed);
    } catch {
      throw new MemError('INVALID_ARGUMENT', `${file}: starts like a JSON array but is not valid JSON`);
    }
    return (data as unknown[]).map(turnText).filter((t): t is string => t !== undefined);
  }
  return trimmed.split(/\r?\n/).flatMap((line) => {
    if (line.trim() === '') return [];
    if (line.trimStart().startsWith('{')) {
      try {
        const turn = turnText(JSON.parse(line));
        return turn === undefined ? [] : [turn];
      } catch {
        return [line];
      }
    }
    return [line];
  });
}

/**
 * The flags (and a batch line's overrides) as compile's input, unchecked: compile's schema
 * (api/inputs/compile.ts) checks them, in the server asked or here before the vault opens.
 */
function compileOptions(
  options: CompileCliOptions,
  message: string,
  overrides: { budget?: unknown; now?: unknown } = {},
): WithMoments<CompileOptions> {
  const budget = overrides.budget ?? options.budget;
  const range =
    options.from === undefined && options.to === undefined
      ? undefined
      : { from: options.from ?? FIRST_DAY, to: options.to ?? LAST_DAY };
  return {
    message,
    budget: typeof budget === 'number' ? budget : numberFlag(budget as string | undefined),
    now: overrides.now === undefined ? options.now : (overrides.now as string),
    tokenizer: options.tokenizer as CompileOptions['tokenizer'],
    range,
  };
}

/** Compile's input checked by its schema (loaded only now: a read a server answers never loads zod). */
async function checkedCompile(request: WithMoments<CompileOptions>): Promise<void> {
  const { checkInput, compileInput } = await import('../../api/inputs/index.js');
  checkInput(compileInput, request);
}

/** The batch line: what went in and why, nothing that was left out. */
function batchLine(id: unknown, result: CompileResult): string {
  const items = result.sections.flatMap((s) =>
    s.items.map((item) => ({
      section: s.name,
      path: item.path,
      anchor: item.anchor,
      tokens: item.tokens,
      score: item.score,
    })),
  );
  return JSON.stringify({
    id,
    markdown: result.markdown,
    budget: result.budget,
    used: result.used,
    range: result.range,
    items,
  });
}

export function compileCommand(program: Command, io: CliIO): void {
  const command = program
    .command('compile')
    .description("the context document for one turn: persona, the user, this turn's memories, recent entries")
    .argument('[message]', "this turn's message")
    .option('--budget <tokens>', 'token budget for the whole document (default: config compile.budget, 2000)')
    .option('--now <iso>', "the turn's moment (default: now)")
    .option(
      '--from <date>',
      'only episode entries on or after YYYY-MM-DD (overrides time words in the message)',
    )
    .option('--to <date>', 'only episode entries on or before YYYY-MM-DD')
    .option('--history <file>', 'earlier turns: JSON array, JSONL of {role, content}, or one turn per line')
    .option('--tokenizer <name>', 'o200k_base (default) or cl100k_base')
    .option('--out <file>', 'write the Markdown to a file instead of stdout')
    .option('--batch <file>', 'JSONL of {"id","message","budget"?,"now"?}; one JSON result per line')
    .option('--json', 'the full result: sections, items, tokens, scores and reasons')
    .option('--explain', 'after the document, why each item is in it (and how embeddings were used)')
    .action(async (message: string | undefined, options: CompileCliOptions, command: Command) => {
      if (!options.batch && message === undefined)
        throw new MemError('USAGE', 'compile needs a message (or --batch FILE)');
      if (options.batch) {
        // Regular files only: a FIFO given as the batch is refused, naming it, not waited on; and
        // before the (slower) vault opens.
        await checkedCompile(compileOptions(options, ''));
        const text = await readRegularText(resolve(io.cwd, options.batch));
        const vault = await openFromCli(command, io);
        for (const [i, line] of text.split('\n').entries()) {
          if (line.trim() === '') continue;
          let item: Record<string, unknown>;
          try {
            item = JSON.parse(line);
          } catch {
            throw new MemError('INVALID_ARGUMENT', `${options.batch}:${i + 1}: not valid JSON`);
          }
          const request = compileOptions(options, item['message'] as string, {
            budget: item['budget'],
            now: item['now'],
          });
          await checkedCompile(request).catch((error: Error) => {
            throw new MemError('INVALID_ARGUMENT', `${options.batch}:${i + 1}: ${error.message}`);
          });
          // compileAsync: with embeddings on, each turn's recall fuses the semantic ranking in.
          const result = await vault.compileAsync(request);
          io.stdout(`${batchLine(item['id'] ?? i + 1, result)}\n`);
        }
        return;
      }
      const request = compileOptions(options, message ?? '');
      if (options.history) {
        const name = options.history;
        const text = await readRegularText(resolve(io.cwd, name)).catch((error: NodeJS.ErrnoException) => {
          if (error instanceof MemError) throw error;
          throw new MemError('NOT_FOUND', `cannot read ${name}: ${error.code ?? error.message}`);
        });
        request.history = parseHistory(text, name);
      }
      // A running `mem serve` for this vault already holds the index: ask it, the same question.
      // It checks the question with compile's schema; on a 400 it is checked here, in the same words.
      const served = await askServer<CompileResult>(command, io, '/compile', request);
      if (!served) await checkedCompile(request);
      // compileAsync: with embeddings on (mem.config.json) the semantic ranking is fused in, as in `mem recall`.
      const result = served ?? (await (await openFromCli(command, io)).compileAsync(request));
      if (options.out) await writeFile(resolve(io.cwd, options.out), result.markdown);
      if (options.json) printJson(io, result);
      else if (!options.out) {
        io.stdout(
          result.markdown.endsWith('\n') || result.markdown === '' ? result.markdown : `${result.markdown}\n`,
        );
        // What the document cost, beside it: stdout stays the document alone, for a pipe.
        io.stderr(`mem: ${result.used}/${result.budget} tokens (${result.tokenizer})\n`);
      } else io.stderr(`wrote ${result.used} of ${result.budget} tokens to ${options.out}\n`);
      if (options.explain) io.stdout(formatCompileExplain(result));
    });
  refuseConflicts(command, [
    {
      flag: '--batch',
      conflicts: ['[message]', '--history', '--out', '--json', '--explain'],
      because: 'a batch reads each message from its file and prints one JSON line per message',
    },
  ]);
}
