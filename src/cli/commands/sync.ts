import type { Command } from 'commander';
import { openFromCli, printJson } from '../context.js';
import type { CliIO } from '../io.js';
import { library } from '../library.js';

/** `mem sync [remote]`: fetch, merge (day notes entry by entry), push. */
export function syncCommand(program: Command, io: CliIO): void {
  program
    .command('sync')
    .description(
      "commit mem's pending writes, fetch the remote, merge (day notes entry by entry; a clash in another note is kept as a conflict note beside it) and push; never rebases or forces",
    )
    .argument('[remote]', 'the git remote (default: sync.remote in mem.config.json, else origin)')
    .option('--json', 'machine-readable output')
    .action(async (remote: string | undefined, options: { json?: boolean }, command: Command) => {
      const vault = await openFromCli(command, io);
      const result = await vault.sync(remote === undefined ? {} : { remote });
      if (options.json) return printJson(io, result);
      const edits = result.yourEdits;
      if (edits) {
        const added = edits.added.length > 0 ? ` (new notes: ${edits.added.join(', ')})` : '';
        io.stdout(
          `committed your uncommitted edits to ${edits.paths.join(', ')} as your own commit ${edits.commit.slice(0, 7)}${added}, then merged\n`,
        );
      }
      const what = {
        merged: `merged ${result.remote}/${result.branch} and pushed`,
        'fast-forward': `took ${result.remote}/${result.branch} (nothing of ours to send)`,
        pushed: `pushed to ${result.remote}/${result.branch}`,
        'up-to-date': `up to date with ${result.remote}/${result.branch}`,
      }[result.code];
      io.stdout(`${what}${result.head ? ` (${result.head.slice(0, 7)})` : ''}\n`);
      if (result.resumed) io.stdout('finished a sync an earlier run left halfway\n');
      for (const day of result.days) io.stdout(`  merged entry by entry: ${day}\n`);
      for (const r of result.renumbered) io.stdout(`  renumbered: ${r}\n`);
      for (const c of result.conflicts) io.stdout(`  conflict kept beside the note: ${c}\n`);
    });
  // git calls this for a file `.gitattributes` marks merge=union (a day note: entry by entry; any
  // other: as union) or merge=memvault-episodes (earlier versions' line); not for people.
  program
    .command('merge-driver', { hidden: true })
    .argument('<base>')
    .argument('<ours>')
    .argument('<theirs>')
    .argument('<path>')
    .action(async (base: string, ours: string, theirs: string, path: string) => {
      const { mergeEpisodeFiles } = await library();
      await mergeEpisodeFiles(base, ours, theirs, path);
    });
}
