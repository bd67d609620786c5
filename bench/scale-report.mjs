// bench/results/SCALE.md and the three charts, from scale.json's numbers.
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { formatCount, formatMiB, formatMs, logLogChart, SIZE_UNITS, TIME_UNITS } from './svg-chart.mjs';

const CHARTS = {
  index: 'scale-index.svg',
  query: 'scale-query.svg',
  rss: 'scale-rss.svg',
};

/** 340 ms, 6.2 s. */
function time(ms) {
  if (ms == null || !Number.isFinite(ms)) return '–';
  if (ms >= 1000) return `${Number((ms / 1000).toPrecision(3))} s`;
  if (ms >= 10) return `${Math.round(ms)} ms`;
  return `${Number(ms.toPrecision(2))} ms`;
}

function size(mib) {
  if (mib == null || !Number.isFinite(mib)) return '–';
  return mib >= 1024 ? `${Number((mib / 1024).toPrecision(3))} GiB` : `${Number(mib.toPrecision(3))} MiB`;
}

const ratio = (r) => (r == null || !Number.isFinite(r) ? '–' : `${Number(r.toPrecision(2))}×`);
const p5095 = (s) => (s ? `${time(s.p50)} / ${time(s.p95)}` : '–');

/** The markers around the headline table in README.md and docs/benchmarks.md (`<!-- scale-headline:start -->`). */
export const HEADLINE = 'scale-headline';

/** Rows of [label, value for each vault]. */
function rows(vaults) {
  /** @type {[string, (v: any) => string][]} */
  const spec = [
    ['notes (vault size)', (v) => `${v.notes.toLocaleString('en')} (${size(v.vaultMiB)})`],
    [
      'cold `mem index --rebuild`: CPU / peak RSS',
      (v) => `${time(v.coldIndex.mem.cpuMs.p50)} / ${size(v.coldIndex.mem.peakRssMiB)}`,
    ],
    [
      'cold `qmd collection add`: CPU / peak RSS',
      (v) =>
        v.coldIndex.qmd ? `${time(v.coldIndex.qmd.cpuMs.p50)} / ${size(v.coldIndex.qmd.peakRssMiB)}` : '–',
    ],
    ['↳ mem ÷ qmd, cold index (paired)', (v) => ratio(v.coldIndex.ratioMemToQmd)],
    ['plain MiniSearch index (read + `addAll`), CPU', (v) => time(v.coldIndex.miniSearch.cpuMs)],
    ['on disk: `.mem/` cache / qmd index', (v) => `${size(v.cacheMiB)} / ${size(v.qmdIndexMiB)}`],
    [
      'warm `mem recall --no-server` process: CPU p50 / peak RSS',
      (v) => `${time(v.processQuery.mem.cpuMs.p50)} / ${size(v.processQuery.mem.peakRssMiB)}`,
    ],
    [
      '`qmd search` process: CPU p50 / peak RSS',
      (v) =>
        v.processQuery.qmd
          ? `${time(v.processQuery.qmd.cpuMs.p50)} / ${size(v.processQuery.qmd.peakRssMiB)}`
          : '–',
    ],
    ['`rg` process: CPU p50', (v) => (v.processQuery.rg ? time(v.processQuery.rg.cpuMs.p50) : '–')],
    ['↳ mem ÷ qmd, process query (paired)', (v) => ratio(v.processQuery.ratioMemToQmd)],
    ['↳ mem ÷ rg, process query (paired)', (v) => ratio(v.processQuery.ratioMemToRg)],
    ['in-process `recall`, CPU p50 / p95', (v) => p5095(v.inProcess.recallCpuMs)],
    ['plain MiniSearch `search`, CPU p50 / p95', (v) => p5095(v.inProcess.miniSearchCpuMs)],
    ['↳ recall ÷ MiniSearch (paired)', (v) => ratio(v.inProcess.ratioRecallToMiniSearch)],
    ['in-process `compile` @2000 tokens, CPU p50 / p95', (v) => p5095(v.inProcess.compileCpuMs)],
    [
      '`mem serve` listening / first full (not `partial`) answer, wall; idle CPU',
      (v) =>
        `${time(v.serve.startMs)} / ${time(v.serve.fullAnswerMs)}; ${time(v.serve.idleCpuMsPerSecond)}/s`,
    ],
    [
      '`mem recall` process asking the running server: CPU p50 of the command + the server; wall p50',
      (v) =>
        v.serve.servedRecall
          ? `${time(v.serve.servedRecall.cliCpuMs.p50)} + ${time(v.serve.servedRecall.serverCpuMs.p50)}; ${time(v.serve.servedRecall.wallMs.p50)}`
          : '–',
    ],
    [
      '`mem recall` process, the daemon answering: CPU p50 of the command + the daemon; first call (starts the daemon)',
      (v) =>
        v.daemon
          ? `${time(v.daemon.recall.cliCpuMs.p50)} + ${time(v.daemon.recall.daemonCpuMs.p50)}; first ${time(v.daemon.first.cliCpuMs)} + ${time(v.daemon.first.daemonCpuMs)}`
          : '–',
    ],
    [
      '`mem compile` @2000 process, the daemon answering: CPU p50 of the command + the daemon',
      (v) =>
        v.daemon ? `${time(v.daemon.compile.cliCpuMs.p50)} + ${time(v.daemon.compile.daemonCpuMs.p50)}` : '–',
    ],
    [
      '`/memory/search`, 1 client: p50 / p95 (server CPU per request)',
      (v) => `${p5095(v.serve.memorySearch.one)} (${time(v.serve.memorySearch.one.serverCpuMsPerRequest)})`,
    ],
    [
      '`/memory/search`, 8 clients: p50 / p95, requests/s',
      (v) => `${p5095(v.serve.memorySearch.eight)}, ${v.serve.memorySearch.eight.perSecond}/s`,
    ],
    [
      '`mem serve --workers 1`: workers ready (wall); `/memory/search` requests/s at 1 / 8 clients',
      (v) =>
        v.serveWorkers
          ? `${time(v.serveWorkers.workersReadyMs)}; ${v.serveWorkers.memorySearch.one.perSecond}/s / ${v.serveWorkers.memorySearch.eight.perSecond}/s (${v.serveWorkers.answered.workers} of ${v.serveWorkers.answered.workers + v.serveWorkers.answered.here} by the worker)`
          : '–',
    ],
    [
      '`/memory/search` requests/s at 1 / 8 clients without workers',
      (v) => `${v.serve.memorySearch.one.perSecond}/s / ${v.serve.memorySearch.eight.perSecond}/s`,
    ],
    ['in-process `openVault` from the cache, CPU', (v) => time(v.inProcess.openCpuMs)],
    [
      'RSS of the serving process after its first answer / after the queries: `mem serve`',
      (v) =>
        v.serve.rssAfterOpenMiB == null ? '–' : `${size(v.serve.rssAfterOpenMiB)} / ${size(v.serve.rssMiB)}`,
    ],
    [
      'the same: `qmd mcp` asked the same queries (CPU per query)',
      (v) =>
        v.qmdResident
          ? `${size(v.qmdResident.rssAfterOpenMiB)} / ${size(v.qmdResident.rssAfterQueriesMiB)} (${time(v.qmdResident.cpuMsPerQuery)})`
          : '–',
    ],
    [
      '`/memory/add`, server CPU per add: first → last hundred of 1,000; 8-client burst of 1,000 more',
      (v) =>
        v.adds
          ? `${time(v.adds.cpuMsPerAdd.first)} → ${time(v.adds.cpuMsPerAdd.last)}; ${time(v.adds.burst.cpuMsPerAdd)}`
          : '–',
    ],
    [
      '`mem serve` RSS: after open → after 1,000 adds → after the burst (ratio to open)',
      (v) =>
        v.adds
          ? `${size(v.adds.rssAfterOpenMiB)} → ${size(v.adds.rssAfterAddsMiB)} → ${size(v.adds.rssAfterBurstMiB)} (${ratio(v.adds.ratioRssAfterBurstToOpen)})`
          : '–',
    ],
    [
      'RSS: `mem serve --workers 1` after the load',
      (v) => (v.serveWorkers ? size(v.serveWorkers.rssMiB) : '–'),
    ],
    [
      '`mem serve` after the load: 50 `/compile` of new messages, server CPU a compile; RSS after them',
      (v) =>
        v.serve.compiles
          ? `${time(v.serve.compiles.serverCpuMsPerCompile)}; ${size(v.serve.compiles.rssMiB)}`
          : '–',
    ],
    [
      'RSS: `mem serve` after the load / in process after open',
      (v) => `${size(v.serve.rssMiB)} / ${size(v.inProcess.rssAfterOpenMiB)}`,
    ],
    ['RSS: plain MiniSearch process after indexing', (v) => size(v.inProcess.miniSearchRssMiB)],
  ];
  return spec.map(([label, cell]) => [label, ...vaults.map(cell)]);
}

function machineText(m) {
  return m ? ` on ${m.cpu}, ${m.cores} cores, ${m.memoryGiB} GiB RAM, Node ${m.node}, ${m.platform}` : '';
}

/** The markdown page: how it was measured, the table, the charts. */
export function renderScaleMarkdown(results) {
  const vaults = results.vaults;
  const header = ['', ...vaults.map((v) => formatCount(v.notes))];
  const table = [
    `| ${header.join(' | ')} |`,
    `|---|${vaults.map(() => '---:').join('|')}|`,
    ...rows(vaults).map((r) => `| ${r.join(' | ')} |`),
  ];
  const runs = vaults
    .map(
      (v) =>
        `${formatCount(v.notes)}: ${v.coldIndex.runs} cold pair(s), ${v.processQuery.queries} queries × each tool, ${v.inProcess.recallCpuMs.n} in-process queries, ${v.inProcess.compileCpuMs.n} compiles (measured ${v.ranAt?.slice(0, 10) ?? '?'})`,
    )
    .join('; ');
  const peers = results.peers;
  const load = vaults
    .filter((v) => v.loadAverage)
    .map((v) => `${formatCount(v.notes)} ${v.loadAverage.before} / ${v.loadAverage.after15min}`)
    .join(', ');
  return `${[
    '# Scale, side by side',
    '',
    `Generated by \`npm run bench -- --scale\` (\`--scale=100k\` adds the 100k vault) on ${results.ranAt.slice(0, 10)}${machineText(results.machine)}; raw numbers in \`scale.json\`. Vaults from \`bench/synth-vault.mjs\` (seeded); queries from \`bench/queries.mjs\` (Chinese, English, mixed, names, time words).`,
    '',
    `Peers: ${peers.qmd ?? 'qmd skipped'}; ${peers.rg ?? 'ripgrep skipped'}; ${peers.miniSearch}.`,
    ...(results.notices?.length ? ['', ...results.notices.map((n) => `> Notice: ${n}; skipped.`)] : []),
    '',
    table.join('\n'),
    '',
    ...(results.pool ? [poolLine(results.pool, '../../docs/'), ''] : []),
    'How each number is taken:',
    '',
    '- **CPU** is user + system time of the whole process (every thread), read inside it at exit (`bench/usage-hook.mjs`); `rg`’s from bash’s `times`. In process, the CPU time of one synchronous call. Medians unless p95 is named.',
    '- **Paired ratios**: mem and the peer run one after the other on the same input, the order alternating (rotating with three tools); the ratio is the median of the per-pair ratios. Above 1× mem costs more.',
    '- **Cold index**: `mem index --rebuild` with `.mem/` deleted (read, parse, index every note, write the cache) against `qmd collection add` into an empty qmd index (its SQLite FTS5 BM25 index; no embeddings).',
    '- **Process query**: `mem recall <q> -k 8 --json --no-server` (opens the vault in its own process, as a command does where no server or daemon answers: loads the cache, then walks and `stat`s every note so the answer is never stale) against `qmd search <q> -n 8 --format json` (BM25 over its SQLite index; it does not look at the files) and `rg -l -i -F -g "*.md" -e <word>…` (every note read each time, no ranking). qmd runs as `node dist/cli/qmd.js`, without its `bin/qmd` launcher’s second process.',
    '- **Resident servers**: `mem serve` RSS (`VmRSS`) after its first full answer and after the load below; `qmd mcp` (its MCP server on stdio, the index open for good) asked the same queries one at a time as `tools/call query` with one `lex` (BM25) sub-search, rerank off, limit 8: its RSS after the first answer and after them all, and its CPU per query from `/proc/<pid>/stat`.',
    '- **Adds**: a `mem serve` of its own (after its first full answer), then 1,000 `POST /memory/add` exchanges (2 entries each) from one client to one day, the server CPU per add for each hundred, then 1,000 more from 8 clients at once; RSS after open, after the 1,000 and after the burst.',
    "- **In process**: one warm `openVault` in a fresh process, garbage collected once after opening; `vault.recall(q)` for every query, then `vault.compile`, with nothing else in the heap. Then plain MiniSearch (`new MiniSearch({ fields: ['text'] })` over each note’s whole text, `search(q)` with default options) is built in the same process and alternates with `vault.recall(q)` query by query, for the paired ratio and MiniSearch’s own figures (measured beside it, mem’s p95 carried MiniSearch’s garbage collection: V8 collects on helper threads, and a process’s CPU time counts them). MiniSearch’s RSS is a separate process that only reads and indexes the notes.",
    '- **Serve**: `mem serve --port 0` until it prints its URL (wall), then `POST /memory/search` `{query, limit: 8}` over loopback (plain `node:http` clients on kept-alive connections, on the same 2 cores: `fetch` cost them 1.0 ms of CPU a request against 0.3 ms) until an answer is not marked `partial` (the first full answer), 20 warm-up requests, its idle CPU over 2 s, then one client, then eight at once (an unmeasured pass of eight first, to warm every thread that answers them, with `--workers` alike). Every pass asks queries the server has not been asked before, in the shapes of the in-process ones (a companion asks something new every turn; a pass that repeated the last one measured one thread’s lists kept for those very queries); server CPU per request from `/proc/<pid>/stat` (all of the server’s CPU during the load, divided by the requests); RSS (`VmRSS`) after the load. Then 50 `POST /compile` of new messages (budget 2,000, one at a time, as a companion’s turns; the first loads the token counter): server CPU per compile and RSS after them.',
    '- **Read workers**: `mem serve --port 0 --workers 1`, then `/health` polled until its worker has opened the vault (wall time from the start), 20 warm-up requests, then one client and eight at once as above (the same passes of new queries); how many of the requests the worker answered and how many the server’s own thread did, from `/health`; RSS after the load (both copies of the index).',
    '- **Daemon**: with no `mem serve` running, the first `mem recall` starts the vault’s background daemon (`mem daemon run`, detached) and waits for it; its row counts that command’s CPU and all of the daemon’s until it answered (opening the vault from the cache). The calls after it are answered by the daemon: the command’s CPU plus the daemon’s for that request, from `/proc/<pid>/stat` (a fresh read: the daemon walks and `stat`s every note first). Then `mem compile` the same way. The daemon is stopped after.',
    `- Repetitions: ${runs}.`,
    `- The machine is shared: wall times (serve start, HTTP latency, requests/s) grow with whatever else runs on its ${results.machine?.cores ?? 'few'} cores; CPU times much less.${load ? ` Load average during each size (1-minute before, 15-minute after): ${load}.` : ''}`,
    '',
    `![Cold index CPU against vault size](${CHARTS.index})`,
    '',
    `![CPU per query against vault size](${CHARTS.query})`,
    '',
    `![Memory against vault size](${CHARTS.rss})`,
    '',
  ].join('\n')}`;
}

/** `103 / 238 MiB`, or each in its own unit past a GiB. */
const mibPair = (a, b) =>
  a < 1024 && b < 1024 ? `${Math.round(a)} / ${Math.round(b)} MiB` : `${size(a)} / ${size(b)}`;

/**
 * The pool's line under the headline (bench/vault-pool.mjs, pool.json): one server holding many
 * vaults, what a loaded vault costs it and what a reopen after eviction costs.
 */
export function poolLine(pool, docs = 'docs/') {
  if (!pool) return undefined;
  return `A [pool](${docs}many-servers.md) (one \`mem serve --vaults\`, ${pool.vaults.toLocaleString('en')} vaults of ${pool.notesPerVault.toLocaleString('en')} notes, measured first by the same run): ${pool.rssPerLoadedVaultMiB} MiB of RSS a loaded vault, ${size(pool.extrapolated1000VaultsMiB)} for 1,000 (extrapolated); a reopen after idle eviction ${time(pool.reopenAfterEviction.cpuP50Ms)} of server CPU (p50).`;
}

/** 2.2 ms, 19 ms: two significant digits, for the headline's in-process figures. */
const two = (ms) => (ms == null || !Number.isFinite(ms) ? '–' : String(Number(ms.toPrecision(2))));

/**
 * The headline table: the two largest vaults, memvault beside qmd, with the run's date and machine.
 * It stands in the README and in docs/benchmarks.md; `docs` is the path from the page to docs/.
 */
export function renderHeadline(results, docs = 'docs/') {
  const pool = results.pool;
  const vaults = results.vaults.slice(-2);
  const head = vaults.flatMap((v) => [`${v.notes.toLocaleString('en')} notes: memvault`, 'qmd (BM25)']);
  /** @type {[string, (v: any) => string, (v: any) => string][]} */
  const spec = [
    [
      'cold index, CPU / peak RSS',
      (v) => `${time(v.coldIndex.mem.cpuMs.p50)} / ${size(v.coldIndex.mem.peakRssMiB)}`,
      (v) =>
        v.coldIndex.qmd ? `${time(v.coldIndex.qmd.cpuMs.p50)} / ${size(v.coldIndex.qmd.peakRssMiB)}` : '–',
    ],
    [
      'one query as a process that opens the index (`--no-server`)',
      (v) => time(v.processQuery.mem.cpuMs.p50),
      (v) => (v.processQuery.qmd ? time(v.processQuery.qmd.cpuMs.p50) : '–'),
    ],
    [
      `one query as a process the [daemon](${docs}http-mcp.md#the-background-daemon) answers (command + daemon)`,
      (v) =>
        v.daemon
          ? `${Math.round(v.daemon.recall.cliCpuMs.p50)} + ${Math.round(v.daemon.recall.daemonCpuMs.p50)} ms`
          : '–',
      () => '–',
    ],
    [
      'in process: recall p50 / p95',
      (v) => `${two(v.inProcess.recallCpuMs.p50)} / ${two(v.inProcess.recallCpuMs.p95)} ms`,
      () => '–',
    ],
    [
      'in process: compile @2000 p50 / p95',
      (v) => `${two(v.inProcess.compileCpuMs.p50)} / ${two(v.inProcess.compileCpuMs.p95)} ms`,
      () => '–',
    ],
    ['open from the cache, in process, CPU', (v) => time(v.inProcess.openCpuMs), () => '–'],
    [
      'resident server (`mem serve` / `qmd mcp`): RSS after open / after the load',
      (v) => (v.serve.rssAfterOpenMiB == null ? '–' : mibPair(v.serve.rssAfterOpenMiB, v.serve.rssMiB)),
      (v) => (v.qmdResident ? mibPair(v.qmdResident.rssAfterOpenMiB, v.qmdResident.rssAfterQueriesMiB) : '–'),
    ],
    [
      'resident server: CPU per query',
      (v) => time(v.serve.memorySearch.one.serverCpuMsPerRequest),
      (v) => (v.qmdResident ? time(v.qmdResident.cpuMsPerQuery) : '–'),
    ],
    [
      '`/memory/add`: server CPU, first → last hundred of 1,000',
      (v) => (v.adds ? `${two(v.adds.cpuMsPerAdd.first)} → ${two(v.adds.cpuMsPerAdd.last)} ms` : '–'),
      () => '–',
    ],
    [
      '`mem serve` RSS after 2,000 adds ÷ after open',
      (v) => (v.adds ? ratio(v.adds.ratioRssAfterBurstToOpen) : '–'),
      () => '–',
    ],
  ];
  const times = results.vaults
    .map((v) => v.ranAt)
    .filter(Boolean)
    .sort();
  const clock = (iso) => iso.slice(11, 16);
  const when = times.length
    ? `${times[0].slice(0, 10)} (vault sizes finished ${clock(times[0])}–${clock(times[times.length - 1])} UTC)`
    : results.ranAt.slice(0, 10);
  const loads = results.vaults.map((v) => v.loadAverage?.before).filter((n) => Number.isFinite(n));
  const load = loads.length ? `; load average ${Math.min(...loads)}–${Math.max(...loads)}` : '';
  const flag = Math.max(...results.vaults.map((v) => v.notes)) >= 100_000 ? '--scale=100k' : '--scale';
  return [
    `From \`npm run bench -- ${flag}\`, measured ${when}${machineText(results.machine)}: CPU medians${load}. Generated from \`bench/results/scale.json\` by \`node bench/scale-report.mjs\`.`,
    '',
    `| | ${head.join(' | ')} |`,
    `|---|${head.map(() => '---:').join('|')}|`,
    ...spec.map(
      ([label, mem, qmd]) => `| ${label} | ${vaults.flatMap((v) => [mem(v), qmd(v)]).join(' | ')} |`,
    ),
    ...(pool ? ['', poolLine(pool, docs)] : []),
  ].join('\n');
}

/** The text between `<!-- name:start -->` and `<!-- name:end -->` in a page, or undefined. */
export function between(page, name) {
  const start = `<!-- ${name}:start -->`;
  const end = `<!-- ${name}:end -->`;
  const from = page.indexOf(start);
  const to = page.indexOf(end);
  if (from < 0 || to < from) return undefined;
  return page.slice(from + start.length, to).trim();
}

/** The page with the text between its `name` markers replaced; throws when it has none. */
export function replaceBetween(page, name, text) {
  const start = `<!-- ${name}:start -->`;
  const end = `<!-- ${name}:end -->`;
  const from = page.indexOf(start);
  const to = page.indexOf(end);
  if (from < 0 || to < from) throw new Error(`no ${start} … ${end} markers`);
  return `${page.slice(0, from + start.length)}\n${text}\n${page.slice(to)}`;
}

const series = (name, vaults, pick, dashed = false) => ({
  name,
  dashed,
  points: vaults.map((v) => ({ x: v.notes, y: pick(v) ?? Number.NaN })).filter((pt) => Number.isFinite(pt.y)),
});

const hasAny = (s) => s.points.length > 0;

/** The three SVG charts, by file name. mem's lines are solid, the peers' dashed. */
export function scaleCharts(results) {
  const v = results.vaults;
  const index = logLogChart({
    title: 'Cold index: CPU time',
    xLabel: 'notes in the vault',
    yLabel: 'CPU time',
    formatY: formatMs,
    yUnits: TIME_UNITS,
    series: [
      series('mem index --rebuild', v, (x) => x.coldIndex.mem.cpuMs.p50),
      series('qmd collection add', v, (x) => x.coldIndex.qmd?.cpuMs.p50, true),
      series('MiniSearch addAll', v, (x) => x.coldIndex.miniSearch.cpuMs, true),
    ].filter(hasAny),
  });
  const query = logLogChart({
    title: 'One query: CPU time',
    xLabel: 'notes in the vault',
    yLabel: 'CPU time per query (p50)',
    formatY: formatMs,
    yUnits: TIME_UNITS,
    series: [
      series('mem recall --no-server (process)', v, (x) => x.processQuery.mem.cpuMs.p50),
      // How a command line is answered by default on a vault of daemon.minNotes or more: the
      // command's CPU plus the daemon's for that request. Without it the chart showed only the
      // process that opens the index, 25× qmd at 100k, where the default costs about half of qmd.
      series('mem recall + its daemon', v, (x) => x.daemon?.recall.totalCpuMs.p50),
      series('qmd search (process)', v, (x) => x.processQuery.qmd?.cpuMs.p50, true),
      series('rg (process)', v, (x) => x.processQuery.rg?.cpuMs.p50, true),
      series('mem serve, per request', v, (x) => x.serve.memorySearch.one.serverCpuMsPerRequest),
      series('vault.recall (in process)', v, (x) => x.inProcess.recallCpuMs.p50),
      series('MiniSearch search (in process)', v, (x) => x.inProcess.miniSearchCpuMs.p50, true),
    ].filter(hasAny),
  });
  const rss = logLogChart({
    title: 'Memory (RSS)',
    xLabel: 'notes in the vault',
    yLabel: 'RSS',
    formatY: formatMiB,
    yUnits: SIZE_UNITS,
    series: [
      series('mem index, peak', v, (x) => x.coldIndex.mem.peakRssMiB),
      series('mem recall process, peak', v, (x) => x.processQuery.mem.peakRssMiB),
      series('mem serve after load', v, (x) => x.serve.rssMiB),
      series('qmd collection add, peak', v, (x) => x.coldIndex.qmd?.peakRssMiB, true),
      series('qmd search process, peak', v, (x) => x.processQuery.qmd?.peakRssMiB, true),
      series('MiniSearch process', v, (x) => x.inProcess.miniSearchRssMiB, true),
    ].filter(hasAny),
  });
  return { [CHARTS.index]: index, [CHARTS.query]: query, [CHARTS.rss]: rss };
}

/** `node bench/scale-report.mjs`: SCALE.md, the charts and the README's headline again from scale.json (no measuring). */
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const dir = new URL('./results/', import.meta.url);
  const results = JSON.parse(await readFile(new URL('scale.json', dir), 'utf8'));
  await writeFile(new URL('SCALE.md', dir), renderScaleMarkdown(results));
  for (const [name, svg] of Object.entries(scaleCharts(results))) await writeFile(new URL(name, dir), svg);
  const pages = { '../../README.md': 'docs/', '../../docs/benchmarks.md': '' };
  for (const [page, docs] of Object.entries(pages)) {
    const url = new URL(page, dir);
    await writeFile(
      url,
      replaceBetween(await readFile(url, 'utf8'), HEADLINE, renderHeadline(results, docs)),
    );
  }
  process.stdout.write(
    `written: ${fileURLToPath(new URL('SCALE.md', dir))}, ${Object.keys(scaleCharts(results)).join(', ')} and the headline in README.md and docs/benchmarks.md\n`,
  );
}
