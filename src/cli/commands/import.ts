import { resolve } from 'node:path';
import type { Command } from 'commander';
import { IMPORT_FORMATS } from '../../core/import-formats.js';
import type { ImportResult } from '../../internal.js';
import { openFromCli, printJson } from '../context.js';
import type { CliIO } from '../io.js';
import { progressBar } from './ingest.js';
import { QUIET, reportCommit } from './note.js';

/** An import that found nothing new is not news either (a second import of the same export). */
const IMPORT_QUIET = new Set([...QUIET, 'nothing-to-write' as const]);

const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** The closing summary: what was read, what was written, what was left out and why. */
export function importSummary(file: string, result: ImportResult): string {
  const lines: string[] = [];
  if (result.format === 'mcp-memory') {
    lines.push(
      `${file} (MCP memory graph): ${count(result.conversations, 'entity', 'entities')}; ${count(result.created.length, 'note', 'notes')} created, ${result.updated.length} updated, ${count(result.added, 'fact or link', 'facts and links')} added, ${result.already} already in the vault`,
    );
  } else {
    const read =
      result.format === 'journal'
        ? count(result.conversations, 'journal day', 'journal days')
        : count(result.conversations, 'conversation', 'conversations');
    lines.push(
      `${file} (${result.format}): ${read}; ${count(result.added, 'entry', 'entries')} added on ${count(result.days.length, 'day', 'days')}, ${result.already} already in the vault`,
    );
  }
  const skipped = Object.entries(result.skipped).filter(([, n]) => n > 0);
  if (skipped.length > 0) lines.push(`skipped: ${skipped.map(([why, n]) => `${n} ${why}`).join(', ')}`);
  return `${lines.join('\n')}\n`;
}

export function importCommand(program: Command, io: CliIO): void {
  program
    .command('import')
    .description(
      'import past conversations: a ChatGPT or Claude export, an MCP memory.jsonl, Open-LLM-VTuber chat history, or a folder of dated Markdown journals (a second import adds nothing)',
    )
    .argument('<source>', 'conversations.json, memory.jsonl, a chat history file, or a folder')
    .option(
      '--format <name>',
      `read the source as this format: ${IMPORT_FORMATS.join(', ')} (default: told from the content)`,
    )
    .option('--now <iso>', 'when the import runs: the time new profile notes are stamped with (default: now)')
    .option('--no-redact', 'keep text that looks like an API key, token or password')
    .option('--json', 'machine-readable output')
    .action(
      async (
        source: string,
        options: { format?: string; now?: string; redact: boolean; json?: boolean },
        command: Command,
      ) => {
        // Checked by import's own input schema before the vault opens.
        const { checkInput, importInput } = await import('../../api/inputs/index.js');
        const { format, now } = checkInput(importInput, { source, format: options.format, now: options.now });
        const vault = await openFromCli(command, io);
        const showProgress = io.isTTY && !options.json;
        const result = await vault.importHistory(resolve(io.cwd, source), {
          format,
          now,
          noRedact: !options.redact,
          onProgress: showProgress
            ? (done, total, unit) => io.stderr(progressBar(done, total, unit))
            : undefined,
        });
        if (showProgress) io.stderr('\n');
        if (options.json) printJson(io, result);
        else io.stdout(importSummary(source, result));
        if (result.redacted > 0)
          io.stderr(`mem: redacted ${result.redacted} secret(s); use --no-redact to keep them\n`);
        // As remember says it, by the library's code: a vault without git or with auto-commit off,
        // or an import that found nothing new, is not news.
        reportCommit(io, result, IMPORT_QUIET);
      },
    );
}
