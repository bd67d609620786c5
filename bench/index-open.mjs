// What opening a vault and writing to it cost, for two builds side by side (issue 33: an index
// that is opened, not loaded):
//   node bench/index-open.mjs <notes> <dist A> [<dist B> …]
// e.g. a build of the commit before the change in /tmp/base (git archive | tar -x; npm run build)
// against this tree's dist/. Writes one seeded vault (bench/synth-vault.mjs), indexes a copy of it
// with each build, then for each build, alternating: a fresh `mem recall --no-server` process (CPU,
// peak RSS), an in-process open (CPU; RSS and heap after a collection), a day of 400 recalls and
// 100 compiles after it (CPU; RSS and heap after), and 1,000 chat adds to one day (CPU per add by
// hundred; RSS after). Prints JSON; quote medians and the ratios of the builds' paired runs.
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { makeMessages, makeQueries } from './queries.mjs';
import { SYNTH_NOW, writeSynthVault } from './synth-vault.mjs';

const RUNS = 3;
const ADDS = Number(process.env['ADDS'] ?? 1000);

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
    const source = join(work, 'vault');
    await writeSynthVault(source, total);
    const roots = dists.map((dist, i) => {
      const root = join(work, `v${i}`);
      cpSync(source, root, { recursive: true, preserveTimestamps: true });
      execFileSync(process.execPath, [resolve(dist, 'cli/main.js'), 'index', '--rebuild'], {
        cwd: root,
        stdio: 'ignore',
      });
      return root;
    });
    /** @type {{ dist: string, root: string, fresh: any[], open: any[], day: any, adds: any }[]} */
    const results = dists.map((dist, i) => ({
      dist,
      root: /** @type {string} */ (roots[i]),
      fresh: [],
      open: [],
      day: undefined,
      adds: undefined,
    }));
    for (let round = 0; round < RUNS; round++) {
      for (const r of results) {
        r.fresh.push(freshQuery(r.dist, r.root));
        r.open.push(run(['--child', r.dist, r.root, 'open']));
      }
    }
    for (const r of results) r.day = run(['--child', r.dist, r.root, 'day']);
    for (const [i, r] of results.entries()) {
      const copy = join(work, `adds${i}`);
      cpSync(r.root, copy, { recursive: true, preserveTimestamps: true });
      r.adds = run(['--child', r.dist, copy, 'adds']);
    }
    const summary = results.map((r) => ({
      dist: r.dist,
      freshCpuMs: median(r.fresh.map((f) => f.cpuMs)),
      freshPeakRssMiB: median(r.fresh.map((f) => f.peakMiB)),
      openCpuMs: median(r.open.map((o) => o.open)),
      openRssMiB: median(r.open.map((o) => o.rss)),
      openHeapMiB: median(r.open.map((o) => o.heap)),
      day: r.day,
      adds: r.adds,
    }));
    console.log(JSON.stringify({ notes: total, runs: RUNS, summary }, null, 2));
  } finally {
    rmSync(work, { recursive: true, force: true });
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
