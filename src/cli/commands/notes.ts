import type { Command } from 'commander';
import { openFromCli, printJson } from '../context.js';
import { formatDoctor, formatEdges, formatNote } from '../format.js';
import type { CliIO } from '../io.js';

/** Commands that read one note or the graph: show, links, backlinks, doctor. */
export function noteCommands(program: Command, io: CliIO): void {
  program
    .command('show')
    .description('a note with its frontmatter, links and backlinks')
    .argument('<note>', 'vault path (with or without .md) or link text')
    .option('--json', 'machine-readable output')
    .action(async (ref: string, options: { json?: boolean }, command: Command) => {
      const vault = await openFromCli(command, io);
      const note = vault.note(ref);
      const links = vault.links(note.path);
      const backlinks = vault.backlinks(note.path);
      if (options.json) printJson(io, { note, links, backlinks });
      else io.stdout(formatNote(note, links, backlinks));
    });

  program
    .command('links')
    .description("a note's outgoing links and where they resolve")
    .argument('<note>', 'vault path (with or without .md) or link text')
    .option('--json', 'machine-readable output')
    .action(async (ref: string, options: { json?: boolean }, command: Command) => {
      const vault = await openFromCli(command, io);
      const links = vault.links(ref);
      if (options.json) printJson(io, { note: vault.note(ref).path, links });
      else io.stdout(formatEdges(links, 'to'));
    });

  program
    .command('backlinks')
    .description('the notes that link to a note, with the linking section')
    .argument('<note>', 'vault path (with or without .md) or link text')
    .option('--json', 'machine-readable output')
    .action(async (ref: string, options: { json?: boolean }, command: Command) => {
      const vault = await openFromCli(command, io);
      const backlinks = vault.backlinks(ref);
      if (options.json) printJson(io, { note: vault.note(ref).path, backlinks });
      else io.stdout(formatEdges(backlinks, 'from'));
    });

  program
    .command('doctor')
    .description('unresolved links, duplicate names, invalid frontmatter, unreadable notes, orphans')
    .option('--json', 'machine-readable output')
    .action(async (options: { json?: boolean }, command: Command) => {
      const vault = await openFromCli(command, io);
      const report = { ...vault.doctor(), unreadable: await vault.checkNoteFiles() };
      if (options.json) printJson(io, report);
      else io.stdout(formatDoctor(report));
    });
}
