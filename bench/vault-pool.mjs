// `npm run bench -- --only pool`: issue 33's pool figure. N vaults of M notes (POOL_VAULTS,
// default 1,000; POOL_NOTES, default 1,000) seeded under one folder as `mem serve --vaults` finds
// them (DIR/<agent>/<user>/), each indexed once by the built CLI; then one server on loopback:
// 1. `--idle-minutes 600`: every vault's first /memory/search (the open from its cache), the
//    server's RSS with every vault loaded and its peak;
// 2. `--idle-minutes 1`: every vault touched, the "unloaded idle vault" notices waited for, the RSS
//    after eviction, and every vault touched again (the reopen after eviction).
// Seeding stops when the next vault would end past POOL_SEED_MINUTES (default 25) of wall time (the
// figures per vault are there to extrapolate from), and loading stops when the server passes
// POOL_MAX_RSS_MIB (default: half the free memory); `vaults` is what was run.
// Writes bench/results/pool.json (pool.json.tmp with --quick: 8 vaults).
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { cpus, freemem, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { formatJson } from './format-json.mjs';
import { measureNode, procCpuMs, procRss } from './measure-process.mjs';
import { makeQueries } from './queries.mjs';
import { median, percentile, round } from './stats.mjs';
import { SYNTH_NOW, vaultPlan, writeSynthVault } from './synth-vault.mjs';
import { PEOPLE } from './word-lists.mjs';

const CLI = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));
const RESULTS = new URL('./results/', import.meta.url);
const AGENT = 'pool';
/** Index processes at a time: the machine's cores, at most 2 (it is shared) */
const SEED_WORKERS = Math.max(1, Math.min(2, cpus().length));
const MiB = 1024 * 1024;

const envInt = (name, fallback) => {
  const value = process.env[name];
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a positive integer, got ${value}`);
  return n;
};

/** The sizes asked for, from the environment (--quick: 8 vaults). */
function poolSize(quick) {
  return {
    vaults: envInt('POOL_VAULTS', quick ? 8 : 1000),
    notes: envInt('POOL_NOTES', 1000),
    seedBudgetMs: envInt('POOL_SEED_MINUTES', 25) * 60_000,
    maxRssMiB: envInt('POOL_MAX_RSS_MIB', Math.floor(freemem() / MiB / 2)),
    // The server's bound on all vaults' decoded notes, scaled to the vaults run: what each vault of
    // a 1,000-vault pool at the default (16 MiB) has, so the figure per vault extrapolates to it.
    decodedNotesMiB: envInt(
      'POOL_DECODED_NOTES_MIB',
      Math.max(1, Math.round((16 * envInt('POOL_VAULTS', quick ? 8 : 1000)) / 1000)),
    ),
  };
}

const userOf = (i) => `u${String(i).padStart(5, '0')}`;

/** One vault: its notes (seed 1000 + i) and its cache, built by `mem index --rebuild`. */
async function seedOne(dir, i, notes) {
  const root = join(dir, AGENT, userOf(i));
  const started = performance.now();
  await writeSynthVault(root, notes, 1000 + i);
  const writeMs = performance.now() - started;
  const index = await measureNode(CLI, ['--vault', root, 'index', '--rebuild']);
  return { user: userOf(i), writeMs, indexCpuMs: index.cpuMs, wallMs: performance.now() - started };
}

/**
 * Seeds up to `size.vaults` vaults, SEED_WORKERS at a time, starting another only while it should
 * end within the budget at the pace of those done so far (wall time: what the budget is about).
 */
async function seedPool(dir, size, log) {
  const started = performance.now();
  const done = [];
  let next = 0;
  const fits = () => {
    if (done.length === 0) return true;
    const eachMs = done.reduce((sum, v) => sum + v.wallMs, 0) / done.length;
    return performance.now() - started + eachMs <= size.seedBudgetMs;
  };
  const worker = async () => {
    while (next < size.vaults && fits()) {
      done.push(await seedOne(dir, next++, size.notes));
      if (done.length % 50 === 0) log(`pool: ${done.length} vaults seeded`);
    }
  };
  await Promise.all(Array.from({ length: Math.min(SEED_WORKERS, size.vaults) }, worker));
  const seedMs = performance.now() - started;
  return {
    users: done.map((v) => v.user).sort(),
    seedSeconds: round(seedMs / 1000, 1),
    perVault: {
      wallMs: Math.round(seedMs / done.length),
      writeMsP50: round(median(done.map((v) => v.writeMs)), 1),
      indexCpuMsP50: round(median(done.map((v) => v.indexCpuMs)), 1),
    },
    limitedByTime: done.length < size.vaults,
  };
}

/**
 * `mem serve --vaults dir` on a free loopback port; `unloaded` collects the keys of the
 * "unloaded idle vault" notices, `waiters` are told of each one.
 */
function startPool(dir, idleMinutes, decodedNotesMiB) {
  // A search of a vault still opening answers "partial" at --deadline: a long one makes each first
  // search wait for the open, which is what is measured here.
  const args = [CLI, 'serve', '--vaults', dir, '--port', '0', '--idle-minutes', String(idleMinutes)];
  args.push('--deadline', '600000', '--decoded-notes-mib', String(decodedNotesMiB));
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const server = { child, pid: child.pid, url: '', stderr: '', unloaded: new Set(), waiters: new Set() };
  child.stderr.on('data', (chunk) => {
    server.stderr += chunk;
    for (const m of String(chunk).matchAll(/mem: unloaded idle vault (\S+)/g)) server.unloaded.add(m[1]);
    for (const waiter of server.waiters) waiter();
  });
  return new Promise((resolve, reject) => {
    let stdout = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`mem serve --vaults did not listen in 60 s: ${server.stderr}`));
    }, 60_000);
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
      const url = /serving .* on (http:\/\/\S+)/.exec(stdout)?.[1];
      if (url && !server.url) {
        clearTimeout(timer);
        server.url = url;
        resolve(server);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`mem serve --vaults exited with ${code}: ${server.stderr}`));
    });
  });
}

/** SIGTERM, and the time the server took to close every vault; SIGKILL (named) after 120 s. */
async function stopPool(server) {
  const { child } = server;
  if (child.exitCode !== null || child.signalCode !== null) return { closeMs: 0 };
  const started = performance.now();
  let killed = false;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const timer = setTimeout(() => {
    killed = true;
    child.kill('SIGKILL');
  }, 120_000);
  child.kill('SIGTERM');
  await exited;
  clearTimeout(timer);
  return { closeMs: Math.round(performance.now() - started), ...(killed ? { killed: true } : {}) };
}

/** The server's resident memory now and its peak, in MiB (/proc: Linux). */
async function memoryOf(pid) {
  const { rssBytes, peakRssBytes } = await procRss(pid);
  return { rssMiB: round(rssBytes / MiB, 1), peakRssMiB: round(peakRssBytes / MiB, 1) };
}

/** One /memory/search to a user's vault, alone: its latency and the server's CPU time for it. */
async function touch(server, user, query) {
  const cpuBefore = await procCpuMs(server.pid);
  const started = performance.now();
  const response = await fetch(`${server.url}/memory/search`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query, limit: 8, now: SYNTH_NOW.toISOString(), agent_id: AGENT, user_id: user }),
  });
  const body = /** @type {{ count?: number, partial?: boolean }} */ (await response.json());
  const ms = performance.now() - started;
  const cpuMs = (await procCpuMs(server.pid)) - cpuBefore;
  if (!response.ok) throw new Error(`search of ${AGENT}/${user}: ${response.status} ${JSON.stringify(body)}`);
  return { ms, cpuMs, empty: !((body.count ?? 0) > 0) };
}

/** Touches each user's vault in turn; stops early when the server passes `maxRssMiB`. */
async function touchAll(server, users, queries, maxRssMiB = Number.POSITIVE_INFINITY) {
  const samples = [];
  for (const [i, user] of users.entries()) {
    samples.push(await touch(server, user, queries[i % queries.length]));
    if ((await memoryOf(server.pid)).rssMiB > maxRssMiB) break;
  }
  return samples;
}

/** p50/p95 of latency and p50 of server CPU over `samples`. */
function openFigures(samples) {
  const ms = samples.map((s) => s.ms);
  const cpu = samples.map((s) => s.cpuMs);
  // A vault missing from disk answers with nothing (and costs no open): that is no figure.
  const empty = samples.filter((s) => s.empty).length;
  if (empty > samples.length / 2) throw new Error(`${empty} of ${samples.length} searches found nothing`);
  return {
    n: samples.length,
    empty,
    p50Ms: round(percentile(ms, 50), 1),
    p95Ms: round(percentile(ms, 95), 1),
    maxMs: round(Math.max(...ms), 1),
    cpuP50Ms: round(median(cpu), 1),
    cpuP95Ms: round(percentile(cpu, 95), 1),
  };
}

/** Resolves once every key of `keys` was unloaded; fails loudly after `ms`. */
function unloadedAll(server, keys, ms) {
  const missing = () => keys.filter((key) => !server.unloaded.has(key));
  return new Promise((resolve, reject) => {
    const check = () => {
      if (missing().length > 0) return;
      done();
      resolve(undefined);
    };
    const timer = setTimeout(() => {
      done();
      reject(new Error(`${missing().length} of ${keys.length} vaults not unloaded after ${ms} ms`));
    }, ms);
    const done = () => {
      clearTimeout(timer);
      server.waiters.delete(check);
    };
    server.waiters.add(check);
    check();
  });
}

/** Phase 1: every vault opened from its cache once, none evicted (idle time 600 minutes). */
async function loadAll(dir, users, queries, size, log) {
  const { maxRssMiB } = size;
  const server = await startPool(dir, 600, size.decodedNotesMiB);
  try {
    const baseline = await memoryOf(server.pid);
    log(`pool: server listening, RSS ${baseline.rssMiB} MiB; touching ${users.length} vaults`);
    const first = await touchAll(server, users, queries, maxRssMiB);
    const loaded = await memoryOf(server.pid);
    const warm = await touchAll(server, users.slice(0, 50), queries.slice(7));
    const perVaultMiB = round((loaded.rssMiB - baseline.rssMiB) / first.length, 2);
    log(`pool: ${first.length} vaults loaded, RSS ${loaded.rssMiB} MiB (${perVaultMiB} MiB a vault)`);
    return {
      loadedUsers: users.slice(0, first.length),
      rssBaselineMiB: baseline.rssMiB,
      rssAfterAllLoadedMiB: loaded.rssMiB,
      peakRssMiB: (await memoryOf(server.pid)).peakRssMiB,
      rssPerLoadedVaultMiB: perVaultMiB,
      firstOpen: openFigures(first),
      // Whether an open costs more as the heap grows (the GC of every vault loaded before it).
      firstOpenCpuP50ByHalfMs: [first.slice(0, first.length >> 1), first.slice(first.length >> 1)].map(
        (half) => round(median(half.map((s) => s.cpuMs)), 1),
      ),
      warmSearch: openFigures(warm),
      stop: await stopPool(server),
    };
  } finally {
    await stopPool(server);
  }
}

/** Phase 2: every vault loaded, evicted when idle (the notices waited for), then opened again. */
async function evictAndReopen(dir, users, queries, size, log) {
  const server = await startPool(dir, 1, size.decodedNotesMiB);
  try {
    await touchAll(server, users, queries);
    const beforeEviction = await memoryOf(server.pid);
    const evictStarted = performance.now();
    // Idle for a minute, then the next sweep (every 30 s): 90 s after the last touch at most.
    await unloadedAll(
      server,
      users.map((user) => `${AGENT}/${user}`),
      180_000,
    );
    const waitedS = round((performance.now() - evictStarted) / 1000, 1);
    const evicted = await memoryOf(server.pid);
    log(`pool: ${users.length} vaults unloaded after ${waitedS} s, RSS ${evicted.rssMiB} MiB`);
    const reopen = await touchAll(server, users, queries.slice(3));
    const reopened = await memoryOf(server.pid);
    return {
      rssBeforeEvictionMiB: beforeEviction.rssMiB,
      rssAfterEvictionMiB: evicted.rssMiB,
      evictionWaitSeconds: waitedS,
      reopenAfterEviction: openFigures(reopen),
      rssAfterReopenMiB: reopened.rssMiB,
      peakRssEvictionServerMiB: reopened.peakRssMiB,
    };
  } finally {
    await stopPool(server);
  }
}

/** @param {{ quick?: boolean, log?: (line: string) => void }} options */
export async function benchPool({ quick = false, log = () => undefined } = {}) {
  const size = poolSize(quick);
  const dir = await mkdtemp(join(tmpdir(), 'mem-pool-'));
  try {
    log(`pool: seeding up to ${size.vaults} vaults of ${size.notes} notes under ${dir}`);
    const seeded = await seedPool(dir, size, log);
    log(`pool: seeded ${seeded.users.length} vaults in ${seeded.seedSeconds} s`);
    const people = PEOPLE.slice(0, vaultPlan(size.notes).people);
    const queries = makeQueries(people, 64, 29).map((q) => q.text);
    const loaded = await loadAll(dir, seeded.users, queries, size, log);
    const evicted = await evictAndReopen(dir, loaded.loadedUsers, queries, size, log);
    const { loadedUsers, ...loadFigures } = loaded;
    const out = {
      ranAt: new Date().toISOString(),
      machine: { cpu: cpus()[0]?.model ?? 'unknown', cores: cpus().length, node: process.version },
      asked: { vaults: size.vaults, notesPerVault: size.notes },
      vaults: loadedUsers.length,
      notesPerVault: size.notes,
      ...(seeded.limitedByTime ? { limitedBy: `seeding time (${size.seedBudgetMs / 60_000} min)` } : {}),
      ...(loadedUsers.length < seeded.users.length ? { stoppedAtRssMiB: size.maxRssMiB } : {}),
      decodedNotesMiB: size.decodedNotesMiB,
      seedSeconds: seeded.seedSeconds,
      seedPerVault: seeded.perVault,
      ...loadFigures,
      ...evicted,
      extrapolated1000VaultsMiB: Math.round(loaded.rssBaselineMiB + 1000 * loaded.rssPerLoadedVaultMiB),
      notes: NOTES,
    };
    const file = new URL(quick ? 'pool.json.tmp' : 'pool.json', RESULTS);
    await writeFile(file, `${formatJson(out)}\n`);
    log(`written: ${fileURLToPath(file)}`);
    return out;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const NOTES = [
  'One server, one request at a time; latency is wall time over loopback on a shared machine, CPU is the server process from /proc (10 ms ticks).',
  'firstOpen: the first /memory/search of each vault after the server started (--idle-minutes 600, nothing evicted): the open from its .mem/index cache plus the search.',
  'reopenAfterEviction: a second server (--idle-minutes 1) touches every vault, waits for each "unloaded idle vault" notice, then touches each again.',
  "rssAfterEvictionMiB is read at the last unload notice (the close runs just after it), without forcing a GC; peakRssMiB is the first server's, peakRssEvictionServerMiB the second's.",
  'extrapolated1000VaultsMiB: the empty server plus 1,000 times the RSS each loaded vault added here.',
  "decodedNotesMiB: the servers' --decoded-notes-mib, the bound on all vaults' decoded notes together: the default 16 MiB scaled to the vaults run (16 x vaults / 1,000, POOL_DECODED_NOTES_MIB overrides), so that the figure per vault extrapolates to a 1,000-vault pool at the default.",
];
