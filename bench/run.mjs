// `npm run bench`: the scale benchmark (synthetic 1k and 10k vaults) and the quality benchmark
// (LoCoMo evidence recall), and the paraphrase benchmark (meaning reaching compile, with a stub
// embedding server; bench/paraphrase.mjs, also written to bench/results/paraphrase.json). Flags:
// --quick (1k vault and one conversation; results go to bench/results/*.tmp), --only
// scale|locomo|chinese|paraphrase (a full run of one part, merged into results.json),
// MEM_BENCH_EMBEDDINGS (a real endpoint for the paraphrase and LoCoMo parts, bench/bench-embeddings.mjs),
// --scale[=100k] (only the side-by-side scale run with qmd, ripgrep and MiniSearch: 1k and 10k, or
// every size up to the one given, after the pool below (SCALE_POOL=0 skips it); written to
// bench/results/scale.json, SCALE.md and scale-*.svg),
// --only vectors (the vector cache at 10k and 100k notes, on its own: bench/results/vectors.json),
// --only cluster (three servers behind HAProxy with vaults moving and a server killed, on its own:
// bench/results/cluster.json; HAProxy and git must be installed),
// --only pool (one mem serve --vaults over up to 1,000 vaults of 1,000 notes: RSS loaded and after
// eviction, first open and reopen; POOL_VAULTS, POOL_NOTES; bench/vault-pool.mjs, bench/results/pool.json).
import { readFile, rm, writeFile } from 'node:fs/promises';
import { cpus, platform, release, totalmem } from 'node:os';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { benchCluster } from './cluster.mjs';
import { benchCompanionAdds } from './companion-adds.mjs';
import { formatJson } from './format-json.mjs';
import { benchHttp } from './http-latency.mjs';
import { benchKnowledgeUpdate } from './knowledge-update.mjs';
import { benchLocomo } from './locomo.mjs';
import { benchLongChinese } from './long-chinese.mjs';
import { benchParaphrase } from './paraphrase.mjs';
import { makeMessages, makeQueries } from './queries.mjs';
import { renderMarkdown } from './report.mjs';
import { benchScale } from './scale.mjs';
import { runScalePeers, scaleSizes } from './scale-peers.mjs';
import { SYNTH_NOW } from './synth-vault.mjs';
import { benchPool } from './vault-pool.mjs';
import { benchVectors } from './vectors.mjs';
import { benchWatch } from './watch-latency.mjs';

const RESULTS = new URL('./results/', import.meta.url);
const log = (line) => process.stdout.write(`${line}\n`);

async function runScale(quick) {
  const sizes = quick ? [1000] : [1000, 10_000];
  /** @type {{ now: string, coldNote: string, vaults: object[], watcher?: object, http?: object, companion?: object }} */
  const out = {
    now: SYNTH_NOW.toISOString(),
    coldNote: quick
      ? 'Cold builds: 3 runs after one warmup.'
      : 'Cold builds: 1k median of 3 runs after one warmup; 10k run twice (no warmup: the 1k runs warmed the JIT), both shown.',
    vaults: [],
  };
  for (const total of sizes) {
    log(`scale: ${total} notes`);
    const bench = await benchScale(total, { log, coldRuns: total >= 5000 ? 2 : 3 });
    out.vaults.push(bench.result);
    try {
      if (total === 1000) {
        const dailies = bench.meta.days.slice(-20).map((d) => `episodes/daily/${d.date}.md`);
        out.watcher = await benchWatch(bench.vault, dailies, { writes: 20, log });
        out.companion = await benchCompanionAdds({ log });
      }
      if (total === 10_000) {
        out.http = await benchHttp(bench.root, {
          messages: makeMessages(bench.meta.people, 300, 21),
          queries: makeQueries(bench.meta.people, 300, 23),
          now: SYNTH_NOW.toISOString(),
          requests: 300,
          concurrency: 4,
          log,
        });
      }
    } finally {
      await rm(bench.root, { recursive: true, force: true });
    }
  }
  return out;
}

async function previous() {
  try {
    return JSON.parse(await readFile(new URL('results.json', RESULTS), 'utf8'));
  } catch {
    return {};
  }
}

async function main() {
  // `--scale` alone takes the default sizes; parseArgs wants a value for a string option.
  const args = process.argv.slice(2).map((a) => (a === '--scale' ? '--scale=' : a));
  const { values } = parseArgs({
    args,
    options: { quick: { type: 'boolean' }, only: { type: 'string' }, scale: { type: 'string' } },
  });
  if (values.scale !== undefined) {
    if (values.only) throw new Error('--scale runs on its own; leave out --only');
    const quick = Boolean(values.quick);
    const sizes = quick ? [1000] : scaleSizes(values.scale);
    // Progress goes to stderr: a long run says where it is; stdout gets the table at the end.
    const progress = (line) => process.stderr.write(`[${new Date().toISOString().slice(11, 19)}] ${line}\n`);
    // The pool first (POOL_VAULTS; SCALE_POOL=0 keeps the last pool.json), so the report shows it.
    if (process.env['SCALE_POOL'] !== '0') await benchPool({ quick, log: progress });
    const { written } = await runScalePeers({ sizes, quick, resultsDir: RESULTS, log: progress });
    log(await readFile(written.find((f) => /SCALE\.md/.test(f)) ?? '', 'utf8'));
    log(`written: ${written.join(', ')}`);
    return;
  }
  const only = values.only;
  if (only && !['scale', 'locomo', 'chinese', 'vectors', 'paraphrase', 'cluster', 'pool'].includes(only))
    throw new Error(`--only takes scale, locomo, chinese, vectors, paraphrase, cluster or pool, not ${only}`);
  const quick = Boolean(values.quick);
  if (only === 'cluster') {
    const progress = (line) => process.stderr.write(`[${new Date().toISOString().slice(11, 19)}] ${line}\n`);
    const result = await benchCluster({ quick, log: progress });
    log(formatJson(result));
    return;
  }
  if (only === 'pool') {
    const progress = (line) => process.stderr.write(`[${new Date().toISOString().slice(11, 19)}] ${line}\n`);
    log(formatJson(await benchPool({ quick, log: progress })));
    return;
  }
  if (only === 'vectors') {
    // Minutes at 100k (a 1.5 GB JSON file is written to compare): a part of its own, in its own file.
    const progress = (line) => process.stderr.write(`[${new Date().toISOString().slice(11, 19)}] ${line}\n`);
    const vectors = {
      ranAt: new Date().toISOString(),
      machine: { cpu: cpus()[0]?.model ?? 'unknown', cores: cpus().length, node: process.version },
      ...(await benchVectors({ sizes: quick ? [10_000] : [10_000, 100_000], log: progress })),
    };
    const file = new URL(quick ? 'vectors.json.tmp' : 'vectors.json', RESULTS);
    await writeFile(file, `${formatJson(vectors)}\n`);
    log(`written: ${fileURLToPath(file)}`);
    return;
  }
  const start = performance.now();
  // A partial full run keeps the other part's last numbers.
  const results = only && !quick ? await previous() : {};
  Object.assign(results, {
    ranAt: new Date().toISOString(),
    mode: quick ? 'quick' : only ? `full, --only ${only}` : 'full',
    machine: {
      cpu: cpus()[0]?.model ?? 'unknown',
      cores: cpus().length,
      memoryGiB: Math.round(totalmem() / 1024 ** 3),
      node: process.version,
      platform: `${platform()} ${release()}`,
    },
  });
  if (!only || only === 'scale') results.scale = await runScale(quick);
  if (!only || only === 'chinese') {
    log('scale: long Chinese note');
    results.longChinese = await benchLongChinese({ log });
  }
  if (!only || only === 'paraphrase') {
    log('quality: paraphrase (embeddings plumbing)');
    results.paraphrase = await benchParaphrase({ log });
    const file = quick ? 'paraphrase.json.tmp' : 'paraphrase.json';
    await writeFile(new URL(file, RESULTS), `${formatJson(results.paraphrase)}\n`);
  }
  if (!only || only === 'locomo') {
    log('quality: LoCoMo');
    results.locomo = await benchLocomo({ conversations: quick ? 1 : undefined, log });
    log('quality: knowledge update');
    results.knowledgeUpdate = await benchKnowledgeUpdate({ log });
  }
  results.totalMs = Math.round(performance.now() - start);
  const markdown = renderMarkdown(results);
  const [json, md] = quick ? ['quick.json.tmp', 'quick.md.tmp'] : ['results.json', 'RESULTS.md'];
  await writeFile(new URL(json, RESULTS), `${formatJson(results)}\n`);
  await writeFile(new URL(md, RESULTS), markdown);
  log(`\n${markdown}`);
  log(`written: ${fileURLToPath(new URL(json, RESULTS))}, ${fileURLToPath(new URL(md, RESULTS))}`);
}

await main();
