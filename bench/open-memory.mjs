// Run as a child process (`node --expose-gc open-memory.mjs [vault]`) so the numbers are one warm
// vault's, not the benchmark's leftovers. Without a vault it reports the library alone.
import { performance } from 'node:perf_hooks';
import { openVault } from '../dist/index.js';

const path = process.argv[2];
const gc = globalThis.gc ?? (() => undefined);
let vault;
let openMs = 0;
if (path) {
  const start = performance.now();
  vault = await openVault({ path });
  openMs = performance.now() - start;
}
gc();
gc();
const { rss, heapUsed } = process.memoryUsage();
process.stdout.write(`${JSON.stringify({ rss, heapUsed, openMs, notes: vault?.noteCount ?? 0 })}\n`);
