import type { Command } from 'commander';
import type { NoteEdit, WriteCommit } from '../../internal.js';
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

/** A body edit of `mem note`: its command, the mode its input schema names, how its arguments make it. */
interface BodyEdit {
  name: string;
  mode: 'append' | 'prepend' | 'replace_section' | 'insert_under';
  description: string;
  /** Takes a `<heading>` argument before the text */
  withHeading: boolean;
  make: (args: string[]) => NoteEdit;
}

/** The body edits, in the order `mem note --help` lists them. */
const BODY_EDITS: BodyEdit[] = [
  {
    name: 'append',
    mode: 'append',
    description: 'add text at the end of a note; every other byte stays',
    withHeading: false,
    make: ([text]) => ({ append: text! }),
  },
  {
    name: 'prepend',
    mode: 'prepend',
    description: 'add text at the top of the body, after the frontmatter and title heading',
    withHeading: false,
    make: ([text]) => ({ prepend: text! }),
  },
  {
    name: 'section',
    mode: 'replace_section',
    description: 'replace the body under a heading, up to the next heading of the same or a higher level',
    withHeading: true,
    make: ([heading, text]) => ({ replaceSection: heading!, text: text! }),
  },
  {
    name: 'insert',
    mode: 'insert_under',
    description: 'add text under a heading, after its last line and before any subheading',
    withHeading: true,
    make: ([heading, text]) => ({ insertUnder: heading!, text: text! }),
  },
];

/** `mem note`: create a note (new), change its frontmatter (set), edit its body (BODY_EDITS). */
export function noteWriteCommands(program: Command, io: CliIO): void {
  const note = program
    .command('note')
    .description('create notes, change their frontmatter and edit their body');
  noteNew(note, io);
  noteSet(note, io);
  for (const edit of BODY_EDITS) noteBodyEdit(note, io, edit);
}

/** `mem note new <path>`: create a note with id, title, created and updated. */
function noteNew(note: Command, io: CliIO): void {
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
}

/** `mem note set <note> [key=value...]`: change frontmatter keys; the body stays byte for byte. */
function noteSet(note: Command, io: CliIO): void {
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
}

/** One body edit's command: `mem note <name> <note> [<heading>] <text>`, its text from stdin with `-`. */
function noteBodyEdit(
  note: Command,
  io: CliIO,
  { name, mode, description, withHeading, make }: BodyEdit,
): void {
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
}
