// Recall and compile of two builds of memvault in one process, on the same synthetic vault, in
// alternating rounds, so a refactor's cost is compared under the same machine load (separate runs
// on a shared machine differ more by their order than by the code):
//   git worktree add /tmp/base <commit> && (cd /tmp/base && npm ci && npm run build)
//   npm run build && node bench/paired-versions.mjs /tmp/base/dist [notes=10000] [rounds=7]
// Each build opens its own copy of the vault (their index caches may differ in schema). Prints per
// build the median over rounds of each round's p50 per query, the ratio new/base, and the heap
// each open vault added.
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { makeMessages, makeQueries } from './queries.mjs';
import { percentile, round } from './stats.mjs';
import { SYNTH_NOW, writeSynthVault } from './synth-vault.mjs';

const [baseDist, notesArg, roundsArg] = process.argv.slice(2);
if (!baseDist) {
  console.error('usage: node bench/paired-versions.mjs <base dist folder> [notes] [rounds]');
  process.exit(2);
}
const total = Number(notesArg ?? 10_000);
const rounds = Number(roundsArg ?? 7);
const QUERIES = 200;
const BUDGET = 2000;

/** p50 of one pass of `work` over `items`, in ms per item. */
function pass(items, work) {
  const times = items.map((item) => {
    const start = performance.now();
    work(item);
    return performance.now() - start;
  });
  return percentile(times, 50);
}

const median = (values) => percentile(values, 50);
const gc = globalThis.gc ?? (() => undefined);

const root = await mkdtemp(join(tmpdir(), `memvault-paired-${total}-`));
try {
  const meta = await writeSynthVault(join(root, 'new'), total);
  await cp(join(root, 'new'), join(root, 'base'), { recursive: true });
  const queries = makeQueries(meta.people, QUERIES).map((q) => q.text);
  const messages = makeMessages(meta.people, QUERIES).map((m) => m.text);
  const builds = [];
  for (const { name, dist } of [
    { name: 'base', dist: resolve(baseDist) },
    { name: 'new', dist: resolve('dist') },
  ]) {
    const { openVault } = await import(pathToFileURL(join(dist, 'index.js')).href);
    gc();
    const heapBefore = process.memoryUsage().heapUsed;
    const vault = await openVault({ path: join(root, name) });
    gc();
    const heapMiB = (process.memoryUsage().heapUsed - heapBefore) / 2 ** 20;
    builds.push({ name, vault, heapMiB, recall: [], compile: [] });
  }
  for (let r = 0; r < rounds; r++) {
    // Alternate which build goes first, so neither always runs on a warmer (or hotter) machine.
    const order = r % 2 === 0 ? builds : [...builds].reverse();
    for (const build of order) {
      build.recall.push(pass(queries, (q) => build.vault.recall(q, { now: SYNTH_NOW })));
      build.compile.push(
        pass(messages, (m) => build.vault.compile({ message: m, budget: BUDGET, now: SYNTH_NOW })),
      );
    }
  }
  const [base, next] = builds;
  const line = (what, key) =>
    `${what}: base ${round(median(base[key]), 3)} ms, new ${round(median(next[key]), 3)} ms, new/base ${round(median(next[key]) / median(base[key]), 3)}`;
  console.log(
    `${total} notes, ${rounds} alternating rounds of ${QUERIES} queries (p50 per round, median over rounds)`,
  );
  console.log(line('recall p50', 'recall'));
  console.log(line('compile @2000 p50', 'compile'));
  console.log(
    `heap added by the open vault: base ${round(base.heapMiB, 1)} MiB, new ${round(next.heapMiB, 1)} MiB`,
  );
  for (const build of builds) await build.vault.close?.();
} finally {
  await rm(root, { recursive: true, force: true });
}
