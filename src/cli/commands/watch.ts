import type { Command } from 'commander';
import { openFromCli } from '../context.js';
import type { CliIO } from '../io.js';
import { refuseConflicts } from '../parse-options.js';

/** Resolves on the first SIGINT or SIGTERM, so a foreground command can close cleanly. */
export function waitForStop(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve(signal);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

export const errorText = (error: unknown) => (error as Error).message ?? String(error);

export function watchCommand(program: Command, io: CliIO): void {
  const command = program
    .command('watch')
    .description('keep the index in step with the files while they change; one line per change')
    .option('--quiet', 'print nothing per change')
    .option('--json', 'one JSON object per change: {"kind", "path"}')
    .action(async (options: { quiet?: boolean; json?: boolean }, command: Command) => {
      const vault = await openFromCli(command, io, { track: true });
      const print = options.json
        ? (change: { kind: string; path: string }) => io.stdout(`${JSON.stringify(change)}\n`)
        : (change: { kind: string; path: string }) => io.stdout(`${change.kind} ${change.path}\n`);
      await vault.watch({
        onChange: options.quiet ? undefined : print,
        onError: (error) => io.stderr(`mem: ${errorText(error)}\n`),
      });
      io.stderr(`mem: watching ${vault.root} (${vault.noteCount} notes); Ctrl-C to stop\n`);
      await waitForStop();
      await vault.close();
    });
  refuseConflicts(command, [
    { flag: '--quiet', conflicts: ['--json'], because: '--quiet prints no line per change' },
  ]);
}
