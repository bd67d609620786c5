import type { Command } from 'commander';
import { openFromCli, printJson } from '../context.js';
import type { CliIO } from '../io.js';

export function indexCommand(program: Command, io: CliIO): void {
  program
    .command('index')
    .description('bring the index cache up to date (only changed notes are read)')
    .option('--rebuild', 'ignore the cache and index every note again')
    .option('--json', 'machine-readable output')
    .action(async (options: { rebuild?: boolean; json?: boolean }, command: Command) => {
      const started = performance.now();
      // Indexing writes a cache into the folder: only into a vault made by `mem init`.
      const vault = await openFromCli(command, io, { rebuild: options.rebuild, requireConfig: true });
      // `mem index` is asked to bring the cache up to date, however little is stale.
      if (vault.unsavedChanges > 0) await vault.save();
      const stats = {
        notes: vault.noteCount,
        ...vault.lastRefresh,
        ms: Math.round(performance.now() - started),
      };
      if (options.json) printJson(io, stats);
      else
        io.stdout(
          `${stats.notes} notes indexed in ${stats.ms} ms (${stats.added} added, ${stats.changed} changed, ${stats.removed} removed, ${stats.unchanged} unchanged)\n`,
        );
    });
}
