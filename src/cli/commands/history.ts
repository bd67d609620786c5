import type { Command } from 'commander';
import { openFromCli, printJson } from '../context.js';
import type { CliIO } from '../io.js';
import { reportCommit } from './note.js';

/** `mem history`, `mem undo`, `mem diff`: the vault's git history as mem sees it. */
export function historyCommands(program: Command, io: CliIO): void {
  program
    .command('history')
    .description('the commits that touched a note, following renames, newest first')
    .argument('<note>', 'vault path (with or without .md) or link text')
    .option('--json', 'machine-readable output')
    .action(async (ref: string, options: { json?: boolean }, command: Command) => {
      const vault = await openFromCli(command, io);
      const entries = await vault.history(ref);
      if (options.json) {
        printJson(io, entries);
        return;
      }
      if (entries.length === 0) io.stdout('no commits\n');
      for (const e of entries) io.stdout(`${e.sha.slice(0, 7)}  ${e.date}  ${e.subject}  (${e.path})\n`);
    });

  program
    .command('undo')
    .description("revert mem's last commit, when its files have not changed since")
    .option('--dry-run', 'say which commit and files it would revert, and change nothing')
    .option('--json', 'machine-readable output')
    .action(async (options: { json?: boolean; dryRun?: boolean }, command: Command) => {
      const vault = await openFromCli(command, io);
      const result = await vault.undo({ dryRun: options.dryRun === true });
      if (options.json) printJson(io, result);
      else if (result.dryRun) {
        io.stdout(`would undo ${result.undone.sha.slice(0, 7)} ${result.undone.subject}\n`);
        for (const path of result.paths) io.stdout(`  ${path}\n`);
      } else io.stdout(`undid ${result.undone.sha.slice(0, 7)} ${result.undone.subject}\n`);
      if (!result.dryRun) reportCommit(io, result);
    });

  program
    .command('diff')
    .description('git diff of the vault: uncommitted changes, or a commit, or a range a..b')
    .argument('[rev]', 'a commit (its changes) or a range a..b (default: uncommitted changes)')
    .option('--json', 'machine-readable output')
    .action(async (rev: string | undefined, options: { json?: boolean }, command: Command) => {
      const vault = await openFromCli(command, io);
      const text = await vault.diff(rev);
      if (options.json) printJson(io, { rev: rev ?? null, diff: text });
      else io.stdout(text);
    });
}
