import type { Command } from 'commander';
import { MemError } from '../../core/errors.js';
import { openFromCli, printJson } from '../context.js';
import type { CliIO } from '../io.js';
import { parseNow } from '../parse-options.js';
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

const KINDS = ['chat', 'event', 'note'] as const;

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
      if (options.kind !== undefined && !KINDS.includes(options.kind as (typeof KINDS)[number])) {
        throw new MemError('USAGE', `--kind must be one of ${KINDS.join(', ')}, got "${options.kind}"`);
      }
      const importance = options.importance === undefined ? undefined : Number(options.importance);
      if (importance !== undefined && !(importance >= 0 && importance <= 1)) {
        throw new MemError('USAGE', `--importance must be a number from 0 to 1, got "${options.importance}"`);
      }
      const at = parseNow(options.at, '--at');
      const vault = await openFromCli(command, io);
      const result = await vault.remember({
        text,
        speaker: options.speaker,
        kind: options.kind as (typeof KINDS)[number] | undefined,
        importance,
        tags: options.tags
          ?.split(',')
          .map((t) => t.trim())
          .filter(Boolean),
        at,
        noRedact: !options.redact,
      });
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
