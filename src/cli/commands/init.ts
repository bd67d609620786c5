import { resolve } from 'node:path';
import type { Command } from 'commander';
import { printJson } from '../context.js';
import type { CliIO } from '../io.js';
import { library } from '../library.js';
import { refuseConflicts } from '../parse-options.js';

export function initCommand(program: Command, io: CliIO): void {
  const command = program
    .command('init')
    .description('create a vault: layered folders, mem.config.json, .gitignore, git repository')
    .argument('[dir]', 'where (default: the current folder)', '.')
    .option('--no-git', 'do not create a git repository')
    .option('--json', 'machine-readable output')
    .action(async (dir: string, options: { git: boolean; json?: boolean }) => {
      const { initVault } = await library();
      const result = await initVault(resolve(io.cwd, dir), { git: options.git });
      if (options.json) printJson(io, result);
      else {
        io.stdout(
          `created a vault in ${result.root}${result.gitInitialized ? ' (new git repository)' : ''}\n`,
        );
        for (const file of result.created) io.stdout(`  ${file}\n`);
      }
    });
  refuseConflicts(command, [
    { flag: '--vault', because: 'init makes the vault in the folder given as its argument' },
  ]);
}
