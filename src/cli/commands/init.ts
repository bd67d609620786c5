import { resolve } from 'node:path';
import type { Command } from 'commander';
import { printJson } from '../context.js';
import type { CliIO } from '../io.js';
import { library } from '../library.js';
import { refuseConflicts } from '../parse-options.js';

export function initCommand(program: Command, io: CliIO): void {
  const command = program
    .command('init')
    .description(
      'create a vault (layered folders, mem.config.json, .gitignore, git repository), or adopt the Obsidian vault the folder already is',
    )
    .argument('[dir]', 'where (default: the current folder)', '.')
    .option('--no-git', 'do not create a git repository or commit')
    .option('--no-adopt', 'in an Obsidian vault, lay out the layered tree instead of adopting its settings')
    .option('--json', 'machine-readable output')
    .action(async (dir: string, options: { git: boolean; adopt: boolean; json?: boolean }) => {
      const { initVault } = await library();
      const result = await initVault(resolve(io.cwd, dir), { git: options.git, adopt: options.adopt });
      if (options.json) {
        printJson(io, result);
        return;
      }
      const adopted = result.adopted;
      if (adopted) {
        const { folder, format, template, source } = adopted.daily;
        io.stdout(`adopted the Obsidian vault in ${result.root}\n`);
        io.stdout(
          `  days: ${folder === '' ? 'the vault root' : `${folder}/`}, named ${format}${template ? `, from ${template}` : ''} (${source === 'periodic-notes' ? 'Periodic Notes' : 'Daily notes'} settings); mem writes under "## Memory"\n`,
        );
        io.stdout(
          `  mem's own notes: ${adopted.home}/; your other notes are read as they are and never written\n`,
        );
        for (const note of adopted.notes) io.stdout(`  note: ${note}\n`);
      } else {
        io.stdout(`created a vault in ${result.root}\n`);
      }
      io.stdout('created:\n');
      for (const file of result.created) io.stdout(`  ${file}\n`);
      const repo = result.gitInitialized ? 'a new git repository' : 'git';
      io.stdout(
        result.committed
          ? `committed these ${result.created.length} files to ${repo}, and nothing else\n`
          : `not committed: ${result.commitReason ?? 'no git'}\n`,
      );
    });
  refuseConflicts(command, [
    { flag: '--vault', because: 'init makes the vault in the folder given as its argument' },
  ]);
}
