import type { Command } from 'commander';
import { openFromCli, printJson } from '../context.js';
import type { CliIO } from '../io.js';
import { numberFlag } from '../parse-options.js';
import { reportCommit } from './note.js';

interface RememberCliOptions {
  speaker?: string;
  kind?: string;
  importance?: string;
  tags?: string;
  at?: string;
  redact: boolean;
  json?: boolean;
}

export function rememberCommand(program: Command, io: CliIO): void {
  program
    .command('remember')
    .description("append one entry to today's episode note and print its citation")
    .argument('<text>', 'what to remember; - reads it from stdin')
    .option('--speaker <name>', 'who said it (chat entries)')
    .option('--kind <kind>', 'chat (default), event or note')
    .option('--importance <x>', 'importance 0..1')
    .option('--tags <a,b>', 'comma-separated tags')
    .option('--at <iso>', 'when it happened (default: now)')
    .option('--no-redact', 'keep text that looks like an API key, token or password')
    .option('--json', 'machine-readable output')
    .action(async (arg: string, options: RememberCliOptions, command: Command) => {
      const text = arg === '-' ? await io.readStdin() : arg;
      // Checked by remember's own input schema, as HTTP and MCP check it, before the vault opens.
      const { checkInput, rememberInput } = await import('../../api/inputs/index.js');
      const input = checkInput(rememberInput, {
        text,
        speaker: options.speaker,
        kind: options.kind,
        importance: numberFlag(options.importance),
        tags: options.tags
          ?.split(',')
          .map((t) => t.trim())
          .filter(Boolean),
        at: options.at,
      });
      const vault = await openFromCli(command, io);
      const result = await vault.remember({ ...input, noRedact: !options.redact });
      if (options.json) {
        printJson(io, result);
        return;
      }
      io.stdout(`${result.link}\n`);
      if (result.redacted > 0)
        io.stderr(`mem: redacted ${result.redacted} secret(s); use --no-redact to keep them\n`);
      reportCommit(io, result);
    });
}
