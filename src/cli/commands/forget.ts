import type { Command } from 'commander';
import { openFromCli, printJson } from '../context.js';
import type { CliIO } from '../io.js';
import { reportCommit } from './note.js';

interface ForgetCliOptions {
  reason?: string;
  hard?: boolean;
  json?: boolean;
}

/** `mem forget`: archive a note (or delete it with --hard). */
export function forgetCommand(program: Command, io: CliIO): void {
  program
    .command('forget')
    .description('move a note to archive/ with status: archived (links follow it; recall leaves it out)')
    .argument('<note>', 'vault path (with or without .md) or link text')
    .option('--reason <text>', 'why, written as archived_reason')
    .option('--hard', 'delete the file instead (needs git with auto-commit; mem undo brings it back)')
    .option('--json', 'machine-readable output')
    .action(async (ref: string, options: ForgetCliOptions, command: Command) => {
      const vault = await openFromCli(command, io);
      const result = await vault.forget(ref, { reason: options.reason, hard: options.hard });
      if (options.json) printJson(io, result);
      else if (result.archivedAt) io.stdout(`${result.path} -> ${result.archivedAt}\n`);
      else io.stdout(`deleted ${result.path}; mem undo brings it back\n`);
      reportCommit(io, result);
    });
}
