import type { Command } from 'commander';
import type { NoteEdit, WriteCommit } from '../../index.js';
import { openFromCli, printJson } from '../context.js';
import type { CliIO } from '../io.js';
import { library } from '../library.js';

interface NoteNewOptions {
  title?: string;
  set: string[];
  json?: boolean;
}

interface NoteEditOptions {
  hash?: string;
  json?: boolean;
}

interface NoteSetOptions {
  unset: string[];
  json?: boolean;
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

async function assignments(texts: string[]): Promise<Record<string, unknown>> {
  const { parseAssignment } = await library();
  return Object.fromEntries(texts.map(parseAssignment));
}

/** Not worth a word: git is not in use, or the write changed nothing. */
export const QUIET = new Set<WriteCommit['code']>(['no-repository', 'auto-commit-off', 'no-change']);

/** Says why a write was not committed (the library's code decides, its reason words it), unless git is simply not in use. */
export function reportCommit(io: CliIO, result: WriteCommit, quiet = QUIET): void {
  if (!result.committed && result.reason && !quiet.has(result.code)) {
    io.stderr(`mem: written, not committed: ${result.reason}\n`);
  }
}

/** `mem note new` and `mem note set`: create a note, change its frontmatter keys. */
export function noteWriteCommands(program: Command, io: CliIO): void {
  const note = program
    .command('note')
    .description('create notes, change their frontmatter and edit their body');

  note
    .command('new')
    .description('create <layer>/<name>.md with id, title, created and updated')
    .argument('<path>', 'vault path of the new note, e.g. insights/tea (.md is added)')
    .option('--title <title>', 'title and first heading (default: the file name)')
    .option(
      '--set <key=value>',
      'a frontmatter key; the value is YAML (0.8, true, [a, b]); repeatable',
      collect,
      [],
    )
    .option('--json', 'machine-readable output')
    .action(async (path: string, options: NoteNewOptions, command: Command) => {
      const set = await assignments(options.set);
      const vault = await openFromCli(command, io);
      const result = await vault.createNote({ path, title: options.title, set });
      if (options.json) printJson(io, result);
      else io.stdout(`${result.path}\n`);
      reportCommit(io, result);
    });

  note
    .command('set')
    .description('change frontmatter keys of a note; the body and every other key stay byte for byte')
    .argument('<note>', 'vault path (with or without .md) or link text')
    .argument('[key=value...]', 'keys to set; the value is YAML (0.8, true, [a, b], "[[Note]]")')
    .option('--unset <key>', 'delete a key; repeatable', collect, [])
    .option('--json', 'machine-readable output')
    .action(async (ref: string, texts: string[], options: NoteSetOptions, command: Command) => {
      const set = await assignments(texts);
      const vault = await openFromCli(command, io);
      const result = await vault.updateNote(ref, { set, unset: options.unset });
      if (options.json) printJson(io, result);
      else io.stdout(result.changed ? `${result.path}\n` : `${result.path}: no change\n`);
      reportCommit(io, result);
    });

  const edit = (
    name: string,
    mode: 'append' | 'prepend' | 'replace_section' | 'insert_under',
    description: string,
    withHeading: boolean,
    make: (args: string[]) => NoteEdit,
  ) => {
    const command = note
      .command(name)
      .description(description)
      .argument('<note>', 'vault path (with or without .md) or link text');
    if (withHeading) command.argument('<heading>', "the heading's text (with or without its # marks)");
    command
      .argument('<text>', 'Markdown to write; - reads it from stdin')
      .option('--hash <sha256>', 'refuse (CONFLICT) unless the note still has this hash')
      .option('--json', 'machine-readable output')
      .action(async (...args: unknown[]) => {
        const command = args.at(-1) as Command;
        const options = args.at(-2) as NoteEditOptions;
        const [ref, ...rest] = args.slice(0, -2) as string[];
        if (rest.at(-1) === '-') rest[rest.length - 1] = await io.readStdin();
        // Checked by the note edits' input schema, as memory_edit_note checks it, before the vault opens.
        const { checkInput, editNoteInput } = await import('../../api/inputs/index.js');
        checkInput(editNoteInput, {
          path: ref,
          mode,
          heading: withHeading ? rest[0] : undefined,
          text: rest.at(-1),
          hash: options.hash,
        });
        const vault = await openFromCli(command, io);
        const result = await vault.editNote(ref!, make(rest), { expectedHash: options.hash });
        if (options.json) printJson(io, result);
        else io.stdout(result.changed ? `${result.path}\n` : `${result.path}: no change\n`);
        reportCommit(io, result);
      });
  };
  edit('append', 'append', 'add text at the end of a note; every other byte stays', false, ([text]) => ({
    append: text!,
  }));
  edit(
    'prepend',
    'prepend',
    'add text at the top of the body, after the frontmatter and title heading',
    false,
    ([text]) => ({
      prepend: text!,
    }),
  );
  edit(
    'section',
    'replace_section',
    'replace the body under a heading, up to the next heading of the same or a higher level',
    true,
    ([heading, text]) => ({ replaceSection: heading!, text: text! }),
  );
  edit(
    'insert',
    'insert_under',
    'add text under a heading, after its last line and before any subheading',
    true,
    ([heading, text]) => ({
      insertUnder: heading!,
      text: text!,
    }),
  );
}
