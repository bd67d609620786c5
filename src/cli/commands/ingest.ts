import { basename, resolve } from 'node:path';
import type { Command } from 'commander';
import { MemError } from '../../core/errors.js';
import { readRegularFile } from '../../core/regular-file.js';
import { openFromCli, printJson } from '../context.js';
import type { CliIO } from '../io.js';
import { library } from '../library.js';
import { parseNow } from '../parse-options.js';

export function progressBar(done: number, total: number, unit = 'days'): string {
  const width = 24;
  const filled = Math.round((done / Math.max(1, total)) * width);
  return `\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total} ${unit}`;
}

export function ingestCommand(program: Command, io: CliIO): void {
  program
    .command('ingest')
    .description(
      'import a chat transcript into daily episodes (a second import of the same file adds nothing)',
    )
    .argument(
      '<file>',
      'JSONL of {role|speaker, content|text, timestamp?}, a JSON messages array, or "Speaker: text" lines',
    )
    .option('--at <iso>', 'when turns without a timestamp happened (default: now)')
    .option('--no-redact', 'keep text that looks like an API key, token or password')
    .option('--json', 'machine-readable output')
    .action(
      async (file: string, options: { at?: string; redact: boolean; json?: boolean }, command: Command) => {
        const at = parseNow(options.at, '--at');
        // Regular files only: a FIFO or a device is refused, naming it, not waited on.
        const bytes = await readRegularFile(resolve(io.cwd, file)).catch((error: NodeJS.ErrnoException) => {
          if (error instanceof MemError) throw error;
          throw new MemError('NOT_FOUND', `cannot read ${file}: ${error.code ?? error.message}`);
        });
        const { decodeTranscript } = await library();
        const text = decodeTranscript(bytes, file);
        const vault = await openFromCli(command, io);
        const showProgress = io.isTTY && !options.json;
        const result = await vault.ingest(text, {
          name: basename(file),
          at,
          noRedact: !options.redact,
          onProgress: showProgress ? (done, total) => io.stderr(progressBar(done, total)) : undefined,
        });
        if (showProgress) io.stderr('\n');
        if (options.json) printJson(io, result);
        else
          io.stdout(
            `${result.added} entries added, ${result.skipped} skipped (already in the vault), ${result.days.length} days touched\n`,
          );
        if (result.redacted > 0)
          io.stderr(`mem: redacted ${result.redacted} secret(s); use --no-redact to keep them\n`);
      },
    );
}
