import { Command, CommanderError } from 'commander';
import { MemError } from '../core/errors.js';
import { VERSION } from '../core/version.js';
import { compileCommand } from './commands/compile.js';
import { configCommands } from './commands/config.js';
import { daemonCommands } from './commands/daemon.js';
import { forgetCommand } from './commands/forget.js';
import { historyCommands } from './commands/history.js';
import { importCommand } from './commands/import.js';
import { indexCommand } from './commands/index-cmd.js';
import { ingestCommand } from './commands/ingest.js';
import { initCommand } from './commands/init.js';
import { mcpCommand } from './commands/mcp.js';
import { mvCommand } from './commands/mv.js';
import { noteWriteCommands } from './commands/note.js';
import { noteCommands } from './commands/notes.js';
import { recallCommand } from './commands/recall.js';
import { reflectCommand } from './commands/reflect.js';
import { rememberCommand } from './commands/remember.js';
import { serveCommand } from './commands/serve.js';
import { statusCommand } from './commands/status.js';
import { syncCommand } from './commands/sync.js';
import { watchCommand } from './commands/watch.js';
import { type CliIO, processIO } from './io.js';

export function buildProgram(io: CliIO): Command {
  const program = new Command('mem')
    .description('memvault: long-term memory for LLM agents, kept as Markdown notes')
    .version(VERSION, '-V, --version', 'print the version')
    .option(
      '--vault <dir>',
      'the vault folder (default: MEM_VAULT, else the nearest folder with mem.config.json)',
    )
    .option(
      '--no-server',
      'recall and compile open the vault in this process: they neither ask a running `mem serve` or daemon nor start one',
    );
  initCommand(program, io);
  indexCommand(program, io);
  recallCommand(program, io);
  compileCommand(program, io);
  rememberCommand(program, io);
  ingestCommand(program, io);
  importCommand(program, io);
  reflectCommand(program, io);
  noteCommands(program, io);
  noteWriteCommands(program, io);
  mvCommand(program, io);
  syncCommand(program, io);
  forgetCommand(program, io);
  historyCommands(program, io);
  watchCommand(program, io);
  serveCommand(program, io);
  mcpCommand(program, io);
  daemonCommands(program, io);
  statusCommand(program, io);
  configCommands(program, io);
  configure(program, io);
  return program;
}

/**
 * Every command, nested ones too, writes through `io`, never exits the process itself, and reports
 * a usage mistake the way mem reports any error: one `mem: …` line, then a pointer to the help.
 */
function configure(command: Command, io: CliIO, path = 'mem'): void {
  command
    .exitOverride()
    .configureOutput({
      writeOut: io.stdout,
      writeErr: io.stderr,
      outputError: (text, write) => write(`mem: ${text.replace(/^error: /, '')}`),
    })
    .showHelpAfterError(`(see: ${path} --help)`);
  for (const sub of command.commands) configure(sub, io, `${path} ${sub.name()}`);
}

/** Runs `mem` with `argv` (without node and script) and returns the exit code; never exits the process. */
export async function runCli(argv: string[], io: CliIO = processIO()): Promise<number> {
  const program = buildProgram(io);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version are not errors; commander has already printed its message.
      return error.code === 'commander.helpDisplayed' ||
        error.code === 'commander.version' ||
        error.exitCode === 0
        ? 0
        : 2;
    }
    if (error instanceof MemError) {
      io.stderr(`mem: ${error.message}\n`);
      return error.exitCode;
    }
    const err = error as NodeJS.ErrnoException;
    const message = err.message ?? String(error);
    // Node's system errors already start with their code ("ENOENT: no such file …").
    const code = err.code && !message.startsWith(err.code) ? `${err.code}: ` : '';
    io.stderr(`mem: ${code}${message}\n`);
    return 1;
  }
}
