// How far a long-running server's heap grows past what survived its last full collection before
// it collects again. V8 sizes that step by the machine: with memory to spare (a heap limit of
// 2 GiB or more) it lets the heap grow to up to four times its live data. A server's garbage is
// mostly what its caches dropped, already old: `mem serve` of a 100,000-note vault held about
// 150 MiB of live heap and 700-760 MiB of RSS after 1,300 varied queries. A growth of 50 % ended
// the same load at 375-405 MiB, for 7 % more CPU per query (median of three pairs). `mem index`,
// which may build a whole index in its heap, bounds it too (with packed frequencies of a byte, the
// cold build of that vault peaked at 525/527 MiB against 584/591 unbounded). Other short commands
// keep V8's own step.
import { setFlagsFromString } from 'node:v8';

/** How far a server's heap grows past its live data before a full collection, in percent */
export const SERVER_HEAP_GROWTH_PERCENT = 50;

/**
 * Sets this process's heap growth to `percent`, unless node was started with a growth of its own
 * (`node --heap-growing-percent=N`; NODE_OPTIONS may not carry it): true when it was set.
 */
export function boundHeapGrowth(
  percent: number = SERVER_HEAP_GROWTH_PERCENT,
  started: string[] = process.execArgv,
): boolean {
  if (started.some((arg) => /^--heap[-_]growing[-_]percent(=|$)/.test(arg))) return false;
  setFlagsFromString(`--heap-growing-percent=${percent}`);
  return true;
}
