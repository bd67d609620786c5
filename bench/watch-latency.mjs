import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { summarize } from './stats.mjs';

const TIMEOUT_MS = 5000;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Time from writing a file to its new words being found by recall, with the watcher's default
 * timings (what `mem watch` and `mem serve` use). Each write rewrites a daily note, as an editor saves.
 */
export async function benchWatch(vault, dailyPaths, { writes, log }) {
  let waiting;
  const watcher = await vault.watch({
    onChange: (change) => waiting?.(change),
    onError: (error) => log(`  watcher error: ${error instanceof Error ? error.message : error}`),
  });
  const times = [];
  let failures = 0;
  const warmups = 2;
  try {
    for (let i = 0; i < warmups + writes; i++) {
      const path = dailyPaths[i % dailyPaths.length];
      const word = `wlat${i}marker`;
      const text = await readFile(join(vault.root, path), 'utf8');
      const seen = new Promise((resolve) => {
        waiting = (change) => change.path === path && resolve(true);
        setTimeout(() => resolve(false), TIMEOUT_MS);
      });
      const start = performance.now();
      await writeFile(join(vault.root, path), `${text}- 23:59 **Rain:** ${word} note ^w${i}\n`);
      let found = await seen;
      // onChange fires once the index holds the change; confirm that recall really finds it.
      while (found && !vault.recall(word).hits.some((h) => h.path === path)) {
        if (performance.now() - start > TIMEOUT_MS) found = false;
        else await sleep(5);
      }
      const ms = performance.now() - start;
      if (i < warmups) continue;
      if (found) times.push(ms);
      else failures++;
      await sleep(50);
    }
  } finally {
    waiting = undefined;
    await watcher.close();
  }
  const summary = summarize(times);
  log(`  watcher: write → searchable p50 ${summary.p50} ms, p95 ${summary.p95} ms (${failures} timed out)`);
  return {
    ...summary,
    failures,
    note: 'default watcher timings: 150 ms write-stability wait + 100 ms debounce',
  };
}
