import type { Command } from 'commander';
import { openFromCli, printJson } from '../context.js';
import type { CliIO } from '../io.js';
import { reportCommit } from './note.js';

/** `mem mv`: rename a note and rewrite the links to it. */
export function mvCommand(program: Command, io: CliIO): void {
  program
    .command('mv')
    .description('rename a note and rewrite every link to it, keeping each link as it was written')
    .argument('<note>', 'vault path (with or without .md) or link text')
    .argument('<new-path>', 'new vault path (.md is added)')
    .option('--json', 'machine-readable output')
    .action(async (ref: string, to: string, options: { json?: boolean }, command: Command) => {
      const vault = await openFromCli(command, io);
      const result = await vault.move(ref, to);
      if (options.json) {
        printJson(io, result);
      } else {
        const links = result.rewritten.reduce((sum, r) => sum + r.links, 0);
        io.stdout(
          `${result.from} -> ${result.to}; ${links} link(s) rewritten in ${result.rewritten.length} note(s)\n`,
        );
        for (const r of result.rewritten) io.stdout(`  ${r.path}: ${r.links}\n`);
      }
      reportCommit(io, result);
    });
}
