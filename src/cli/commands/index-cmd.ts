import type { Command } from 'commander';
import { openFromCli, printJson } from '../context.js';
import type { CliIO } from '../io.js';

/** A terminal line is redrawn at most this often: a 100,000-note index calls back 1,500 times. */
const REDRAW_MS = 200;

/**
 * A one-line progress display on stderr: notes read of the total, the rate and the time left.
 * `clear()` erases it, so the summary on stdout stands alone.
 */
export function indexProgress(io: CliIO, now: () => number = () => performance.now()) {
  const started = now();
  let drawn = -Infinity;
  let shown = false;
  return {
    update(read: number, total: number): void {
      const at = now();
      if (read < total && at - drawn < REDRAW_MS) return;
      drawn = at;
      shown = true;
      const seconds = (at - started) / 1000;
      const rate = seconds > 0 ? read / seconds : 0;
      const left = rate > 0 ? ` · ${formatSeconds((total - read) / rate)} left` : '';
      io.stderr(`\rreading notes ${read} / ${total} · ${Math.round(rate)}/s${left}\x1b[K`);
    },
    clear(): void {
      if (shown) io.stderr('\r\x1b[K');
    },
  };
}

function formatSeconds(seconds: number): string {
  if (seconds < 60) return `${Math.ceil(seconds)} s`;
  return `${Math.floor(seconds / 60)} min ${Math.ceil(seconds % 60)} s`;
}

export function indexCommand(program: Command, io: CliIO): void {
  program
    .command('index')
    .description('bring the index cache up to date (only changed notes are read)')
    .option('--rebuild', 'ignore the cache and index every note again')
    .option('--embed', 'also embed the sections the vector cache lacks (embeddings.enabled)')
    .option('--json', 'machine-readable output')
    .action(async (options: { rebuild?: boolean; embed?: boolean; json?: boolean }, command: Command) => {
      const started = performance.now();
      // A whole index may be built in this heap: its garbage (each note's parse) is collected
      // before the heap grows far past what is live, as a server's is (server-heap.ts).
      (await import('../../serve/server-heap.js')).boundHeapGrowth();
      const progress = io.isTTY && !options.json ? indexProgress(io) : undefined;
      // Indexing writes a cache into the folder: only into a vault made by `mem init`.
      const vault = await openFromCli(command, io, {
        rebuild: options.rebuild,
        requireConfig: true,
        onProgress: progress?.update,
      }).finally(() => progress?.clear());
      // `mem index` is asked to bring the cache up to date, however little is stale.
      if (vault.unsavedChanges > 0) await vault.save();
      let embedded: { sections: number; embedded: number } | undefined;
      if (options.embed) {
        const shown = io.isTTY && !options.json;
        embedded = await vault
          .embed((done, total) => {
            if (shown) io.stderr(`\rembedding sections ${done} / ${total}\x1b[K`);
          })
          .finally(() => {
            if (shown) io.stderr('\r\x1b[K');
          });
      }
      const stats = {
        notes: vault.noteCount,
        ...vault.lastRefresh,
        ...(embedded ? { embedded: embedded.embedded, sections: embedded.sections } : {}),
        ms: Math.round(performance.now() - started),
      };
      if (options.json) printJson(io, stats);
      else
        io.stdout(
          `${stats.notes} notes indexed in ${stats.ms} ms (${stats.added} added, ${stats.changed} changed, ${stats.removed} removed, ${stats.unchanged} unchanged)${embedded ? `; ${embedded.embedded} of ${embedded.sections} sections embedded` : ''}\n`,
        );
    });
}
