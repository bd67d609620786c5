// `npm run bench -- --scale[=100k]`: memvault side by side with its peers, vault size by vault size,
// in the same run. Every cost is a whole process's CPU time (or a synchronous call's, in process),
// and every ratio is the median of paired runs: mem and the peer one after the other on the same
// input, the order alternating. Peers: qmd (BM25 `qmd search`, installed by bench/peers/install.sh),
// ripgrep (if on PATH) and plain MiniSearch. A missing peer is skipped with a notice.
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { Agent } from 'node:http';
import { cpus, loadavg, platform, release, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { DAEMON_DEFAULTS } from '../dist/core/config/daemon-settings.js';
import { benchDaemon } from './daemon-cost.mjs';
import { formatJson } from './format-json.mjs';
import { startServer, stopServer } from './http-latency.mjs';
import { measureNative, measureNode, procCpuMs, procRss } from './measure-process.mjs';
import { findQmd, findRipgrep, memCli } from './peers.mjs';
import { makeMessages, makeQueries } from './queries.mjs';
import { renderScaleMarkdown, scaleCharts } from './scale-report.mjs';
import { benchAdds, benchQmdResident, postJson } from './scale-serving.mjs';
import { median, mib, percentile, round } from './stats.mjs';
import { SYNTH_NOW, writeSynthVault } from './synth-vault.mjs';

const CHILD = fileURLToPath(new URL('./scale-child.mjs', import.meta.url));
const BUDGET = 2000;
const START_TIMEOUT_MS = 600_000;
/** How long the server's idle CPU is watched, between the warm-up and the load. */
const IDLE_MS = 2000;

/**
 * How much each size repeats: fewer paired runs where one run costs minutes. `parallel` (the
 * requests of each eight-client pass) keeps a measured pass over a second or more: 100 requests
 * at 100k notes, or 200 at 10k, were over in half a second, and requests per second from that
 * moved by a fifth from one run to the next.
 */
function plan(total, quick) {
  if (quick)
    return { coldRuns: 1, processQueries: 4, inprocQueries: 60, compiles: 30, serial: 30, parallel: 80 };
  if (total <= 1000)
    return { coldRuns: 3, processQueries: 13, inprocQueries: 200, compiles: 100, serial: 100, parallel: 600 };
  if (total <= 10_000)
    return { coldRuns: 2, processQueries: 13, inprocQueries: 200, compiles: 100, serial: 100, parallel: 600 };
  return { coldRuns: 1, processQueries: 5, inprocQueries: 100, compiles: 50, serial: 50, parallel: 400 };
}

/** `--scale` alone: 1k and 10k; `--scale=100k` (or any size): every step of 1k, 10k, 100k up to it. */
export function scaleSizes(value) {
  if (value === true || value === '' || value === undefined) return [1000, 10_000];
  const m = /^(\d+(?:\.\d+)?)(k)?$/i.exec(String(value).trim());
  if (!m) throw new Error(`--scale takes a vault size such as 10k or 100k, not ${value}`);
  const max = Math.round(Number(m[1]) * (m[2] ? 1000 : 1));
  if (max < 1000) throw new Error('--scale: the smallest vault is 1k notes');
  const sizes = [1000, 10_000, 100_000, 1_000_000].filter((n) => n <= max);
  if (!sizes.includes(max)) sizes.push(max);
  return sizes;
}

async function bytesUnder(dir) {
  let total = 0;
  try {
    for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
      if (entry.isFile()) total += (await stat(join(entry.parentPath, entry.name))).size;
    }
  } catch (error) {
    if (/** @type {NodeJS.ErrnoException} */ (error).code !== 'ENOENT') throw error;
  }
  return total;
}

/** p50 / p95 of a list of numbers, rounded. */
const p = (values) => ({
  p50: round(percentile(values, 50)),
  p95: round(percentile(values, 95)),
  n: values.length,
});

/** The median of mem's cost over the peer's, pair by pair. */
const pairedRatio = (mem, peer) => round(median(mem.map((m, i) => m / /** @type {number} */ (peer[i]))), 2);

/** The words of a query, as someone would hand them to grep: any of them, case-insensitive. */
export function grepTerms(query) {
  return query
    .split(/[\s,.;:!?，。！？、～“”"'()（）]+/u)
    .map((t) => t.trim())
    .filter((t) => t.length > 0);
}

/** @returns {Promise<{ partial?: boolean }>} */
/**
 * The load's connections, kept open between requests as a client of a running server keeps them.
 * The clients share the server's 2 cores, so they are plain `node:http` requests: through `fetch`
 * (undici) a request cost the client 1.0 ms of CPU against 0.3 ms, a third of what the server spent
 * answering it at 10k notes, and that third came out of the core a read worker would use.
 */
const agent = new Agent({ keepAlive: true, maxSockets: 8 });

/** `POST /memory/search` with `body`; its parsed answer. */
function search(url, body) {
  return /** @type {Promise<{ partial?: boolean }>} */ (postJson(agent, url, '/memory/search', body));
}

/** `count` POSTs, `clients` at a time: latency of each, requests per second, server CPU per request. */
async function load(url, pid, bodies, clients) {
  const times = [];
  let next = 0;
  const cpuBefore = await procCpuMs(pid);
  const start = performance.now();
  const worker = async () => {
    while (next < bodies.length) {
      const body = bodies[next++];
      const t = performance.now();
      await search(url, body);
      times.push(performance.now() - t);
    }
  };
  await Promise.all(Array.from({ length: clients }, worker));
  const seconds = (performance.now() - start) / 1000;
  const cpuMs = (await procCpuMs(pid)) - cpuBefore;
  return {
    clients,
    ...p(times),
    perSecond: Math.round(bodies.length / seconds),
    serverCpuMsPerRequest: round(cpuMs / bodies.length),
  };
}

/** @typedef {{ readers?: { ready: number, answered: { workers: number, here: number } } }} Health */

/** Requests before a server's first measured pass */
const SERVE_WARMUP = 20;

/** Compiles `mem serve` answers after its searches */
const SERVE_COMPILES = 50;

/**
 * The `/memory/search` bodies of a server's passes (warm-up, one client, eight clients unmeasured,
 * eight measured), each pass of queries the server has not been asked before, in the shapes of the
 * in-process ones: a companion asks something new every turn. A measured pass that repeated the
 * pass before it measured lists one thread had scored for those very queries, and with a read
 * worker the thread answering a repeat is often not the one that answered it first.
 */
function servePasses(people, reps) {
  const bodies = makeQueries(people, SERVE_WARMUP + reps.serial + 2 * reps.parallel, 23).map((q) => ({
    query: q.text,
    limit: 8,
  }));
  let at = 0;
  const take = (n) => {
    at += n;
    return bodies.slice(at - n, at);
  };
  return {
    warmup: take(SERVE_WARMUP),
    one: take(reps.serial),
    warmEight: take(reps.parallel),
    eight: take(reps.parallel),
    /** `/compile` messages after the searches (`benchServe` only) */
    compiles: makeMessages(people, SERVE_COMPILES, 29).map((m) => m.text),
  };
}

/** `/health` of a running server. */
async function health(url) {
  return /** @type {Health} */ (await (await fetch(`${url}/health`)).json());
}

/** Polls `/health` until every read worker has opened the vault; the wall time it took. */
async function workersReady(url, workers, started) {
  for (const deadline = performance.now() + START_TIMEOUT_MS; performance.now() < deadline; ) {
    if ((await health(url)).readers?.ready === workers) return performance.now() - started;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the read workers did not open the vault in ${START_TIMEOUT_MS} ms`);
}

/**
 * `mem serve --workers N`: the time until its workers answer, `/memory/search` at one and eight
 * clients (how throughput moves with a second core), and RSS with the workers' copies of the index.
 */
export async function benchServeWorkers(cli, root, passes, reps, workers = 1) {
  const started = performance.now();
  const { child, url, startMs } = await startServer(root, cli, ['--workers', String(workers)]);
  try {
    const readyMs = workers > 0 ? await workersReady(url, workers, started) : startMs;
    // The same passes as without workers (servePasses).
    await load(url, child.pid, passes.warmup, 1);
    const one = await load(url, child.pid, passes.one, 1);
    await load(url, child.pid, passes.warmEight, 8);
    const eight = await load(url, child.pid, passes.eight, 8);
    const { readers } = await health(url);
    const memory = await procRss(child.pid);
    return {
      workers,
      startMs: round(startMs),
      workersReadyMs: round(readyMs),
      memorySearch: { one, eight },
      answered: readers?.answered ?? { workers: 0, here: SERVE_WARMUP + reps.serial + 2 * reps.parallel },
      rssMiB: mib(memory.rssBytes),
    };
  } finally {
    await stopServer(child);
  }
}

export async function benchServe(cli, root, queries, passes, reps, now) {
  const { child, url, startMs } = await startServer(root, cli);
  try {
    // Until the watcher's first scan ends, answers may be marked `partial`; wait for a full one.
    let fullAnswerMs = Number.NaN;
    const started = performance.now() - startMs;
    for (const deadline = performance.now() + START_TIMEOUT_MS; performance.now() < deadline; ) {
      const json = await search(url, { query: queries[0], limit: 8 });
      if (!json.partial) {
        fullAnswerMs = performance.now() - started;
        break;
      }
    }
    const afterOpen = await procRss(child.pid);
    await load(url, child.pid, passes.warmup, 1);
    const idleFrom = await procCpuMs(child.pid);
    await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
    const idleCpuMsPerSecond = (((await procCpuMs(child.pid)) - idleFrom) * 1000) / IDLE_MS;
    const one = await load(url, child.pid, passes.one, 1);
    await load(url, child.pid, passes.warmEight, 8);
    const eight = await load(url, child.pid, passes.eight, 8);
    // `mem recall` as a process while the server runs: it asks the server (fresh: the server looks
    // at every note's mtime first), so both processes' CPU is counted.
    /** @type {{ cliCpuMs: number[], wallMs: number[], serverCpuMs: number[] }} */
    const served = { cliCpuMs: [], wallMs: [], serverCpuMs: [] };
    for (const q of queries.slice(0, reps.processQueries)) {
      const before = await procCpuMs(child.pid);
      // MEM_NO_DAEMON: this row is about the server; a daemon has its own row.
      const r = await measureNode(cli, ['--vault', root, 'recall', q, '-k', '8', '--now', now, '--json'], {
        env: { ...process.env, MEM_NO_DAEMON: '1' },
      });
      served.serverCpuMs.push((await procCpuMs(child.pid)) - before);
      served.cliCpuMs.push(r.cpuMs);
      served.wallMs.push(r.wallMs);
    }
    const memory = await procRss(child.pid);
    // A companion's turns after the searches: `POST /compile` of new messages, one at a time (the
    // first loads the token counter); server CPU per compile and RSS after them.
    const compileCpuFrom = await procCpuMs(child.pid);
    for (const message of passes.compiles) {
      await postJson(agent, url, '/compile', { message, budget: BUDGET, now });
    }
    const compiles = {
      count: passes.compiles.length,
      serverCpuMsPerCompile: round(((await procCpuMs(child.pid)) - compileCpuFrom) / passes.compiles.length),
      rssMiB: mib((await procRss(child.pid)).rssBytes),
    };
    return {
      compiles,
      startMs: round(startMs),
      fullAnswerMs: round(fullAnswerMs),
      idleCpuMsPerSecond: round(idleCpuMsPerSecond),
      memorySearch: { one, eight },
      servedRecall: {
        cliCpuMs: p(served.cliCpuMs),
        serverCpuMs: p(served.serverCpuMs),
        wallMs: p(served.wallMs),
      },
      rssAfterOpenMiB: mib(afterOpen.rssBytes),
      rssMiB: mib(memory.rssBytes),
      peakRssMiB: mib(memory.peakRssBytes),
    };
  } finally {
    await stopServer(child);
  }
}

async function child(mode, spec) {
  const dir = await mkdtemp(join(tmpdir(), 'mem-scale-spec-'));
  try {
    const specPath = join(dir, 'spec.json');
    await writeFile(specPath, JSON.stringify(spec));
    const { stdout } = await measureNode(CHILD, [mode, specPath], {});
    return JSON.parse(stdout);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * One vault size: generate, then cold index (mem and qmd paired), warm process queries (mem, qmd,
 * rg rotated), in-process recall paired with MiniSearch, compile, and `mem serve`.
 */
async function benchSize(total, { cli, qmd, rg, quick, log }) {
  const reps = plan(total, quick);
  const root = await mkdtemp(join(tmpdir(), `memvault-scale-${total}-`));
  const qmdHome = await mkdtemp(join(tmpdir(), `memvault-qmd-${total}-`));
  const qmdEnv = {
    ...process.env,
    INDEX_PATH: join(qmdHome, 'index.sqlite'),
    QMD_CONFIG_DIR: join(qmdHome, 'config'),
    XDG_CACHE_HOME: join(qmdHome, 'cache'),
    NO_COLOR: '1',
  };
  const t0 = performance.now();
  const elapsed = () => `${Math.round((performance.now() - t0) / 1000)} s`;
  try {
    const meta = await writeSynthVault(root, total);
    log(`  ${meta.notes} notes, ${mib(meta.bytes)} MiB written (${elapsed()})`);
    const queries = makeQueries(meta.people, reps.inprocQueries).map((q) => q.text);
    const messages = makeMessages(meta.people, reps.compiles).map((m) => m.text);
    const now = SYNTH_NOW.toISOString();

    // Cold index, paired: mem and qmd one after the other, the order alternating.
    /** @type {{ mem: import('./measure-process.mjs').Measured[], qmd: import('./measure-process.mjs').Measured[] }} */
    const cold = { mem: [], qmd: [] };
    const memCold = async () => {
      await rm(join(root, '.mem'), { recursive: true, force: true });
      const r = await measureNode(cli, ['--vault', root, 'index', '--rebuild', '--json']);
      cold.mem.push(r);
      log(
        `  cold mem index: ${round(r.cpuMs / 1000, 1)} s CPU, peak ${mib(r.peakRssBytes ?? 0)} MiB (${elapsed()})`,
      );
    };
    const qmdCold = async () => {
      if (!qmd) return;
      await rm(qmdHome, { recursive: true, force: true });
      const r = await measureNode(qmd.script, ['collection', 'add', root, '--name', 'vault'], {
        env: qmdEnv,
      });
      cold.qmd.push(r);
      log(
        `  cold qmd collection add: ${round(r.cpuMs / 1000, 1)} s CPU, peak ${mib(r.peakRssBytes ?? 0)} MiB (${elapsed()})`,
      );
    };
    for (let i = 0; i < reps.coldRuns; i++) {
      if (i % 2 === 0) {
        await memCold();
        await qmdCold();
      } else {
        await qmdCold();
        await memCold();
      }
    }
    const cacheBytes = await bytesUnder(join(root, '.mem'));
    const qmdBytes = qmd ? await bytesUnder(qmdHome) : 0;

    // Warm processes, one query at a time through every tool, the order rotating; the first
    // round warms the page cache and is not counted.
    const tools = [
      {
        name: 'mem',
        // --no-server: this row is a process that opens the vault itself.
        run: (q) =>
          measureNode(
            cli,
            ['--vault', root, '--no-server', 'recall', q, '-k', '8', '--now', now, '--json'],
            {},
          ),
      },
    ];
    if (qmd)
      tools.push({
        name: 'qmd',
        run: (q) => measureNode(qmd.script, ['search', q, '-n', '8', '--format', 'json'], { env: qmdEnv }),
      });
    if (rg)
      tools.push({
        name: 'rg',
        run: (q) =>
          measureNative(
            rg.command,
            ['-l', '-i', '-F', '-g', '*.md', ...grepTerms(q).flatMap((t) => ['-e', t]), root],
            { okCodes: [0, 1] },
          ),
      });
    /** @type {Record<string, import('./measure-process.mjs').Measured[]>} */
    const processRuns = Object.fromEntries(tools.map((t) => [t.name, []]));
    const runsOf = (name) => processRuns[name] ?? [];
    const processQueries = queries.slice(0, reps.processQueries);
    for (let i = -1; i < processQueries.length; i++) {
      const q = processQueries[Math.max(i, 0)] ?? '';
      const order = tools.map((_, j) => tools[(j + i + 1) % tools.length]);
      for (const tool of order) {
        if (!tool) continue;
        const r = await tool.run(q);
        if (i >= 0) runsOf(tool.name).push(r);
      }
      if (i >= 0 && (i % 4 === 3 || i === processQueries.length - 1)) {
        const last = tools.map((t) => `${t.name} ${round(median(runsOf(t.name).map((r) => r.cpuMs)))} ms`);
        log(
          `  warm process queries ${i + 1}/${processQueries.length}, median CPU: ${last.join(', ')} (${elapsed()})`,
        );
      }
    }

    // In process: mem alone (recall, compile), then paired with plain MiniSearch; MiniSearch alone for its memory.
    const spec = { root, queries, messages, now, warmups: Math.min(20, queries.length), budget: BUDGET };
    const inproc = await child('inproc', spec);
    const mini = await child('minisearch', spec);
    const recallCpu = inproc.recall.map((r) => r.cpuMs);
    const pairedCpu = inproc.pairedRecall.map((r) => r.cpuMs);
    const miniCpu = inproc.miniSearch.map((r) => r.cpuMs);
    log(
      `  in process: recall p50 ${round(median(recallCpu))} ms, MiniSearch p50 ${round(median(miniCpu), 3)} ms, compile p50 ${round(median(inproc.compile.map((c) => c.cpuMs)))} ms (${elapsed()})`,
    );

    const passes = servePasses(meta.people, reps);
    const serve = await benchServe(cli, root, queries, passes, reps, now);
    log(
      `  mem serve: ready in ${serve.startMs} ms; /memory/search 1 client p50 ${serve.memorySearch.one.p50} ms, 8 clients p50 ${serve.memorySearch.eight.p50} ms (${elapsed()})`,
    );

    // The same with one read worker: whether a second core adds requests per second.
    const serveWorkers = await benchServeWorkers(cli, root, passes, reps, 1);
    log(
      `  mem serve --workers 1: workers ready in ${serveWorkers.workersReadyMs} ms; 8 clients ${serveWorkers.memorySearch.eight.perSecond}/s against ${serve.memorySearch.eight.perSecond}/s (${elapsed()})`,
    );

    // The vault's own background daemon, started by the first `mem recall` (no server runs now).
    // A vault below daemon.minNotes never starts one: its row stays empty.
    let daemon;
    if (total >= DAEMON_DEFAULTS.minNotes) {
      daemon = await benchDaemon({
        cli,
        root,
        queries: queries.slice(0, reps.processQueries + 1),
        messages: messages.slice(0, Math.min(5, reps.processQueries)),
        now,
      });
      log(
        `  daemon: first recall ${round(daemon.first.totalCpuMs)} ms CPU (command + daemon), later ${daemon.recall.totalCpuMs.p50} ms, compile ${daemon.compile.totalCpuMs.p50} ms (${elapsed()})`,
      );
    } else log(`  daemon: none below daemon.minNotes (${DAEMON_DEFAULTS.minNotes} notes)`);

    // qmd's resident process asked what `mem serve` was asked, in the same order.
    const qmdResident = qmd
      ? await benchQmdResident(
          qmd,
          qmdEnv,
          [passes.warmup, passes.one, passes.warmEight, passes.eight].flatMap((bodies) =>
            bodies.map((b) => b.query),
          ),
        )
      : null;
    if (qmdResident)
      log(
        `  qmd mcp: RSS ${qmdResident.rssAfterOpenMiB} MiB after the first answer, ${qmdResident.rssAfterQueriesMiB} MiB after ${qmdResident.queries} queries; ${qmdResident.cpuMsPerQuery} ms CPU a query (${elapsed()})`,
      );

    // Last, as it writes to the vault: a day of chat adds to `mem serve`.
    const adds = await benchAdds(cli, root, queries[0] ?? 'coffee', now);
    log(
      `  mem serve adds: CPU ${adds.cpuMsPerAdd.first} → ${adds.cpuMsPerAdd.last} ms an add (first → last hundred), burst ${adds.burst.cpuMsPerAdd} ms; RSS ${adds.rssAfterOpenMiB} → ${adds.rssAfterBurstMiB} MiB (${elapsed()})`,
    );

    const procSummary = (runs) => ({
      runs: runs.length,
      cpuMs: p(runs.map((r) => r.cpuMs)),
      wallMs: p(runs.map((r) => r.wallMs)),
      peakRssMiB: runs[0]?.peakRssBytes == null ? null : mib(median(runs.map((r) => r.peakRssBytes))),
    });
    const ratioTo = (name) =>
      processRuns[name]
        ? pairedRatio(
            runsOf('mem').map((r) => r.cpuMs),
            runsOf(name).map((r) => r.cpuMs),
          )
        : null;
    return {
      notes: meta.notes,
      vaultMiB: mib(meta.bytes),
      coldIndex: {
        runs: cold.mem.length,
        mem: procSummary(cold.mem),
        qmd: qmd ? procSummary(cold.qmd) : null,
        miniSearch: { cpuMs: round(mini.buildCpuMs), note: 'read every note + addAll, in process' },
        ratioMemToQmd: qmd
          ? pairedRatio(
              cold.mem.map((r) => r.cpuMs),
              cold.qmd.map((r) => r.cpuMs),
            )
          : null,
      },
      cacheMiB: mib(cacheBytes),
      qmdIndexMiB: qmd ? mib(qmdBytes) : null,
      processQuery: {
        queries: processQueries.length,
        mem: procSummary(runsOf('mem')),
        qmd: processRuns['qmd'] ? procSummary(processRuns['qmd']) : null,
        rg: processRuns['rg'] ? procSummary(processRuns['rg']) : null,
        ratioMemToQmd: ratioTo('qmd'),
        ratioMemToRg: ratioTo('rg'),
      },
      inProcess: {
        openCpuMs: round(inproc.openCpuMs),
        rssAfterOpenMiB: mib(inproc.rssAfterOpenBytes),
        recallCpuMs: p(recallCpu),
        recallWallMs: p(inproc.recall.map((r) => r.wallMs)),
        miniSearchCpuMs: p(miniCpu),
        ratioRecallToMiniSearch: pairedRatio(pairedCpu, miniCpu),
        compileCpuMs: p(inproc.compile.map((c) => c.cpuMs)),
        compileBudget: BUDGET,
        miniSearchRssMiB: mib(mini.rssBytes),
        miniSearchBaselineRssMiB: mib(mini.rssBeforeBytes),
      },
      serve,
      serveWorkers,
      daemon,
      qmdResident,
      adds,
    };
  } finally {
    await rm(root, { recursive: true, force: true });
    await rm(qmdHome, { recursive: true, force: true });
  }
}

/** What the numbers were measured on. */
export function machine() {
  return {
    cpu: cpus()[0]?.model ?? 'unknown',
    cores: cpus().length,
    memoryGiB: Math.round(totalmem() / 1024 ** 3),
    node: process.version,
    platform: `${platform()} ${release()}`,
  };
}

/**
 * Runs every size and writes scale.json, SCALE.md and the charts into `resultsDir` (quick runs:
 * *.tmp). Sizes measured before and not in this run are kept from the previous scale.json.
 */
export async function runScalePeers({ sizes, quick, resultsDir, log }) {
  const cli = memCli();
  const qmdFound = findQmd();
  const rgFound = findRipgrep();
  const notices = [];
  if ('missing' in qmdFound) notices.push(qmdFound.missing);
  if ('missing' in rgFound) notices.push(rgFound.missing);
  for (const notice of notices) log(`notice: ${notice}; skipped`);
  const qmd = 'script' in qmdFound ? qmdFound : null;
  const rg = 'command' in rgFound ? rgFound : null;

  const suffix = quick ? '.tmp' : '';
  const jsonUrl = new URL(`scale.json${suffix}`, resultsDir);
  let previous = [];
  if (!quick) {
    try {
      previous = JSON.parse(await readFile(jsonUrl, 'utf8')).vaults ?? [];
    } catch {
      previous = [];
    }
  }
  const measured = [];
  for (const total of sizes) {
    log(`scale: ${total} notes`);
    const loadBefore = loadavg()[0] ?? Number.NaN;
    const result = await benchSize(total, { cli, qmd, rg, quick, log });
    // What else ran: wall times (serve start, HTTP latency) move with it far more than CPU times.
    const loadAverage = { before: round(loadBefore), after15min: round(loadavg()[2] ?? Number.NaN) };
    measured.push({ ...result, loadAverage, ranAt: new Date().toISOString() });
  }
  const vaults = [...previous.filter((v) => !sizes.includes(v.notes)), ...measured].sort(
    (a, b) => a.notes - b.notes,
  );
  // The pool's figure (bench/vault-pool.mjs, run before the sizes by `--scale`), shown beside them.
  const pool = await readFile(new URL(`pool.json${suffix}`, resultsDir), 'utf8').then(
    JSON.parse,
    () => undefined,
  );
  const results = {
    ranAt: new Date().toISOString(),
    mode: quick ? 'quick' : 'full',
    machine: machine(),
    peers: {
      qmd: qmd ? `@tobilu/qmd ${qmd.version} (BM25 \`qmd search\`)` : null,
      rg: rg ? rg.version : null,
      miniSearch: 'minisearch (this repository’s version), default options',
    },
    notices,
    vaults,
    ...(pool ? { pool } : {}),
  };
  /** @type {[string, string][]} */
  const files = [[`scale.json${suffix}`, `${formatJson(results)}\n`]];
  files.push([`SCALE.md${suffix}`, renderScaleMarkdown(results)]);
  for (const [name, svg] of Object.entries(scaleCharts(results))) files.push([`${name}${suffix}`, svg]);
  for (const [name, text] of files) await writeFile(new URL(name, resultsDir), text);
  return { results, written: files.map(([name]) => fileURLToPath(new URL(name, resultsDir))) };
}
