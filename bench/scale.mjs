import { execFile } from 'node:child_process';
import { appendFile, mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { openVault } from '../dist/index.js';
import { makeRandom } from './prng.mjs';
import { makeMessages, makeQueries } from './queries.mjs';
import { median, mib, round, summarize, timed } from './stats.mjs';
import { SYNTH_NOW, writeSynthVault } from './synth-vault.mjs';

const run = promisify(execFile);
const QUERIES = 200;
const REMEMBERS = 50;
const BUDGET = 2000;

/** Memory of a fresh process holding one warm vault (and of one holding only the library). */
async function childMemory(path) {
  const script = fileURLToPath(new URL('./open-memory.mjs', import.meta.url));
  const { stdout } = await run(process.execPath, ['--expose-gc', script, ...(path ? [path] : [])]);
  return JSON.parse(stdout);
}

/** Bytes of the index cache: its manifest and every segment of its generation. */
async function cacheSize(root) {
  let total = 0;
  for (const entry of await readdir(join(root, '.mem', 'index'), { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) total += (await stat(join(entry.parentPath, entry.name))).size;
  }
  return total;
}

/** Cold builds: the cache is deleted, so every note is read, parsed and indexed, then the cache saved. */
async function coldBuilds(root, runs, warmups) {
  const times = [];
  for (let i = 0; i < warmups + runs; i++) {
    await rm(join(root, '.mem'), { recursive: true, force: true });
    const { ms } = await timed(() => openVault({ path: root }));
    if (i >= warmups) times.push(ms);
  }
  return times;
}

async function warmOpens(root, runs) {
  const times = [];
  let vault;
  for (let i = 0; i < runs + 1; i++) {
    const { ms, value } = await timed(() => openVault({ path: root }));
    if (i > 0) times.push(ms);
    vault = value;
  }
  return { times, vault };
}

/** Edits one insight at a time and measures both ways the index catches up. */
async function incremental(vault, paths, runs) {
  const refresh = [];
  const refreshPaths = [];
  for (let i = 0; i < runs; i++) {
    const a = paths[i * 2];
    await appendFile(join(vault.root, a), `\n- edited by the benchmark, run ${i}\n`);
    refresh.push((await timed(() => vault.refresh())).ms);
    if (vault.lastRefresh.changed !== 1)
      throw new Error(`refresh saw ${vault.lastRefresh.changed} changes, not 1`);
    const b = paths[i * 2 + 1];
    await appendFile(join(vault.root, b), `\n- edited by the benchmark, run ${i}\n`);
    const { ms, value } = await timed(() => vault.refreshPaths([b]));
    if (value.changed !== 1) throw new Error(`refreshPaths saw ${value.changed} changes, not 1`);
    refreshPaths.push(ms);
  }
  const save = [];
  for (let i = 0; i < runs; i++) save.push((await timed(() => vault.save())).ms);
  return { refresh, refreshPaths, save };
}

/** Times `fn` on every item after `warmups` untimed calls; `inspect` sees each timed result. */
function latencies(items, warmups, fn, inspect) {
  for (const item of items.slice(0, warmups)) fn(item);
  const times = [];
  for (const item of items) {
    const start = performance.now();
    const result = fn(item);
    times.push(performance.now() - start);
    inspect(result);
  }
  return times;
}

/** Per-shape p50, to show which kind of query is slow. */
function byShape(items, times) {
  const groups = new Map();
  items.forEach((item, i) => {
    const list = groups.get(item.shape) ?? [];
    list.push(times[i]);
    groups.set(item.shape, list);
  });
  return Object.fromEntries([...groups].map(([shape, list]) => [shape, round(median(list))]));
}

async function remembers(vault, count) {
  const r = makeRandom(5);
  const times = [];
  for (let i = -3; i < count; i++) {
    const at = new Date(SYNTH_NOW.getTime() + (i + 3) * 60_000);
    const text = `${r.pick(['今天', 'Today'])} benchmark entry ${i + 3}: ${r.pick(['火锅', 'coffee', '跑步', 'a long walk'])}`;
    const { ms } = await timed(() => vault.remember({ text, speaker: 'Rain', at }));
    if (i >= 0) times.push(ms);
  }
  return times;
}

/**
 * The scale benchmark for one vault size. Returns the vault (warm) and its path so the watcher
 * and HTTP benchmarks can reuse it; the caller removes the folder.
 */
export async function benchScale(total, options) {
  const root = await mkdtemp(join(tmpdir(), `memvault-bench-${total}-`));
  try {
    return await measure(root, total, options);
  } catch (error) {
    await rm(root, { recursive: true, force: true });
    throw error;
  }
}

async function measure(root, total, { log, coldRuns }) {
  const { ms: genMs, value: meta } = await timed(() => writeSynthVault(root, total));
  log(
    `  ${total} notes (${meta.entries} episode entries, ${mib(meta.bytes)} MiB) written in ${round(genMs / 1000, 1)} s`,
  );

  const cold = await coldBuilds(root, coldRuns, total >= 5000 ? 0 : 1);
  const cacheBytes = await cacheSize(root);
  log(`  cold build: ${cold.map((t) => `${round(t / 1000, 2)} s`).join(', ')}; cache ${mib(cacheBytes)} MiB`);

  const { times: warm, vault } = await warmOpens(root, 3);
  log(`  warm open: median ${round(median(warm))} ms`);
  const memory = await childMemory(root);
  const baseline = await childMemory();
  log(`  memory after warm open: rss ${mib(memory.rss)} MiB, heap ${mib(memory.heapUsed)} MiB`);

  const edits = await incremental(vault, meta.insightPaths, 3);
  log(
    `  edit 1 note: refresh() ${round(median(edits.refresh))} ms, refreshPaths ${round(median(edits.refreshPaths))} ms, save ${round(median(edits.save))} ms`,
  );

  const queries = makeQueries(meta.people, QUERIES);
  let ranged = 0;
  let empty = 0;
  const recallTimes = latencies(
    queries,
    20,
    (q) => vault.recall(q.text, { now: SYNTH_NOW }),
    (result) => {
      if (result.range) ranged++;
      if (result.hits.length === 0) empty++;
    },
  );
  const recall = summarize(recallTimes);
  log(`  recall: p50 ${recall.p50} ms, p95 ${recall.p95} ms, max ${recall.max} ms`);

  const messages = makeMessages(meta.people, QUERIES);
  let overBudget = 0;
  let usedTotal = 0;
  const compileTimes = latencies(
    messages,
    10,
    (m) => vault.compile({ message: m.text, budget: BUDGET, now: SYNTH_NOW }),
    (result) => {
      if (result.used > BUDGET) overBudget++;
      usedTotal += result.used;
    },
  );
  const compile = summarize(compileTimes);
  log(`  compile @${BUDGET}: p50 ${compile.p50} ms, p95 ${compile.p95} ms`);

  const rememberTimes = await remembers(vault, REMEMBERS);
  const remember = summarize(rememberTimes);
  log(`  remember: p50 ${remember.p50} ms, p95 ${remember.p95} ms`);

  return {
    root,
    vault,
    meta,
    result: {
      notes: meta.notes,
      plan: meta.plan,
      episodeEntries: meta.entries,
      // Not public API: the Vault facade's live index (src/live/live-index.ts), read for this figure only.
      sections: vault.live.index.text.size,
      vaultMiB: mib(meta.bytes),
      generateSeconds: round(genMs / 1000, 2),
      coldBuild: {
        runs: cold.length,
        warmups: total >= 5000 ? 0 : 1,
        medianMs: round(median(cold)),
        allMs: cold.map((t) => round(t)),
        note: 'openVault with no cache: read + parse + index every note, then write the cache',
      },
      cacheMiB: mib(cacheBytes),
      warmOpen: { runs: warm.length, medianMs: round(median(warm)), allMs: warm.map((t) => round(t)) },
      memory: {
        rssMiB: mib(memory.rss),
        heapUsedMiB: mib(memory.heapUsed),
        baselineRssMiB: mib(baseline.rss),
        baselineHeapUsedMiB: mib(baseline.heapUsed),
        note: 'fresh child process after a warm open and two GCs; baseline = library imported, no vault',
      },
      editOneNote: {
        runs: edits.refresh.length,
        refreshMedianMs: round(median(edits.refresh)),
        refreshPathsMedianMs: round(median(edits.refreshPaths)),
        saveCacheMedianMs: round(median(edits.save)),
        note: 'refresh() walks the vault, re-reads the edited note and saves the cache; refreshPaths([path]) re-reads one path and does not save',
      },
      recall: { ...recall, byShapeP50: byShape(queries, recallTimes), withTimeRange: ranged, noHits: empty },
      compile: {
        ...compile,
        budget: BUDGET,
        overBudget,
        meanUsed: round(usedTotal / messages.length, 0),
        byShapeP50: byShape(messages, compileTimes),
      },
      remember: { ...remember, note: 'append + index, git auto-commit off' },
    },
  };
}
