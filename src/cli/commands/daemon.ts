import { setTimeout as sleep } from 'node:timers/promises';
import type { Command } from 'commander';
import { MemError } from '../../core/errors.js';
import { findVault } from '../../core/find-vault.js';
import { isAlive, readServeRecord } from '../../core/serve-record.js';
import { VERSION } from '../../core/version.js';
import { httpJson, stopDaemon } from '../ask-server.js';
import { type GlobalOptions, openFromCli, printJson } from '../context.js';
import type { CliIO } from '../io.js';
import { refuseConflicts } from '../parse-options.js';
import { errorText } from './watch.js';

/** How long `mem daemon stop` waits for the process to be gone. */
const STOP_WAIT_MS = 10_000;

const rootOf = (command: Command, io: CliIO) =>
  findVault((command.optsWithGlobals() as GlobalOptions).vault, io.cwd, io.env);

export function daemonCommands(program: Command, io: CliIO): void {
  const daemon = program
    .command('daemon')
    .description(
      'the background process that recall and compile start for a large vault: see it, start it, stop it',
    );

  daemon
    .command('status')
    .description("whether this vault's daemon runs: its pid, URL, version and notes")
    .option('--json', 'machine-readable output')
    .action(async (options: { json?: boolean }, command: Command) => {
      const root = await rootOf(command, io);
      const record = await readServeRecord(root, 'daemon');
      let notes: number | undefined;
      if (record) {
        const health = (await httpJson(`${record.url}/health`, undefined, record.token, 2000, 'GET').catch(
          () => undefined,
        )) as { notes?: number } | undefined;
        notes = health?.notes;
      }
      const running = record !== undefined && notes !== undefined;
      if (options.json) {
        printJson(
          io,
          running
            ? { running, root, pid: record.pid, url: record.url, version: record.version, notes }
            : { running, root },
        );
      } else if (running) {
        const other =
          record.version === VERSION ? '' : ` (this mem is ${VERSION}: the next recall replaces it)`;
        io.stdout(
          `daemon for ${root}: pid ${record.pid} on ${record.url}, memvault ${record.version}${other}, ${notes} notes\n`,
        );
      } else io.stdout(`no daemon for ${root}\n`);
    });

  const start = daemon
    .command('start')
    .description("start this vault's daemon now, whatever the vault's size (daemon.minNotes)")
    .action(async (_options: unknown, command: Command) => {
      const root = await rootOf(command, io);
      const { startDaemon } = await import('../start-daemon.js');
      const record = await startDaemon(root, io.env);
      if (!record) throw new MemError('LOCKED', `the daemon for ${root} did not start; see mem daemon run`);
      io.stdout(`daemon for ${root}: pid ${record.pid} on ${record.url}\n`);
    });
  refuseConflicts(start, [
    { flag: '--no-server', because: '--no-server promises that no server is started' },
  ]);

  daemon
    .command('stop')
    .description("stop this vault's daemon (the next recall or compile starts a new one)")
    .action(async (_options: unknown, command: Command) => {
      const root = await rootOf(command, io);
      const record = await readServeRecord(root, 'daemon');
      if (!record || !(await stopDaemon(record))) {
        io.stdout(`no daemon for ${root}\n`);
        return;
      }
      for (const deadline = Date.now() + STOP_WAIT_MS; isAlive(record.pid) && Date.now() < deadline; )
        await sleep(20);
      io.stdout(`stopped the daemon for ${root} (pid ${record.pid})\n`);
    });

  daemon
    .command('run', { hidden: true })
    .description('be the daemon in the foreground (what recall and compile start, detached)')
    .action(async (_options: unknown, command: Command) => {
      const { runDaemon, configStamp } = await import('../../serve/daemon.js');
      // A server's heap stays near its live data (serve/server-heap.ts).
      (await import('../../serve/server-heap.js')).boundHeapGrowth();
      // Taken before the vault reads its config: an edit made while it opens is still seen.
      const stamp = await configStamp(await rootOf(command, io));
      // Tracked: a fresh read re-reads the notes that changed, not a stat of every note.
      const vault = await openFromCli(command, io, {
        requireConfig: true,
        track: true,
        embedSections: 'background',
      });
      const reason = await runDaemon({
        vault,
        configStamp: stamp,
        idleMs: vault.config.daemon.idleMinutes * 60_000,
        onError: (error) => io.stderr(`mem: ${errorText(error)}\n`),
        onReady: (url) => {
          const { tracked, reason } = vault.changeTracking;
          const looks = tracked ? 'changed notes tracked' : `every read looks at every note: ${reason}`;
          io.stderr(`mem: daemon for ${vault.root} on ${url} (${looks})\n`);
        },
      });
      io.stderr(`mem: daemon for ${vault.root} stopped: ${reason}\n`);
    });
}
