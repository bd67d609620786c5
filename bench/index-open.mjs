// What opening a vault and writing to it cost, for two builds side by side (issue 33: an index
// that is opened, not loaded):
//   node bench/index-open.mjs <notes> <dist A> [<dist B> …]
// e.g. a build of the commit before the change in /tmp/base (git archive | tar -x; npm run build)
// against this tree's dist/. Writes one seeded vault (bench/synth-vault.mjs), indexes a copy of it
// with each build, then for each build, alternating: a fresh `mem recall --no-server` process (CPU,
// peak RSS), an in-process open (CPU; RSS and heap after a collection), a day of 400 recalls and
// 100 compiles after it (CPU; RSS and heap after), and 1,000 chat adds to one day (CPU per add by
// hundred; RSS after), and `mem serve` answering `/memory/search` (server CPU per request, the
// builds' servers up together and asked the same blocks of new queries in turn). Prints JSON; quote
// medians and the ratios of the builds' paired runs.
//   PHASES=open,serve (any of fresh, open, day, adds, serve; default all) runs only those;
//   ROOTS=<a>,<b> uses vaults already indexed by each build (one a build) instead of writing one.
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { post, startServer, stopServer } from './http-latency.mjs';
import { procCpuMs } from './measure-process.mjs';
import { makeMessages, makeQueries } from './queries.mjs';
import { SYNTH_NOW, writeSynthVault } from './synth-vault.mjs';

const RUNS = 3;
const ADDS = Number(process.env['ADDS'] ?? 1000);
const PHASES = new Set((process.env['PHASES'] ?? 'fresh,open,day,adds,serve').split(','));
/** `/memory/search` requests a build's server answers per measured block, and the blocks */
const SERVE_BLOCK = 40;
const SERVE_BLOCKS = 8;
const SERVE_WARMUP = 20;

const mib = (bytes) => Math.round(bytes / 1048576);
const cpuMs = (usage) => Math.round((usage.user + usage.system) / 1000);

/** One child measuring itself: `open`, `day` or `adds` (see below), as JSON on stdout. */
async function child(dist, root, what) {
  const { openVault } = await import(resolve(dist, 'index.js'));
  const started = process.cpuUsage();
  const vault = await openVault({ path: root });
  const open = cpuMs(process.cpuUsage(started));
  globalThis.gc?.();
  const opened = process.memoryUsage();
  const out = { open, rss: mib(opened.rss), heap: mib(opened.heapUsed) };
  if (what === 'day') {
    const people = readdirSync(join(root, 'profile/people')).map((f) => f.replace(/\.md$/, ''));
    const t = process.cpuUsage();
    for (const q of makeQueries(people, 400)) vault.recall(q.text, { now: SYNTH_NOW });
    for (const m of makeMessages(people, 100))
      vault.compile({ message: m.text, budget: 2000, now: SYNTH_NOW });
    out.dayCpu = cpuMs(process.cpuUsage(t));
    globalThis.gc?.();
    out.dayRss = mib(process.memoryUsage().rss);
    out.dayHeap = mib(process.memoryUsage().heapUsed);
  }
  if (what === 'adds') {
    const perAdd = [];
    let block = process.cpuUsage();
    const at0 = SYNTH_NOW.getTime() - 12 * 3600_000;
    for (let i = 0; i < ADDS; i++) {
      const at = new Date(at0 + i * 20_000);
      await vault.addExchange({ user: `the quokka${i}x came by with a story`, assistant: `noted ${i}`, at });
      if ((i + 1) % 100 === 0) {
        perAdd.push(Math.round((cpuMs(process.cpuUsage(block)) / 100) * 10) / 10);
        block = process.cpuUsage();
      }
    }
    out.msPerAddByHundred = perAdd;
    out.addsRss = mib(process.memoryUsage().rss);
    globalThis.gc?.();
    out.addsRssAfterGc = mib(process.memoryUsage().rss);
  }
  await vault.close();
  process.stdout.write(JSON.stringify(out));
}

function run(args) {
  return JSON.parse(
    execFileSync(process.execPath, ['--expose-gc', new URL(import.meta.url).pathname, ...args], {
      encoding: 'utf8',
      maxBuffer: 1 << 24,
    }),
  );
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

if (process.argv[2] === '--child') {
  await child(process.argv[3], process.argv[4], process.argv[5]);
} else {
  const [, , notesArg, ...dists] = process.argv;
  const total = Number(notesArg ?? 10_000);
  if (dists.length === 0) throw new Error('usage: node bench/index-open.mjs <notes> <dist> [<dist> …]');
  const work = mkdtempSync(join(tmpdir(), 'memvault-index-open-'));
  try {
    const given = process.env['ROOTS']?.split(',');
    const source = join(work, 'vault');
    if (!given) await writeSynthVault(source, total);
    const roots = dists.map((dist, i) => {
      if (given) return /** @type {string} */ (given[i]);
      const root = join(work, `v${i}`);
      cpSync(source, root, { recursive: true, preserveTimestamps: true });
      execFileSync(process.execPath, [resolve(dist, 'cli/main.js'), 'index', '--rebuild'], {
        cwd: root,
        stdio: 'ignore',
      });
      return root;
    });
    /** @type {{ dist: string, root: string, fresh: any[], open: any[], day: any, adds: any, serve: number[] }[]} */
    const results = dists.map((dist, i) => ({
      dist,
      root: /** @type {string} */ (roots[i]),
      fresh: [],
      open: [],
      day: undefined,
      adds: undefined,
      serve: [],
    }));
    for (let round = 0; round < RUNS; round++) {
      for (const r of results) {
        if (PHASES.has('fresh')) r.fresh.push(freshQuery(r.dist, r.root));
        if (PHASES.has('open')) r.open.push(run(['--child', r.dist, r.root, 'open']));
      }
    }
    if (PHASES.has('serve')) await serveSearch(results);
    if (PHASES.has('day')) for (const r of results) r.day = run(['--child', r.dist, r.root, 'day']);
    if (PHASES.has('adds')) {
      for (const [i, r] of results.entries()) {
        const copy = join(work, `adds${i}`);
        cpSync(r.root, copy, { recursive: true, preserveTimestamps: true });
        r.adds = run(['--child', r.dist, copy, 'adds']);
      }
    }
    const summary = results.map((r) => ({
      dist: r.dist,
      freshCpuMs: median(r.fresh.map((f) => f.cpuMs)),
      freshPeakRssMiB: median(r.fresh.map((f) => f.peakMiB)),
      openCpuMs: median(r.open.map((o) => o.open)),
      openRssMiB: median(r.open.map((o) => o.rss)),
      openHeapMiB: median(r.open.map((o) => o.heap)),
      serveCpuMsPerSearch: median(r.serve),
      serveBlocks: r.serve,
      day: r.day,
      adds: r.adds,
    }));
    const ratios = results.slice(1).map((r) => ({
      dist: r.dist,
      serveCpuPairedRatio: median(r.serve.map((ms, k) => ms / /** @type {number} */ (results[0]?.serve[k]))),
    }));
    console.log(JSON.stringify({ notes: total, runs: RUNS, summary, ratios }, null, 2));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * Each build's `mem serve` on its vault, up together; after a warm-up, blocks of new queries, each
 * block asked of every server in turn (the order alternating): the server's CPU per request, by block.
 * @param {{ dist: string, root: string, serve: number[] }[]} results
 */
async function serveSearch(results) {
  const people = readdirSync(join(/** @type {string} */ (results[0]?.root), 'profile/people')).map((f) =>
    f.replace(/\.md$/, ''),
  );
  const bodies = makeQueries(people, SERVE_WARMUP + SERVE_BLOCK * SERVE_BLOCKS, 23).map((q) => ({
    query: q.text,
    limit: 8,
  }));
  const servers = [];
  try {
    for (const r of results) servers.push(await startServer(r.root, resolve(r.dist, 'cli/main.js')));
    for (const s of servers)
      for (const body of bodies.slice(0, SERVE_WARMUP)) await post(`${s.url}/memory/search`, body);
    for (let k = 0; k < SERVE_BLOCKS; k++) {
      const block = bodies.slice(SERVE_WARMUP + k * SERVE_BLOCK, SERVE_WARMUP + (k + 1) * SERVE_BLOCK);
      const order = k % 2 === 0 ? [...servers.keys()] : [...servers.keys()].reverse();
      for (const i of order) {
        const s = /** @type {{ child: import('node:child_process').ChildProcess, url: string }} */ (
          servers[i]
        );
        const before = await procCpuMs(/** @type {number} */ (s.child.pid));
        for (const body of block) await post(`${s.url}/memory/search`, body);
        const ms = (await procCpuMs(/** @type {number} */ (s.child.pid))) - before;
        results[i]?.serve.push(Math.round((ms / block.length) * 10) / 10);
      }
    }
  } finally {
    for (const s of servers) await stopServer(s.child);
  }
}

/** A fresh `mem recall --no-server`: CPU (user + system) and peak RSS as GNU time reports them. */
function freshQuery(dist, root) {
  const cli = resolve(dist, 'cli/main.js');
  const args = ['-f', 'TIME %U %S %M', process.execPath, cli, 'recall', 'pottery class with Mia', '-k', '8'];
  const { stderr } = spawnSync('/usr/bin/time', [...args, '--json', '--no-server'], {
    cwd: root,
    encoding: 'utf8',
  });
  const m = /TIME ([\d.]+) ([\d.]+) (\d+)/.exec(stderr ?? '');
  if (!m) throw new Error(`no timing from the query process: ${stderr}`);
  return {
    cpuMs: Math.round((Number(m[1]) + Number(m[2])) * 1000),
    peakMiB: Math.round(Number(m[3]) / 1024),
  };
}
